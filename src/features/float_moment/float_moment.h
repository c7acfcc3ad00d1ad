// float_moment: first and second moments of the luma planes, libvmaf's float
// pipeline.
//
// Reference: libvmaf f85a8536 feature/float_moment.c, moment.c,
// picture_copy.c. Outputs, in this order: float_moment_ref1st,
// float_moment_dis1st, float_moment_ref2nd, float_moment_dis2nd (libvmaf's
// provided name, for models, is float_moment); no options. Luma only; 8, 10,
// 12 or 16 bit; any size, any layout.
//
// What it computes, for each w x h luma plane (reference and distorted alike):
//   a       the samples as floats, s / 2^(bpc-8) (features/float_picture.h)
//   S1      the running DOUBLE sum, from +0, of a in raster order
//   S2      the same of a * a, squared in float (exact up to 12 bit; rounded
//           to float at 16 bit, where s^2 can exceed 2^24)
//   1st = S1 / (w * h), 2nd = S2 / (w * h)   (double; w * h an int product)
// libvmaf's float_moment sets no depth limit, but its sample copy reads 9-,
// 11-, 13-, 14- and 15-bit samples as bytes (features/float_picture.h); init
// refuses those depths (libvmaf's CLI cannot produce them either).
//
// Terms and finish: the split and why it is exact.
// Each S is one running double sum over the plane; each term depends on its
// pixel only. FloatMomentTerms = for each of the four sums a sequence of
// doubles whose running sum from +0 is that sum: the CPU kernel adds the
// terms in raster order (the plain loop is the ordered sum) and keeps the
// single terms. A GPU twin may reduce in any order where that is exact: a *
// 2^(bpc-8) and a * a * 4^(bpc-8) are integers (at most 2^16 and 2^32), so
// while a sum stays below 2^53 such units every addition is exact and an
// integer sum of the units gives it (S1: every size; S2: 8 and 10 bit every
// size up to 2^30 pixels, 12 bit below 2^29, 16 bit below 2^21 pixels);
// otherwise base/ordered_sum.h's tree (F = double) gives the plain loop's
// value bit for bit.
// finish = the four divisions (float_moment_scores), shared.
#pragma once

#include "base/hd_math.h"
#include "core/picture.h"
#include "features/feature.h"

namespace twinmaf {

struct FloatMomentTerms final : FrameTermsOf<FloatMomentTerms> {
  // [0] reference, [1] distorted: running double sums from +0.
  double sum1[2] = {};
  double sum2[2] = {};
  bool operator==(const FloatMomentTerms& o) const {
    for (int i = 0; i < 2; ++i)
      if (double_bits(sum1[i]) != double_bits(o.sum1[i]) || double_bits(sum2[i]) != double_bits(o.sum2[i]))
        return false;
    return true;
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.sum1); f(s.sum2); }
};

// CPU reference: S1 and S2 of one luma plane (bpc 8, 10, 12 or 16).
void float_moment_sums_ref(const PlaneView& plane, int bpc, double* sum1, double* sum2);

// finish: the four scores in output order (ref1st, dis1st, ref2nd, dis2nd).
struct FloatMomentScores {
  double value[4];
};
FloatMomentScores float_moment_scores(const FloatMomentTerms& terms, int w, int h);

const FeatureSpec& float_moment_feature_spec();

// CUDA twin (float_moment.cu, float_moment_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_moment_twin(const Extractor& configured, const VideoFormat& fmt,
                                                     gpu::Context& ctx);

}  // namespace twinmaf
