// float_moment extractor and the shared finish (the contract is in
// float_moment.h).
#include "features/float_moment/float_moment.h"

#include "features/common/float_picture.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

constexpr const char* kNames[4] = {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
                                   "float_moment_dis2nd"};

class FloatMoment final : public Extractor {
 public:
  Status init(const VideoFormat& fmt) override {
    if (!float_picture_depth_ok(fmt.bpc))
      TWINMAF_FAIL(kUnsupported,
                   "float_moment: bit depth {} is not supported (8, 10, 12 or 16; libvmaf reads other depths as "
                   "bytes)",
                   fmt.bpc);
    fmt_ = fmt;
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kLuma, .dis = Planes::kLuma}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatMomentTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<FloatMomentTerms&>(terms);
    float_moment_sums_ref(in.ref->plane(0), fmt_.bpc, &t.sum1[0], &t.sum2[0]);
    float_moment_sums_ref(in.dis->plane(0), fmt_.bpc, &t.sum1[1], &t.sum2[1]);
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const FloatMomentScores s = float_moment_scores(down_cast<const FloatMomentTerms&>(terms), fmt_.w, fmt_.h);
    for (int i = 0; i < 4; ++i) TWINMAF_RETURN_IF_ERROR(out.append(kNames[i], index, s.value[i]));
    return ok_status();
  }

 private:
  VideoFormat fmt_;
};

}  // namespace

FloatMomentScores float_moment_scores(const FloatMomentTerms& terms, int w, int h) {
  const int n = w * h;  // libvmaf's int product, converted to double
  return {{terms.sum1[0] / n, terms.sum1[1] / n, terms.sum2[0] / n, terms.sum2[1] / n}};
}

const FeatureSpec& float_moment_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_moment",
      .options = {},
      .provided = {"float_moment"},
      .create = create_with<FloatMoment>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_moment_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
