// float_psnr extractor and the shared finish (the contract is in float_psnr.h).
#include "features/float_psnr/float_psnr.h"

#include <cmath>

#include "features/common/float_picture.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

class FloatPsnr final : public Extractor {
 public:
  Status init(const VideoFormat& fmt) override {
    if (!float_picture_depth_ok(fmt.bpc))
      TWINMAF_FAIL(kUnsupported, "float_psnr: bit depth {} is not supported (8, 10, 12 or 16)", fmt.bpc);
    fmt_ = fmt;
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kLuma, .dis = Planes::kLuma}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatPsnrTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    down_cast<FloatPsnrTerms&>(terms).noise = float_psnr_noise_ref(in.ref->plane(0), in.dis->plane(0), fmt_.bpc);
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const double score = float_psnr_score(down_cast<const FloatPsnrTerms&>(terms).noise, fmt_.w, fmt_.h, fmt_.bpc);
    return out.append("float_psnr", index, score);
  }

 private:
  VideoFormat fmt_;
};

}  // namespace

double float_psnr_score(double noise, int w, int h, int bpc) {
  const double peak = float_picture_peak(bpc);
  const double psnr_max = float_picture_psnr_max(bpc);
  const double mse = noise / (w * h);
  const double eps = 1e-10;
  // C's MAX/MIN macros: x > y ? x : y and x < y ? x : y.
  const double floor_mse = mse > eps ? mse : eps;
  const double psnr = 10 * std::log10(peak * peak / floor_mse);
  return psnr < psnr_max ? psnr : psnr_max;
}

const FeatureSpec& float_psnr_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_psnr",
      .options = {},
      .provided = {"float_psnr"},
      .create = create_with<FloatPsnr>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_psnr_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
