// adm extractor: options, per-session constants, and the shared finish()
// turning AdmTerms into libvmaf's scores (see adm.h for the contract).
#include "features/adm/adm.h"
#include "features/adm/adm_rows.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "features/common/shared_rows.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

constexpr double kPi = 3.14159265358979323846264338327;

// C's MAX macro: with a NaN first operand it returns the second.
double c_max(double x, double y) { return x > y ? x : y; }

// x86-64 cvttsd2si: truncation, or the "integer indefinite" value when the
// result does not fit (also NaN). gcc converts double -> uint16_t through the
// 32-bit form and double -> uint32_t through the 64-bit form, keeping the low
// bits; libvmaf's out-of-range factor conversions (UB in C) compute exactly
// this on the oracle's platform.
uint16_t x86_double_to_u16(double v) {
  const int32_t r = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<int32_t>(v) : INT32_MIN;
  return static_cast<uint16_t>(r);
}
uint32_t x86_double_to_u32(double v) {
  const int64_t r = (v > -9223372036854775808.0 && v < 9223372036854775808.0)
                        ? static_cast<int64_t>(v)
                        : INT64_MIN;
  return static_cast<uint32_t>(r);
}

int ceil_log2(double x) { return static_cast<int>(std::ceil(std::log2(x))); }

constexpr const char* kProvided[] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score", "integer_adm_scale0",
    "integer_adm_scale1",              "integer_adm_scale2",
    "integer_adm_scale3",              "integer_adm",
    "integer_adm_num",                 "integer_adm_den",
    "integer_adm_num_scale0",          "integer_adm_den_scale0",
    "integer_adm_num_scale1",          "integer_adm_den_scale1",
    "integer_adm_num_scale2",          "integer_adm_den_scale2",
    "integer_adm_num_scale3",          "integer_adm_den_scale3",
};
constexpr int kNumProvided = sizeof(kProvided) / sizeof(kProvided[0]);
constexpr int kNumMain = 7;  // the rest are debug outputs

struct AdmOptions {
  bool debug;
  double csf_scale;
  double csf_diag_scale;
  double dlm_weight;
  double enhn_gain_limit;
  double norm_view_dist;
  int ref_display_height;
  AdmCsfMode csf_mode;
  double noise_weight;
  bool skip_aim;
  bool skip_scale0;
  double min_val;
};

// finish() constants, per scale.
struct AdmFinishConsts {
  float rf[4][3] = {};      // CSF factors (h, v, d)
  double den_div[4] = {};   // 2^(den exponent), libvmaf's pow(2, ...) in double
  double num_div0[3] = {};  // scale 0: 2^(52|52|57 - shifts), double
  float num_div[4] = {};    // scales 1-3: (float)2^({45,39,36} - shifts)
};

// Per-session constants from the options and the format: the kernels'
// parameters (shared with the CUDA twin) and finish()'s divisors.
void make_setup(const AdmOptions& opt, const VideoFormat& fmt, AdmKernelParams& kp,
                AdmFinishConsts& fc) {
  kp.bpc = fmt.bpc;
  kp.skip_scale0 = opt.skip_scale0;
  kp.skip_aim = opt.skip_aim;
  kp.enhn_gain_limit = opt.enhn_gain_limit;
  kp.cos_1deg_sq = static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));

  int in_w = fmt.w;
  int in_h = fmt.h;
  for (int s = 0; s < 4; ++s) {
    AdmScaleParams& sp = kp.scale[s];
    sp.in_w = in_w;
    sp.in_h = in_h;
    sp.w = (in_w + 1) / 2;
    sp.h = (in_h + 1) / 2;
    in_w = sp.w;
    in_h = sp.h;
    // Region: libvmaf's int conversion of w*0.1 - 0.5 (truncation; >= 0 here).
    const int left = static_cast<int>(sp.w * 0.1 - 0.5);
    const int top = static_cast<int>(sp.h * 0.1 - 0.5);
    sp.cm = AdmRegion{top, sp.h - top, left, sp.w - left};

    const std::array<float, 2> f =
        adm_csf_factors(opt.csf_mode, s, opt.norm_view_dist, opt.ref_display_height,
                        opt.csf_scale, opt.csf_diag_scale);
    fc.rf[s][0] = f[0];
    fc.rf[s][1] = f[0];
    fc.rf[s][2] = f[1];

    const int rw = sp.cm.right - sp.cm.left;
    const int rh = sp.cm.bottom - sp.cm.top;
    if (s == 0) {
      const bool watson_default =
          std::fabs(opt.norm_view_dist * opt.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
          opt.csf_mode == AdmCsfMode::kWatson97;
      if (watson_default) {
        sp.rfactor[0] = 36453;
        sp.rfactor[1] = 36453;
        sp.rfactor[2] = 49417;
      } else {
        sp.rfactor[0] = x86_double_to_u16(fc.rf[s][0] * std::pow(2.0, 21.0));
        sp.rfactor[1] = x86_double_to_u16(fc.rf[s][1] * std::pow(2.0, 21.0));
        sp.rfactor[2] = x86_double_to_u16(fc.rf[s][2] * std::pow(2.0, 23.0));
      }
      // Masking: cube shifts from the band width (minus 4 for h/v, 3 for d),
      // rows from the band height; sizes >= kAdmMinSize make all of them >= 1.
      const int xh = static_cast<int>(std::ceil(std::log2(sp.w) - 4));
      const int xd = static_cast<int>(std::ceil(std::log2(sp.w) - 3));
      sp.cm_cube_shift[0] = xh;
      sp.cm_cube_shift[1] = xh;
      sp.cm_cube_shift[2] = xd;
      sp.cm_row_shift = ceil_log2(sp.h);
      const uint32_t ur = static_cast<uint32_t>(sp.cm_row_shift);
      fc.num_div0[0] = std::pow(2.0, static_cast<double>(52u - static_cast<uint32_t>(xh) - ur));
      fc.num_div0[1] = fc.num_div0[0];
      fc.num_div0[2] = std::pow(2.0, static_cast<double>(57u - static_cast<uint32_t>(xd) - ur));
      // Denominator: one row shift from the region area, >= 0.
      int sa = static_cast<int>(std::ceil(std::log2(static_cast<double>(rh * rw)) - 20));
      sa = sa > 0 ? sa : 0;
      sp.den_row_shift = sa;
      sp.den_cube_shift = 0;
      fc.den_div[s] = std::pow(2.0, static_cast<double>(18 - sa));
    } else {
      for (int b = 0; b < 3; ++b)
        sp.rfactor[b] = x86_double_to_u32(fc.rf[s][b] * std::pow(2.0, 32.0));
      const int cub = ceil_log2(sp.w);
      sp.cm_cube_shift[0] = sp.cm_cube_shift[1] = sp.cm_cube_shift[2] = cub;
      sp.cm_row_shift = ceil_log2(sp.h);
      constexpr uint32_t kNumExp[4] = {0, 45, 39, 36};
      fc.num_div[s] = static_cast<float>(std::pow(
          2.0, static_cast<double>(kNumExp[s] - static_cast<uint32_t>(cub) -
                                   static_cast<uint32_t>(sp.cm_row_shift))));
      sp.den_cube_shift = ceil_log2(rw);
      sp.den_row_shift = ceil_log2(rh);
      constexpr uint32_t kDenExp[4] = {0, 32, 27, 23};
      fc.den_div[s] = std::pow(2.0, static_cast<double>(kDenExp[s] -
                                                      static_cast<uint32_t>(sp.den_row_shift) -
                                                      static_cast<uint32_t>(sp.den_cube_shift)));
    }
  }
}

class Adm final : public Extractor {
 public:
  using Params = AdmOptions;
  static const OptionTable<Params>& options();
  static Status check(const Params& opt);

  Adm(const Params& opt, const Options& o) : opt_(opt) {
    for (int k = 0; k < kNumProvided; ++k) names_[k] = o.feature_name(kProvided[k]);
  }

  Status init(const VideoFormat& fmt) override {
    if (fmt.bpc < 8 || fmt.bpc > 16)
      TWINMAF_FAIL(kUnsupported, "adm: bit depth {} is outside 8..16", fmt.bpc);
    if (fmt.w < kAdmMinSize || fmt.h < kAdmMinSize)
      TWINMAF_FAIL(kUnsupported,
                   "adm: {}x{} is below the minimum size {}x{} (the 4-scale DWT needs at least 3 "
                   "band samples at scale 3; libvmaf reads out of bounds or crashes below)",
                   fmt.w, fmt.h, kAdmMinSize, kAdmMinSize);
    fmt_ = fmt;
    make_setup(opt_, fmt_, kp_, fc_);
    adm_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {}; }  // luma of ref and dis
  const AdmKernelParams& kernel_params() const { return kp_; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<AdmTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    adm_terms_with(dsp_, in.ref->plane(0), in.dis->plane(0), kp_, down_cast<AdmTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override;

 private:
  AdmOptions opt_;
  std::string names_[kNumProvided];
  VideoFormat fmt_;
  AdmKernelParams kp_;
  AdmFinishConsts fc_;
  AdmRowKernels dsp_ = adm_row_kernels_ref();  // chosen by init
};

Status Adm::finish(unsigned index, const FrameTerms& terms, Collector& out) {
  const auto& t = down_cast<const AdmTerms&>(terms);
  const float third = 1.0f / 3.0f;
  double num = 0;
  double den = 0;
  double aim_num = 0;
  float num_s[4], den_s[4];
  for (int s = 0; s < 4; ++s) {
    const AdmScaleTerms& st = t.scale[s];
    float n = 0.0f, d = 0.0f, a = 0.0f;
    if (s == 0 && opt_.skip_scale0) {
      d = 1e-10f;  // libvmaf's "avoid divide by zero"
    } else {
      const int64_t area = kp_.scale[s].cm.area();
      // int * int, then * double, then the float powf argument, as libvmaf.
      const float noise = ::powf(static_cast<float>(static_cast<double>(static_cast<int>(area)) *
                                                    opt_.noise_weight),
                                 third);
      const float no_noise =
          ::powf(static_cast<float>(static_cast<double>(static_cast<int>(area)) * 0.0), third);
      float dv[3], nv[3], av[3];
      for (int b = 0; b < 3; ++b) {
        const double csf = static_cast<double>(static_cast<double>(st.den[b]) / fc_.den_div[s]) *
                           std::pow(static_cast<double>(fc_.rf[s][b]), 3.0);
        dv[b] = ::powf(static_cast<float>(csf), third) + noise;
        float fn, fa;
        if (s == 0) {
          fn = static_cast<float>(static_cast<double>(st.num[b]) / fc_.num_div0[b]);
          fa = static_cast<float>(static_cast<double>(st.aim[b]) / fc_.num_div0[b]);
        } else {
          fn = static_cast<float>(st.num[b]) / fc_.num_div[s];
          fa = static_cast<float>(st.aim[b]) / fc_.num_div[s];
        }
        nv[b] = ::powf(fn, third) + noise;
        av[b] = ::powf(fa, third) + no_noise;
      }
      d = dv[0] + dv[1] + dv[2];
      n = nv[0] + nv[1] + nv[2];
      if (!opt_.skip_aim) a = av[0] + av[1] + av[2];
    }
    num += n;
    den += d;
    aim_num += a;
    num_s[s] = n;
    den_s[s] = d;
  }
  const double limit = 1e-10 * (fmt_.w * fmt_.h) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  double score;
  double aim;
  if (den == 0.0) {
    // libvmaf leaves aim uninitialised here (reachable only with
    // adm_noise_weight 0 and a reference without detail); see docs/adm.md.
    score = 1.0f;
    aim = 0.0;
  } else {
    aim = aim_num / den;
    score = num / den;
  }
  const double adm3 =
      c_max(score * opt_.dlm_weight + (1 - aim) * (1 - opt_.dlm_weight), opt_.min_val);

  const double values[kNumProvided] = {
      score,
      aim,
      adm3,
      static_cast<double>(num_s[0]) / static_cast<double>(den_s[0]),
      static_cast<double>(num_s[1]) / static_cast<double>(den_s[1]),
      static_cast<double>(num_s[2]) / static_cast<double>(den_s[2]),
      static_cast<double>(num_s[3]) / static_cast<double>(den_s[3]),
      score,
      num,
      den,
      num_s[0], den_s[0], num_s[1], den_s[1], num_s[2], den_s[2], num_s[3], den_s[3],
  };
  const int count = opt_.debug ? kNumProvided : kNumMain;
  for (int k = 0; k < count; ++k) TWINMAF_RETURN_IF_ERROR(out.append(names_[k], index, values[k]));
  return ok_status();
}

const OptionTable<AdmOptions>& Adm::options() {
  using P = AdmOptions;
  static const OptionTable<P> t{
      debug_output_row<P>(),
      opt(&P::csf_scale, {.name = "adm_csf_scale", .alias = "scf", .default_value = 1.0, .min = 0.0, .max = 50.0,
                          .feature_param = true,
                          .help = "scale coefficient for the horizontal & vertical direction terms of CSF"}),
      opt(&P::csf_diag_scale, {.name = "adm_csf_diag_scale", .alias = "scfd", .default_value = 1.0, .min = 0.0,
                               .max = 50.0, .feature_param = true,
                               .help = "scale coefficient for the diagonal direction term of CSF"}),
      opt(&P::dlm_weight, {.name = "adm_dlm_weight", .alias = "dlmw", .default_value = 0.5, .min = 0.0, .max = 1.0,
                           .feature_param = true,
                           .help = "linear weighting between DLM and AIM; 1 corresponds to DLM-only"}),
      opt(&P::enhn_gain_limit, {.name = "adm_enhn_gain_limit", .alias = "egl", .default_value = 100.0, .min = 1.0,
                                .max = 100.0, .feature_param = true,
                                .help = "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is "
                                        "completely disabled"}),
      opt(&P::norm_view_dist, {.name = "adm_norm_view_dist", .alias = "nvd", .default_value = 3.0, .min = 0.75,
                               .max = 24.0, .feature_param = true,
                               .help = "normalized viewing distance = viewing distance / ref display's physical "
                                       "height"}),
      opt(&P::ref_display_height, {.name = "adm_ref_display_height", .alias = "rdh", .default_value = 1080, .min = 1,
                                   .max = 4320, .feature_param = true, .help = "reference display height in pixels"}),
      opt(&P::csf_mode, {.name = "adm_csf_mode", .alias = "csf", .default_value = AdmCsfMode::kWatson97, .min = 0,
                         .max = 3, .feature_param = true, .help = "contrast sensitivity function"}),
      opt(&P::noise_weight, {.name = "adm_noise_weight", .alias = "nw", .default_value = 0.03125, .min = 0.0,
                             .max = 1500.0, .feature_param = true, .help = "noise weight"}),
      opt(&P::skip_aim, {.name = "adm_skip_aim", .default_value = false, .help = "skip the calculation of AIM"}),
      opt(&P::skip_scale0, {.name = "adm_skip_scale0", .alias = "ssz", .default_value = false, .feature_param = true,
                            .help = "skip the calculation of scale 0"}),
      opt(&P::min_val, {.name = "adm_min_val", .alias = "min", .default_value = 0.0, .min = 0.0, .max = 1.0,
                        .feature_param = true,
                        .help = "minimum value allowed; lower values will be clipped to this value"}),
  };
  return t;
}

Status Adm::check(const AdmOptions& opt) {
  // libvmaf refuses every frame (-EINVAL) below 1080p at 3H: its 16-bit
  // scale-0 pipeline cannot represent lower angular frequencies.
  const double ppd = opt.norm_view_dist * opt.ref_display_height;
  if (ppd < 3.0 * 1080)
    TWINMAF_FAIL(kInvalidArgument,
                 "adm: adm_norm_view_dist * adm_ref_display_height = {} * {} = {} is below 3240 "
                 "(3.0 * 1080), the lowest angular frequency integer ADM supports",
                 format_g(opt.norm_view_dist), opt.ref_display_height, format_g(ppd));
  if ((opt.csf_mode == AdmCsfMode::kBlend || opt.csf_mode == AdmCsfMode::kBlendMae) &&
      !adm_blend_supported(opt.norm_view_dist, opt.ref_display_height))
    TWINMAF_FAIL(kInvalidArgument,
                 "adm: adm_csf_mode={} has no CSF table for adm_ref_display_height={}, "
                 "adm_norm_view_dist={}; supported (rdh, nvd): {}",
                 static_cast<int>(opt.csf_mode), opt.ref_display_height,
                 format_g(opt.norm_view_dist), adm_blend_supported_list());
  return ok_status();
}

}  // namespace

const AdmKernelParams& adm_kernel_params(const Extractor& configured) {
  return down_cast<const Adm&>(configured).kernel_params();
}

const FeatureSpec& adm_feature_spec() {
  static const FeatureSpec spec{
      .name = "adm",
      .options = Adm::options().specs(),
      .provided = {std::begin(kProvided), std::end(kProvided)},
      .create = create_with<Adm>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_adm_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
