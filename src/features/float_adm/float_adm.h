// float_adm: libvmaf's floating-point ADM (Detail Loss Metric adm2, the
// Additive Impairment Measure aim, adm3), luma only.
//
// Reference: libvmaf f85a8536 feature/float_adm.c (options, outputs), adm.c
// (compute_adm), adm_tools.c/.h (the scalar kernels; __SSE2__ path, see the
// division below), adm_options.h, adm_csf_tools.h (adm_native_csf),
// barten_csf_tools.h, picture_copy.c. Names: VMAF_feature_adm2_score,
// VMAF_feature_aim_score, VMAF_feature_adm3_score,
// VMAF_feature_adm_scale0..3_score; with debug: adm, adm_num, adm_den,
// adm_num_scale0, adm_den_scale0, ... adm_den_scale3.
//
// Stages, per frame (float unless stated; x*y*z is (x*y)*z, sums left to right):
//   0. picture_copy of ref and dis, offset -128 (features/common/float_picture.h).
//   Per scale s = 0..3 on the previous scale's band a (the picture at s = 0),
//   input n x m, bands ceil(n/2) x ceil(m/2):
//   1. DWT (db2, the four float taps below): per output row i, the vertical
//      lo/hi sums over input rows q(2i-1+k), k = 0..3, into full-width rows,
//      then per output column j the horizontal lo/hi sums over q(2j-1+k):
//      a = lo(lo), v = hi(lo), h = lo(hi), d = hi(hi); each sum from +0 in tap
//      order; q(-1) = 1, q(n+k) = n-1-k. With adm_skip_scale0, scale 0 computes
//      a only and stages 2-5 are skipped there.
//   2. Decouple on the region R1 (margins (int)(0.1*w - 1.5) clipped at 0,
//      right/bottom w - margin + 2 clipped at w): k = clamp(t * rcp(o + 1e-30f),
//      0, 1), r = k*o; if the angle of (o_h, o_v) and (t_h, t_v) is below one
//      degree (o.t >= 0 and (o.t)^2 >= (float)cos^2(1 deg) * |o|^2 * |t|^2, all
//      float), r > 0 becomes MIN(r*egl, t) and then r < 0 becomes MAX(r*egl, t),
//      egl = adm_enhn_gain_limit, in double, rounded to float; a = t - r.
//      rcp(x) = y + y*(1 - x*y), y = the processor's RCPSS approximation of
//      1/x: libvmaf divides this way wherever __SSE2__ is defined (x86-64
//      always), plain t / (o + 1e-30f) elsewhere; so do we. RCPSS is not
//      specified bit for bit (vendors implement it differently), so libvmaf's
//      float ADM depends on the processor, and ours with it. On the Intel
//      machines measured its result depends on the top 11 fraction bits and the
//      exponent of x only (a 2048-entry table scaled by the exponent, which a
//      GPU twin can take from the host).
//   3. CSF on R1: for a and for r, c = f_b * x (f_b the factor of the
//      orientation), and the masking term (float)(0.0333333351 * |c|) in double.
//   4. Masking on the region R2 (margins (int)(0.1*w - 0.5), right/bottom
//      w - margin): for each sample, threshold thr = sum over b = h, v, d of the
//      float sum, from +0, of the masking terms at (up, left), (up, j),
//      (up, right), (i, left), then (float)(sum + 0.0666666701 * |c_b(i, j)|)
//      in double, then (i, right), (down, left), (down, j), (down, right), with
//      up = i-1 (1 at i = 0), down = i+1 (h-1 at i = h-1), left = j-1 (1 at
//      j = 0), right = j+1 (w-1 at j = w-1); thr = 0 with adm_bypass_cm. Then
//      x = max(|f_b * target| - thr, 0) and its p-th power (x*x*x for
//      adm_p_norm 3, powf otherwise): num = target r with the masker a's CSF,
//      aim = target a with the masker r's CSF.
//   5. Denominator on R2: |f_b * o|^p of the reference band.
//   Each of den, num and aim is, per orientation, a float sum from +0 of the
//   rows of R2 in order, each row a float sum from +0 over its columns.
//   6. finish(): per orientation powf(sum, (float)(1/p)) + powf((float)(area *
//      weight), (float)(1/p)) (area = R2's, weight adm_noise_weight for den and
//      num, 0 for aim), the float sum h + v + d per scale, double totals,
//      limits, ratios and adm3 (float_adm.cpp, FloatAdm::finish).
//
// Terms and finish (the split, and why it is exact): FloatAdmTerms hold, per
// scale, sum (den, num, aim) and orientation, the row sums of stages 4-5 in
// row order. A row sum depends on the two pictures only, so any backend may
// produce it (a float sum in column order: a plain loop or base/ordered_sum.h's
// tree); libvmaf then adds the row sums in order (its extra additions of +0
// for border rows change nothing: every row sum is >= +0), which finish() does
// with ordered_sum, bit for bit the plain loop, followed by every per-scale
// and per-frame float/double step. Every per-sample float step stays in the
// kernels with libvmaf's operations (the RCPSS division included).
//
// Sizes: every scale's input must have >= 2 rows and columns (the DWT reads
// index 1 for -1) and every band >= 2 (the 3x3 masking neighbourhood reads
// index 1 for -1); at scale 3 that is ceil(n/16) >= 2: n >= 17. Below, libvmaf
// reads outside its buffers (stale values or a crash); init refuses.
// Depths: 8, 10, 12, 16 bit (picture_copy's).
#pragma once

#include <vector>

#include "core/picture.h"
#include "features/feature.h"
#include "features/float_adm/float_adm_math.h"

namespace twinmaf {

inline constexpr int kFloatAdmMinSize = 17;

// A region [top, bottom) x [left, right) of a band.
struct FloatAdmRegion {
  int top = 0, bottom = 0, left = 0, right = 0;
  int rows() const { return bottom - top; }
  int cols() const { return right - left; }
};

struct FloatAdmScaleParams {
  int in_w = 0, in_h = 0;  // DWT input
  int w = 0, h = 0;        // bands
  FloatAdmRegion decouple;  // R1: decouple and CSF
  FloatAdmRegion sums;      // R2: masking and denominator
  float rfactor[3] = {};    // CSF factor of h, v, d
};

// What the kernels need, resolved by init (options and format).
struct FloatAdmKernelParams {
  int bpc = 8;
  bool skip_scale0 = false;
  bool bypass_cm = false;
  double enhn_gain_limit = 100.0;
  double p_norm = 3.0;
  float cos_1deg_sq = 0;
  FloatAdmScaleParams scale[4];
};

// Which sum of a scale.
enum FloatAdmSum : int { kFloatAdmDen = 0, kFloatAdmNum = 1, kFloatAdmAim = 2 };

struct FloatAdmTerms final : FrameTermsOf<FloatAdmTerms> {
  // rows[s][k][b]: scale s, sum k (FloatAdmSum), orientation b (h, v, d): the
  // row sums of R2, top to bottom. Empty for scale 0 under adm_skip_scale0.
  std::vector<float> rows[4][3][3];
  bool operator==(const FloatAdmTerms& o) const;  // bitwise
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.rows); }
};

// CPU reference: the terms of one frame (luma planes ref and dis of depth
// p.bpc). Thread-safe; scratch is thread-local.
void float_adm_terms_ref(const PlaneView& ref, const PlaneView& dis, const FloatAdmKernelParams& p,
                         FloatAdmTerms& out);

// libvmaf's adm_native_csf (adm_csf_tools.h), the CSF of adm_csf_mode 2:
// theta 0 (h, v) or 45 (diagonal).
float float_adm_native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta);

// The kernel parameters of a configured float_adm (after init).
const FloatAdmKernelParams& float_adm_kernel_params(const Extractor& configured);

const FeatureSpec& float_adm_feature_spec();

// CUDA twin (float_adm.cu, float_adm_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_adm_twin(const Extractor& configured, const VideoFormat& fmt,
                                                  gpu::Context& ctx);

}  // namespace twinmaf
