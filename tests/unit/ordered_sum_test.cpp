// base/ordered_sum.h: the fast host sum and the host models of the device
// tree (sequential walk, emulated warp scanner) against the plain running sum
// r = +0; r += t. Sums are compared as bit patterns; a NaN need only be a NaN
// (which payload an addition of two NaNs keeps depends on the operand order
// the compiler picks).
#include "base/ordered_sum.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/float_sequences.h"
#include "tests/support/noise_clip.h"
#include "tests/support/warp_scan_emulation.h"

namespace twinmaf {
namespace {

using test::SplitMix64;

void expect_same_bits(float naive, float other, const std::string& what) {
  if (std::isnan(naive)) {
    EXPECT_TRUE(std::isnan(other)) << what;
  } else {
    EXPECT_EQ(std::bit_cast<uint32_t>(naive), std::bit_cast<uint32_t>(other))
        << what << ": " << naive << " vs " << other;
  }
}

// --- the fast host sum --------------------------------------------------------

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

// --- the tree (host model of the device reduction) ---------------------------

// The tree with leaves of 64 terms, walked sequentially and by the emulated
// warp, equals the plain loop.
void expect_tree_sum(const std::vector<float>& v, const std::string& what) {
  const float naive = ordered_sum_naive(v);
  OrderedSumHostTree<float> t;
  ordered_sum_build_tree(v, 64, t);
  expect_same_bits(naive, ordered_sum_tree_sum(v, 64), what);
  expect_same_bits(naive, test::emulated_warp_sum(t.tree), what + " (warp)");
}

TEST(OrderedSumTree, EqualsThePlainLoopOnAdversarialSequences) {
  const size_t lengths[] = {1, 63, 64, 65, 2048, 2049, 70000, 300000};
  size_t cases = 0;
  for (int kind = 0; kind < test::kFloatSequenceKinds; ++kind)
    for (size_t n : lengths) {
      expect_tree_sum(test::float_sequence(kind, n, uint64_t(kind) * 1000 + n),
                      "kind " + std::to_string(kind) + " n " + std::to_string(n));
      ++cases;
    }
  EXPECT_EQ(cases, 96u);
}

TEST(OrderedSumTree, SpecialValuesAndTies) {
  std::vector<std::vector<float>> seqs = {{}, std::vector<float>(5000, 0.0f)};
  std::vector<float> v(7000, 1.5f);
  v[3000] = std::numeric_limits<float>::infinity();
  seqs.push_back(v);
  v[3000] = -2.0f;  // outside the contract: an opaque leaf, still the plain loop's value
  seqs.push_back(v);
  v[3000] = -0.0f;
  seqs.push_back(v);
  seqs.push_back(std::vector<float>(5000, 0x1p126f));  // overflow to inf
  for (float start : {0x1p24f + 2.0f, 0x1p24f + 4.0f, 0x1p24f + 6.0f}) {  // tie runs against odd/even r
    std::vector<float> t(5000, 1.0f);
    t[0] = start;
    seqs.push_back(t);
    for (size_t i = 1; i < t.size(); i += 3) t[i] = 3.0f;
    seqs.push_back(t);
  }
  for (size_t i = 0; i < seqs.size(); ++i) expect_tree_sum(seqs[i], "sequence " + std::to_string(i));
  v[3000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(ordered_sum_tree_sum(v, 64)));
}

}  // namespace
}  // namespace twinmaf
