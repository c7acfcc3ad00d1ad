// cambi extractor: options, init (cambi_setup: sizes, window, tvi, vlt,
// limits), heatmaps, and the shared host finish (the contract is in cambi.h).
#include "features/cambi/cambi.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "base/hd_math.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

constexpr int kScaleWeights[kCambiScales] = {16, 8, 4, 2, 1};
// Suprathreshold contrast response w_d, d = 1..32.
constexpr int kContrastWeights[kCambiMaxDiffs] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                                  8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
constexpr double kDefaultTopk = 0.6;
constexpr const char* kDefaultEotf = "bt1886";
constexpr const char* kScoreName = "Cambi_feature_cambi_score";

// 10-bit limited range: luminance is defined on [foot, head].
constexpr int kFoot = 64;
constexpr int kHead = 940;
constexpr int kMax10 = 1023;

// Lw 300, Lb 0.01, gamma 2.4. The constant pows fold at compile time here as
// in libvmaf's build (the same doubles as glibc's pow at run time, checked).
double bt1886_eotf(double v) {
  const double a = std::pow(std::pow(300.0, 1.0 / 2.4) - std::pow(0.01, 1.0 / 2.4), 2.4);
  const double b = std::pow(0.01, 1.0 / 2.4) / (std::pow(300.0, 1.0 / 2.4) - std::pow(0.01, 1.0 / 2.4));
  const double x = v + b;
  return a * std::pow(x > 0 ? x : 0.0, 2.4);
}

double pq_eotf(double v) {
  const double m1 = 0.1593017578125, m2 = 78.84375;
  const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
  const double num = std::pow(v, 1.0 / m2) - c1;
  const double den = c2 - c3 * std::pow(v, 1.0 / m2);
  return 10000 * std::pow((num > 0 ? num : 0.0) / den, 1.0 / m1);
}

// dL between code and code + diff exceeds threshold * L.
bool visible(int code, int diff, double threshold, CambiEotf eotf) {
  const double mean = cambi_luminance(code, eotf);
  const double above = cambi_luminance(code + diff, eotf);
  return above - mean > threshold * mean;
}

enum class Bisect : uint8_t { kTooSmall, kCorrect, kTooBig };

Bisect classify(int code, int diff, double threshold, CambiEotf eotf) {
  if (!visible(code, diff, threshold, eotf)) return Bisect::kTooBig;
  if (visible(code + 1, diff, threshold, eotf)) return Bisect::kTooSmall;
  return Bisect::kCorrect;
}

// The code where a step of `diff` stops being visible: libvmaf's end checks
// and bisection, in its order (the answer is the first kCorrect it meets).
int tvi_for_diff(int diff, double threshold, CambiEotf eotf) {
  int lo = kFoot;
  int hi = kHead - diff - 1;
  Bisect b = classify(lo, diff, threshold, eotf);
  if (b == Bisect::kTooBig) return 0;
  if (b == Bisect::kCorrect) return lo;
  b = classify(hi, diff, threshold, eotf);
  if (b == Bisect::kTooSmall) return kMax10;
  if (b == Bisect::kCorrect) return hi;
  // Invariant: lo is kTooSmall, hi is kTooBig, so lo + 1 < hi and mid moves.
  for (;;) {
    const int mid = lo + (hi - lo) / 2;
    b = classify(mid, diff, threshold, eotf);
    if (b == Bisect::kCorrect) return mid;
    (b == Bisect::kTooBig ? hi : lo) = mid;
  }
}

// libvmaf's window adjustment on uint16: scale by (w + h) / (3840 + 2160),
// halve with the speedup, make odd.
int adjust_window(int window, int w, int h, bool speedup) {
  uint16_t ws = static_cast<uint16_t>(window);
  ws = static_cast<uint16_t>((static_cast<unsigned>(ws) * static_cast<unsigned>(w + h) / 375u) >> 4);
  if (speedup) ws = static_cast<uint16_t>((ws + 1) >> 1);
  return ws | 1;
}

Status plan_picture(const char* what, int in_w, int in_h, int w, int h, int window, bool speedup,
                    CambiPicturePlan& plan) {
  plan.in_w = in_w;
  plan.in_h = in_h;
  plan.w = w;
  plan.h = h;
  plan.window = window;
  plan.speedup = speedup;
  plan.src_x.clear();
  plan.src_y.clear();
  if (w != in_w || h != in_h) {
    plan.src_x = cambi_resample_index(in_w, w);
    plan.src_y = cambi_resample_index(in_h, h);
    const auto bad_x =
        std::find_if(plan.src_x.begin(), plan.src_x.end(), [&](int x) { return x < 0 || x >= in_w; });
    const auto bad_y =
        std::find_if(plan.src_y.begin(), plan.src_y.end(), [&](int y) { return y < 0 || y >= in_h; });
    if (bad_x != plan.src_x.end() || bad_y != plan.src_y.end())
      TWINMAF_FAIL(kUnsupported,
                   "cambi: resampling the {}x{} input to the {} size {}x{} reads outside the input "
                   "(libvmaf's float positions overshoot)",
                   in_w, in_h, what, w, h);
  }
  // libvmaf's histogram passes read rows 0..p-1 and columns 0..p-1 of every
  // scale and, below p rows, write c-values before their buffer. (Its extra
  // pass over row p when a scale has exactly p rows writes past the scored
  // area only.)
  const int p = window >> 1;
  const int w4 = plan.scaled(plan.w, kCambiScales - 1), h4 = plan.scaled(plan.h, kCambiScales - 1);
  if (w4 < p || h4 < p)
    TWINMAF_FAIL(kUnsupported,
                 "cambi: the {} size {}x{} is too small for its {}-pixel window: scale 4 is {}x{}, "
                 "needs at least {}x{} (libvmaf reads and writes outside its buffers below that)",
                 what, w, h, window, w4, h4, p, p);
  return ok_status();
}

// libvmaf's mkdirp: every missing directory of `path`, mode 0770.
bool make_dirs(const std::string& path) {
  if (path.empty()) return false;
  std::string p;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '/' && !p.empty() && p.back() == '/') continue;
    p += path[i];
  }
  for (size_t pos = p.find('/', 1); pos != std::string::npos; pos = p.find('/', pos + 1)) {
    const std::string parent = p.substr(0, pos);
    if (::mkdir(parent.c_str(), 0770) != 0 && errno != EEXIST) return false;
  }
  return ::mkdir(p.c_str(), 0770) == 0 || errno == EEXIST;
}

// One file per scale; frames go to their own offsets (pwrite), so compute may
// run frames concurrently.
class Heatmaps final : public CambiCValueSink {
 public:
  ~Heatmaps() override {
    for (int fd : fd_)
      if (fd >= 0) ::close(fd);
  }

  Status open(const std::string& dir, int enc_w, int enc_h, int window, int max_weight) {
    if (!make_dirs(dir))
      TWINMAF_FAIL(kIo, "cambi: could not create heatmaps_path {}: {}", dir, std::strerror(errno));
    int w = enc_w, h = enc_h;
    for (int s = 0; s < kCambiScales; ++s) {
      const std::string path = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", dir, s, w, h);
      fd_[s] = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd_[s] < 0)
        TWINMAF_FAIL(kIo, "cambi: could not open heatmaps_path: {}: {}", path, std::strerror(errno));
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
    // libvmaf: 65535.0 / (int)(max w_d * W * W / 4). That int is 0 only with a
    // 1-pixel window, where every c-value is 0 and libvmaf's inf * 0 = NaN
    // converts to 0x80000000, whose low 16 bits are 0: a factor of 0 writes
    // the same zeros.
    const int max_c = max_weight * window * window / 4;
    scale_ = max_c > 0 ? 65535.0 / max_c : 0.0;
    return ok_status();
  }

  Status write(int scale, unsigned frame, std::span<const float> c, int w, int h) override {
    thread_local std::vector<uint16_t> out;
    out.resize(c.size());
    for (size_t i = 0; i < c.size(); ++i)
      // (uint16_t)(double) is cvttsd2si to int32 and its low 16 bits on x86-64:
      // values above 65535 (up to ~74000, cambi.h) wrap.
      out[i] = static_cast<uint16_t>(static_cast<int32_t>(scale_ * c[i]));
    const size_t bytes = out.size() * sizeof(uint16_t);
    const off_t offset = static_cast<off_t>(frame) * w * h * static_cast<off_t>(sizeof(uint16_t));
    const char* p = reinterpret_cast<const char*>(out.data());
    for (size_t done = 0; done < bytes;) {
      const ssize_t n = ::pwrite(fd_[scale], p + done, bytes - done, offset + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) TWINMAF_FAIL(kIo, "cambi: writing heatmap scale {}: {}", scale, std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    return ok_status();
  }

 private:
  int fd_[kCambiScales] = {-1, -1, -1, -1, -1};
  double scale_ = 0;
};

class Cambi final : public Extractor {
 public:
  using Params = CambiOptions;
  static const OptionTable<Params>& options();

  Cambi(const Params& opt, const Options& o) : opt_(opt), name_(o.feature_name(kScoreName)) {}

  Status init(const VideoFormat& fmt) override {
    TWINMAF_ASSIGN_OR_RETURN(setup_, cambi_setup(opt_, fmt));
    bpc_ = fmt.bpc;
    cambi_dsp_init(dsp_);
    if (!opt_.heatmaps_path.empty()) {
      heatmaps_ = std::make_unique<Heatmaps>();
      const int max_weight =
          *std::max_element(setup_.weight.begin(), setup_.weight.begin() + setup_.num_diffs);
      // File names carry the encoding size even where the speedup halves scale 0.
      const int enc_w = setup_.dis.w, enc_h = setup_.dis.h;
      TWINMAF_RETURN_IF_ERROR(
          heatmaps_->open(opt_.heatmaps_path, enc_w, enc_h, setup_.dis.window, max_weight));
    }
    return ok_status();
  }

  const CambiSetup& setup() const { return setup_; }
  bool writes_heatmaps() const { return heatmaps_ != nullptr; }

  FeatureNeeds needs() const override {
    return {.ref = setup_.full_ref ? Planes::kLuma : Planes::kNone, .dis = Planes::kLuma};
  }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<CambiTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<CambiTerms&>(terms);
    const auto picture_terms = dsp_.picture_terms;
    TWINMAF_RETURN_IF_ERROR(
        picture_terms(in.dis->plane(0), bpc_, setup_, setup_.dis, in.index, heatmaps_.get(), t.dis));
    if (setup_.full_ref)
      TWINMAF_RETURN_IF_ERROR(
          picture_terms(in.ref->plane(0), bpc_, setup_, setup_.src, in.index, nullptr, t.src));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& t = down_cast<const CambiTerms&>(terms);
    const double max = setup_.max_val;
    // C's MIN(a, b) = a < b ? a : b and MAX(a, b) = a > b ? a : b.
    const auto clip = [max](double v) { return v < max ? v : max; };
    const double dis = cambi_score(t.dis, setup_.dis.window);
    TWINMAF_RETURN_IF_ERROR(out.append(name_, index, clip(dis)));
    if (setup_.full_ref) {
      const double src = cambi_score(t.src, setup_.src.window);
      TWINMAF_RETURN_IF_ERROR(out.append("cambi_source", index, clip(src)));
      const double diff = dis - src;
      TWINMAF_RETURN_IF_ERROR(out.append("cambi_full_reference", index, clip(0 > diff ? 0.0 : diff)));
    }
    return ok_status();
  }

 private:
  CambiOptions opt_;
  std::string name_;
  CambiSetup setup_;
  int bpc_ = 8;
  CambiDsp dsp_ = cambi_dsp_ref();  // chosen by init
  std::unique_ptr<Heatmaps> heatmaps_;
};

const OptionTable<CambiOptions>& Cambi::options() {
  using P = CambiOptions;
  static const OptionTable<P> t{
      opt(&P::max_val, {.name = "cambi_max_val", .alias = "cmxv", .default_value = 1000.0, .min = 0.0, .max = 1000.0,
                        .feature_param = true, .help = "scores above this value are clipped to it"}),
      opt(&P::enc_width, {.name = "enc_width", .alias = "encw", .default_value = 0, .min = 180, .max = 7680,
                          .feature_param = true,
                          .help = "width the distorted video was encoded at (0: the input width)"}),
      opt(&P::enc_height, {.name = "enc_height", .alias = "ench", .default_value = 0, .min = 150, .max = 7680,
                           .feature_param = true,
                           .help = "height the distorted video was encoded at (0: the input height)"}),
      opt(&P::enc_bitdepth, {.name = "enc_bitdepth", .alias = "encbd", .default_value = 0, .min = 6, .max = 16,
                             .feature_param = true,
                             .help = "bit depth of the encode (0: the input's); below 10 smooths dithering first"}),
      opt(&P::src_width, {.name = "src_width", .alias = "srcw", .default_value = 0, .min = 320, .max = 7680,
                          .feature_param = true,
                          .help = "width the reference is scored at with full_ref (0: the input width)"}),
      opt(&P::src_height, {.name = "src_height", .alias = "srch", .default_value = 0, .min = 200, .max = 4320,
                           .feature_param = true,
                           .help = "height the reference is scored at with full_ref (0: the input height)"}),
      opt(&P::window_size, {.name = "window_size", .alias = "ws", .default_value = 65, .min = 15, .max = 127,
                            .feature_param = true,
                            .help = "window side at 4K (65 is about one degree), scaled with the picture size"}),
      opt(&P::topk, {.name = "topk", .default_value = kDefaultTopk, .min = 0.0001, .max = 1.0, .feature_param = true,
                     .help = "fraction of the largest c-values averaged per scale; wins over cambi_topk if not 0.6"}),
      opt(&P::cambi_topk, {.name = "cambi_topk", .alias = "ctpk", .default_value = kDefaultTopk, .min = 0.0001,
                           .max = 1.0, .feature_param = true,
                           .help = "fraction of the largest c-values averaged per scale"}),
      opt(&P::tvi_threshold, {.name = "tvi_threshold", .alias = "tvit", .default_value = 0.019, .min = 0.0001,
                              .max = 1.0, .feature_param = true,
                              .help = "a luminance step dL is visible when dL > tvi_threshold * L"}),
      opt(&P::vis_lum_threshold, {.name = "cambi_vis_lum_threshold", .alias = "vlt", .default_value = 0.0, .min = 0.0,
                                  .max = 300.0, .feature_param = true,
                                  .help = "luminance (cd/m2) below which banding is taken as invisible"}),
      opt(&P::max_log_contrast, {.name = "max_log_contrast", .alias = "mlc", .default_value = 2, .min = 0, .max = 5,
                                 .feature_param = true,
                                 .help = "largest step considered, log2 of 10-bit codes (2: 4 codes, 1 code at 8 "
                                         "bit)"}),
      opt(&P::heatmaps_path, {.name = "heatmaps_path", .default_value = std::string(),
                              .help = "directory to write per-scale 16-bit c-value maps into"}),
      opt(&P::full_ref, {.name = "full_ref", .default_value = false,
                         .help = "also score the reference and output cambi_source and cambi_full_reference"}),
      opt(&P::eotf, {.name = "eotf", .default_value = std::string(kDefaultEotf), .feature_param = true,
                     .help = "EOTF for the visibility thresholds: bt1886 or pq"}),
      opt(&P::cambi_eotf, {.name = "cambi_eotf", .alias = "ceot", .default_value = std::string(kDefaultEotf),
                           .feature_param = true,
                           .help = "EOTF for the visibility thresholds: bt1886 or pq (wins over eotf when not "
                                   "bt1886)"}),
      opt(&P::high_res_speedup, {.name = "cambi_high_res_speedup", .alias = "hrs", .default_value = 0, .min = 0,
                                 .max = 2160, .feature_param = true,
                                 .help = "halve scale 0 from this encoding resolution on: 1080, 1440 or 2160 (0: "
                                         "off)"}),
  };
  return t;
}

}  // namespace

const CambiSetup& cambi_configured_setup(const Extractor& configured) {
  return down_cast<const Cambi&>(configured).setup();
}

bool cambi_writes_heatmaps(const Extractor& configured) {
  return down_cast<const Cambi&>(configured).writes_heatmaps();
}

const std::array<float, kCambiReciprocals>& cambi_reciprocal_table() {
  static const std::array<float, kCambiReciprocals> table = [] {
    std::array<float, kCambiReciprocals> t{};
    t[0] = 0.0f;
    for (int i = 1; i < kCambiReciprocals; ++i) {
      // "%.9g" of 1/i, then read as a float (not 1.0f / i: 42 entries differ).
      char buf[32];
      const auto printed = std::to_chars(buf, buf + sizeof buf, 1.0 / i, std::chars_format::general, 9);
      std::from_chars(buf, printed.ptr, t[static_cast<size_t>(i)]);
    }
    return t;
  }();
  return table;
}

CambiOptions cambi_options(const Options& o) {
  Result<CambiOptions> r = Cambi::options().fill(o);  // no cambi row refuses a parsed value
  return r.ok() ? std::move(r).value() : CambiOptions{};
}

int CambiPicturePlan::scaled(int size, int s) const {
  for (int k = 0; k < s + (speedup ? 1 : 0); ++k) size = (size + 1) >> 1;
  return size;
}

std::vector<int> cambi_resample_index(int in, int out) {
  std::vector<int> idx(static_cast<size_t>(out));
  const float ratio =
      static_cast<float>(static_cast<unsigned>(in)) / static_cast<float>(static_cast<unsigned>(out));
  float x = static_cast<float>(ratio / 2 - 0.5);  // float / 2, minus a double, stored as float
  for (int j = 0; j < out; ++j) {
    idx[static_cast<size_t>(j)] = static_cast<int>(x + 0.5);  // double sum, truncated
    x += ratio;
  }
  return idx;
}

double cambi_luminance(int code, CambiEotf eotf) {
  const int c = code < kFoot ? kFoot : (code > kHead ? kHead : code);
  const double v = static_cast<double>(c - kFoot) / (kHead - kFoot);
  return eotf == CambiEotf::kPq ? pq_eotf(v) : bt1886_eotf(v);
}

Result<CambiSetup> cambi_setup(const CambiOptions& opt, const VideoFormat& fmt) {
  CambiSetup s;
  const int in_w = fmt.w, in_h = fmt.h;
  int enc_w = opt.enc_width, enc_h = opt.enc_height;
  int src_w = opt.src_width, src_h = opt.src_height;
  if (enc_w == 0 || enc_h == 0) enc_w = in_w, enc_h = in_h;
  if (src_w == 0 || src_h == 0) src_w = in_w, src_h = in_h;
  // A downscaled encode is scored at its own size, never upscaled.
  if (enc_h > in_h || enc_w > in_w) enc_w = in_w, enc_h = in_h;
  if (enc_w < kCambiMinSize && enc_h < kCambiMinSize)
    TWINMAF_FAIL(kUnsupported, "cambi: needs a width or height of at least {} (encoding size {}x{})",
                 kCambiMinSize, enc_w, enc_h);
  if (src_w < kCambiMinSize && src_h < kCambiMinSize)
    TWINMAF_FAIL(kUnsupported, "cambi: needs a source width or height of at least {} (source size {}x{})",
                 kCambiMinSize, src_w, src_h);
  if ((src_w > enc_w && src_h < enc_h) || (src_w < enc_w && src_h > enc_h))
    TWINMAF_FAIL(kInvalidArgument,
                 "cambi: source size {}x{} and encoding size {}x{} must not be larger in one dimension "
                 "and smaller in the other",
                 src_w, src_h, enc_w, enc_h);

  const long enc_pixels = static_cast<long>(enc_w) * enc_h;
  bool speedup = false;
  switch (opt.high_res_speedup) {
    case 1080:
      speedup = enc_pixels >= 1920L * 1080;
      break;
    case 1440:
      speedup = enc_pixels >= 2560L * 1440;
      break;
    case 2160:
      speedup = enc_pixels >= 3840L * 2160;
      break;
    default:
      break;
  }

  CambiEotf eotf;
  const std::string& eotf_name = opt.cambi_eotf != kDefaultEotf ? opt.cambi_eotf : opt.eotf;
  if (eotf_name == "bt1886")
    eotf = CambiEotf::kBt1886;
  else if (eotf_name == "pq")
    eotf = CambiEotf::kPq;
  else
    TWINMAF_FAIL(kInvalidArgument, "cambi: unknown eotf '{}' (bt1886 or pq)", eotf_name);

  const int n = 1 << opt.max_log_contrast;
  s.num_diffs = n;
  for (int d = 1; d <= n; ++d) {
    s.weight[static_cast<size_t>(d - 1)] = kContrastWeights[d - 1];
    s.tvi[static_cast<size_t>(d - 1)] = tvi_for_diff(d, opt.tvi_threshold, eotf);
  }
  // c-values read H(v + d) for v <= tvi[d-1]; it must stay in the band.
  for (int d = 1; d <= n; ++d)
    if (s.tvi[static_cast<size_t>(d - 1)] + d > s.tvi[static_cast<size_t>(n - 1)] + n)
      TWINMAF_FAIL(kUnsupported,
                   "cambi: tvi_threshold {} gives a visibility table that decreases with the step "
                   "(libvmaf reads outside its histograms)",
                   format_g(opt.tvi_threshold));

  // The first code from the foot whose luminance reaches the threshold.
  if (cambi_luminance(kHead, eotf) < opt.vis_lum_threshold)
    TWINMAF_FAIL(kUnsupported,
                 "cambi: cambi_vis_lum_threshold {} is above the peak luminance {} of {} (libvmaf "
                 "loops forever)",
                 format_g(opt.vis_lum_threshold), format_g(cambi_luminance(kHead, eotf)), eotf_name);
  int code = kFoot;
  while (cambi_luminance(code, eotf) < opt.vis_lum_threshold) ++code;
  s.vlt_luma = code == kFoot ? 0 : code;

  const int window = adjust_window(opt.window_size, enc_w, enc_h, speedup);
  const int src_window = adjust_window(opt.window_size, src_w, src_h, speedup);
  const int max_window = std::max(window, src_window);
  if (max_window * max_window >= kCambiReciprocals)
    TWINMAF_FAIL(kUnsupported,
                 "cambi: window_size {} at {}x{} gives a {}-pixel window, above the largest the "
                 "reciprocal table allows (65)",
                 opt.window_size, max_window == window ? enc_w : src_w, max_window == window ? enc_h : src_h,
                 max_window);

  s.band_base = std::max(0, s.vlt_luma - 3 * n + 1);
  s.band_size = s.tvi[static_cast<size_t>(n - 1)] + n + 1 - s.band_base;
  if (s.band_size <= 0)
    TWINMAF_FAIL(kUnsupported,
                 "cambi: cambi_vis_lum_threshold {} (code {}) is above every visibility threshold of "
                 "tvi_threshold {} (largest code {}): no value can band (libvmaf writes outside its "
                 "histograms)",
                 format_g(opt.vis_lum_threshold), s.vlt_luma, format_g(opt.tvi_threshold),
                 s.tvi[static_cast<size_t>(n - 1)]);
  s.full_ref = opt.full_ref;
  s.anti_dither = (opt.enc_bitdepth == 0 ? fmt.bpc : opt.enc_bitdepth) < 10;
  s.topk = opt.topk != kDefaultTopk ? opt.topk : opt.cambi_topk;
  s.max_val = opt.max_val;

  TWINMAF_RETURN_IF_ERROR(plan_picture("encoding", in_w, in_h, enc_w, enc_h, window, speedup, s.dis));
  if (s.full_ref) {
    TWINMAF_RETURN_IF_ERROR(plan_picture("source", in_w, in_h, src_w, src_h, src_window, speedup, s.src));
    // libvmaf copies a same-size 10-bit picture with the input's stride into
    // buffers as wide as the larger of both sizes (32-sample rows).
    const int alloc_w = std::max(src_w, enc_w);
    const bool same_size = (enc_w == in_w && enc_h == in_h) || (src_w == in_w && src_h == in_h);
    if (fmt.bpc == 10 && same_size && ((alloc_w + 31) / 32 != (in_w + 31) / 32))
      TWINMAF_FAIL(kUnsupported,
                   "cambi: full_ref at 10 bit with src_width {} above the input width {} is not "
                   "supported (libvmaf copies rows into a wider buffer and scores misplaced rows)",
                   src_w, in_w);
  }
  return s;
}

bool CambiTerms::operator==(const CambiTerms& o) const {
  const auto same = [](const std::array<CambiScaleTerms, kCambiScales>& a,
                       const std::array<CambiScaleTerms, kCambiScales>& b) {
    for (int s = 0; s < kCambiScales; ++s)
      if (a[s].topk_count != b[s].topk_count || double_bits(a[s].topk_sum) != double_bits(b[s].topk_sum))
        return false;
    return true;
  };
  return same(dis, o.dis) && same(src, o.src);
}

double cambi_score(const std::array<CambiScaleTerms, kCambiScales>& t, int window) {
  double score = 0.0;
  for (int s = 0; s < kCambiScales; ++s)
    score += (t[static_cast<size_t>(s)].topk_sum / t[static_cast<size_t>(s)].topk_count) * kScaleWeights[s];
  const int side = 2 * (window >> 1) + 1;
  return score / (side * side);
}

const FeatureSpec& cambi_feature_spec() {
  static const FeatureSpec spec{
      .name = "cambi",
      .options = Cambi::options().specs(),
      .provided = {kScoreName},
      .create = create_with<Cambi>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_cambi_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
