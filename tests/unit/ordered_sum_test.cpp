// base/ordered_sum.h: the fast host sum (float) and the host models of the
// device tree (sequential walk, emulated warp scanner; float and double,
// leaves of 1, 7, 64 and 100 terms) against the plain running sum
// r = +0; r += t (also with the kept binades chosen from predictions made
// wrong on purpose), plus the leaf increments against plain additions, the
// algebra of their composition and how few leaves the walk enters. Sums are compared as bit patterns; a NaN need
// only be a NaN (which payload an addition of two NaNs keeps depends on the
// operand order the compiler picks).
#include "base/ordered_sum.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/support/float_sequences.h"
#include "tests/support/noise_clip.h"
#include "tests/support/warp_scan_emulation.h"

namespace twinmaf {
namespace {

using test::SplitMix64;

template <typename F>
using Fmt = OrderedSumFormat<F>;

const int kLeafSizes[] = {1, 7, 64, 100};

template <typename F>
void expect_same_bits(F naive, F other, const std::string& what) {
  if (std::isnan(naive)) {
    EXPECT_TRUE(std::isnan(other)) << what;
  } else {
    EXPECT_EQ(Fmt<F>::bits(naive), Fmt<F>::bits(other)) << what << ": " << naive << " vs " << other;
  }
}

// The tree with leaves of `leaf` terms, walked sequentially and by the
// emulated warp, equals the plain loop.
template <typename F>
void expect_tree_sum(const std::vector<F>& v, int leaf, const std::string& what) {
  const F naive = ordered_sum_naive(v);
  const std::string w = what + " leaf " + std::to_string(leaf);
  OrderedSumHostTree<F> t;
  ordered_sum_build_tree(v, leaf, t);
  OrderedSumSequentialScan<F> scan;
  expect_same_bits(naive, Fmt<F>::value(ordered_sum_walk(t.tree, scan)), w);
  expect_same_bits(naive, test::emulated_warp_sum(t.tree), w + " (warp)");
}

// Unbiased exponent of a positive normal x.
template <typename F>
int exponent(F x) {
  return static_cast<int>(Fmt<F>::bits(x) >> Fmt<F>::kFracBits) - static_cast<int>(Fmt<F>::kMaxField / 2);
}

template <typename F>
class OrderedSumTree : public ::testing::Test {};

struct TypeNames {
  template <typename F>
  static std::string GetName(int) {
    return std::is_same_v<F, float> ? "float" : "double";
  }
};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(OrderedSumTree, Types, TypeNames);

// --- the fast host sum (float) ----------------------------------------------

void expect_fast_sum(const std::vector<float>& v, const std::string& what) {
  expect_same_bits(ordered_sum_naive(v), ordered_sum(v), what);
}

TEST(OrderedSum, EqualsThePlainLoopOnAdversarialSequences) {
  uint64_t s = 12345;
  for (int rep = 0; rep < 4 * test::kFloatSequenceKinds; ++rep) {
    const size_t n = 1 + static_cast<size_t>(test::splitmix64(s) % 20000);
    const int kind = rep % test::kFloatSequenceKinds;
    const uint64_t seed = test::splitmix64(s);
    expect_fast_sum(test::float_sequence(kind, n, seed),
                    "kind " + std::to_string(kind) + " n " + std::to_string(n) + " seed " + std::to_string(seed));
  }
}

TEST(OrderedSum, ExactTiesAgainstOddAndEvenRunningValues) {
  // r = 2^24 + 2 (ulp 2) then terms of exactly 1 = u/2: each step is a tie
  // whose result depends on r's last bit. And the same from an odd start.
  for (float start : {0x1p24f + 2.0f, 0x1p24f + 4.0f, 0x1p24f + 6.0f}) {
    std::vector<float> v(1000, 1.0f);
    v[0] = start;
    expect_fast_sum(v, "tie run");
    for (size_t i = 1; i < v.size(); i += 3) v[i] = 3.0f;  // 1.5 u: tie as well
    expect_fast_sum(v, "mixed ties");
  }
}

TEST(OrderedSum, SingleLargeTermInAChunk) {
  // r = 1, then chunks holding one term in [2^-1, 1) with a full mantissa and
  // zeros: the chunk sum fits the binade, but the term is too large for the
  // rounding trick (it must take the term-by-term path).
  SplitMix64 s(99);
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<float> v(4 * 256, 0.0f);
    v[0] = 1.0f;
    for (size_t c = 1; c < 4; ++c) v[c * 256 + (s.next() % 256)] = 0.5f + 0.5f * test::uniform01(s);
    expect_fast_sum(v, "large term rep " + std::to_string(rep));
  }
}

TEST(OrderedSum, SpecialValues) {
  EXPECT_EQ(std::bit_cast<uint32_t>(ordered_sum(std::vector<float>{})), 0u) << "empty: +0";
  expect_fast_sum(std::vector<float>(1000, 0.0f), "zeros");
  std::vector<float> v(700, 1.5f);
  v[300] = std::numeric_limits<float>::infinity();
  expect_fast_sum(v, "inf");
  v[300] = std::numeric_limits<float>::quiet_NaN();
  expect_fast_sum(v, "nan");
  v[300] = -2.0f;  // outside the fast path's contract, but still the plain loop's value
  expect_fast_sum(v, "negative");
  v[300] = std::numeric_limits<float>::denorm_min();
  expect_fast_sum(v, "subnormal");
  std::vector<float> big(2000, 0x1p126f);
  expect_fast_sum(big, "overflow to inf");
}

// --- the tree (host model of the device reduction) -------------------------

// Lengths around the tree's shapes for a leaf size: one term, one leaf, one
// node of 32 leaves, three levels; four levels for single-term leaves.
std::vector<size_t> tree_lengths(int leaf) {
  const auto l = static_cast<size_t>(leaf);
  std::vector<size_t> n = {1, l, l + 1, 32 * l, 32 * l + 1, 1025 * l + 1};
  if (l > 1) n.push_back(l - 1);
  if (l == 1) n.push_back(32 * 32 * 32 + 1);
  return n;
}

TYPED_TEST(OrderedSumTree, EqualsThePlainLoopOnAdversarialSequences) {
  using F = TypeParam;
  size_t cases = 0;
  for (int leaf : kLeafSizes)
    for (size_t n : tree_lengths(leaf))
      for (int kind = 0; kind < test::kFloatSequenceKinds; ++kind) {
        const uint64_t seed = uint64_t(kind) * 1000 + n;
        const std::string what =
            "kind " + std::to_string(kind) + " n " + std::to_string(n) + " seed " + std::to_string(seed);
        expect_tree_sum(test::float_sequence<F>(kind, n, seed), leaf, what);
        ++cases;
      }
  EXPECT_EQ(cases, size_t(12 * 4 * 7));
}

TYPED_TEST(OrderedSumTree, SpecialValuesAndTies) {
  using F = TypeParam;
  std::vector<std::vector<F>> seqs = {std::vector<F>(5000, F(0))};
  std::vector<F> v(7000, F(1.5));
  v[3000] = std::numeric_limits<F>::infinity();
  seqs.push_back(v);
  v[3000] = F(-2);  // outside the fast path's contract: an opaque leaf, still the plain loop's value
  seqs.push_back(v);
  v[3000] = F(-0.0);
  seqs.push_back(v);
  v[3000] = std::numeric_limits<F>::quiet_NaN();
  seqs.push_back(v);
  seqs.push_back(std::vector<F>(5000, std::ldexp(F(1), std::numeric_limits<F>::max_exponent - 2)));  // overflow
  const F two_p = std::ldexp(F(1), Fmt<F>::kDigits);
  for (F start : {two_p + 2, two_p + 4, two_p + 6}) {  // tie runs against odd/even r
    std::vector<F> t(5000, F(1));
    t[0] = start;
    seqs.push_back(t);
    for (size_t i = 1; i < t.size(); i += 3) t[i] = F(3);
    seqs.push_back(t);
  }
  for (int leaf : kLeafSizes)
    for (size_t i = 0; i < seqs.size(); ++i) {
      const std::string what = "sequence " + std::to_string(i);
      expect_tree_sum(seqs[i], leaf, what);
      expect_same_bits(ordered_sum_naive(seqs[i]), ordered_sum_tree_sum(seqs[i], leaf), what + " (tree_sum)");
    }
}

TYPED_TEST(OrderedSumTree, EmptyInputIsPositiveZero) {
  using F = TypeParam;
  const std::vector<F> none;
  for (int leaf : kLeafSizes) {
    OrderedSumHostTree<F> t;
    ordered_sum_build_tree(none, leaf, t);
    EXPECT_EQ(t.tree.levels, 0);
    EXPECT_EQ(Fmt<F>::bits(ordered_sum_tree_sum(none, leaf)), 0u) << "leaf " << leaf;
    EXPECT_EQ(Fmt<F>::bits(test::emulated_warp_sum(t.tree)), 0u) << "leaf " << leaf;
  }
  EXPECT_EQ(Fmt<F>::bits(ordered_sum_naive(none)), 0u);
}

TYPED_TEST(OrderedSumTree, OpaqueTermsAreEnteredAndAddedInOrder) {
  using F = TypeParam;
  // Positive terms with one term that is not +0 or a positive normal number
  // at several places: its leaf and every ancestor are marked opaque (so the
  // walk enters them and adds the leaf as floats), and the sum is the plain
  // loop's. A negative term lowers r, so the later leaves see r leave its
  // binade downwards.
  const F specials[] = {F(-3), F(-0.0), -std::numeric_limits<F>::denorm_min(), std::numeric_limits<F>::denorm_min(),
                        std::numeric_limits<F>::min() / 2, std::numeric_limits<F>::infinity(),
                        -std::numeric_limits<F>::infinity(), std::numeric_limits<F>::quiet_NaN()};
  SplitMix64 s(7);
  int checked = 0;
  for (int leaf : kLeafSizes)
    for (F special : specials)
      for (size_t at : {size_t(0), size_t(1), size_t(777), size_t(1999)}) {
        std::vector<F> v(2000);
        for (F& x : v) x = std::ldexp(F(1) + test::uniform01<F>(s), static_cast<int>(s.next() % 8) - 4);
        v[at] = special;
        const std::string what = "special " + std::to_string(special) + " at " + std::to_string(at);
        OrderedSumHostTree<F> t;
        ordered_sum_build_tree(v, leaf, t);
        size_t c = at / static_cast<size_t>(leaf);
        for (int level = 0; level < t.tree.levels; ++level, c /= kOrderedSumFanout)
          EXPECT_TRUE(t.tree.entry[level][c].info & Fmt<F>::kOpaque) << what << " level " << level;
        EXPECT_EQ(ordered_sum_term_info(special), Fmt<F>::kOpaque) << what;
        expect_tree_sum(v, leaf, what);
        ++checked;
      }
  EXPECT_EQ(checked, 4 * 8 * 4);
}

TYPED_TEST(OrderedSumTree, LongSequencesCrossManyBinades) {
  using F = TypeParam;
  // Terms growing from near the bottom of the normal range to near the top:
  // r climbs through most binades, each crossing one root-to-leaf path of the
  // walk, with runs of whole-leaf integer steps between.
  const int lo = std::numeric_limits<F>::min_exponent + Fmt<F>::kDigits;
  const int hi = std::numeric_limits<F>::max_exponent - 20;
  const size_t n = 60000;
  SplitMix64 s(2024);
  std::vector<F> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::ldexp(F(1) + test::uniform01<F>(s), lo + static_cast<int>(static_cast<double>(hi - lo) * i / n));
  const F naive = ordered_sum_naive(v);
  ASSERT_TRUE(std::isfinite(naive));
  EXPECT_GT(exponent(naive) - exponent(v[0]), (hi - lo) * 9 / 10) << "binades crossed";
  for (int leaf : kLeafSizes) expect_tree_sum(v, leaf, "growing over " + std::to_string(hi - lo) + " binades");
  if constexpr (std::is_same_v<F, float>) expect_fast_sum(v, "growing");
}

TYPED_TEST(OrderedSumTree, ThenIsAssociativeAndSaturates) {
  using F = TypeParam;
  using Uint = typename Fmt<F>::Uint;
  using Steps = OrderedSumSteps<F>;
  // Any grouping of a composition gives the same pair (what lets a node and a
  // warp scan group children freely), and no composition exceeds 2^(p-1),
  // however many saturated runs it joins.
  SplitMix64 s(31);
  auto draw = [&] {
    const Uint scale[] = {Uint(7), Fmt<F>::kSaturated >> 3, Fmt<F>::kSaturated};
    const Uint top = scale[s.next() % 3];
    return Steps{static_cast<Uint>(s.next() % (top + 1)), static_cast<Uint>(s.next() % (top + 1))};
  };
  for (int rep = 0; rep < 10000; ++rep) {
    const Steps a = draw(), b = draw(), c = draw();
    const Steps left = ordered_sum_then(ordered_sum_then(a, b), c);
    const Steps right = ordered_sum_then(a, ordered_sum_then(b, c));
    ASSERT_EQ(left.even, right.even) << "rep " << rep;
    ASSERT_EQ(left.odd, right.odd) << "rep " << rep;
    ASSERT_LE(left.even, Fmt<F>::kSaturated);
    ASSERT_LE(left.odd, Fmt<F>::kSaturated);
  }
  Steps all;
  const Steps full{Fmt<F>::kSaturated, Fmt<F>::kSaturated};
  for (int i = 0; i < 1 << 12; ++i) all = ordered_sum_then(all, full);
  EXPECT_EQ(all.even, Fmt<F>::kSaturated);
  EXPECT_EQ(all.odd, Fmt<F>::kSaturated);
}

TYPED_TEST(OrderedSumTree, LeafStepsAreThePlainAdditionsInEveryBinade) {
  using F = TypeParam;
  using Uint = typename Fmt<F>::Uint;
  // For a leaf with largest exponent field b and each binade B = b + 1 + j of
  // the window, a prediction inside B keeps the pairs of B and B + 1; start r
  // at the lowest even and odd mantissas of each: where the plain additions
  // stay in that binade, they add exactly the kept pair's ulps.
  constexpr int kWindow = Fmt<F>::kWindow;
  constexpr int kBias = static_cast<int>(Fmt<F>::kMaxField / 2);
  int compared = 0;
  for (int kind : {0, 1, 2, 6, 11})
    for (int leaf : kLeafSizes) {
      const std::vector<F> v = test::float_sequence<F>(kind, static_cast<size_t>(leaf), uint64_t(kind * 100 + leaf));
      OrderedSumEntry<F> e;
      ordered_sum_leaf_total(v.data(), leaf, e);
      ASSERT_FALSE(e.info & Fmt<F>::kOpaque);
      if (e.info == 0) continue;
      for (int j = 0; j < kWindow; ++j) {
        const int field = static_cast<int>(e.info) + 1 + j;
        if (field + 1 >= static_cast<int>(Fmt<F>::kMaxField)) continue;
        e.sum = std::ldexp(1.5, field - kBias);  // in binade `field`, also at (1 - kSlack)
        ordered_sum_leaf_steps(v.data(), leaf, e);
        ASSERT_EQ(e.base, static_cast<uint32_t>(field));
        for (int k = 0; k < kOrderedSumKept; ++k)
          for (int odd = 0; odd < 2; ++odd) {
            const auto f = static_cast<Uint>(field + k);
            const Uint r = (f << Fmt<F>::kFracBits) | static_cast<Uint>(odd);
            const Uint sum = ordered_sum_leaf_add(r, v.data(), leaf);  // r + t_0 + ... as floats
            if ((sum >> Fmt<F>::kFracBits) != f) continue;  // left the binade: the walk enters such a leaf
            if (j + k >= kWindow) continue;                  // every term below u/2: skipped, pair unused
            EXPECT_EQ(sum - r, odd ? e.steps[k].odd : e.steps[k].even)
                << "kind " << kind << " leaf " << leaf << " j " << j << " k " << k << " odd " << odd;
            ++compared;
          }
      }
    }
  EXPECT_GT(compared, 100);
}

TYPED_TEST(OrderedSumTree, WrongPredictionsOnlyCostTime) {
  using F = TypeParam;
  // Predictions scaled away from the earlier terms' sum (none kept binade
  // right, one binade off, barely off, zero, negative, inf, NaN): the walk
  // enters what it cannot add and the sum is still the plain loop's.
  const double skews[] = {0.5, 2.0, 1.0 + 0x1p-12, 1.0 - 0x1p-12, 0.0, -1.0, HUGE_VAL, std::nan("")};
  size_t cases = 0;
  for (double skew : skews)
    for (int leaf : {1, 7, 64})
      for (int kind = 0; kind < test::kFloatSequenceKinds; ++kind) {
        const std::vector<F> v = test::float_sequence<F>(kind, 3000, uint64_t(kind) * 77 + 5);
        const std::string what = "skew " + std::to_string(skew) + " leaf " + std::to_string(leaf) + " kind " +
                                 std::to_string(kind);
        OrderedSumHostTree<F> t;
        ordered_sum_build_tree(v, leaf, t, skew);
        OrderedSumSequentialScan<F> scan;
        const F naive = ordered_sum_naive(v);
        expect_same_bits(naive, Fmt<F>::value(ordered_sum_walk(t.tree, scan)), what);
        expect_same_bits(naive, test::emulated_warp_sum(t.tree), what + " (warp)");
        ++cases;
      }
  EXPECT_EQ(cases, std::size(skews) * 3 * size_t(test::kFloatSequenceKinds));
}

// Counts the leaves the walk enters (summed as floats).
template <typename F>
struct CountingScan : OrderedSumSequentialScan<F> {
  int* entered;
  void leaf(const twinmaf::OrderedSumTree<F>& t, int c, typename OrderedSumFormat<F>::Uint& r) const {
    ++*entered;
    OrderedSumSequentialScan<F>::leaf(t, c, r);
  }
};

TYPED_TEST(OrderedSumTree, PredictionsHoldForNonNegativeTerms) {
  using F = TypeParam;
  // 2^17 terms in [0, 1): r climbs about 17 binades; with the predictions the
  // walk enters about one leaf per crossing (and the first), not one per
  // leaf; a prediction made wrong (2x) enters nearly every leaf.
  SplitMix64 s(99);
  std::vector<F> v(size_t(1) << 17);
  for (F& x : v) x = test::uniform01<F>(s);
  for (double skew : {1.0, 2.0}) {
    OrderedSumHostTree<F> t;
    ordered_sum_build_tree(v, 64, t, skew);
    int entered = 0;
    CountingScan<F> scan;
    scan.entered = &entered;
    expect_same_bits(ordered_sum_naive(v), Fmt<F>::value(ordered_sum_walk(t.tree, scan)), "uniform");
    if (skew == 1.0)
      EXPECT_LE(entered, 2 * 20) << "leaves entered";
    else
      EXPECT_GE(entered, t.tree.count[0] / 2) << "leaves entered";
  }
}

}  // namespace
}  // namespace twinmaf
