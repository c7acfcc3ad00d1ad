// psnr_hvs arithmetic shared by the CPU reference (psnr_hvs_ref.cpp) and the
// CUDA twin (psnr_hvs.cu): CUDA-safe (no fmt, no Status), every function
// TWINMAF_HD. The block kernel (psnr_hvs.h has its numeric contract): Daala's
// integer 8x8 DCT, the variance ratios, the masking thresholds and the 64
// terms of one block, written once as templates over an integer type I and a
// float type F with the few operations whose spelling differs between scalars
// and vector lanes in PsnrHvsLaneOps<I, F>. The scalar specialisation is here
// (a GPU thread per block runs it); psnr_hvs_ref.cpp adds a 4-lane vector one
// (element-wise IEEE/int32 operations in the same order, so each lane gives
// the scalar kernel's bits). The exact ordered sum of the terms is
// base/ordered_sum.h's.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.h"

namespace twinmaf {

inline constexpr int kPsnrHvsBlock = 8;
inline constexpr int kPsnrHvsStep = 7;
inline constexpr int kPsnrHvsTerms = 64;  // terms per block (= per leaf of the twin's ordered sum)

// Number of 8x8 blocks along a dimension of n samples (0 for n < 8).
TWINMAF_HD int psnr_hvs_blocks_1d(int n) { return n < kPsnrHvsBlock ? 0 : (n - kPsnrHvsBlock) / kPsnrHvsStep + 1; }

template <typename I, typename F>
struct PsnrHvsLaneOps;

// Scalars: one block (the specification; a GPU thread runs exactly this).
template <>
struct PsnrHvsLaneOps<int32_t, float> {
  static TWINMAF_HD float to_float(int32_t v) { return static_cast<float>(v); }
  // |v| for |v| <= 32856 (psnr_hvs.h bounds every difference of coefficients).
  static TWINMAF_HD int32_t abs_i(int32_t v) { return v < 0 ? -v : v; }
  // libvmaf: e < level ? 0 : e - level, written as d = e - level; d < 0 ? 0 : d.
  // A float difference has the sign of the exact one and is +0 only for equal
  // operands, so both give the same value.
  static TWINMAF_HD float zero_if_negative(float d) { return d < 0 ? 0.f : d; }
  // libvmaf: if (d_mask > s_mask) s_mask = d_mask.
  static TWINMAF_HD float larger(float s, float d) { return d > s ? d : s; }
  // libvmaf: if (var > 0) var = quad_sum / var (IEEE division on both sides).
  static TWINMAF_HD float ratio_if_positive(float quad_sum, float var) { return var > 0 ? quad_sum / var : var; }
  // libvmaf: sqrt(x) / 32.f with C's double sqrt (correctly rounded on the host
  // and on the device), stored as float.
  static TWINMAF_HD float sqrt_div32(float x) { return static_cast<float>(::sqrt(static_cast<double>(x)) / 32.0); }
};

// Daala's 8-point forward DCT (libvmaf od_bin_fdct8): integer lifting,
// in[i * stride] -> out[0..7]. Every product t * c + r is below 2^31 for
// 12-bit input (bound in psnr_hvs.h). `>> s` on negative values is the
// arithmetic shift (floor), C++20-defined and nvcc's; `a / 2` truncates toward
// zero, which is exactly libvmaf's OD_UNBIASED_RSHIFT32(a, 1).
template <typename I>
TWINMAF_HD void psnr_hvs_fdct8(const I* in, int stride, I* out) {
  // Inputs in the order the butterflies pair them.
  I a0 = in[0 * stride];
  I a4 = in[1 * stride];
  I a2 = in[2 * stride];
  I a6 = in[3 * stride];
  I a7 = in[4 * stride];
  I a3 = in[5 * stride];
  I a5 = in[6 * stride];
  I a1 = in[7 * stride];

  // Sum/difference butterflies with halved differences.
  a1 = a0 - a1;
  const I a1_half = a1 / 2;
  a0 -= a1_half;
  a4 += a5;
  const I a4_half = a4 / 2;
  a5 -= a4_half;
  a3 = a2 - a3;
  a2 -= a3 / 2;
  a6 += a7;
  const I a6_half = a6 / 2;
  a7 = a6_half - a7;

  // Even half: 4-point DCT-II.
  a0 += a6_half;
  a6 = a0 - a6;
  a2 = a4_half - a2;
  a4 = a2 - a4;
  // 2-point DCT-II by three lifting steps.
  a0 -= (a4 * 13573 + 16384) >> 15;
  a4 += (a0 * 11585 + 8192) >> 14;
  a0 -= (a4 * 13573 + 16384) >> 15;
  // 2-point DST-IV.
  a6 -= (a2 * 21895 + 16384) >> 15;
  a2 += (a6 * 15137 + 8192) >> 14;
  a6 -= (a2 * 21895 + 16384) >> 15;

  // Odd half: 4-point DST-IV.
  a3 += (a5 * 19195 + 16384) >> 15;
  a5 += (a3 * 11585 + 8192) >> 14;
  a3 -= (a5 * 7489 + 4096) >> 13;
  a7 = a5 / 2 - a7;
  a5 -= a7;
  a3 = a1_half - a3;
  a1 -= a3;
  a7 += (a1 * 3227 + 16384) >> 15;
  a1 -= (a7 * 6393 + 16384) >> 15;
  a7 += (a1 * 3227 + 16384) >> 15;
  a5 += (a3 * 2485 + 4096) >> 13;
  a3 -= (a5 * 18205 + 16384) >> 15;
  a5 += (a3 * 2485 + 4096) >> 13;

  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
  out[4] = a4;
  out[5] = a5;
  out[6] = a6;
  out[7] = a7;
}

// In-place 8x8 DCT: columns first (transposing into tmp), then the columns
// of tmp. Result: blk[8 * v + u], v the vertical and u the horizontal
// frequency, as libvmaf's od_bin_fdct8x8.
template <typename I>
TWINMAF_HD void psnr_hvs_fdct8x8(I blk[64]) {
  I tmp[64];
  for (int c = 0; c < 8; ++c) psnr_hvs_fdct8(blk + c, 8, tmp + 8 * c);
  for (int v = 0; v < 8; ++v) psnr_hvs_fdct8(tmp + v, 8, blk + 8 * v);
}

// Sum of the four 4x4 quadrant variances over the whole-block variance (both
// unbiased), or 0 when the block variance is not positive.
// libvmaf accumulates the means in float too, but those partial sums are
// integers below 2^18 and so exact in any order: an int32 sum converted once
// gives the same floats. The variance sums round, so each of the five runs in
// raster order (quadrant q = (row >= 4) + 2 * (column >= 4)); different
// accumulators are independent, so their interleaving is free.
template <typename I, typename F>
TWINMAF_HD F psnr_hvs_variance_ratio(const I v[64]) {
  using Ops = PsnrHvsLaneOps<I, F>;
  I isum{};
  I iq[4] = {};
  for (int i = 0; i < 8; ++i) {
    const I* row = v + 8 * i;
    const I left = row[0] + row[1] + row[2] + row[3];
    const I right = row[4] + row[5] + row[6] + row[7];
    isum += left + right;
    iq[i >> 2] += left;
    iq[2 + (i >> 2)] += right;
  }
  const F mean = Ops::to_float(isum) / 64.f;
  F qmean[4];
  for (int q = 0; q < 4; ++q) qmean[q] = Ops::to_float(iq[q]) / 16.f;

  F var{};
  F qvar[4] = {};
  for (int i = 0; i < 8; ++i) {
    const I* row = v + 8 * i;
    const int ql = i >> 2;  // quadrant of the left half of this row
    for (int j = 0; j < 8; ++j) {
      const int q = j < 4 ? ql : ql + 2;
      const F x = Ops::to_float(row[j]);
      const F d = x - mean;
      var += d * d;
      const F dq = x - qmean[q];
      qvar[q] += dq * dq;
    }
  }
  // libvmaf's constants: (1/63.f)*64 and (1/15.f)*16, each folded in float.
  constexpr float kBlockScale = 1 / 63.f * 64;
  constexpr float kQuadScale = 1 / 15.f * 16;
  var *= kBlockScale;
  for (int q = 0; q < 4; ++q) qvar[q] *= kQuadScale;
  return Ops::ratio_if_positive(((qvar[0] + qvar[1]) + qvar[2]) + qvar[3], var);
}

// Masking threshold of one transformed block: sqrt(AC energy * ratio) / 32.
template <typename I, typename F>
TWINMAF_HD F psnr_hvs_masking_threshold(const I c[64], const float mask[64], F ratio) {
  using Ops = PsnrHvsLaneOps<I, F>;
  F energy{};
  for (int k = 1; k < 64; ++k) energy += Ops::to_float(c[k] * c[k]) * mask[k];
  return Ops::sqrt_div32(energy * ratio);
}

// The block kernel: ref/dis are the 64 raw samples in raster order; writes the
// 64 terms in libvmaf's order (scalar: one block; vectors: one block per lane).
template <typename I, typename F>
TWINMAF_HD void psnr_hvs_block_terms(const I ref[64], const I dis[64], const float csf[64], const float mask[64],
                                     F terms[64]) {
  using Ops = PsnrHvsLaneOps<I, F>;
  I cs[64];
  I cd[64];
  for (int k = 0; k < 64; ++k) {
    cs[k] = ref[k];
    cd[k] = dis[k];
  }
  const F ratio_s = psnr_hvs_variance_ratio<I, F>(cs);
  const F ratio_d = psnr_hvs_variance_ratio<I, F>(cd);
  psnr_hvs_fdct8x8(cs);
  psnr_hvs_fdct8x8(cd);
  const F thr_s = psnr_hvs_masking_threshold(cs, mask, ratio_s);
  const F thr_d = psnr_hvs_masking_threshold(cd, mask, ratio_d);
  const F m = Ops::larger(thr_s, thr_d);
  // DC: no masking.
  const F e0 = Ops::to_float(Ops::abs_i(cs[0] - cd[0]));
  terms[0] = (e0 * csf[0]) * (e0 * csf[0]);
  for (int k = 1; k < 64; ++k) {
    const F e = Ops::to_float(Ops::abs_i(cs[k] - cd[k]));
    const F masked = Ops::zero_if_negative(e - m / mask[k]);
    terms[k] = (masked * csf[k]) * (masked * csf[k]);
  }
}

}  // namespace twinmaf
