// float_vif: libvmaf's floating-point Visual Information Fidelity at four
// scales, luma only.
//
// Reference: libvmaf f85a8536 feature/float_vif.c (options, outputs), vif.c
// (compute_vif), vif_tools.c/.h (filters, vif_filter1d_s and its _sq/_xy
// variants, vif_dec2_s, vif_statistic_s, the resamplers), vif_options.h
// (VIF_OPT_FAST_LOG2, VIF_OPT_HANDLE_BORDERS), picture_copy.c; scalar path
// (`--cpumask -1`). Names: VMAF_feature_vif_scale0..3_score; with debug: vif,
// vif_num, vif_den, vif_num_scale0, vif_den_scale0, ... vif_den_scale3.
//
// Stages, per frame (float unless stated):
//   0. picture_copy of ref and dis, offset -128 (features/common/float_picture.h),
//      then vif_prescale to W x H = (int)(w * ps + 0.5) x (int)(h * ps + 0.5)
//      with vif_prescale_method (features/common/float_resample.h; equal sizes
//      copy, so ps near 1 changes nothing).
//   Per scale s = 0..3 (from 1 with vif_skip_scale0), taps f_s =
//   vif_gaussian_filter(s, (float)vif_kernelscale) (features/common/float_filter.h):
//   1. s >= 1: the previous scale's ref and dis images filtered with f_s and
//      decimated to their even rows and columns: (w/2) x (h/2) (floor), each
//      kept sample with exactly filter_separable's operations (step 2).
//   2. the scale's images filtered with f_s (filter_separable, reflect-101,
//      every output a float sum from +0 in tap order, the vertical pass first):
//      mu1 = f(ref), mu2 = f(dis), xx = f(ref*ref), yy = f(dis*dis),
//      xy = f(ref*dis), the products rounded to float before the filter
//      multiplies them (libvmaf's vif_filter1d_sq_s / _xy_s).
//   3. per pixel the statistic (float_vif_math.h: float_vif_pixel) gives num
//      and den; per row the float sums from +0 in column order; per scale
//      num_s and den_s, the float sums from +0 of the row sums in row order.
//   4. finish(): scores[2s] = num_s, scores[2s+1] = den_s (double);
//      vif_num / vif_den = double sums over the computed scales in scale
//      order; vif = vif_num / vif_den (1.0 when vif_den == 0); scale 0 score
//      num_0 / den_0 (0 with vif_skip_scale0; debug num_scale0 0, den_scale0
//      -1); scale k >= 1 score MAX(num_k / den_k, vif_scalek_min_val) with C's
//      MAX in double (a NaN ratio yields the minimum).
//
// Numeric contract: every float and double operation is libvmaf's scalar C in
// its order and types, compiled without FMA contraction; libm exp (the taps)
// and sin (lanczos4) as libvmaf calls them. libvmaf's AVX2 convolution sums
// the same products in the same order with separate multiplies and adds, and
// its statistic has no SIMD path, so its default (SIMD) run prints the same
// values (docs/float_vif.md).
//
// Terms and finish (the split, and why it is exact): FloatVifTerms hold, per
// computed scale, the row sums of stage 3 (num and den), top to bottom. A row
// sum depends on the two pictures only: stages 0-2 produce each filtered
// value independently of every other (a fixed window, fixed tap order, no
// reduction across the image), and the statistic is a per-pixel function, so
// any backend may compute them (float_vif_pixel is CUDA-safe), then sum each
// row in column order (a plain loop or base/ordered_sum.h's tree: the terms
// may be negative, so the tree enters such leaves one addition at a time).
// libvmaf adds the row sums in order; finish() does that with ordered_sum
// (bit for bit the plain loop), then every per-frame double step.
//
// Sizes: every filter must stay inside its image under one reflection: radius
// r_s = |f_s| / 2 <= side_s - 1 for each computed scale s, side_s = W >> s
// (H >> s), so W, H >= max over computed s of (r_s + 1) << s: 16 at the
// default kernel scale (scale 3: 3 taps on W/8), up to 56 (kernel scale
// 360/97). Below, libvmaf mirrors to indices outside its buffers; init
// refuses. Resampling reads inside its source from resample_min_source
// samples per side (refused below). Depths: 8, 10, 12, 16 bit
// (picture_copy's). vif_prescale_method bilinear refuses W > 7680, as
// libvmaf does.
#pragma once

#include <vector>

#include "core/picture.h"
#include "features/common/float_resample.h"
#include "features/feature.h"
#include "features/float_vif/float_vif_math.h"

namespace twinmaf {

inline constexpr int kFloatVifScales = 4;
inline constexpr int kFloatVifBilinearMaxWidth = 7680;  // libvmaf's VIF_BILINEAR_MAX_WIDTH

// What the kernels need, resolved by init (options and format).
struct FloatVifKernelParams {
  int bpc = 8;
  int w = 0, h = 0;                // luma
  int scaled_w = 0, scaled_h = 0;  // after vif_prescale (W x H)
  ResampleMethod method = ResampleMethod::kNearest;
  int first_scale = 0;  // 1 with vif_skip_scale0
  std::vector<float> taps[kFloatVifScales];
  FloatVifStatParams stat;
};

struct FloatVifTerms final : FrameTermsOf<FloatVifTerms> {
  // num[s], den[s]: the row sums of scale s's statistic, top to bottom
  // ((H >> s) each); empty for scale 0 under vif_skip_scale0.
  std::vector<float> num[kFloatVifScales];
  std::vector<float> den[kFloatVifScales];
  bool operator==(const FloatVifTerms& o) const;  // bitwise
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.num); f(s.den); }
};

// CPU reference: the terms of one frame (luma planes ref and dis of depth
// p.bpc, p.w x p.h). Thread-safe; scratch is thread-local.
void float_vif_terms_ref(const PlaneView& ref, const PlaneView& dis, const FloatVifKernelParams& p,
                         FloatVifTerms& out);

// The kernel parameters of a configured float_vif (after init).
const FloatVifKernelParams& float_vif_kernel_params(const Extractor& configured);

const FeatureSpec& float_vif_feature_spec();

// CUDA twin (float_vif.cu, float_vif_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_vif_twin(const Extractor& configured, const VideoFormat& fmt,
                                                  gpu::Context& ctx);

}  // namespace twinmaf
