#include "features/psnr/psnr.h"

#include <cfloat>
#include <cmath>

#include "features/create_with.h"

namespace twinmaf {

namespace {

// C's MIN/MAX macros: with a NaN operand they return the second one, unlike
// std::min/std::max.
double c_min(double x, double y) { return x < y ? x : y; }
double c_max(double x, double y) { return x > y ? x : y; }

constexpr const char* kPsnrName[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
constexpr const char* kMseName[3] = {"mse_y", "mse_cb", "mse_cr"};
constexpr const char* kApsnrName[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

struct PsnrParams {
  bool enable_chroma;
  bool enable_mse;
  bool enable_apsnr;
  bool reduced_hbd_peak;
  double min_sse;
};

class Psnr final : public Extractor {
 public:
  using Params = PsnrParams;
  static const OptionTable<Params>& options();

  explicit Psnr(const Params& p)
      : enable_chroma_(p.enable_chroma),
        enable_mse_(p.enable_mse),
        enable_apsnr_(p.enable_apsnr),
        reduced_hbd_peak_(p.reduced_hbd_peak),
        min_sse_(p.min_sse) {}

  int planes() const { return enable_chroma_ ? 3 : 1; }

  Status init(const VideoFormat& fmt) override {
    fmt_ = fmt;
    psnr_dsp_init(dsp_);
    const unsigned bpc = static_cast<unsigned>(fmt.bpc);
    peak_ = reduced_hbd_peak_ ? 255u << (bpc - 8) : (1u << bpc) - 1;
    if (fmt.fmt == PixFmt::k400) enable_chroma_ = false;
    // libvmaf scores an empty plane (1x1 4:2:0) as psnr_max: 0/0 pixels.
    if (enable_chroma_ && (fmt.plane_w(1) == 0 || fmt.plane_h(1) == 0))
      TWINMAF_FAIL(kUnsupported,
                   "psnr: the chroma planes of a {}x{} {} picture are empty ({}x{}); score luma only with "
                   "psnr=enable_chroma=false",
                   fmt.w, fmt.h, pix_fmt_name(fmt.fmt), fmt.plane_w(1), fmt.plane_h(1));
    const double peak_sq = static_cast<double>(peak_ * peak_);
    for (int p = 0; p < 3; ++p) {
      if (min_sse_ != 0.0) {
        const bool ss_hor = fmt.fmt != PixFmt::k444;
        const bool ss_ver = fmt.fmt == PixFmt::k420;
        const unsigned w = (p && ss_hor) ? static_cast<unsigned>(fmt.w) / 2 : static_cast<unsigned>(fmt.w);
        const unsigned h = (p && ss_ver) ? static_cast<unsigned>(fmt.h) / 2 : static_cast<unsigned>(fmt.h);
        const double mse = min_sse_ / static_cast<double>(w * h);
        psnr_max_[p] = std::ceil(10. * std::log10(peak_sq / mse));
      } else {
        psnr_max_[p] = 6.0 * bpc + 12;
      }
    }
    return ok_status();
  }

  // libvmaf's psnr is TEMPORAL (for its APSNR sums): every frame, in order;
  // compute() itself keeps no state.
  FeatureNeeds needs() const override {
    const Planes planes = enable_chroma_ ? Planes::kAll : Planes::kLuma;
    return {.ref = planes, .dis = planes, .temporal = true, .state_frames = 0};
  }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<PsnrTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    psnr_sse(dsp_, *in.ref, *in.dis, planes(), down_cast<PsnrTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& t = down_cast<const PsnrTerms&>(terms);
    // libvmaf's 8-bit path hard-codes peak 255 whatever the options say.
    const uint32_t peak = fmt_.bpc == 8 ? 255u : peak_;
    const double peak_sq = static_cast<double>(peak * peak);
    for (int p = 0; p < planes(); ++p) {
      const uint64_t n = static_cast<uint64_t>(fmt_.plane_w(p)) * static_cast<uint64_t>(fmt_.plane_h(p));
      if (enable_apsnr_) {
        apsnr_sse_[p] += t.sse[p];
        apsnr_pixels_[p] += n;
      }
      const double mse = static_cast<double>(t.sse[p]) / static_cast<double>(n);
      const double psnr = c_min(10. * std::log10(peak_sq / c_max(mse, 1e-16)), psnr_max_[p]);
      TWINMAF_RETURN_IF_ERROR(out.append(kPsnrName[p], index, psnr));
      if (enable_mse_) TWINMAF_RETURN_IF_ERROR(out.append(kMseName[p], index, mse));
    }
    return ok_status();
  }

  Status flush(Collector& out) override {
    if (!enable_apsnr_) return ok_status();
    // All three planes, as libvmaf: a plane that was never scored yields -inf.
    const uint32_t peak_sq = peak_ * peak_;
    for (int p = 0; p < 3; ++p) {
      const double apsnr = 10 * (std::log10(static_cast<double>(peak_sq)) +
                                 std::log10(static_cast<double>(apsnr_pixels_[p])) -
                                 std::log10(static_cast<double>(apsnr_sse_[p])));
      const uint64_t cap_arg = uint64_t{peak_sq} * apsnr_pixels_[p] * 2;  // wraps as libvmaf's
      const double cap = std::ceil(10 * std::log10(static_cast<double>(cap_arg)));
      TWINMAF_RETURN_IF_ERROR(out.set_aggregate(kApsnrName[p], c_min(apsnr, cap)));
    }
    return ok_status();
  }

 private:

  bool enable_chroma_;
  bool enable_mse_;
  bool enable_apsnr_;
  bool reduced_hbd_peak_;
  double min_sse_;
  VideoFormat fmt_;
  PsnrDsp dsp_ = psnr_dsp_ref();  // chosen by init
  uint32_t peak_ = 0;
  double psnr_max_[3] = {};
  uint64_t apsnr_sse_[3] = {};
  uint64_t apsnr_pixels_[3] = {};
};

const OptionTable<PsnrParams>& Psnr::options() {
  using P = PsnrParams;
  static const OptionTable<P> t{
      opt(&P::enable_chroma, {.name = "enable_chroma", .default_value = true,
                              .help = "enable calculation for chroma channels"}),
      opt(&P::enable_mse, {.name = "enable_mse", .default_value = false, .help = "enable MSE calculation"}),
      opt(&P::enable_apsnr, {.name = "enable_apsnr", .default_value = false, .help = "enable APSNR calculation"}),
      opt(&P::reduced_hbd_peak, {.name = "reduced_hbd_peak", .default_value = false,
                                 .help = "reduce hbd peak value to align with scaled 8-bit content"}),
      opt(&P::min_sse, {.name = "min_sse", .default_value = 0.0, .min = 0.0, .max = DBL_MAX,
                        .help = "constrain the minimum possible sse"}),
  };
  return t;
}

}  // namespace

int psnr_planes(const Extractor& configured) { return down_cast<const Psnr&>(configured).planes(); }

const FeatureSpec& psnr_feature_spec() {
  static const FeatureSpec spec{
      .name = "psnr",
      .options = Psnr::options().specs(),
      .provided = {"psnr_y", "psnr_cb", "psnr_cr"},
      .create = create_with<Psnr>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_psnr_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
