// psnr_hvs CPU reference kernels: per-block terms (see psnr_hvs.h for the
// numeric contract). No intrinsics; float expressions keep libvmaf's operand
// order and types.
//
// The block kernel is written once, as a template over an integer type I and
// a float type F:
// - I = int32_t, F = float: one block, the plain scalar specification
//   (psnr_hvs_block_terms_ref; a GPU thread per block runs exactly this).
// - I, F = 4-lane GCC/Clang vectors: four blocks side by side, lane l doing
//   block l. Vector operators are element-wise IEEE/int32 operations, so each
//   lane performs the scalar kernel's operations in the scalar kernel's
//   order: the results are the same bits (the unit tests compare the two).
//   It exists because every block runs long float chains (64-term variance
//   sums, 63-term energies) that cannot be reordered; four chains per
//   instruction instead of one is where the speed comes from.
// The few operations whose spelling differs between scalars and vectors are
// the overloads below.
#include <cmath>
#include <cstdlib>

#include "features/psnr_hvs/psnr_hvs.h"

namespace twinmaf {

namespace {

using I4 = int32_t __attribute__((vector_size(16)));
using F4 = float __attribute__((vector_size(16)));
constexpr int kLanes = 4;

inline float to_float(int32_t v) { return static_cast<float>(v); }
inline F4 to_float(I4 v) { return __builtin_convertvector(v, F4); }

inline int32_t abs_i(int32_t v) { return std::abs(v); }
inline I4 abs_i(I4 v) { return v < 0 ? -v : v; }

// libvmaf: e < level ? 0 : e - level, written as d = e - level; d < 0 ? 0 : d.
// A float difference has the sign of the exact one and is +0 only for equal
// operands, so both give the same value.
inline float zero_if_negative(float d) { return d < 0 ? 0.f : d; }
inline F4 zero_if_negative(F4 d) { return d < 0 ? F4{} : d; }

// libvmaf: if (d_mask > s_mask) s_mask = d_mask.
inline float larger(float s, float d) { return d > s ? d : s; }
inline F4 larger(F4 s, F4 d) { return d > s ? d : s; }

// libvmaf: if (var > 0) var = quad_sum / var. Lanes with var <= 0 compute a
// discarded quotient (inf/NaN, no trap: floating-point exceptions are masked).
inline float ratio_if_positive(float quad_sum, float var) { return var > 0 ? quad_sum / var : var; }
inline F4 ratio_if_positive(F4 quad_sum, F4 var) { return var > 0 ? quad_sum / var : var; }

// libvmaf: sqrt(x) / 32.f with C's double sqrt(), stored as float.
inline float sqrt_div32(float x) { return static_cast<float>(std::sqrt(static_cast<double>(x)) / 32.0); }
inline F4 sqrt_div32(F4 x) {
  F4 r{};
  for (int l = 0; l < kLanes; ++l) r[l] = sqrt_div32(static_cast<float>(x[l]));
  return r;
}

// Daala's 8-point forward DCT (libvmaf od_bin_fdct8): integer lifting,
// in[i * stride] -> out[0..7]. Every product t * c + r is below 2^31 for
// 12-bit input (bound in psnr_hvs.h). `>> s` on negative values is the
// arithmetic shift (floor), C++20-defined; `a / 2` truncates toward zero,
// which is exactly libvmaf's OD_UNBIASED_RSHIFT32(a, 1).
template <typename I>
inline void fdct8(const I* in, int stride, I* out) {
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
inline void fdct8x8(I blk[64]) {
  I tmp[64];
  for (int c = 0; c < 8; ++c) fdct8(blk + c, 8, tmp + 8 * c);
  for (int v = 0; v < 8; ++v) fdct8(tmp + v, 8, blk + 8 * v);
}

// Sum of the four 4x4 quadrant variances over the whole-block variance (both
// unbiased), or 0 when the block variance is not positive.
// libvmaf accumulates the means in float too, but those partial sums are
// integers below 2^18 and so exact in any order: an int32 sum converted once
// gives the same floats. The variance sums round, so each of the five runs in
// raster order (quadrant q = (row >= 4) + 2 * (column >= 4)); different
// accumulators are independent, so their interleaving is free.
template <typename I, typename F>
inline F variance_ratio(const I v[64]) {
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
  const F mean = to_float(isum) / 64.f;
  F qmean[4];
  for (int q = 0; q < 4; ++q) qmean[q] = to_float(iq[q]) / 16.f;

  F var{};
  F qvar[4] = {};
  for (int i = 0; i < 8; ++i) {
    const I* row = v + 8 * i;
    const int ql = i >> 2;  // quadrant of the left half of this row
    for (int j = 0; j < 8; ++j) {
      const int q = j < 4 ? ql : ql + 2;
      const F x = to_float(row[j]);
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
  return ratio_if_positive(((qvar[0] + qvar[1]) + qvar[2]) + qvar[3], var);
}

// Masking threshold of one transformed block: sqrt(AC energy * ratio) / 32.
template <typename I, typename F>
inline F masking_threshold(const I c[64], const float mask[64], F ratio) {
  F energy{};
  for (int k = 1; k < 64; ++k) energy += to_float(c[k] * c[k]) * mask[k];
  return sqrt_div32(energy * ratio);
}

// The block kernel (scalar: one block; vectors: one block per lane).
template <typename I, typename F>
inline void block_terms(const I ref[64], const I dis[64], const float csf[64], const float mask[64],
                        F terms[64]) {
  I cs[64];
  I cd[64];
  for (int k = 0; k < 64; ++k) {
    cs[k] = ref[k];
    cd[k] = dis[k];
  }
  const F ratio_s = variance_ratio<I, F>(cs);
  const F ratio_d = variance_ratio<I, F>(cd);
  fdct8x8(cs);
  fdct8x8(cd);
  const F thr_s = masking_threshold(cs, mask, ratio_s);
  const F thr_d = masking_threshold(cd, mask, ratio_d);
  const F m = larger(thr_s, thr_d);
  // DC: no masking.
  const F e0 = to_float(abs_i(cs[0] - cd[0]));
  terms[0] = (e0 * csf[0]) * (e0 * csf[0]);
  for (int k = 1; k < 64; ++k) {
    const F e = to_float(abs_i(cs[k] - cd[k]));
    const F masked = zero_if_negative(e - m / mask[k]);
    terms[k] = (masked * csf[k]) * (masked * csf[k]);
  }
}

// One plane, kLanes horizontally adjacent blocks at a time. A short last
// group repeats its last block in the unused lanes; their terms are dropped.
template <typename T>
void plane_terms(const PlaneView& ref, const PlaneView& dis, const float csf[64],
                 const float mask[64], PsnrHvsPlaneTerms& out) {
  const int nbx = psnr_hvs_blocks_1d(ref.w);
  const int nby = psnr_hvs_blocks_1d(ref.h);
  out.blocks = nbx * nby;
  out.terms.clear();
  if (out.blocks == 0) return;
  out.terms.reserve(static_cast<size_t>(out.blocks) * 16);
  I4 s[64];
  I4 d[64];
  F4 t[64];
  float kept[kLanes * 64];
  for (int by = 0; by < nby; ++by) {
    const int y0 = by * kPsnrHvsStep;
    for (int bx0 = 0; bx0 < nbx; bx0 += kLanes) {
      const int lanes = nbx - bx0 < kLanes ? nbx - bx0 : kLanes;
      int x0[kLanes];
      for (int l = 0; l < kLanes; ++l) x0[l] = (bx0 + (l < lanes ? l : lanes - 1)) * kPsnrHvsStep;
      for (int i = 0; i < 8; ++i) {
        const T* rs = ref.row<T>(y0 + i);
        const T* rd = dis.row<T>(y0 + i);
        for (int j = 0; j < 8; ++j) {
          s[8 * i + j] = I4{rs[x0[0] + j], rs[x0[1] + j], rs[x0[2] + j], rs[x0[3] + j]};
          d[8 * i + j] = I4{rd[x0[0] + j], rd[x0[1] + j], rd[x0[2] + j], rd[x0[3] + j]};
        }
      }
      block_terms(s, d, csf, mask, t);
      // Order-preserving compaction of the +0 terms, without branches.
      size_t n = 0;
      for (int l = 0; l < lanes; ++l) {
        for (int k = 0; k < 64; ++k) {
          const float v = t[k][l];
          kept[n] = v;
          n += v != 0 ? 1 : 0;
        }
      }
      out.terms.insert(out.terms.end(), kept, kept + n);
    }
  }
}

}  // namespace

void psnr_hvs_block_terms_ref(const int32_t ref[64], const int32_t dis[64], const float csf[64],
                              const float mask[64], float terms[64]) {
  block_terms(ref, dis, csf, mask, terms);
}

void psnr_hvs_plane_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, int plane,
                              PsnrHvsPlaneTerms& out) {
  const PsnrHvsTables& tab = psnr_hvs_tables();
  if (bpc > 8)
    plane_terms<uint16_t>(ref, dis, tab.csf[plane], tab.mask[plane], out);
  else
    plane_terms<uint8_t>(ref, dis, tab.csf[plane], tab.mask[plane], out);
}

}  // namespace twinmaf
