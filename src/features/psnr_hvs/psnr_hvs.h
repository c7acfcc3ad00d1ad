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
//   finish = the ordered float sum of that sequence from +0
//     (psnr_hvs_ordered_sum), the two float divisions, log10 and the combined
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
// device: psnr_hvs_math.h part 2 builds a tree of integer "binade steps" over
// the blocks' terms (what each run of terms adds to r, in ulps, for each of
// the 24 binades of r where it can add something, exact in integers) and
// walks it in libvmaf's order, adding whole runs as integer steps and only
// the terms where r changes binade as floats. That value is the plain loop's
// bit for bit (proof sketch in psnr_hvs_math.h; psnr_hvs_tree_sum below is
// its host model, tested against the plain loop). The twin's PsnrHvsTerms
// hold, per plane, the block count and the single term ret, whose ordered
// sum from +0 is ret itself: finish() is unchanged and shared. What crosses
// the bus is 12 bytes per frame.
//
// Fast exact ordered sum (psnr_hvs_ordered_sum): while r lies in one binade
// [2^E, 2^(E+1)) (ulp u = 2^(E-23)), adding t >= 0 gives exactly
// r + RN_u(t) (t rounded to a multiple of u) as long as the result stays below
// 2^(E+1) and t is not exactly halfway between two multiples of u (where
// ties-to-even would look at r's last bit). RN_u(t) does not depend on r, and
// multiples of u below 2^(E+1) add exactly in any order, so a chunk of terms
// is summed in independent lanes and added to r at once. RN_u(t) is computed
// as (t + 1.5*2^E) - 1.5*2^E, which needs t < 2^(E-1); ties are detected as
// |RN_u(t) - t| == u/2 (that difference is exact). A chunk that could leave
// the binade (chunk sum >= 2^(E+1) - r; terms are non-negative, so the
// chunk sum bounds every partial sum), holds a tie or a term >= 2^(E-1) is
// added one term at a time instead. The result is bit-identical to the plain
// loop (psnr_hvs_ordered_sum_naive), which the unit tests check on
// adversarial sequences; it removes the plain loop's add-latency chain
// (about 1.9x faster here, on SSE2).
#pragma once

#include <cstdint>
#include <span>
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
};

// Equality is equality of what finish() reads: per plane the block count and
// the bits of the ordered sum of the terms. The CPU keeps the nonzero terms,
// the twin the single term ret; both sum to the same ret exactly when equal.
struct PsnrHvsTerms final : FrameTermsOf<PsnrHvsTerms> {
  PsnrHvsPlaneTerms plane[3];
  bool operator==(const PsnrHvsTerms& o) const;
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

// The float running sum r = +0; r += t for t in terms, bit for bit, for any
// input (naive: that loop itself). The fast path needs terms >= +0; chunks
// with anything else (negative, inf, NaN) are added the plain way.
float psnr_hvs_ordered_sum(std::span<const float> terms);
float psnr_hvs_ordered_sum_naive(std::span<const float> terms);

// finish: the four scores of one frame, in output order (y, cb, cr, combined).
struct PsnrHvsScores {
  double value[4];
};
PsnrHvsScores psnr_hvs_scores(const PsnrHvsTerms& terms, int bpc);

// Host model of the twin's reduction: the tree of psnr_hvs_math.h over the
// terms (padded with +0 to whole 64-term leaves), walked sequentially. Equal
// to psnr_hvs_ordered_sum_naive for every input (NaN payloads aside).
struct PsnrHvsHostTree {
  std::vector<float> terms;
  std::vector<uint32_t> info[kPsnrHvsMaxLevels];
  std::vector<PsnrHvsSteps> steps[kPsnrHvsMaxLevels];
  PsnrHvsTree tree;  // views of the vectors above
};
void psnr_hvs_build_tree(std::span<const float> terms, PsnrHvsHostTree& out);
float psnr_hvs_tree_sum(std::span<const float> terms);

const FeatureSpec& psnr_hvs_feature_spec();

// CUDA twin (psnr_hvs.cu, psnr_hvs_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_psnr_hvs_twin(const Extractor& configured, const VideoFormat& fmt,
                                                 gpu::Context& ctx);

}  // namespace twinmaf
