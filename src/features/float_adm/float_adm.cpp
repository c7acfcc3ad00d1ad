// float_adm extractor: options, per-session constants, and the shared
// finish() turning FloatAdmTerms into libvmaf's scores (contract: float_adm.h).
#include "features/float_adm/float_adm.h"

#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "base/ordered_sum.h"
#include "features/adm/adm_csf.h"
#include "features/common/float_picture.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// M_PI of glibc's math.h, which libvmaf's adm headers use.
constexpr double kPi = 3.14159265358979323846;

// C's MIN/MAX macros: the second operand unless the first compares smaller
// (larger); NaN picks the second.
double c_min(double x, double y) { return x < y ? x : y; }
double c_max(double x, double y) { return x > y ? x : y; }

// Output names in libvmaf's append order; kDebugFirst.. only with debug.
enum Out : int {
  kAdm2, kAim, kAdm3, kScale0, kScale1, kScale2, kScale3,
  kDebugFirst, kAdm = kDebugFirst, kAdmNum, kAdmDen,
  kNumScale0, kDenScale0, kNumScale1, kDenScale1, kNumScale2, kDenScale2, kNumScale3, kDenScale3,
  kOutCount
};

constexpr const char* kOutName[kOutCount] = {
    "VMAF_feature_adm2_score",       "VMAF_feature_aim_score",        "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm",                           "adm_num",
    "adm_den",                       "adm_num_scale0",                "adm_den_scale0",
    "adm_num_scale1",                "adm_den_scale1",                "adm_num_scale2",
    "adm_den_scale2",                "adm_num_scale3",                "adm_den_scale3",
};

// libvmaf's provided_features (float_adm.c), its order: "adm" is written but
// not provided (so its name never takes option suffixes), "adm_scale0" is
// provided but never written.
constexpr const char* kProvided[] = {
    "VMAF_feature_adm2_score",       "VMAF_feature_aim_score",        "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm_num",                       "adm_den",
    "adm_scale0",                    "adm_num_scale0",                "adm_den_scale0",
    "adm_num_scale1",                "adm_den_scale1",                "adm_num_scale2",
    "adm_den_scale2",                "adm_num_scale3",                "adm_den_scale3",
};

struct FloatAdmOptions {
  bool debug;
  double enhn_gain_limit;
  double norm_view_dist;
  double noise_weight;
  double csf_scale;
  double csf_diag_scale;
  int ref_display_height;
  int csf_mode;
  int bypass_cm;
  bool adm3_apply_hm;
  double p_norm;
  double dlm_weight;
  double min_val;
  double f1s0, f1s1, f1s2, f1s3;  // adm_f1s0..3: h/v factor override when >= 0
  double f2s0, f2s1, f2s2, f2s3;  // adm_f2s0..3: diagonal factor override when >= 0
  int skip_aim_scale;
  bool skip_scale0;
};

// The region of a band of size w x h: margins (int)(w*0.1 - 0.5 - extra).
FloatAdmRegion region(int w, int h, bool with_halo) {
  FloatAdmRegion r;
  const double extra = with_halo ? 1.0 : 0.0;
  int left = static_cast<int>(w * 0.1 - 0.5 - extra);
  int top = static_cast<int>(h * 0.1 - 0.5 - extra);
  int right = w - left + (with_halo ? 2 : 0);
  int bottom = h - top + (with_halo ? 2 : 0);
  r.left = left < 0 ? 0 : left;
  r.top = top < 0 ? 0 : top;
  r.right = right > w ? w : right;
  r.bottom = bottom > h ? h : bottom;
  return r;
}

// CSF factors {h/v, diagonal} of scale s (adm_tools.c, the block every stage
// repeats): Barten for mode 1, adm_native_csf for mode 2, Watson97 for every
// other mode, then the adm_f1s/adm_f2s overrides.
std::array<float, 2> csf_factors(const FloatAdmOptions& o, int s) {
  std::array<float, 2> f;
  if (o.csf_mode == 1) {
    f = adm_csf_factors(AdmCsfMode::kBarten, s, o.norm_view_dist, o.ref_display_height, o.csf_scale,
                        o.csf_diag_scale);
  } else if (o.csf_mode == 2) {
    f = {float_adm_native_csf(s, o.norm_view_dist, o.ref_display_height, 0),
         float_adm_native_csf(s, o.norm_view_dist, o.ref_display_height, 45)};
  } else {
    f = adm_csf_factors(AdmCsfMode::kWatson97, s, o.norm_view_dist, o.ref_display_height, o.csf_scale,
                        o.csf_diag_scale);
  }
  const double f1[4] = {o.f1s0, o.f1s1, o.f1s2, o.f1s3};
  const double f2[4] = {o.f2s0, o.f2s1, o.f2s2, o.f2s3};
  if (f1[s] >= 0) f[0] = static_cast<float>(f1[s]);
  if (f2[s] >= 0) f[1] = static_cast<float>(f2[s]);
  return f;
}

class FloatAdm final : public Extractor {
 public:
  using Params = FloatAdmOptions;
  static const OptionTable<Params>& options();

  FloatAdm(const Params& opt, const Options& o) : opt_(opt) {
    for (int k = 0; k < kOutCount; ++k)
      names_[k] = k == kAdm ? std::string(kOutName[k]) : o.feature_name(kOutName[k]);
  }

  Status init(const VideoFormat& fmt) override {
    if (!float_picture_depth_ok(fmt.bpc))
      TWINMAF_FAIL(kUnsupported,
                   "float_adm: bit depth {} is not supported (libvmaf's float conversion handles 8, 10, 12 and "
                   "16 bit only)",
                   fmt.bpc);
    if (fmt.w < kFloatAdmMinSize || fmt.h < kFloatAdmMinSize)
      TWINMAF_FAIL(kUnsupported,
                   "float_adm: {}x{} is below the minimum size {}x{} (the 4-scale DWT and the 3x3 masking need "
                   "bands of at least 2x2 at scale 3; libvmaf reads outside its buffers below)",
                   fmt.w, fmt.h, kFloatAdmMinSize, kFloatAdmMinSize);
    fmt_ = fmt;
    kp_.bpc = fmt.bpc;
    kp_.skip_scale0 = opt_.skip_scale0;
    kp_.bypass_cm = opt_.bypass_cm != 0;
    kp_.enhn_gain_limit = opt_.enhn_gain_limit;
    kp_.p_norm = opt_.p_norm;
    kp_.cos_1deg_sq = static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));
    int w = fmt.w, h = fmt.h;
    for (int s = 0; s < 4; ++s) {
      FloatAdmScaleParams& sp = kp_.scale[s];
      sp.in_w = w;
      sp.in_h = h;
      sp.w = (w + 1) / 2;
      sp.h = (h + 1) / 2;
      w = sp.w;
      h = sp.h;
      sp.decouple = region(sp.w, sp.h, true);
      sp.sums = region(sp.w, sp.h, false);
      const std::array<float, 2> f = csf_factors(opt_, s);
      sp.rfactor[0] = f[0];
      sp.rfactor[1] = f[0];
      sp.rfactor[2] = f[1];
    }
    return ok_status();
  }

  FeatureNeeds needs() const override { return {}; }  // luma of ref and dis
  const FloatAdmKernelParams& kernel_params() const { return kp_; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatAdmTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    float_adm_terms_ref(in.ref->plane(0), in.dis->plane(0), kp_, down_cast<FloatAdmTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override;

 private:
  FloatAdmOptions opt_;
  std::string names_[kOutCount];
  VideoFormat fmt_;
  FloatAdmKernelParams kp_;
};

Status FloatAdm::finish(unsigned index, const FrameTerms& terms, Collector& out) {
  const auto& t = down_cast<const FloatAdmTerms&>(terms);
  // powf's exponent: libvmaf passes 1.0f / adm_p_norm, a double, to a float.
  const auto inv_p = static_cast<float>(1.0f / opt_.p_norm);
  double num = 0, den = 0, aim_num = 0, aim_den = 0;
  double scores[8];
  for (int s = 0; s < 4; ++s) {
    float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
    if (s == 0 && opt_.skip_scale0) {
      den_scale = static_cast<float>(1e-10);  // libvmaf's "avoid divide by zero"
    } else {
      const FloatAdmRegion& r2 = kp_.scale[s].sums;
      const int area = r2.cols() * r2.rows();
      // get_noise_constant: powf(w * h * weight, 1.0f / p), int * double.
      const float noise = ::powf(static_cast<float>(area * opt_.noise_weight), inv_p);
      const float no_noise = ::powf(static_cast<float>(area * 0.0), inv_p);
      float v[3][3];
      for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 3; ++b)
          v[k][b] = ::powf(ordered_sum(t.rows[s][k][b]), inv_p) + (k == kFloatAdmAim ? no_noise : noise);
      den_scale = v[kFloatAdmDen][0] + v[kFloatAdmDen][1] + v[kFloatAdmDen][2];
      num_scale = v[kFloatAdmNum][0] + v[kFloatAdmNum][1] + v[kFloatAdmNum][2];
      aim_scale = v[kFloatAdmAim][0] + v[kFloatAdmAim][1] + v[kFloatAdmAim][2];
    }
    num += num_scale;
    den += den_scale;
    if (opt_.skip_aim_scale != s) {
      aim_den += den_scale;
      aim_num += aim_scale;
    }
    scores[2 * s] = num_scale;
    scores[2 * s + 1] = den_scale;
  }
  const double limit = 1e-10 * (fmt_.w * fmt_.h) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  double score, aim;
  if (den == 0.0) {
    score = 1.0f;
    // libvmaf leaves the aim score uninitialised here (reachable only with
    // adm_noise_weight 0 and a reference without detail); see docs/float_adm.md.
    aim = 0.0;
  } else {
    aim = c_min(aim_num / aim_den, 1.0f);
    score = num / den;
  }
  const double adm3 = opt_.adm3_apply_hm
                          ? c_max(2 * score * aim / (score + aim), opt_.min_val)
                          : c_max(score * opt_.dlm_weight + (1 - aim) * (1 - opt_.dlm_weight), opt_.min_val);
  const double values[kOutCount] = {
      score,     aim,       adm3,      scores[0] / scores[1], scores[2] / scores[3], scores[4] / scores[5],
      scores[6] / scores[7], score,   num,       den,
      scores[0], scores[1], scores[2], scores[3], scores[4], scores[5], scores[6], scores[7],
  };
  const int count = opt_.debug ? kOutCount : kDebugFirst;
  for (int k = 0; k < count; ++k) TWINMAF_RETURN_IF_ERROR(out.append(names_[k], index, values[k]));
  return ok_status();
}

// adm_f1s0..3 / adm_f2s0..3: a CSF factor override (-1: none).
Opt<FloatAdmOptions, double> factor_row(std::string_view name, std::string_view alias,
                                        double FloatAdmOptions::*member, std::string_view help) {
  return {member, {.name = name, .alias = alias, .default_value = -1.0, .min = -1.0, .max = 10.0,
                   .feature_param = true, .help = help}};
}

// libvmaf's table, in its order: names, aliases, defaults, ranges,
// feature-param flags (adm_ref_display_height's alias is "rdf" here).
const OptionTable<FloatAdmOptions>& FloatAdm::options() {
  using P = FloatAdmOptions;
  static const OptionTable<P> t{
      opt(&P::debug, {.name = "debug", .default_value = false,
                      .help = "also write the per-scale numerators and denominators"}),
      opt(&P::enhn_gain_limit, {.name = "adm_enhn_gain_limit", .alias = "egl", .default_value = 100.0, .min = 1.0,
                                .max = 100.0, .feature_param = true,
                                .help = "largest gain of the restored detail over the reference (1: no enhancement "
                                        "credited)"}),
      opt(&P::norm_view_dist, {.name = "adm_norm_view_dist", .alias = "nvd", .default_value = 3.0, .min = 0.75,
                               .max = 24.0, .feature_param = true,
                               .help = "viewing distance divided by the display height"}),
      opt(&P::noise_weight, {.name = "adm_noise_weight", .alias = "nw", .default_value = 0.03125, .min = 0.0,
                             .max = 1500.0, .feature_param = true, .help = "weight of the noise floor term"}),
      opt(&P::csf_scale, {.name = "adm_csf_scale", .alias = "scf", .default_value = 1.0, .min = 0.0, .max = 50.0,
                          .feature_param = true, .help = "Barten CSF scale of the h and v bands"}),
      opt(&P::csf_diag_scale, {.name = "adm_csf_diag_scale", .alias = "scfd", .default_value = 1.0, .min = 0.0,
                               .max = 50.0, .feature_param = true, .help = "Barten CSF scale of the diagonal band"}),
      opt(&P::ref_display_height, {.name = "adm_ref_display_height", .alias = "rdf", .default_value = 1080, .min = 1,
                                   .max = 4320, .feature_param = true, .help = "display height in pixels"}),
      opt(&P::csf_mode, {.name = "adm_csf_mode", .alias = "csf", .default_value = 0, .min = 0, .max = 9,
                         .feature_param = true,
                         .help = "contrast sensitivity: 1 Barten, 2 the DLM paper's, any other Watson97"}),
      opt(&P::bypass_cm, {.name = "adm_bypass_cm", .alias = "bcm", .default_value = 0, .min = 0, .max = 1,
                          .feature_param = true, .help = "1: no contrast masking threshold"}),
      opt(&P::adm3_apply_hm, {.name = "adm_adm3_apply_hm", .alias = "aah", .default_value = false,
                              .feature_param = true, .help = "adm3 as the harmonic mean of adm2 and aim"}),
      opt(&P::p_norm, {.name = "adm_p_norm", .alias = "apn", .default_value = 3.0, .min = 1.0, .max = 20.0,
                       .feature_param = true, .help = "exponent of the pooling norm"}),
      opt(&P::dlm_weight, {.name = "adm_dlm_weight", .alias = "dlmw", .default_value = 0.5, .min = 0.0, .max = 1.0,
                           .feature_param = true, .help = "weight of adm2 against aim in adm3"}),
      opt(&P::min_val, {.name = "adm_min_val", .alias = "min", .default_value = 0.0, .min = 0.0, .max = 1.0,
                        .feature_param = true, .help = "lower clip of adm3"}),
      factor_row("adm_f1s0", "f1s0", &P::f1s0, "h/v CSF factor of scale 0 (-1: from adm_csf_mode)"),
      factor_row("adm_f1s1", "f1s1", &P::f1s1, "h/v CSF factor of scale 1 (-1: from adm_csf_mode)"),
      factor_row("adm_f1s2", "f1s2", &P::f1s2, "h/v CSF factor of scale 2 (-1: from adm_csf_mode)"),
      factor_row("adm_f1s3", "f1s3", &P::f1s3, "h/v CSF factor of scale 3 (-1: from adm_csf_mode)"),
      factor_row("adm_f2s0", "f2s0", &P::f2s0, "diagonal CSF factor of scale 0 (-1: from adm_csf_mode)"),
      factor_row("adm_f2s1", "f2s1", &P::f2s1, "diagonal CSF factor of scale 1 (-1: from adm_csf_mode)"),
      factor_row("adm_f2s2", "f2s2", &P::f2s2, "diagonal CSF factor of scale 2 (-1: from adm_csf_mode)"),
      factor_row("adm_f2s3", "f2s3", &P::f2s3, "diagonal CSF factor of scale 3 (-1: from adm_csf_mode)"),
      // Default -1 lies outside [0, 3]: no scale is skipped unless set.
      opt(&P::skip_aim_scale, {.name = "adm_skip_aim_scale", .alias = "sasc", .default_value = -1, .min = 0, .max = 3,
                               .feature_param = true, .help = "leave this scale out of aim"}),
      opt(&P::skip_scale0, {.name = "adm_skip_scale0", .alias = "ssz", .default_value = false, .feature_param = true,
                            .help = "leave scale 0 out of every score"}),
  };
  return t;
}

}  // namespace

float float_adm_native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta) {
  const auto r = static_cast<float>(norm_view_dist * ref_display_height * kPi / 180.0);
  auto sf = static_cast<float>(static_cast<double>(r) / std::pow(2.0, static_cast<double>(lambda + 1)));
  if (theta == 45) sf = static_cast<float>(static_cast<double>(sf) / 0.7);  // oblique effect
  const double f = static_cast<double>(sf);
  return static_cast<float>((0.31 + 0.69 * f) * std::exp(-0.29 * f));
}

bool FloatAdmTerms::operator==(const FloatAdmTerms& o) const {
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 3; ++b) {
        const std::vector<float>& x = rows[s][k][b];
        const std::vector<float>& y = o.rows[s][k][b];
        if (x.size() != y.size() || (!x.empty() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) != 0))
          return false;
      }
  return true;
}

const FloatAdmKernelParams& float_adm_kernel_params(const Extractor& configured) {
  return down_cast<const FloatAdm&>(configured).kernel_params();
}

const FeatureSpec& float_adm_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_adm",
      .options = FloatAdm::options().specs(),
      .provided = {std::begin(kProvided), std::end(kProvided)},
      .create = create_with<FloatAdm>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_adm_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
