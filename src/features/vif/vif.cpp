// vif extractor: option table, init checks, finish (the float steps every
// backend shares). Contract: vif.h.
#include "features/vif/vif.h"

#include <string>

#include "features/common/shared_rows.h"
#include "features/create_with.h"

namespace twinmaf {

VifNumDen vif_num_den(const VifScaleSums& s) {
  // libvmaf evaluates both in double and stores them as float.
  const double num = static_cast<double>(s.num_log) / 2048.0 +
                     (static_cast<double>(s.den_non_log) -
                      (static_cast<double>(s.num_non_log) / 16384.0) / 65025.0);
  const double den = static_cast<double>(s.den_log) / 2048.0 + static_cast<double>(s.den_non_log);
  return {static_cast<float>(num), static_cast<float>(den)};
}

namespace {

// Provided names in libvmaf's order; the debug ones follow the four scores.
constexpr std::string_view kProvided[] = {
    "VMAF_integer_feature_vif_scale0_score",
    "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score",
    "VMAF_integer_feature_vif_scale3_score",
    "integer_vif",
    "integer_vif_num",
    "integer_vif_den",
    "integer_vif_num_scale0",
    "integer_vif_den_scale0",
    "integer_vif_num_scale1",
    "integer_vif_den_scale1",
    "integer_vif_num_scale2",
    "integer_vif_den_scale2",
    "integer_vif_num_scale3",
    "integer_vif_den_scale3",
};
constexpr int kNumProvided = static_cast<int>(std::size(kProvided));
enum : int { kScore0 = 0, kVif = 4, kVifNum = 5, kVifDen = 6, kNumScale0 = 7 };

// The kernels' parameters and the debug flag.
struct VifOptions : VifParams {
  bool debug = false;
};

class Vif final : public Extractor {
 public:
  using Params = VifOptions;
  static const OptionTable<Params>& options();

  Vif(const Params& p, const Options& o) : debug_(p.debug), params_(p) {
    for (int i = 0; i < kNumProvided; ++i) names_[i] = o.feature_name(kProvided[i]);
  }

  Status init(const VideoFormat& fmt) override {
    if (fmt.bpc < 8 || fmt.bpc > 16)
      TWINMAF_FAIL(kUnsupported, "vif: bit depth {} is outside 8..16", fmt.bpc);
    if (fmt.w < kVifMinSize || fmt.h < kVifMinSize)
      TWINMAF_FAIL(kUnsupported,
                   "vif: needs a luma plane of at least {}x{} (got {}x{}): its 4-scale pyramid "
                   "needs floor(size/8) >= 2 for the scale-3 filter's mirrored border",
                   kVifMinSize, kVifMinSize, fmt.w, fmt.h);
    bpc_ = fmt.bpc;
    vif_log2_table();  // build the shared table before frames run concurrently
    vif_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {}; }  // luma of ref and dis
  const VifParams& params() const { return params_; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<VifTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    vif_terms_with(dsp_, in.ref->plane(0), in.dis->plane(0), bpc_, params_, down_cast<VifTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& t = down_cast<const VifTerms&>(terms);
    VifNumDen nd[kVifScales];
    for (int s = 0; s < kVifScales; ++s) nd[s] = vif_num_den(t.scale[s]);
    const bool skip = params_.skip_scale0;

    for (int s = 0; s < kVifScales; ++s) {
      const float score = (s == 0 && skip) ? 0.0f : nd[s].num / nd[s].den;
      TWINMAF_RETURN_IF_ERROR(out.append(names_[kScore0 + s], index, score));
    }
    if (!debug_) return ok_status();

    double num = 0, den = 0;
    if (skip) {
      num = static_cast<double>(nd[1].num) + static_cast<double>(nd[2].num) +
            static_cast<double>(nd[3].num);
      den = static_cast<double>(nd[1].den) + static_cast<double>(nd[2].den) +
            static_cast<double>(nd[3].den);
    } else {
      num = static_cast<double>(nd[0].num) + static_cast<double>(nd[1].num) +
            static_cast<double>(nd[2].num) + static_cast<double>(nd[3].num);
      den = static_cast<double>(nd[0].den) + static_cast<double>(nd[1].den) +
            static_cast<double>(nd[2].den) + static_cast<double>(nd[3].den);
    }
    const double score = den == 0.0 ? 1.0 : num / den;
    TWINMAF_RETURN_IF_ERROR(out.append(names_[kVif], index, score));
    TWINMAF_RETURN_IF_ERROR(out.append(names_[kVifNum], index, num));
    TWINMAF_RETURN_IF_ERROR(out.append(names_[kVifDen], index, den));
    for (int s = 0; s < kVifScales; ++s) {
      const bool skipped = s == 0 && skip;
      const double n = skipped ? 0.0 : static_cast<double>(nd[s].num);
      const double d = skipped ? -1.0 : static_cast<double>(nd[s].den);
      TWINMAF_RETURN_IF_ERROR(out.append(names_[kNumScale0 + 2 * s], index, n));
      TWINMAF_RETURN_IF_ERROR(out.append(names_[kNumScale0 + 2 * s + 1], index, d));
    }
    return ok_status();
  }

 private:
  bool debug_;
  VifParams params_;
  VifKernels dsp_ = vif_dsp_ref();  // chosen by init
  int bpc_ = 8;
  std::string names_[kNumProvided];
};

const OptionTable<VifOptions>& Vif::options() {
  using P = VifOptions;
  static const OptionTable<P> t{
      debug_output_row<P>(),
      opt(&P::enhn_gain_limit, {.name = "vif_enhn_gain_limit", .alias = "egl", .default_value = 100.0, .min = 1.0,
                                .max = 100.0, .feature_param = true,
                                .help = "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is "
                                        "completely disabled"}),
      opt(&P::skip_scale0, {.name = "vif_skip_scale0", .alias = "ssclz", .default_value = false, .feature_param = true,
                            .help = "when set, skip scale 0 calculations"}),
  };
  return t;
}

}  // namespace

const VifParams& vif_params(const Extractor& configured) { return down_cast<const Vif&>(configured).params(); }

const FeatureSpec& vif_feature_spec() {
  static const FeatureSpec spec{
      .name = "vif",
      .options = Vif::options().specs(),
      .provided = std::vector<std::string_view>(std::begin(kProvided), std::end(kProvided)),
      .create = create_with<Vif>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_vif_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
