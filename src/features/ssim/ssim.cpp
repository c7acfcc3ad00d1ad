// float_ssim and float_ms_ssim extractors and the shared host finish: means,
// the multi-scale product, dB conversion (the contract is in ssim.h).
#include "features/ssim/ssim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/hd_math.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// Exponents per scale (libvmaf's float tables, used as doubles).
constexpr float kMsSsimAlpha[kMsSsimScales] = {0.0f, 0.0f, 0.0f, 0.0f, 0.1333f};
constexpr float kMsSsimBeta[kMsSsimScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
constexpr float kMsSsimGamma[kMsSsimScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

Status check_depth(std::string_view feature, int bpc) {
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    TWINMAF_FAIL(kUnsupported, "{}: bit depth {} is not supported (8, 10, 12 or 16)", feature, bpc);
  return ok_status();
}

// The options both features share (libvmaf's names and defaults; none is a
// feature parameter): float_ms_ssim's whole table, float_ssim's first rows.
struct SsimOptions {
  bool enable_lcs;
  bool enable_db;
  bool clip_db;
};

const OptionTable<SsimOptions>& ssim_options() {
  using P = SsimOptions;
  static const OptionTable<P> t{
      opt(&P::enable_lcs, {.name = "enable_lcs", .default_value = false,
                           .help = "also output the mean luminance, contrast and structure terms"}),
      opt(&P::enable_db, {.name = "enable_db", .default_value = false,
                          .help = "output the score in dB, -10*log10(1 - score)"}),
      opt(&P::clip_db, {.name = "clip_db", .default_value = false,
                        .help = "cap dB scores at the dB of half a squared sample error over the picture"}),
  };
  return t;
}

struct FloatSsimOptions : SsimOptions {
  int scale;
};

class FloatSsim final : public Extractor {
 public:
  using Params = FloatSsimOptions;
  static const OptionTable<Params>& options() {
    static const OptionTable<Params> t{
        ssim_options(),
        opt(&Params::scale,
            {.name = "scale", .default_value = 0, .min = 0, .max = kSsimMaxScale,
             .help = "downscaling factor before SSIM: 0 picks one from the size, 1 keeps full size"})};
    return t;
  }

  explicit FloatSsim(const Params& p)
      : enable_lcs_(p.enable_lcs), enable_db_(p.enable_db), clip_db_(p.clip_db), scale_(p.scale) {}

  Status init(const VideoFormat& fmt) override {
    TWINMAF_RETURN_IF_ERROR(check_depth("float_ssim", fmt.bpc));
    bpc_ = fmt.bpc;
    factor_ = float_ssim_factor(scale_, fmt.w, fmt.h);
    w_ = factor_ > 1 ? ssim_decimated_size(fmt.w, factor_) : fmt.w;
    h_ = factor_ > 1 ? ssim_decimated_size(fmt.h, factor_) : fmt.h;
    max_db_ = ssim_max_db(clip_db_, fmt.bpc, fmt.w, fmt.h);
    ssim_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kLuma, .dis = Planes::kLuma}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatSsimTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    float_ssim_terms(in.ref->plane(0), in.dis->plane(0), bpc_, factor_, dsp_,
                     down_cast<FloatSsimTerms&>(terms).sums);
    return ok_status();
  }

  int factor() const { return factor_; }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const SsimMeans m = ssim_means(down_cast<const FloatSsimTerms&>(terms).sums, w_, h_);
    double score = m.lcs;
    if (enable_db_) score = ssim_to_db(score, max_db_);
    TWINMAF_RETURN_IF_ERROR(out.append("float_ssim", index, score));
    if (enable_lcs_) {
      TWINMAF_RETURN_IF_ERROR(out.append("float_ssim_l", index, m.l));
      TWINMAF_RETURN_IF_ERROR(out.append("float_ssim_c", index, m.c));
      TWINMAF_RETURN_IF_ERROR(out.append("float_ssim_s", index, m.s));
    }
    return ok_status();
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  int scale_;
  int bpc_ = 8;
  int factor_ = 1;
  int w_ = 0, h_ = 0;  // the image SSIM runs on
  double max_db_ = 0;
  SsimRowKernels dsp_ = ssim_row_kernels_ref();  // chosen by init
};

class FloatMsSsim final : public Extractor {
 public:
  using Params = SsimOptions;
  static const OptionTable<Params>& options() { return ssim_options(); }

  explicit FloatMsSsim(const Params& p)
      : enable_lcs_(p.enable_lcs), enable_db_(p.enable_db), clip_db_(p.clip_db) {}

  Status init(const VideoFormat& fmt) override {
    TWINMAF_RETURN_IF_ERROR(check_depth("float_ms_ssim", fmt.bpc));
    if (fmt.w < kMsSsimMinSize || fmt.h < kMsSsimMinSize)
      TWINMAF_FAIL(kUnsupported, "float_ms_ssim: needs a luma plane of at least {}x{} (got {}x{})", kMsSsimMinSize,
                   kMsSsimMinSize, fmt.w, fmt.h);
    bpc_ = fmt.bpc;
    int w = fmt.w, h = fmt.h;
    for (int i = 0; i < kMsSsimScales; ++i) {
      w_[i] = w;
      h_[i] = h;
      w = ssim_decimated_size(w, 2);
      h = ssim_decimated_size(h, 2);
    }
    max_db_ = ssim_max_db(clip_db_, fmt.bpc, fmt.w, fmt.h);
    ssim_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kLuma, .dis = Planes::kLuma}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatMsSsimTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    float_ms_ssim_terms(in.ref->plane(0), in.dis->plane(0), bpc_, dsp_,
                        down_cast<FloatMsSsimTerms&>(terms).scale);
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& t = down_cast<const FloatMsSsimTerms&>(terms);
    SsimMeans m[kMsSsimScales];
    for (int i = 0; i < kMsSsimScales; ++i) m[i] = ssim_means(t.scale[i], w_[i], h_[i]);
    double score = ms_ssim_score(m);
    if (enable_db_) score = ssim_to_db(score, max_db_);
    TWINMAF_RETURN_IF_ERROR(out.append("float_ms_ssim", index, score));
    if (enable_lcs_) {
      static const auto names = [] {
        std::vector<std::string> n;
        for (const char* part : {"l", "c", "s"})
          for (int i = 0; i < kMsSsimScales; ++i)
            n.push_back(std::string("float_ms_ssim_") + part + "_scale" + std::to_string(i));
        return n;
      }();
      // Columns keep their first-append order: all l, then all c, then all s.
      for (int i = 0; i < kMsSsimScales; ++i) TWINMAF_RETURN_IF_ERROR(out.append(names[i], index, m[i].l));
      for (int i = 0; i < kMsSsimScales; ++i)
        TWINMAF_RETURN_IF_ERROR(out.append(names[kMsSsimScales + i], index, m[i].c));
      for (int i = 0; i < kMsSsimScales; ++i)
        TWINMAF_RETURN_IF_ERROR(out.append(names[2 * kMsSsimScales + i], index, m[i].s));
    }
    return ok_status();
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  int bpc_ = 8;
  int w_[kMsSsimScales] = {}, h_[kMsSsimScales] = {};
  double max_db_ = 0;
  SsimRowKernels dsp_ = ssim_row_kernels_ref();  // chosen by init
};

}  // namespace

SsimPyramid ssim_configured_pyramid(const Extractor& configured) {
  if (const auto* e = dynamic_cast<const FloatSsim*>(&configured)) return {.multi_scale = false, .factor = e->factor()};
  return {.multi_scale = true, .factor = 2};
}

bool SsimSums::operator==(const SsimSums& o) const {
  return double_bits(lcs) == double_bits(o.lcs) && double_bits(l) == double_bits(o.l) &&
         double_bits(c) == double_bits(o.c) && double_bits(s) == double_bits(o.s);
}

SsimMeans ssim_means(const SsimSums& sums, int w, int h) {
  const double n = static_cast<double>((w - (kSsimWindow - 1)) * (h - (kSsimWindow - 1)));
  return {static_cast<float>(sums.lcs / n), static_cast<float>(sums.l / n), static_cast<float>(sums.c / n),
          static_cast<float>(sums.s / n)};
}

int float_ssim_factor(int scale, int w, int h) {
  if (scale > 0) return scale;
  // libvmaf: max(1, round(min(w,h) / 256.0f)), halves up; exact in float.
  return std::max(1, (std::min(w, h) + 128) / 256);
}

double ms_ssim_score(const SsimMeans means[kMsSsimScales]) {
  double score = 1.0;
  for (int i = 0; i < kMsSsimScales; ++i)
    score *= std::pow(static_cast<double>(means[i].l), static_cast<double>(kMsSsimAlpha[i])) *
             std::pow(static_cast<double>(means[i].c), static_cast<double>(kMsSsimBeta[i])) *
             std::pow(static_cast<double>(means[i].s), static_cast<double>(kMsSsimGamma[i]));
  return score;
}

double ssim_max_db(bool clip_db, int bpc, int w, int h) {
  if (!clip_db) return std::numeric_limits<double>::infinity();
  // libvmaf's unsigned arithmetic: peak^2 fits 32 bits up to 16-bit peaks.
  const unsigned peak = (1u << bpc) - 1;
  const double mse = 0.5 / (static_cast<unsigned>(w) * static_cast<unsigned>(h));
  return std::ceil(10. * std::log10((peak * peak) / mse));
}

double ssim_to_db(double score, double max_db) {
  const double db = -10. * std::log10(1 - score);
  return db < max_db ? db : max_db;  // C's MIN: a NaN dB gives max_db
}

const FeatureSpec& float_ssim_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_ssim",
      .options = FloatSsim::options().specs(),
      .provided = {"float_ssim"},
      .create = create_with<FloatSsim>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_ssim_twin,
#endif
  };
  return spec;
}

const FeatureSpec& float_ms_ssim_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_ms_ssim",
      .options = FloatMsSsim::options().specs(),
      .provided = {"float_ms_ssim"},
      .create = create_with<FloatMsSsim>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_ssim_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
