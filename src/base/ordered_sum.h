// Exact ordered float sums: the running sum r = ((+0 + t_0) + t_1) + ... of
// IEEE binary32 or binary64 terms with round-to-nearest-even, bit for bit,
// computed faster than the plain loop (ordered_sum: host, float) or in
// parallel on a device (the tree below; ordered_sum_tree_sum is its host
// model). libvmaf sums floats this way (psnr_hvs's ret, ...); no
// reassociation of float partial sums reproduces such a sum, since each
// rounding depends on the running value. CUDA-safe (no fmt, no Status): the
// tree arithmetic is TWINMAF_HD; gpu/ordered_sum.cuh has its kernels.
//
// F is float or double, with p significand bits, hidden bit included (p = 24
// or 53: OrderedSumFormat<F>::kDigits). For r in the binade [2^E, 2^(E+1)),
// r = m * u with u = 2^(E-p+1) (the ulp of r) and m in [2^(p-1), 2^p); a term
// t >= 0 has t / u = a + f (a integer, 0 <= f < 1). Everything rests on:
// - if m + a <= 2^p - 1 (the exact sum stays below 2^(E+1)), the float sum
//   r + t is (m + a') * u with a' = a (f < 1/2), a + 1 (f > 1/2), and for
//   f = 1/2 (a tie) whichever of m + a, m + a + 1 is even. So a term acts on
//   m as "add a' or a' + 1 depending on m's parity": a pair (even, odd) of
//   increments (OrderedSumSteps); a run of terms composes to such a pair too
//   (ordered_sum_then, associative), exact in integers.
// - a run that starts at m with increment A (A for m's parity) and
//   m + A <= 2^p - 1 never leaves the binade (m only grows), so every one of
//   its float additions follows the rule above: the run adds exactly A ulps.
//   Increments are kept saturated at 2^(p-1) (A >= 2^(p-1) can never fit,
//   since m >= 2^(p-1)); saturation commutes with composition, so any
//   grouping gives min(true value, 2^(p-1)).
// - t < u/2 (and no tie) adds nothing. Relative to the largest term of a run
//   (exponent field b), only the p binades B = b+1 .. b+p of r can give a
//   non-trivial, possibly fitting increment: for B <= b the largest term
//   alone leaves the binade, for B >= b+p+1 every term is below u/2.
//
// Fast host sum (ordered_sum, float): while r stays in its binade, r + t is
// exactly r + RN_u(t) (t rounded to a multiple of u) unless t is a tie (where
// the result depends on r's last bit). RN_u(t) does not depend on r, and
// multiples of u below 2^(E+1) add exactly in any order, so a chunk of terms
// is summed in independent lanes and added to r at once. RN_u(t) is computed
// as (t + 1.5*2^E) - 1.5*2^E, which needs t < 2^(E-1); ties are detected as
// |RN_u(t) - t| == u/2 (that difference is exact). A chunk that could leave
// the binade (chunk sum >= 2^(E+1) - r; terms are non-negative, so the chunk
// sum bounds every partial sum), holds a tie, a term >= 2^(E-1) or anything
// but a non-negative number is added one term at a time instead. It removes
// the plain loop's add-latency chain (about 1.9x faster, SSE2).
//
// The tree (device reduction): leaves are runs of `leaf` consecutive terms
// (1 <= leaf <= kMaxLeaf, so a leaf's unsaturated increments stay exact in
// the unsigned type of F's width); a node of level L >= 1 covers 32 entries
// of level L-1. Each entry (OrderedSumEntry) stores its info (b, or 0 when
// every term is +0; kOpaque when a term is not +0 or a positive normal
// number) and increment pairs for kOrderedSumKept binades of r: those r can
// be in when the walk reaches the entry, predicted from P, the sum of every
// earlier term of the sequence in double in any order (the tree's own
// partial sums). For non-negative terms the running sum r at the entry and P
// both lie within (n - 1) eps of the exact sum S of those terms (eps = 2^-p
// of r's format, 2^-53 for P), so r is in [P (1 - kSlack), P (1 + kSlack)]
// and its binade is one of the two kept (kSlack < 1/3) while n eps stays
// below kSlack: 2^-24 for double (n < 2^28 terms), 2^-8 for float (rounding
// errors of a float sum grow like sqrt(n) eps in practice; beyond the
// bound only the speed suffers). A prediction is only ever a choice of which
// pairs to keep: any pair kept is exact for its binade, and a binade not
// kept makes the walk enter the entry, so the result never depends on P.
// The walk (ordered_sum_walk) carries r in order: an entry whose increment
// fits is added as A ulps in one integer step, an all-zero entry or one whose
// terms are all below u/2 is skipped, anything else (a binade crossing, a
// binade not kept, a term >= 2^E, r = +0 or not a positive normal number,
// opaque terms) is entered, down to a leaf whose terms are added one by one
// as floats. With non-negative terms and a prediction that holds, each
// crossing raises r's binade, so at most 2^(exponent bits) - 2 crossings
// happen (254 / 2046), each costing one root-to-leaf path: the walk is
// bounded by the depth, not by the number of terms (opaque leaves are always
// entered). Its result is the plain loop's for every input and every
// prediction (the unit tests compare bit patterns, also with predictions
// made wrong on purpose).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

// The IEEE layout of F: Uint is the unsigned integer of F's width, used for
// the bit pattern and for increments in ulps.
template <typename F>
struct OrderedSumIeee;

template <>
struct OrderedSumIeee<float> {
  using Uint = uint32_t;
  static constexpr int kDigits = 24;
  static constexpr uint32_t kMaxField = 0xff;  // exponent field of inf and NaN
  static TWINMAF_HD Uint bits(float x) { return float_bits(x); }
  static TWINMAF_HD float value(Uint u) { return bits_float(u); }
  static TWINMAF_HD int ctz(Uint u) { return ctz32(u); }
};

template <>
struct OrderedSumIeee<double> {
  using Uint = uint64_t;
  static constexpr int kDigits = 53;
  static constexpr uint32_t kMaxField = 0x7ff;
  static TWINMAF_HD Uint bits(double x) { return double_bits(x); }
  static TWINMAF_HD double value(Uint u) { return bits_double(u); }
  static TWINMAF_HD int ctz(Uint u) { return ctz64(u); }
};

template <typename F>
struct OrderedSumFormat : OrderedSumIeee<F> {
  using Uint = typename OrderedSumIeee<F>::Uint;
  static constexpr int kFracBits = OrderedSumIeee<F>::kDigits - 1;
  static constexpr int kWindow = OrderedSumIeee<F>::kDigits;  // binades per entry: B = b+1+j, j < p
  static constexpr Uint kHidden = Uint(1) << kFracBits;
  static constexpr Uint kFrac = kHidden - 1;
  static constexpr Uint kMantissaMax = (kHidden << 1) - 1;   // 2^p - 1
  static constexpr Uint kSaturated = kHidden;                // increments never exceed 2^(p-1)
  static constexpr uint32_t kOpaque = OrderedSumIeee<F>::kMaxField + 1;  // info flag, above every field
  static constexpr int kMaxShift = 8 * sizeof(Uint) - 1;
  static constexpr int kMaxLeaf = static_cast<int>(~Uint(0) >> kFracBits);  // 511 / 4095
  static constexpr double kSlack = sizeof(F) == 4 ? 0x1p-8 : 0x1p-24;  // relative margin of a prediction
};

inline constexpr int kOrderedSumFanout = 32;    // children per node (a warp)
inline constexpr int kOrderedSumMaxLevels = 8;  // 32^7 leaves: more than an int counts
inline constexpr int kOrderedSumKept = 2;       // binades of r an entry keeps increments for

// Increments, in ulps of r, for an even and an odd mantissa of r.
template <typename F>
struct OrderedSumSteps {
  typename OrderedSumFormat<F>::Uint even = 0, odd = 0;
};

// One entry of the tree (a leaf or a node).
template <typename F>
struct OrderedSumEntry {
  uint32_t info = 0;  // b, 0 when every term is +0; kOpaque flag
  uint32_t base = 0;  // r's exponent field steps[0] is for; steps[k] is for base + k
  double sum = 0;     // the entry's terms summed; then (ordered_sum_prefix) P, the earlier terms' sum
  OrderedSumSteps<F> steps[kOrderedSumKept];
};

template <typename U>
TWINMAF_HD U ordered_sum_min(U a, U b) {
  return a < b ? a : b;
}

// a, then b (both saturated; the result is min(exact composition, 2^(p-1))).
template <typename F>
TWINMAF_HD OrderedSumSteps<F> ordered_sum_then(OrderedSumSteps<F> a, OrderedSumSteps<F> b) {
  using Fmt = OrderedSumFormat<F>;
  // After a, an even start has moved by a.even (parity a.even & 1), an odd one
  // by a.odd (parity 1 ^ (a.odd & 1)).
  const typename Fmt::Uint even = a.even + ((a.even & 1u) ? b.odd : b.even);
  const typename Fmt::Uint odd = a.odd + ((a.odd & 1u) ? b.even : b.odd);
  return {ordered_sum_min(even, Fmt::kSaturated), ordered_sum_min(odd, Fmt::kSaturated)};
}

// Info of one term: its exponent field, or kOpaque unless it is +0 or a
// positive normal number.
template <typename F>
TWINMAF_HD uint32_t ordered_sum_term_info(F t) {
  using Fmt = OrderedSumFormat<F>;
  const typename Fmt::Uint bits = Fmt::bits(t);
  const auto field = static_cast<uint32_t>(bits >> Fmt::kFracBits);  // sign included: > kMaxField if negative
  if (field >= Fmt::kMaxField || (field == 0 && bits != 0)) return Fmt::kOpaque;
  return field;
}

template <typename F>
TWINMAF_HD uint32_t ordered_sum_merge_info(uint32_t a, uint32_t b) {
  using Fmt = OrderedSumFormat<F>;
  const uint32_t fa = a & Fmt::kMaxField, fb = b & Fmt::kMaxField;
  return ((a | b) & Fmt::kOpaque) | (fa > fb ? fa : fb);
}

// Info and sum of a leaf of n terms (the sum in double, in order).
template <typename F>
TWINMAF_HD void ordered_sum_leaf_total(const F* terms, int n, OrderedSumEntry<F>& e) {
  uint32_t info = 0;
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    info = ordered_sum_merge_info<F>(info, ordered_sum_term_info(terms[k]));
    sum += static_cast<double>(terms[k]);
  }
  e.info = info;
  e.sum = sum;
}

// Info and sum of a node from its n children's.
template <typename F>
TWINMAF_HD void ordered_sum_node_total(const OrderedSumEntry<F>* child, int n, OrderedSumEntry<F>& e) {
  uint32_t info = 0;
  double sum = 0;
  for (int c = 0; c < n; ++c) {
    info = ordered_sum_merge_info<F>(info, child[c].info);
    sum += child[c].sum;
  }
  e.info = info;
  e.sum = sum;
}

// Turns n consecutive entries' sums into predictions: entry c gets `before`
// (the prediction of their first, P of their parent or 0 at a tree's top
// level) plus the sums of entries 0 .. c-1.
template <typename F>
TWINMAF_HD void ordered_sum_prefix(OrderedSumEntry<F>* entry, int n, double before) {
  for (int c = 0; c < n; ++c) {
    const double s = entry[c].sum;
    entry[c].sum = before;
    before += s;
  }
}

// The first kept binade for a prediction P: r's exponent field at
// P (1 - kSlack) (a field at or above kMaxField, or 0, where that is not a
// positive normal F: no r the walk adds to ever matches).
template <typename F>
TWINMAF_HD uint32_t ordered_sum_base(double predicted) {
  using Fmt = OrderedSumFormat<F>;
  const F low = static_cast<F>(predicted * (1.0 - Fmt::kSlack));
  return static_cast<uint32_t>(Fmt::bits(low) >> Fmt::kFracBits);
}

// A leaf's base and kept increments from its n <= kMaxLeaf terms (info and
// prediction already in e): for r's exponent field B = base + k, window
// j = B - b - 1 (pairs outside 0 <= j < p are never used). Each term
// adds q = RN(t / u) (f > 1/2 rounds up: the first dropped bit set and the
// rest not all zero); a tie (f == 1/2, first dropped bit set, rest zero) adds
// a or a + 1 so that the running increment has the start's parity: even for
// an even start, odd for an odd one. Unsaturated sums stay below
// n * 2^(p-1) (q <= 2^(p-1)), so they are exact in Uint and saturated once
// at the end.
template <typename F>
TWINMAF_HD void ordered_sum_leaf_steps(const F* terms, int n, OrderedSumEntry<F>& e) {
  using Fmt = OrderedSumFormat<F>;
  using Uint = typename Fmt::Uint;
  constexpr int kWindow = Fmt::kWindow;
  e.base = ordered_sum_base<F>(e.sum);
  Uint even[kOrderedSumKept], odd[kOrderedSumKept];
  int window[kOrderedSumKept];
  const int b = static_cast<int>(e.info & Fmt::kMaxField);
  for (int k = 0; k < kOrderedSumKept; ++k) {
    even[k] = odd[k] = 0;
    window[k] = static_cast<int>(e.base) + k - b - 1;
  }
  if (e.info != 0 && !(e.info & Fmt::kOpaque)) {
    for (int i = 0; i < n; ++i) {
      const Uint bits = Fmt::bits(terms[i]);
      if (bits == 0) continue;
      // t / u = sig / 2^(d + j + 1) in window j, d = b - (t's exponent field).
      const int d = b - static_cast<int>(bits >> Fmt::kFracBits);
      const Uint sig = (bits & Fmt::kFrac) | Fmt::kHidden;
      const int tie_shift = Fmt::ctz(sig);  // t / u = a + 1/2 exactly where d + j == this
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < kOrderedSumKept; ++k) {
        if (window[k] < 0 || window[k] >= kWindow) continue;
        const int sh = d + window[k];
        const Uint v = sig >> (sh < Fmt::kMaxShift ? sh : Fmt::kMaxShift);  // floor(2 t / u); 0 from sh = p on
        const Uint q = (v + 1) >> 1;                                          // floor(t / u) + first dropped bit
        even[k] += q;
        odd[k] += q;
        if (sh == tie_shift) {
          // q rounded the tie up; take the one of {x - 1, x} of the start's parity.
          even[k] &= ~Uint(1);
          odd[k] = (odd[k] - 1) | Uint(1);
        }
      }
    }
  }
  for (int k = 0; k < kOrderedSumKept; ++k)
    e.steps[k] = {ordered_sum_min(even[k], Fmt::kSaturated), ordered_sum_min(odd[k], Fmt::kSaturated)};
}

// A child's increment pair for r's exponent field B in its parent's
// composition: the identity {0, 0} where its terms are all below u/2 in B
// (or all +0), its kept pair for B, or the saturated pair where it did not
// keep B (or B is below its window), which makes the walk enter the parent.
// The saturated pair absorbs whatever it is composed with, on either side.
template <typename F>
TWINMAF_HD OrderedSumSteps<F> ordered_sum_child_steps(const OrderedSumEntry<F>& child, int field) {
  using Fmt = OrderedSumFormat<F>;
  const uint32_t ci = child.info;
  if (ci == 0) return {};
  const int jc = field - static_cast<int>(ci & Fmt::kMaxField) - 1;
  if (jc >= Fmt::kWindow) return {};
  const int kc = field - static_cast<int>(child.base);
  if (jc < 0 || kc < 0 || kc >= kOrderedSumKept || (ci & Fmt::kOpaque)) return {Fmt::kSaturated, Fmt::kSaturated};
  return child.steps[kc];
}

// A node's kept increments (info and prediction already in e) from its n
// children's: for r's exponent field B, the composition of the children's
// pairs for B in order (ordered_sum_child_steps). The composition is
// associative, so any grouping of the children in order (the device's warp
// tree) gives the same pairs.
template <typename F>
TWINMAF_HD void ordered_sum_node_steps(const OrderedSumEntry<F>* child, int n, OrderedSumEntry<F>& e) {
  e.base = ordered_sum_base<F>(e.sum);
  for (int k = 0; k < kOrderedSumKept; ++k) {
    const int field = static_cast<int>(e.base) + k;
    OrderedSumSteps<F> acc;
    for (int c = 0; c < n; ++c) acc = ordered_sum_then(acc, ordered_sum_child_steps(child[c], field));
    e.steps[k] = acc;
  }
}

// What an entry does to the running value r (bits).
enum OrderedSumEffect : int { kOrderedSumSkip = 0, kOrderedSumAdd = 1, kOrderedSumEnter = 2 };

// kOrderedSumSkip: the entry leaves r unchanged. kOrderedSumAdd: *step is its
// increment pair in r's binade (still to be checked with ordered_sum_fits).
// kOrderedSumEnter: it must be entered.
template <typename F>
TWINMAF_HD int ordered_sum_effect(typename OrderedSumFormat<F>::Uint r, const OrderedSumEntry<F>& e,
                                  OrderedSumSteps<F>* step) {
  using Fmt = OrderedSumFormat<F>;
  *step = OrderedSumSteps<F>{};
  if (e.info == 0) return kOrderedSumSkip;  // all +0: r + 0 == r for every r this sum can hold (never -0)
  const auto field = static_cast<uint32_t>(r >> Fmt::kFracBits);  // > kMaxField for a negative r
  if (field == 0 || field >= Fmt::kMaxField || (e.info & Fmt::kOpaque)) return kOrderedSumEnter;
  const int j = static_cast<int>(field) - static_cast<int>(e.info & Fmt::kMaxField) - 1;
  if (j < 0) return kOrderedSumEnter;
  if (j >= Fmt::kWindow) return kOrderedSumSkip;  // every term below u/2, none a tie
  const int k = static_cast<int>(field) - static_cast<int>(e.base);
  if (k < 0 || k >= kOrderedSumKept) return kOrderedSumEnter;  // a binade not kept
  *step = e.steps[k];
  return kOrderedSumAdd;
}

// Whether r (positive normal) plus the increment stays in r's binade.
template <typename F>
TWINMAF_HD bool ordered_sum_fits(typename OrderedSumFormat<F>::Uint r, OrderedSumSteps<F> s) {
  using Fmt = OrderedSumFormat<F>;
  const typename Fmt::Uint m = (r & Fmt::kFrac) | Fmt::kHidden;
  return m + ((r & 1u) ? s.odd : s.even) <= Fmt::kMantissaMax;
}

// r plus a fitting increment: the mantissa field grows, no carry.
template <typename F>
TWINMAF_HD typename OrderedSumFormat<F>::Uint ordered_sum_apply(typename OrderedSumFormat<F>::Uint r,
                                                                OrderedSumSteps<F> s) {
  return r + ((r & 1u) ? s.odd : s.even);
}

// The plain float additions of a leaf, in order.
template <typename F>
TWINMAF_HD typename OrderedSumFormat<F>::Uint ordered_sum_leaf_add(typename OrderedSumFormat<F>::Uint r,
                                                                   const F* terms, int n) {
  using Fmt = OrderedSumFormat<F>;
  F x = Fmt::value(r);
  for (int k = 0; k < n; ++k) x = x + terms[k];
  return Fmt::bits(x);
}

// One sequence's tree: level 0 = leaves (count[0] runs of `leaf` terms),
// level L+1 = nodes over 32 entries of level L, up to `levels - 1`, the first
// level of at most 32 entries.
template <typename F>
struct OrderedSumTree {
  int levels = 0;
  int count[kOrderedSumMaxLevels] = {};
  const OrderedSumEntry<F>* entry[kOrderedSumMaxLevels] = {};  // [count]
  const F* terms = nullptr;                                    // [count[0]][leaf]
  int leaf = 0;                                                // terms per leaf, 1 .. kMaxLeaf
};

// Levels and their counts for `leaves` leaves (0 levels for none).
TWINMAF_HD int ordered_sum_tree_levels(int leaves, int count[kOrderedSumMaxLevels]) {
  if (leaves <= 0) return 0;
  int levels = 1;
  count[0] = leaves;
  while (count[levels - 1] > kOrderedSumFanout) {
    count[levels] = (count[levels - 1] + kOrderedSumFanout - 1) / kOrderedSumFanout;
    ++levels;
  }
  return levels;
}

// The running sum over the tree's terms, in order, from +0 (bits).
// Scanner provides
//   int advance(const OrderedSumTree<F>&, int level, int c, int end, Uint& r):
//     applies entries c, c+1, ... of `level` (skips and fitting increments)
//     up to the first that must be entered; returns its index, or end;
//   void leaf(const OrderedSumTree<F>&, int c, Uint& r): the leaf's float sums.
// A sequential scanner is OrderedSumSequentialScan; the device's is a warp
// (gpu/ordered_sum.cuh).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename F, class Scanner>
TWINMAF_HD typename OrderedSumFormat<F>::Uint ordered_sum_walk(const OrderedSumTree<F>& tree, Scanner& scan) {
  typename OrderedSumFormat<F>::Uint r = 0;  // +0
  if (tree.levels == 0) return r;
  int next[kOrderedSumMaxLevels], end[kOrderedSumMaxLevels];
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
      next[level] = c * kOrderedSumFanout;
      const int last = next[level] + kOrderedSumFanout;
      end[level] = last < tree.count[level] ? last : tree.count[level];
    }
  }
  return r;
}

template <typename F>
struct OrderedSumSequentialScan {
  using Uint = typename OrderedSumFormat<F>::Uint;
  TWINMAF_HD int advance(const OrderedSumTree<F>& t, int level, int c, int end, Uint& r) const {
    for (; c < end; ++c) {
      OrderedSumSteps<F> s;
      const int e = ordered_sum_effect(r, t.entry[level][c], &s);
      if (e == kOrderedSumEnter) return c;
      if (e == kOrderedSumAdd) {
        if (!ordered_sum_fits(r, s)) return c;
        r = ordered_sum_apply(r, s);
      }
    }
    return end;
  }
  TWINMAF_HD void leaf(const OrderedSumTree<F>& t, int c, Uint& r) const {
    r = ordered_sum_leaf_add(r, t.terms + static_cast<size_t>(c) * t.leaf, t.leaf);
  }
};

// The trees of kTrees independent sequences in one set of flat arrays (what
// one device launch reduces; gpu/ordered_sum.cuh). Entries of every level
// live in `entries`, level-major: level L of tree i starts at
// tree[i].node_begin[L] and the trees' ranges of one level follow each other,
// so a level of all trees is one contiguous range. Level 0 of tree i starts
// at tree[i].node_begin[0], which is also its first leaf in `terms`.
struct OrderedSumTreeGeometry {
  int levels = 0;  // ordered_sum_tree_levels
  int count[kOrderedSumMaxLevels] = {};
  int node_begin[kOrderedSumMaxLevels] = {};
};

template <typename F, int kLeaf, int kTrees>
struct OrderedSumForest {
  static_assert(kLeaf >= 1 && kLeaf <= OrderedSumFormat<F>::kMaxLeaf);
  OrderedSumTreeGeometry tree[kTrees];
  int leaves = 0;                                  // leaves of all trees
  int levels = 0;                                  // most levels of a tree
  int level_total[kOrderedSumMaxLevels] = {};      // entries of each level, all trees
  F* terms = nullptr;                              // [leaves][kLeaf]
  OrderedSumEntry<F>* entries = nullptr;           // [ordered_sum_forest_layout's count]
};

// Fills the geometry of f for leaves[i] leaves in tree i (level-major entry
// layout, above); returns the number of entries.
template <typename F, int kLeaf, int kTrees>
int ordered_sum_forest_layout(OrderedSumForest<F, kLeaf, kTrees>& f, const int leaves[kTrees]) {
  f.leaves = f.levels = 0;
  for (int level = 0; level < kOrderedSumMaxLevels; ++level) f.level_total[level] = 0;
  for (int i = 0; i < kTrees; ++i) {
    OrderedSumTreeGeometry& g = f.tree[i];
    g.levels = ordered_sum_tree_levels(leaves[i], g.count);
    f.levels = g.levels > f.levels ? g.levels : f.levels;
    f.leaves += g.levels ? g.count[0] : 0;
  }
  int entries = 0;
  for (int level = 0; level < f.levels; ++level)
    for (OrderedSumTreeGeometry& g : f.tree) {
      g.node_begin[level] = entries;
      if (g.levels > level) {
        entries += g.count[level];
        f.level_total[level] += g.count[level];
      }
    }
  return entries;
}

// Host side (ordered_sum.cpp).

// The running sum r = +0; r += t for t in terms, bit for bit, for any input
// (naive: that loop itself). The fast path needs terms >= +0; chunks with
// anything else (negative, inf, NaN) are added the plain way. Float only: a
// 16-byte vector holds two doubles and SSE2 has no 64-bit lane compare, and
// the chunked form measured no faster than the plain loop for doubles
// (32768 terms in cache: 23.9 us at best against 21.9 us).
float ordered_sum(std::span<const float> terms);
float ordered_sum_naive(std::span<const float> terms);
double ordered_sum_naive(std::span<const double> terms);

// Host model of the device reduction: the tree over the terms in leaves of
// `leaf` terms (1 .. kMaxLeaf; the last leaf padded with +0), walked
// sequentially. Equal to ordered_sum_naive for every input (NaN payloads
// aside). ordered_sum_build_tree's `skew` multiplies every prediction before
// the kept binades are chosen (1: the device's choice; tests make them wrong
// on purpose).
template <typename F>
struct OrderedSumHostTree {
  std::vector<F> terms;
  std::vector<OrderedSumEntry<F>> entry[kOrderedSumMaxLevels];
  OrderedSumTree<F> tree;  // views of the vectors above
};
void ordered_sum_build_tree(std::span<const float> terms, int leaf, OrderedSumHostTree<float>& out,
                            double skew = 1.0);
void ordered_sum_build_tree(std::span<const double> terms, int leaf, OrderedSumHostTree<double>& out,
                            double skew = 1.0);
float ordered_sum_tree_sum(std::span<const float> terms, int leaf);
double ordered_sum_tree_sum(std::span<const double> terms, int leaf);

}  // namespace twinmaf
