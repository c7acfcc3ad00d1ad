// psnr_hvs: PSNR-HVS-M (Daala's variant) per plane and combined.
//
// Reference: libvmaf f85a8536 feature/third_party/xiph/psnr_hvs.c (calc_psnrhvs,
// extract). Outputs psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs; no options.
// Supports 8..12 bit, 4:2:0 / 4:2:2 / 4:4:4 (init rejects bpc > 12 and 4:0:0,
// as libvmaf does).
//
// What it computes, per plane p of size w x h (libvmaf's floor chroma):
//   blocks: every 8x8 window at (x, y) = (7*bx, 7*by) with x < w-7, y < h-7
//     (step 7, so neighbours overlap by one row/column), in raster order.
//   per block, for the reference S and the distorted D separately:
//     ratio  = sum of the four 4x4 quadrant variances / whole-block variance
//              (float, libvmaf's accumulation order; ratio = 0 for a flat block)
//     C      = Daala's integer 8x8 DCT of the raw samples (int32 lifting)
//     energy = sum over the 63 AC coefficients k of (float)(C_k^2) * mask_k
//     thr    = (float)(sqrt((double)(energy * ratio)) / 32)
//   then m = max(thr_S, thr_D) and for each coefficient k in raster order
//     e_k = |C_S,k - C_D,k|                       (k = 0: no masking)
//     e_k = e_k < m/mask_k ? 0 : e_k - m/mask_k   (k > 0, float)
//     term_k = (e_k * csf_k) * (e_k * csf_k)      (float)
//   ret_p = the float running sum over all blocks of term_0..term_63, from +0
//   score_p = ret_p / (float)(64 * blocks) / (float)((2^bpc - 1)^2)   (float)
//   psnr_hvs_<p> = 10 * -log10(score_p)           (double)
//   psnr_hvs     = 10 * -log10(0.8 * score_Y + 0.1 * (score_Cb + score_Cr))
// csf is csf_y for luma and the 4:2:0 Cb/Cr tables for chroma whatever the
// layout; mask_k = (float)((csf_k * 0.3885746225901003)^2) in double.
// Samples are used raw at every bit depth (9 and 11 bit included): only
// samplemax = 2^bpc - 1 depends on bpc.
//
// Special values (libvmaf's, reproduced exactly):
// - identical planes: ret = 0, score 0, psnr_hvs_<p> = +inf.
// - a plane with w < 8 or h < 8 has no block: libvmaf divides 0.0f by 0 and
//   prints "nan" (JSON null); we return a positive quiet NaN for that plane
//   and for the combined value. No sizes are rejected: libvmaf reads nothing
//   outside the picture at any size.
//
// Numeric contract of the kernels (why int32 is enough, checked by affine
// bounds over all inputs in [0, 4095]^64): every DCT intermediate and every
// product t * c + r stays below 3.8e8 < 2^31; |C| <= 32809, so C^2 < 2^31 and
// |C_S - C_D| <= 32856 (fits uint16). 16-bit input would overflow: one more
// reason init refuses bpc > 12. Block means are exact in float (sums of <= 64
// values < 2^12 need <= 18 bits); the variances, energies and terms are float
// with libvmaf's operand order, compiled without FMA contraction.
//
// Terms and finish: the split and why it is exact.
// libvmaf's ret is ONE running float sum over 64 * blocks terms, so no
// reduction of float partial sums (a tree, per-block sums) reproduces it:
// each rounding depends on the running value. But every term depends only on its own block. So:
//   PsnrHvsTerms (per plane) = the block count and the sequence of the block
//     terms term_k in libvmaf's order (blocks raster, coefficients raster),
//     where terms equal to +0 may be left out: every term is >= +0 and
//     r + (+0) == r for every r >= +0, so the running sum is unchanged.
//     The CPU leaves them out (75-91% of all terms on the real content and
//     small-delta noise goldens: masked AC coefficients).
//   finish = the ordered float sum of that sequence from +0 (ordered_sum,
//     base/ordered_sum.h), the two float divisions, log10 and the combined
//     score. It is the only code that touches the running sum, shared by every
//     backend, so the ordered part cannot diverge between CPU and a twin.
// The kernel side is embarrassingly parallel over blocks: one block's terms
// depend on its 128 samples only (psnr_hvs_math.h's block kernel, shared by
// the CPU lanes and a GPU thread per block).
//
// The CUDA twin (psnr_hvs.cu, psnr_hvs_cuda.cpp) does not send terms back:
// sending them would cost up to 64 floats per block (65 MB per 4K 4:2:0
// frame of noise, 6-16 MB of real content even after dropping the +0 ones)
// and a host finish of milliseconds. It computes ret itself, exactly, on the
// device with base/ordered_sum.h's tree (one leaf per block: its 64 terms,
// zeros included; gpu/ordered_sum.cuh), whose value is the plain loop's bit
// for bit (the argument is there; ordered_sum_tree_sum is its host model,
// tested against the plain loop). The twin's PsnrHvsTerms hold, per plane,
// the block count and the single term ret, whose ordered sum from +0 is ret
// itself: finish() is unchanged and shared. What crosses the bus is 12 bytes
// per frame.
#pragma once

#include <cstdint>
#include <vector>

#include "core/picture.h"
#include "features/feature.h"
#include "features/psnr_hvs/psnr_hvs_math.h"

namespace twinmaf {

// Per-plane tables, row-major 8x8 (k = 8 * vertical frequency + horizontal).
// Built once on the host (a GPU twin uploads them; it never recomputes them).
struct PsnrHvsTables {
  float csf[3][64];   // [plane]: csf_y, csf_cb420, csf_cr420
  float mask[3][64];  // (float)((csf * 0.3885746225901003)^2), in double
};
const PsnrHvsTables& psnr_hvs_tables();

struct PsnrHvsPlaneTerms {
  int blocks = 0;             // 8x8 blocks scored in the plane
  std::vector<float> terms;   // libvmaf's addends in order; +0 ones may be left out
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.blocks); f(s.terms); }
};

// Equality is equality of what finish() reads: per plane the block count and
// the bits of the ordered sum of the terms. The CPU keeps the nonzero terms,
// the twin the single term ret; both sum to the same ret exactly when equal.
struct PsnrHvsTerms final : FrameTermsOf<PsnrHvsTerms> {
  PsnrHvsPlaneTerms plane[3];
  bool operator==(const PsnrHvsTerms& o) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.plane); }
};

// CPU reference, one block (the specification of the kernel side): ref/dis
// are the 64 raw samples in raster order; writes the 64 terms in libvmaf's
// order.
void psnr_hvs_block_terms_ref(const int32_t ref[64], const int32_t dis[64], const float csf[64],
                              const float mask[64], float terms[64]);

// CPU reference, one plane (plane 0 luma, 1 Cb, 2 Cr): fills out (cleared
// first) with the block count and the nonzero terms in order. Runs the same
// block kernel four blocks at a time in vector lanes (bit-identical per lane,
// see psnr_hvs_ref.cpp).
void psnr_hvs_plane_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, int plane,
                              PsnrHvsPlaneTerms& out);

// finish: the four scores of one frame, in output order (y, cb, cr, combined).
struct PsnrHvsScores {
  double value[4];
};
PsnrHvsScores psnr_hvs_scores(const PsnrHvsTerms& terms, int bpc);

const FeatureSpec& psnr_hvs_feature_spec();

// CUDA twin (psnr_hvs.cu, psnr_hvs_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_psnr_hvs_twin(const Extractor& configured, const VideoFormat& fmt,
                                                 gpu::Context& ctx);

}  // namespace twinmaf
