// Host side of the exact ordered float sum (ordered_sum.h has the argument):
// the plain loop, the chunked fast sum and the host model of the device tree.
#include "base/ordered_sum.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace twinmaf {

namespace {

template <typename F>
F naive_sum(std::span<const F> terms) {
  F r = 0;
  for (F t : terms) r += t;
  return r;
}

template <typename F>
void build_tree(std::span<const F> terms, int leaf, OrderedSumHostTree<F>& out, double skew) {
  const auto n_leaf = static_cast<size_t>(leaf);
  const size_t leaves = (terms.size() + n_leaf - 1) / n_leaf;
  out.terms.assign(terms.begin(), terms.end());
  out.terms.resize(leaves * n_leaf, F(0));  // +0 terms change no running sum
  out.tree = OrderedSumTree<F>{};
  out.tree.leaf = leaf;
  out.tree.levels = ordered_sum_tree_levels(static_cast<int>(leaves), out.tree.count);
  out.tree.terms = out.terms.data();
  const int levels = out.tree.levels;
  // The device's passes, in its order: totals up, predictions down, kept
  // increments up.
  auto children = [&](int level, size_t i, int* n) {
    const size_t first = i * kOrderedSumFanout;
    *n = static_cast<int>(std::min<size_t>(kOrderedSumFanout, out.entry[level - 1].size() - first));
    return out.entry[level - 1].data() + first;
  };
  for (int level = 0; level < levels; ++level) {
    std::vector<OrderedSumEntry<F>>& e = out.entry[level];
    e.assign(static_cast<size_t>(out.tree.count[level]), OrderedSumEntry<F>{});
    for (size_t i = 0; i < e.size(); ++i) {
      if (level == 0) {
        ordered_sum_leaf_total(out.terms.data() + i * n_leaf, leaf, e[i]);
      } else {
        int n = 0;
        const OrderedSumEntry<F>* c = children(level, i, &n);
        ordered_sum_node_total(c, n, e[i]);
      }
    }
    out.tree.entry[level] = e.data();
  }
  if (levels > 0) ordered_sum_prefix(out.entry[levels - 1].data(), out.tree.count[levels - 1], 0.0);
  for (int level = levels - 1; level >= 1; --level)
    for (size_t i = 0; i < out.entry[level].size(); ++i) {
      int n = 0;
      OrderedSumEntry<F>* c = children(level, i, &n);
      ordered_sum_prefix(c, n, out.entry[level][i].sum);
    }
  for (int level = 0; level < levels; ++level)
    for (size_t i = 0; i < out.entry[level].size(); ++i) {
      OrderedSumEntry<F>& e = out.entry[level][i];
      e.sum *= skew;
      if (level == 0) {
        ordered_sum_leaf_steps(out.terms.data() + i * n_leaf, leaf, e);
      } else {
        int n = 0;
        const OrderedSumEntry<F>* c = children(level, i, &n);
        ordered_sum_node_steps(c, n, e);
      }
    }
}

template <typename F>
F tree_sum(std::span<const F> terms, int leaf) {
  OrderedSumHostTree<F> t;
  build_tree(terms, leaf, t, 1.0);
  OrderedSumSequentialScan<F> scan;
  return OrderedSumFormat<F>::value(ordered_sum_walk(t.tree, scan));
}

}  // namespace

float ordered_sum(std::span<const float> terms) {
  // Chunks of kChunk terms are added at once when the binade argument of
  // ordered_sum.h holds; the rest (a failed chunk, the tail, r outside
  // [2^-100, 2^120), which keeps u/2 normal and 2^(e+1) finite) is added term
  // by term. A chunk is processed in 2 x 4 independent lanes (GCC/Clang vector
  // extension: element-wise IEEE operations, no reassociation); the lane sums
  // are exact, so their order is free. Tests on terms compare bit patterns as
  // uint32: for x >= +0 the bit order is the numeric order.
  using F4 = float __attribute__((vector_size(16)));
  using U4 = uint32_t __attribute__((vector_size(16)));
  constexpr size_t kChunk = 256;
  // 2^p as a float from its exponent field (p in [-126, 127]).
  auto pow2 = [](int p) { return std::bit_cast<float>(static_cast<uint32_t>(p + 127) << 23); };
  const size_t n = terms.size();
  const float* t = terms.data();
  float r = 0;
  size_t k = 0;
  while (k < n) {
    const size_t m = std::min(kChunk, n - k);
    // Exponent field of r: r in [2^e, 2^(e+1)) when normal. +0, subnormals,
    // negatives (sign bit), inf and NaN all land outside the accepted range.
    const int e = static_cast<int>(std::bit_cast<uint32_t>(r) >> 23) - 127;
    if (m == kChunk && e >= -100 && e < 120) {
      const float magic = 1.5f * pow2(e);  // ulp(magic) = ulp(r) = u = 2^(e-23)
      const uint32_t tie = std::bit_cast<uint32_t>(pow2(e - 24));        // u / 2
      const uint32_t half_binade = std::bit_cast<uint32_t>(pow2(e - 1));  // terms stay below
      const float room = pow2(e + 1) - r;  // exact; r + sum must stay below 2^(e+1)
      F4 sum_a = {}, sum_b = {};
      U4 bad = {};
      for (size_t i = 0; i < kChunk; i += 8) {
        F4 xa, xb;
        std::memcpy(&xa, t + k + i, sizeof xa);
        std::memcpy(&xb, t + k + i + 4, sizeof xb);
        const F4 qa = (xa + magic) - magic;  // RN_u(x) for 0 <= x < 2^(e-1)
        const F4 qb = (xb + magic) - magic;
        sum_a += qa;  // multiples of u below 2^(e+1): exact
        sum_b += qb;
        // err = q - x is exact, |err| <= u/2, and |err| == u/2 exactly on a
        // tie; |err| is err's bit pattern without the sign bit.
        const U4 ea = std::bit_cast<U4>(qa - xa) & 0x7fffffffu;
        const U4 eb = std::bit_cast<U4>(qb - xb) & 0x7fffffffu;
        // As unsigned, a term >= 2^(e-1), NaN, inf and any negative term
        // (sign bit set) all compare >= half_binade.
        bad |= (ea == tie) | (std::bit_cast<U4>(xa) >= half_binade);
        bad |= (eb == tie) | (std::bit_cast<U4>(xb) >= half_binade);
      }
      const F4 s4 = sum_a + sum_b;
      const float sum = (s4[0] + s4[1]) + (s4[2] + s4[3]);
      if ((bad[0] | bad[1] | bad[2] | bad[3]) == 0 && sum < room) {
        r += sum;  // exact: both multiples of u, result below 2^(e+1)
        k += m;
        continue;
      }
    }
    for (size_t i = 0; i < m; ++i) r += t[k + i];
    k += m;
  }
  return r;
}

float ordered_sum_naive(std::span<const float> terms) { return naive_sum(terms); }
double ordered_sum_naive(std::span<const double> terms) { return naive_sum(terms); }

void ordered_sum_build_tree(std::span<const float> terms, int leaf, OrderedSumHostTree<float>& out, double skew) {
  build_tree(terms, leaf, out, skew);
}
void ordered_sum_build_tree(std::span<const double> terms, int leaf, OrderedSumHostTree<double>& out, double skew) {
  build_tree(terms, leaf, out, skew);
}
float ordered_sum_tree_sum(std::span<const float> terms, int leaf) { return tree_sum(terms, leaf); }
double ordered_sum_tree_sum(std::span<const double> terms, int leaf) { return tree_sum(terms, leaf); }

}  // namespace twinmaf
