// float_ansnr: anti-noise SNR and PSNR of the luma plane, libvmaf's float
// pipeline.
//
// Reference: libvmaf f85a8536 feature/float_ansnr.c, ansnr.c (compute_ansnr,
// with its compile-time options off: 2-D filters, mirrored borders, no
// normalisation), ansnr_tools.c, picture_copy.c. Outputs, in this order:
// float_ansnr, float_anpsnr (libvmaf's provided name, for models, is
// float_ansnr); no options. Luma only; 8, 10, 12 or 16 bit (init refuses other
// depths, as libvmaf's does); at least 3x3 (below, libvmaf's 5x5 filter reads
// outside its buffers: init refuses).
//
// What it computes, for the w x h luma plane (float arithmetic throughout):
//   a, b    the samples as floats, s / 2^(bpc-8) - 128 (features/float_picture.h)
//   A       a filtered by the 3x3 kernel [1 2 1; 2 4 2; 1 2 1] / 16
//   B       b filtered by the 5x5 kernel [2 7 12 7 2; 7 31 52 31 7;
//           12 52 127 52 12; 7 31 52 31 7; 2 7 12 7 2] / 571 (each tap the
//           float of the double k / 571.0); per output pixel, for each kernel
//           row in order, a float running sum of tap * sample over the kernel
//           columns from +0, and a float running sum of those row sums from
//           +0; borders mirrored without repeating the edge at the top/left
//           (-1 -> 1, -2 -> 2) and repeating it at the bottom/right (n -> n-1,
//           n+1 -> n-2)
//   rows    per image row y: sig_y = float running sum over x of A*A,
//           noise_y = float running sum of (A-B)*(A-B), both from +0
//   sig, noise  float running sums over y of sig_y, noise_y, from +0
//   float_ansnr  = noise == 0 ? psnr_max : 10 log10((float)(sig / noise))
//   float_anpsnr = min(10 log10(peak^2 w h / max(noise, 1e-10)), psnr_max)
//           (double), libvmaf's peak and psnr_max (features/float_picture.h).
//
// Terms and finish: the split and why it is exact.
// The filtered pixels and the per-row sums depend on a few rows each; only
// the last stage, a float running sum over the rows, couples the whole
// plane. FloatAnsnrTerms = for sig and for noise, a sequence of floats whose
// running float sum from +0 is libvmaf's sum: the CPU kernel keeps the h row
// sums (each itself a running float sum over its row, computed with
// base/ordered_sum.h's exact ordered_sum); a GPU twin may send the same row
// sums or the single finished sums (the CUDA twin, float_ansnr.cu, sends the
// finished sums: one device thread per row, then one over the rows). finish = ordered_sum of each sequence,
// the float division, the logs and the clamps (float_ansnr_scores), shared.
#pragma once

#include <vector>

#include "core/picture.h"
#include "features/feature.h"

namespace twinmaf {

// Equality is equality of what finish() reads: the bits of the ordered sums.
struct FloatAnsnrTerms final : FrameTermsOf<FloatAnsnrTerms> {
  std::vector<float> sig;    // running float sums from +0, one per row (or any
  std::vector<float> noise;  // sequence with the same running sum)
  bool operator==(const FloatAnsnrTerms& o) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.sig); f(s.noise); }
};

// libvmaf's filter taps, row-major: 3x3 for the reference, 5x5 for the
// distorted picture.
struct FloatAnsnrFilters {
  float ref[9];
  float dis[25];
};
const FloatAnsnrFilters& float_ansnr_filters();

// CPU reference: the row sums of one frame's luma planes (w, h >= 3; bpc 8,
// 10, 12 or 16).
void float_ansnr_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, FloatAnsnrTerms& out);

// finish: float_ansnr and float_anpsnr for a w x h plane at bpc.
struct FloatAnsnrScores {
  double ansnr, anpsnr;
};
FloatAnsnrScores float_ansnr_scores(const FloatAnsnrTerms& terms, int w, int h, int bpc);

const FeatureSpec& float_ansnr_feature_spec();

// CUDA twin (float_ansnr.cu, float_ansnr_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_float_ansnr_twin(const Extractor& configured, const VideoFormat& fmt,
                                                    gpu::Context& ctx);

}  // namespace twinmaf
