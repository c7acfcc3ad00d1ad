// psnr_hvs arithmetic shared by the CPU reference (psnr_hvs_ref.cpp) and the
// CUDA twin (psnr_hvs.cu): CUDA-safe (no fmt, no Status), every function
// TWINMAF_HD. Two parts:
//
// 1. The block kernel (psnr_hvs.h has its numeric contract): Daala's integer
//    8x8 DCT, the variance ratios, the masking thresholds and the 64 terms of
//    one block, written once as templates over an integer type I and a float
//    type F with the few operations whose spelling differs between scalars
//    and vector lanes in PsnrHvsLaneOps<I, F>. The scalar specialisation is
//    here (a GPU thread per block runs it); psnr_hvs_ref.cpp adds a 4-lane
//    vector one (element-wise IEEE/int32 operations in the same order, so each
//    lane gives the scalar kernel's bits).
//
// 2. The exact ordered float sum as a tree (what lets a device return
//    libvmaf's running sum ret = ((+0 + t_0) + t_1) + ... itself instead of
//    the terms). Facts it rests on, for r in the binade [2^E, 2^(E+1)) (r =
//    m * u, u = 2^(E-23), m in [2^23, 2^24)) and a term t >= 0 with
//    t / u = a + f (a integer, 0 <= f < 1):
//    - if m + a <= 2^24 - 1 (the exact sum stays below 2^(E+1)), the float
//      sum r + t is (m + a') * u with a' = a (f < 1/2), a + 1 (f > 1/2), and
//      for f = 1/2 (a tie) whichever of m + a, m + a + 1 is even. So a term
//      acts on m as "add a' or a' + 1 depending on m's parity": a pair
//      (even, odd) of increments (PsnrHvsSteps); a run of terms composes to
//      such a pair too (psnr_hvs_then, associative), exact in integers.
//    - a run that starts at m with increment A (A for m's parity) and
//      m + A <= 2^24 - 1 never leaves the binade (m only grows), so every one
//      of its float additions follows the rule above: the run adds exactly A
//      ulps. Increments are kept saturated at 2^23 (A >= 2^23 can never fit,
//      since m >= 2^23); saturation commutes with composition, so any
//      grouping gives min(true value, 2^23).
//    - t < u/2 (and no tie) adds nothing. Relative to the largest term of a
//      run (exponent field b), only the 24 binades B = b+1 .. b+24 of r can
//      give a non-trivial, possibly fitting increment: for B <= b the largest
//      term alone leaves the binade, for B >= b+25 every term is below u/2.
//    The tree: leaves are the 64-term blocks; a node of level L >= 1 covers
//    32 nodes of level L-1. Each entry stores its info (b, or 0 when every
//    term is +0; kPsnrHvsOpaque when a term is not +0 or a positive normal
//    float) and its 24 increment pairs. The walk (psnr_hvs_walk) carries r in
//    libvmaf's order: an entry whose increment fits is added as A ulps in one
//    integer step, an all-zero entry or one whose terms are all below u/2 is
//    skipped, anything else (a binade crossing, a term >= 2^E, r = +0 or not
//    normal, opaque terms) is entered, down to a leaf whose terms are added
//    one by one as floats. Each crossing raises r's binade, so at most ~254
//    crossings happen, each costing one root-to-leaf path: the walk is
//    bounded by the depth, not by the number of terms, and its result is the
//    plain loop's for every input (the unit tests compare bit patterns).
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

inline constexpr int kPsnrHvsBlock = 8;
inline constexpr int kPsnrHvsStep = 7;
inline constexpr int kPsnrHvsTerms = 64;  // terms per block (= per leaf)

// Number of 8x8 blocks along a dimension of n samples (0 for n < 8).
TWINMAF_HD int psnr_hvs_blocks_1d(int n) { return n < kPsnrHvsBlock ? 0 : (n - kPsnrHvsBlock) / kPsnrHvsStep + 1; }

// ---------------------------------------------------------------------------
// 1. The block kernel.

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

// ---------------------------------------------------------------------------
// 2. The exact ordered sum as a tree (see the header comment).

// Increments, in ulps of r, for an even and an odd mantissa of r.
struct PsnrHvsSteps {
  uint32_t even = 0, odd = 0;
};

inline constexpr int kPsnrHvsWindow = 24;             // binades per entry: B = b+1+j, j < 24
inline constexpr uint32_t kPsnrHvsSaturated = 1u << 23;  // increments never exceed this
inline constexpr int kPsnrHvsFanout = 32;              // children per node (a warp)
inline constexpr int kPsnrHvsMaxLevels = 8;            // 32^7 leaves: far beyond any plane
inline constexpr uint32_t kPsnrHvsOpaque = 1u << 8;    // info flag: a term outside +0 / positive normal

TWINMAF_HD uint32_t psnr_hvs_min(uint32_t a, uint32_t b) { return a < b ? a : b; }


// a, then b (both saturated; the result is min(exact composition, 2^23)).
TWINMAF_HD PsnrHvsSteps psnr_hvs_then(PsnrHvsSteps a, PsnrHvsSteps b) {
  // After a, an even start has moved by a.even (parity a.even & 1), an odd one
  // by a.odd (parity 1 ^ (a.odd & 1)).
  const uint32_t even = a.even + ((a.even & 1u) ? b.odd : b.even);
  const uint32_t odd = a.odd + ((a.odd & 1u) ? b.even : b.odd);
  return {psnr_hvs_min(even, kPsnrHvsSaturated), psnr_hvs_min(odd, kPsnrHvsSaturated)};
}

// Info of one term: its exponent field, or kPsnrHvsOpaque unless it is +0 or
// a positive normal float.
TWINMAF_HD uint32_t psnr_hvs_term_info(uint32_t bits) {
  const uint32_t field = bits >> 23;  // sign included: >= 256 for negatives
  if (field >= 255u || (field == 0 && bits != 0)) return kPsnrHvsOpaque;
  return field;
}

TWINMAF_HD uint32_t psnr_hvs_merge_info(uint32_t a, uint32_t b) {
  const uint32_t fa = a & 0xffu, fb = b & 0xffu;
  return ((a | b) & kPsnrHvsOpaque) | (fa > fb ? fa : fb);
}

// Info and increments of a leaf of n <= 64 terms (steps[j] for r's exponent
// field B = b + 1 + j). Zero for an all-zero or opaque leaf (never used).
// Per binade, each term adds q = RN(t / u) (f > 1/2 rounds up: the first
// dropped bit set and the rest not all zero); a tie (f == 1/2, first dropped
// bit set, rest zero) adds a or a + 1 so that the running increment has the
// start's parity: even for an even start, odd for an odd one. Unsaturated
// sums stay below 64 * 2^23 (q <= 2^23), so they are exact in uint32 and
// saturated once at the end.
TWINMAF_HD uint32_t psnr_hvs_leaf_steps(const float* terms, int n, PsnrHvsSteps steps[kPsnrHvsWindow]) {
  uint32_t info = 0;
  for (int k = 0; k < n; ++k) info = psnr_hvs_merge_info(info, psnr_hvs_term_info(float_bits(terms[k])));
  uint32_t even[kPsnrHvsWindow], odd[kPsnrHvsWindow];
  for (int j = 0; j < kPsnrHvsWindow; ++j) even[j] = odd[j] = 0;
  if (info != 0 && !(info & kPsnrHvsOpaque)) {
    const int b = static_cast<int>(info);
    for (int k = 0; k < n; ++k) {
      const uint32_t bits = float_bits(terms[k]);
      if (bits == 0) continue;
      // t / u = sig / 2^(d + j + 1) in binade j, d = b - (t's exponent field).
      const int d = b - static_cast<int>(bits >> 23);
      if (d >= kPsnrHvsWindow) continue;  // below u/2 in every binade of the window
      const uint32_t sig = (bits & 0x7fffffu) | 0x800000u;
      const int tie_shift = ctz32(sig);  // t / u = a + 1/2 exactly where d + j == this
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int j = 0; j < kPsnrHvsWindow; ++j) {
        const int sh = d + j;
        const uint32_t v = sig >> (sh < 31 ? sh : 31);  // floor(2 t / u); 0 from sh = 24 on (sig < 2^24)
        const uint32_t q = (v + 1) >> 1;                 // floor(t / u) + first dropped bit
        even[j] += q;
        odd[j] += q;
        if (sh == tie_shift) {
          // q rounded the tie up; take the one of {x - 1, x} of the start's parity.
          even[j] &= ~1u;
          odd[j] = (odd[j] - 1) | 1u;
        }
      }
    }
  }
  for (int j = 0; j < kPsnrHvsWindow; ++j)
    steps[j] = {psnr_hvs_min(even[j], kPsnrHvsSaturated), psnr_hvs_min(odd[j], kPsnrHvsSaturated)};
  return info;
}

// Info of a node from its n children's infos.
TWINMAF_HD uint32_t psnr_hvs_node_info(const uint32_t* child_info, int n) {
  uint32_t info = 0;
  for (int c = 0; c < n; ++c) info = psnr_hvs_merge_info(info, child_info[c]);
  return info;
}

// Increment pair j of a node (exponent field b) from its n children (their
// infos and their 24 pairs each, child-major).
TWINMAF_HD PsnrHvsSteps psnr_hvs_node_step(const uint32_t* child_info, const PsnrHvsSteps* child_steps, int n,
                                           uint32_t info, int j) {
  PsnrHvsSteps acc;
  const int b = static_cast<int>(info & 0xffu);
  for (int c = 0; c < n; ++c) {
    if (child_info[c] == 0) continue;
    const int jc = b - static_cast<int>(child_info[c] & 0xffu) + j;  // >= j >= 0
    if (jc >= kPsnrHvsWindow) continue;
    acc = psnr_hvs_then(acc, child_steps[c * kPsnrHvsWindow + jc]);
  }
  return acc;
}

// What an entry does to the running value r (bits).
enum PsnrHvsEffect : int { kPsnrHvsSkip = 0, kPsnrHvsAdd = 1, kPsnrHvsEnter = 2 };

// kPsnrHvsSkip: the entry leaves r unchanged. kPsnrHvsAdd: *step is its
// increment pair in r's binade (still to be checked with psnr_hvs_fits).
// kPsnrHvsEnter: it must be entered.
TWINMAF_HD int psnr_hvs_effect(uint32_t r, uint32_t info, const PsnrHvsSteps* steps, PsnrHvsSteps* step) {
  *step = PsnrHvsSteps{};
  if (info == 0) return kPsnrHvsSkip;  // all +0: r + 0 == r for every r this sum can hold
  const uint32_t field = r >> 23;      // >= 256 for a negative r
  if (field == 0 || field >= 255u || (info & kPsnrHvsOpaque)) return kPsnrHvsEnter;
  const int j = static_cast<int>(field) - static_cast<int>(info & 0xffu) - 1;
  if (j < 0) return kPsnrHvsEnter;
  if (j >= kPsnrHvsWindow) return kPsnrHvsSkip;  // every term below u/2, none a tie
  *step = steps[j];
  return kPsnrHvsAdd;
}

// Whether r (positive normal) plus the increment stays in r's binade.
TWINMAF_HD bool psnr_hvs_fits(uint32_t r, PsnrHvsSteps s) {
  const uint32_t m = (r & 0x7fffffu) | 0x800000u;
  return m + ((r & 1u) ? s.odd : s.even) <= 0xffffffu;
}

// r plus a fitting increment: the mantissa field grows, no carry.
TWINMAF_HD uint32_t psnr_hvs_apply(uint32_t r, PsnrHvsSteps s) { return r + ((r & 1u) ? s.odd : s.even); }

// The plain float additions of a leaf, in order.
TWINMAF_HD uint32_t psnr_hvs_leaf_add(uint32_t r, const float* terms, int n) {
  float x = bits_float(r);
  for (int k = 0; k < n; ++k) x = x + terms[k];
  return float_bits(x);
}

// One plane's tree: level 0 = leaves (count[0] blocks of kPsnrHvsTerms terms),
// level L+1 = nodes over 32 entries of level L, up to `levels - 1`, the first
// level of at most 32 entries.
struct PsnrHvsTree {
  int levels = 0;
  int count[kPsnrHvsMaxLevels] = {};
  const uint32_t* info[kPsnrHvsMaxLevels] = {};
  const PsnrHvsSteps* steps[kPsnrHvsMaxLevels] = {};  // [count][kPsnrHvsWindow]
  const float* terms = nullptr;                       // [count[0]][kPsnrHvsTerms]
};

// Levels and their counts for `leaves` leaves (0 levels for none).
TWINMAF_HD int psnr_hvs_tree_levels(int leaves, int count[kPsnrHvsMaxLevels]) {
  if (leaves <= 0) return 0;
  int levels = 1;
  count[0] = leaves;
  while (count[levels - 1] > kPsnrHvsFanout) {
    count[levels] = (count[levels - 1] + kPsnrHvsFanout - 1) / kPsnrHvsFanout;
    ++levels;
  }
  return levels;
}

// The running sum over the tree's terms, in order: libvmaf's ret (bits).
// Scanner provides
//   int advance(const PsnrHvsTree&, int level, int c, int end, uint32_t& r):
//     applies entries c, c+1, ... of `level` (skips and fitting increments)
//     up to the first that must be entered; returns its index, or end;
//   void leaf(const PsnrHvsTree&, int c, uint32_t& r): the leaf's float sums.
// A sequential scanner is PsnrHvsSequentialScan; the twin's is a warp.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Scanner>
TWINMAF_HD uint32_t psnr_hvs_walk(const PsnrHvsTree& tree, Scanner& scan) {
  uint32_t r = 0;  // +0
  if (tree.levels == 0) return r;
  int next[kPsnrHvsMaxLevels], end[kPsnrHvsMaxLevels];
  int level = tree.levels - 1;
  next[level] = 0;
  end[level] = tree.count[level];
  for (;;) {
    const int c = scan.advance(tree, level, next[level], end[level], r);
    if (c == end[level]) {
      if (level == tree.levels - 1) break;
      ++level;  // the parent's next entry is already set
      continue;
    }
    next[level] = c + 1;
    if (level == 0) {
      scan.leaf(tree, c, r);
    } else {
      --level;
      next[level] = c * kPsnrHvsFanout;
      const int last = next[level] + kPsnrHvsFanout;
      end[level] = last < tree.count[level] ? last : tree.count[level];
    }
  }
  return r;
}

struct PsnrHvsSequentialScan {
  TWINMAF_HD int advance(const PsnrHvsTree& t, int level, int c, int end, uint32_t& r) const {
    for (; c < end; ++c) {
      PsnrHvsSteps s;
      const int e = psnr_hvs_effect(r, t.info[level][c], t.steps[level] + static_cast<size_t>(c) * kPsnrHvsWindow, &s);
      if (e == kPsnrHvsEnter) return c;
      if (e == kPsnrHvsAdd) {
        if (!psnr_hvs_fits(r, s)) return c;
        r = psnr_hvs_apply(r, s);
      }
    }
    return end;
  }
  TWINMAF_HD void leaf(const PsnrHvsTree& t, int c, uint32_t& r) const {
    r = psnr_hvs_leaf_add(r, t.terms + static_cast<size_t>(c) * kPsnrHvsTerms, kPsnrHvsTerms);
  }
};

}  // namespace twinmaf
