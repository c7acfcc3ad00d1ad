// float_psnr: luma PSNR of libvmaf's float pipeline.
//
// Reference: libvmaf f85a8536 feature/float_psnr.c, psnr.c (compute_psnr),
// picture_copy.c. Output float_psnr; no options. Luma only; 8, 10, 12 or 16
// bit (init refuses other depths, as libvmaf's does); any size, any layout.
//
// What it computes, for the w x h luma plane:
//   a, b    the samples as floats, s / 2^(bpc-8) (features/float_picture.h)
//   t       per pixel, (a - b) * (a - b) in float (the difference is exact;
//           the square rounds to float only at 16 bit, above 2^24 / 2^16)
//   N       the running DOUBLE sum, from +0, of t in raster order
//   mse     N / (w * h)     (double; w * h an int product)
//   float_psnr = min(10 log10(peak^2 / max(mse, 1e-10)), psnr_max)
//           with libvmaf's peak and psnr_max (features/float_picture.h);
//           identical pictures give psnr_max.
//
// Terms and finish: the split and why it is exact.
// N is one running double sum over every pixel; each t depends on its pixel
// only. FloatPsnrTerms = a sequence of doubles whose running sum from +0 is
// N: the CPU kernel adds the t in raster order (the plain loop is the
// ordered sum) and keeps the single term N. A GPU twin may reduce in any
// order where that is exact: t * 4^(bpc-8) is an integer of at most 2^32, so
// while N stays below 2^53 such units (8 and 10 bit: every size up to 2^30
// pixels; 12 bit: below 2^29 pixels; 16 bit: below 2^21) every addition is
// exact and an integer sum of the units gives N; otherwise base/ordered_sum.h's
// tree (F = double) gives the plain loop's value bit for bit. It sends the
// single term N.
// finish = the division, log10 and the clamps (float_psnr_score), shared.
#pragma once

#include "base/hd_math.h"
#include "core/picture.h"
#include "features/feature.h"
#include "features/float_psnr/float_psnr_math.h"

namespace twinmaf {

struct FloatPsnrTerms final : FrameTermsOf<FloatPsnrTerms> {
  double noise = 0;  // N: the running double sum of the terms, from +0
  bool operator==(const FloatPsnrTerms& o) const { return double_bits(noise) == double_bits(o.noise); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.noise); }
};

// CPU reference: N of the luma planes (bpc 8, 10, 12 or 16).
double float_psnr_noise_ref(const PlaneView& ref, const PlaneView& dis, int bpc);

// finish: float_psnr from N for a w x h plane at bpc.
double float_psnr_score(double noise, int w, int h, int bpc);

const FeatureSpec& float_psnr_feature_spec();

// CUDA twin (float_psnr.cu, float_psnr_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_psnr_twin(const Extractor& configured, const VideoFormat& fmt,
                                                   gpu::Context& ctx);

}  // namespace twinmaf
