// float_vif extractor: options, limits, kernel parameters, and the shared
// finish() turning FloatVifTerms into libvmaf's scores (contract: float_vif.h).
#include "features/float_vif/float_vif.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>

#include "base/ordered_sum.h"
#include "features/common/float_filter.h"
#include "features/common/float_picture.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// C's MAX macro: the second operand unless the first compares larger (NaN
// picks the second).
double c_max(double x, double y) { return x > y ? x : y; }

// Output names in libvmaf's append order (= its provided_features order);
// kDebugFirst.. only with debug.
enum Out : int {
  kScale0, kScale1, kScale2, kScale3,
  kDebugFirst, kVif = kDebugFirst, kVifNum, kVifDen,
  kNumScale0, kDenScale0, kNumScale1, kDenScale1, kNumScale2, kDenScale2, kNumScale3, kDenScale3,
  kOutCount
};

constexpr const char* kOutName[kOutCount] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score", "VMAF_feature_vif_scale2_score",
    "VMAF_feature_vif_scale3_score", "vif",                           "vif_num",
    "vif_den",                       "vif_num_scale0",                "vif_den_scale0",
    "vif_num_scale1",                "vif_den_scale1",                "vif_num_scale2",
    "vif_den_scale2",                "vif_num_scale3",                "vif_den_scale3",
};

struct FloatVifOptions {
  bool debug;
  double enhn_gain_limit;
  double kernelscale;
  double prescale;
  double scale1_min_val, scale2_min_val, scale3_min_val;
  ResampleMethod method;
  double sigma_nsq;
  bool skip_scale0;
};

// The smallest side of the scaled picture whose computed scales keep every
// filter inside its image under one reflection (float_vif.h, Sizes).
int min_side(const FloatVifKernelParams& kp) {
  int m = 1;
  for (int s = kp.first_scale; s < kFloatVifScales; ++s) {
    const int need = (static_cast<int>(kp.taps[s].size()) / 2 + 1) << s;
    m = need > m ? need : m;
  }
  return m;
}

class FloatVif final : public Extractor {
 public:
  using Params = FloatVifOptions;
  static const OptionTable<Params>& options();
  static Status check(const Params& opt);

  FloatVif(const Params& opt, const Options& o) : opt_(opt) {
    for (int k = 0; k < kOutCount; ++k) names_[k] = o.feature_name(kOutName[k]);
  }

  Status init(const VideoFormat& fmt) override {
    if (!float_picture_depth_ok(fmt.bpc))
      TWINMAF_FAIL(kUnsupported,
                   "float_vif: bit depth {} is not supported (libvmaf's float conversion handles 8, 10, 12 and "
                   "16 bit only)",
                   fmt.bpc);
    kp_.bpc = fmt.bpc;
    kp_.w = fmt.w;
    kp_.h = fmt.h;
    // libvmaf: (int)(w * vif_prescale + 0.5), the unsigned side as a double.
    kp_.scaled_w = static_cast<int>(fmt.w * opt_.prescale + 0.5);
    kp_.scaled_h = static_cast<int>(fmt.h * opt_.prescale + 0.5);
    kp_.method = opt_.method;
    kp_.first_scale = opt_.skip_scale0 ? 1 : 0;
    const auto ks = static_cast<float>(opt_.kernelscale);
    for (int s = 0; s < kFloatVifScales; ++s) kp_.taps[s] = vif_gaussian_filter(s, ks);
    kp_.stat.gain_limit = static_cast<float>(opt_.enhn_gain_limit);
    kp_.stat.sigma_nsq = opt_.sigma_nsq;
    kp_.stat.sigma_max_inv =
        static_cast<float>(::powf(static_cast<float>(opt_.sigma_nsq), 2.0f) / (255.0 * 255.0));

    const bool resamples = kp_.scaled_w != kp_.w || kp_.scaled_h != kp_.h;
    const std::string scaled =
        resamples ? fmt::format(" ({}x{} after vif_prescale {})", kp_.scaled_w, kp_.scaled_h, format_g(opt_.prescale))
                  : std::string();
    if (opt_.method == ResampleMethod::kBilinear && kp_.scaled_w > kFloatVifBilinearMaxWidth)
      TWINMAF_FAIL(kUnsupported, "float_vif: {}x{}{} is wider than {}, the most libvmaf's bilinear prescale takes",
                   fmt.w, fmt.h, scaled, kFloatVifBilinearMaxWidth);
    const int m = min_side(kp_);
    if (kp_.scaled_w < m || kp_.scaled_h < m)
      TWINMAF_FAIL(kUnsupported,
                   "float_vif: {}x{}{} is below the minimum size {}x{} for vif_kernelscale {} (each scale's "
                   "filter must fit its image; libvmaf reads outside its buffers below)",
                   fmt.w, fmt.h, scaled, m, m, format_g(opt_.kernelscale));
    const int rm = resample_min_source(kp_.method);
    if (resamples && (fmt.w < rm || fmt.h < rm))
      TWINMAF_FAIL(kUnsupported,
                   "float_vif: {}x{} is below the minimum size {}x{} of vif_prescale_method {} (libvmaf's "
                   "resampler reads outside the picture below)",
                   fmt.w, fmt.h, rm, rm, method_name());
    return ok_status();
  }

  FeatureNeeds needs() const override { return {}; }  // luma of ref and dis
  const FloatVifKernelParams& kernel_params() const { return kp_; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatVifTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    float_vif_terms_ref(in.ref->plane(0), in.dis->plane(0), kp_, down_cast<FloatVifTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override;

 private:
  std::string_view method_name() const {
    constexpr std::string_view kNames[] = {"nearest", "bilinear", "bicubic", "lanczos4"};
    return kNames[static_cast<int>(kp_.method)];
  }

  FloatVifOptions opt_;
  std::string names_[kOutCount];
  FloatVifKernelParams kp_;
};

Status FloatVif::finish(unsigned index, const FrameTerms& terms, Collector& out) {
  const auto& t = down_cast<const FloatVifTerms&>(terms);
  double scores[2 * kFloatVifScales] = {};
  double num = 0.0, den = 0.0;
  for (int s = kp_.first_scale; s < kFloatVifScales; ++s) {
    scores[2 * s] = ordered_sum(t.num[s]);
    scores[2 * s + 1] = ordered_sum(t.den[s]);
  }
  for (int s = kp_.first_scale; s < kFloatVifScales; ++s) {
    num += scores[2 * s];
    den += scores[2 * s + 1];
  }
  const double vif = den == 0.0 ? 1.0 : num / den;
  double values[kOutCount];
  values[kScale0] = opt_.skip_scale0 ? 0.0 : scores[0] / scores[1];
  const double min_val[kFloatVifScales] = {0.0, opt_.scale1_min_val, opt_.scale2_min_val, opt_.scale3_min_val};
  for (int s = 1; s < kFloatVifScales; ++s)
    values[kScale0 + s] = c_max(scores[2 * s] / scores[2 * s + 1], min_val[s]);
  values[kVif] = vif;
  values[kVifNum] = num;
  values[kVifDen] = den;
  for (int s = 0; s < kFloatVifScales; ++s) {
    values[kNumScale0 + 2 * s] = scores[2 * s];
    values[kDenScale0 + 2 * s] = scores[2 * s + 1];
  }
  if (opt_.skip_scale0) {
    values[kNumScale0] = 0.0;
    values[kDenScale0] = -1.0;
  }
  const int count = opt_.debug ? kOutCount : kDebugFirst;
  for (int k = 0; k < count; ++k) TWINMAF_RETURN_IF_ERROR(out.append(names_[k], index, values[k]));
  return ok_status();
}

// libvmaf logs these (and a vif_prescale_method it does not know, refused
// by the row); it then scores no frame (and exits 0).
Status FloatVif::check(const FloatVifOptions& opt) {
  if (!kernelscale_is_valid(static_cast<float>(opt.kernelscale)))
    TWINMAF_FAIL(kInvalidArgument, "float_vif: vif_kernelscale {} is not one of libvmaf's ({}, within 1e-3)",
                 format_g(opt.kernelscale), kernelscales_text());
  return ok_status();
}

Opt<FloatVifOptions, double> min_val_row(std::string_view name, std::string_view alias,
                                         double FloatVifOptions::*member, std::string_view help) {
  return {member, {.name = name, .alias = alias, .default_value = 0.0, .min = 0.0, .max = 1.0,
                   .feature_param = true, .help = help}};
}

// libvmaf's table, in its order: names, aliases, defaults, ranges,
// feature-param flags.
const OptionTable<FloatVifOptions>& FloatVif::options() {
  using P = FloatVifOptions;
  static const OptionTable<P> t{
      opt(&P::debug, {.name = "debug", .default_value = false,
                      .help = "also write vif, its numerator and denominator, and those of every scale"}),
      opt(&P::enhn_gain_limit, {.name = "vif_enhn_gain_limit", .alias = "egl", .default_value = 100.0, .min = 1.0,
                                .max = 100.0, .feature_param = true,
                                .help = "largest gain of the distorted signal over the reference (1: no enhancement "
                                        "credited)"}),
      opt(&P::kernelscale, {.name = "vif_kernelscale", .alias = "ks", .default_value = 1.0, .min = 0.1, .max = 4.0,
                            .feature_param = true,
                            .help = "Gaussian kernel scale (2 doubles the standard deviation and the kernel size); "
                                    "one of libvmaf's 21 accepted values"}),
      opt(&P::prescale, {.name = "vif_prescale", .alias = "ps", .default_value = 1.0, .min = 0.1, .max = 4.0,
                         .feature_param = true,
                         .help = "resize factor applied to each side of the pictures first (2 doubles them)"}),
      min_val_row("vif_scale1_min_val", "s1miv", &P::scale1_min_val, "lower clip of the scale 1 score"),
      min_val_row("vif_scale2_min_val", "s2miv", &P::scale2_min_val, "lower clip of the scale 2 score"),
      min_val_row("vif_scale3_min_val", "s3miv", &P::scale3_min_val, "lower clip of the scale 3 score"),
      opt(&P::method, {.name = "vif_prescale_method", .alias = "pm", .default_value = ResampleMethod::kNearest,
                       .feature_param = true,
                       .help = "resampler for vif_prescale: nearest, bilinear, bicubic or lanczos4"}),
      opt(&P::sigma_nsq, {.name = "vif_sigma_nsq", .alias = "snsq", .default_value = 2.0, .min = 0.0, .max = 5.0,
                          .feature_param = true, .help = "variance of the neural noise"}),
      opt(&P::skip_scale0, {.name = "vif_skip_scale0", .alias = "ssclz", .default_value = false, .feature_param = true,
                            .help = "leave scale 0 out (its score is written as 0)"}),
  };
  return t;
}

}  // namespace

bool FloatVifTerms::operator==(const FloatVifTerms& o) const {
  const auto same = [](const std::vector<float>& x, const std::vector<float>& y) {
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
  };
  for (int s = 0; s < kFloatVifScales; ++s)
    if (!same(num[s], o.num[s]) || !same(den[s], o.den[s])) return false;
  return true;
}

const FloatVifKernelParams& float_vif_kernel_params(const Extractor& configured) {
  return down_cast<const FloatVif&>(configured).kernel_params();
}

const FeatureSpec& float_vif_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_vif",
      .options = FloatVif::options().specs(),
      .provided = {std::begin(kOutName), std::end(kOutName)},
      .create = create_with<FloatVif>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_vif_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
