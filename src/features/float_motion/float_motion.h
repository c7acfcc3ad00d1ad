// float_motion: libvmaf's floating-point motion, the temporal activity of the
// reference video, and its motion2/motion3 scores.
//
// Reference: libvmaf f85a8536 feature/float_motion.c (extract, flush, options),
// motion.c (vmaf_image_sad_c, compute_motion), motion_tools.h (filters),
// common/convolution.c + convolution_internal.h (convolution_f32_c_s, its
// scalar path), vif_tools.c (bilinear scaling, motion_add_scale1),
// motion_blend_tools.h, picture_copy.c. Names: VMAF_feature_motion_score
// (option debug, on by default), VMAF_feature_motion2_score,
// VMAF_feature_motion3_score. libvmaf's TEMPORAL: every frame, in order.
//
// Stages, frame i, plane p (luma; with motion_add_uv also Cb and Cr at their
// scored size w_p x h_p):
//   1. picture_copy with offset -128 (features/common/float_picture.h).
//   2. Blur B_i: a separable filter, the vertical pass into a temporary, then
//      the horizontal pass; each output is sum_k f_k * x[m(j - r + k)] in float,
//      from +0, k = 0..taps-1 in order, with m mirroring without repeating the
//      edge sample (-k -> k, n-1+k -> n-1-k; libvmaf's interior and edge
//      loops add in that same order). Filter by motion_filter_size: 3 ->
//      FILTER_3 (3 taps), 1 -> {0, 0, 1, 0, 0} (5 taps, computed as such),
//      anything else -> FILTER_5 (5 taps).
//   3. i >= 1: the SAD of B_{i-1} and B_i: per row the float sum from +0 of
//      |B_{i-1} - B_i| in column order (libvmaf adds fabs() in double and
//      rounds to float: for float operands that is the float sum, double
//      having more than 2*24+2 bits), then the float sum of the row sums from
//      +0 in row order. With motion_add_scale1 the same on both blurred
//      pictures scaled bilinearly to (int)(w_p*0.5+0.5) x (int)(h_p*0.5+0.5)
//      (libvmaf's vif_scale_frame_s, float/double steps as there).
//
// Terms and finish (the split, and why it is exact): FloatMotionTerms hold
// the row sums of step 3, per plane and size, in row order. They depend on
// the two blurred pictures only, so any backend may produce them (each row
// sum is a float sum in column order: a plain loop or base/ordered_sum.h's
// tree). finish() forms libvmaf's running float sum of the row sums with
// ordered_sum (bit for bit the plain loop), then, shared by every backend:
//   m_p     = (float)(S_p / (float)(w_p*h_p)) [+ (float)(S1_p / (float)(w1*h1)), a float add]
//   score_i = m_Y (double) [+ m_Cb + m_Cr, double adds in that order]
// and libvmaf's appends (f = motion_fps_weight, MIN(a, b) = a < b ? a : b,
// blend(x) = x*factor + (1 - factor)*MIN(offset, x), all double):
//   frame 0:  motion2[0] = 0, motion[0] = 0
//   frame i:  motion[i] = MIN(score_i*f, max); i == 1: motion3[0] =
//             MIN(blend(score_1*f), max); i >= 2: with s = MIN(score_{i-1},
//             score_i) (libvmaf recomputes score_{i-1} as the SAD of B_{i-1}
//             and B_{i-2}: |a - b| == |b - a|, so the same bits),
//             motion2[i-1] = MIN(s*f, max), motion3[i-1] = MIN(blend(s*f), max)
//   flush:    last index n-1 >= 1: motion2[n-1] = MIN(score_{n-1}*f, max),
//             motion3[n-1] = MIN(blend(score_{n-1}*f), max); n == 1:
//             motion3[0] = 0.
//   motion_force_zero: motion2, motion3 (and motion) = 0 at every frame, in
//   that order, nothing read, no flush.
// The values are written when libvmaf writes them, so the columns come in its
// first-append order: motion2, motion, motion3 (force_zero: motion2, motion3,
// motion).
//
// Limits (init): 8, 10, 12 or 16 bit (what picture_copy converts); every
// plane read at least 3x3 (2x2 with the 3-tap filter), below which libvmaf's
// mirror reads outside the plane; motion_add_uv needs chroma (libvmaf: EINVAL
// on 4:0:0); motion_add_scale1 needs (int)(w*0.5+0.5) <= 7680 (libvmaf: EINVAL);
// motion_add_uv with motion_add_scale1 on 4:2:0/4:2:2 is refused: libvmaf scales
// the chroma blur with a stride computed from the chroma width while the buffer
// has the luma stride, reading rows it never wrote (4:4:4 is correct and
// accepted). motion_force_zero reads nothing and accepts any size.
#pragma once

#include <cstddef>
#include <vector>

#include "core/picture.h"
#include "features/feature.h"

namespace twinmaf {

// What compute() and a twin need, resolved by init().
struct FloatMotionParams {
  bool force_zero = false;
  bool add_uv = false;
  bool add_scale1 = false;
  int filter_size = 5;  // libvmaf's option value (3, 1, or anything else: 5 taps)
  int planes = 1;       // planes read: 1, or 3 with add_uv
  int bpc = 8;
  int w[3] = {}, h[3] = {};    // scored size of each plane read
  int w1[3] = {}, h1[3] = {};  // half size (add_scale1)
};

struct FloatMotionTerms final : FrameTermsOf<FloatMotionTerms> {
  // Row sums of |B_{i-1} - B_i|, rows in order, per plane read (full size and,
  // with add_scale1, half size); empty at frame 0 and with force_zero.
  std::vector<float> rows[3];
  std::vector<float> rows_scale1[3];
  bool operator==(const FloatMotionTerms& o) const;  // bitwise
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.rows); f(s.rows_scale1); }
};

// The taps of a motion_filter_size value (3, 1 or 5 of them).
std::vector<float> float_motion_filter(int filter_size);

// CPU reference kernels (float_motion_ref.cpp); pictures are float, rows
// `stride` floats apart.
// Blur of a w x h picture with 3 or 5 taps (w, h >= taps/2 + 1); tmp holds w x h
// floats.
void float_motion_blur_ref(const std::vector<float>& taps, const float* src, int w, int h,
                           std::ptrdiff_t stride, float* tmp, float* dst);
// libvmaf's bilinear scaling of a w x h picture to dw x dh (dst rows dw apart).
void float_motion_scale_ref(const float* src, int w, int h, std::ptrdiff_t stride, float* dst, int dw,
                            int dh);
// Appends the h row sums of |a - b| to rows.
void float_motion_sad_rows_ref(const float* a, const float* b, int w, int h, std::ptrdiff_t stride,
                               std::vector<float>& rows);

// The resolved parameters of a configured float_motion.
const FloatMotionParams& float_motion_params(const Extractor& configured);

const FeatureSpec& float_motion_feature_spec();

// CUDA twin (float_motion.cu, float_motion_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_motion_twin(const Extractor& configured, const VideoFormat& fmt,
                                                     gpu::Context& ctx);

}  // namespace twinmaf
