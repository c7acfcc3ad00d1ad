// float_ansnr extractor and the shared finish (the contract is in
// float_ansnr.h).
#include "features/float_ansnr/float_ansnr.h"

#include <cmath>

#include "base/hd_math.h"
#include "base/ordered_sum.h"
#include "features/common/float_picture.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

class FloatAnsnr final : public Extractor {
 public:
  Status init(const VideoFormat& fmt) override {
    if (!float_picture_depth_ok(fmt.bpc))
      TWINMAF_FAIL(kUnsupported, "float_ansnr: bit depth {} is not supported (8, 10, 12 or 16)", fmt.bpc);
    if (fmt.w < 3 || fmt.h < 3)
      TWINMAF_FAIL(kUnsupported, "float_ansnr: needs a luma plane of at least 3x3 (got {}x{})", fmt.w, fmt.h);
    fmt_ = fmt;
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kLuma, .dis = Planes::kLuma}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatAnsnrTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    float_ansnr_terms_ref(in.ref->plane(0), in.dis->plane(0), fmt_.bpc, down_cast<FloatAnsnrTerms&>(terms));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const FloatAnsnrScores s =
        float_ansnr_scores(down_cast<const FloatAnsnrTerms&>(terms), fmt_.w, fmt_.h, fmt_.bpc);
    TWINMAF_RETURN_IF_ERROR(out.append("float_ansnr", index, s.ansnr));
    return out.append("float_anpsnr", index, s.anpsnr);
  }

 private:
  VideoFormat fmt_;
};

}  // namespace

bool FloatAnsnrTerms::operator==(const FloatAnsnrTerms& o) const {
  return float_bits(ordered_sum(sig)) == float_bits(ordered_sum(o.sig)) &&
         float_bits(ordered_sum(noise)) == float_bits(ordered_sum(o.noise));
}

FloatAnsnrScores float_ansnr_scores(const FloatAnsnrTerms& terms, int w, int h, int bpc) {
  const float sig = ordered_sum(terms.sig);
  const float noise = ordered_sum(terms.noise);
  const double peak = float_picture_peak(bpc);
  const double psnr_max = float_picture_psnr_max(bpc);
  const double eps = 1e-10;
  FloatAnsnrScores s{};
  s.ansnr = noise == 0 ? psnr_max : 10.0 * std::log10(static_cast<double>(sig / noise));  // float quotient
  // C's MAX/MIN macros: x > y ? x : y and x < y ? x : y.
  const double floor_noise = noise > eps ? static_cast<double>(noise) : eps;
  const double anpsnr = 10 * std::log10(peak * peak * w * h / floor_noise);
  s.anpsnr = anpsnr < psnr_max ? anpsnr : psnr_max;
  return s;
}

const FeatureSpec& float_ansnr_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_ansnr",
      .options = {},
      .provided = {"float_ansnr"},
      .create = create_with<FloatAnsnr>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_ansnr_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
