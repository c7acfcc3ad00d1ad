// ciede_bounds.h: the intervals hold the CPU's value. Evaluated here with
// glibc standing in for the device's libm (the device's own values are
// checked by the twin tests), on sample triples of every depth (random,
// extremes, greys) and their dE00, each against the CPU path with == where
// the interval is one float; powf's model against this host's powf for every
// float it covers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "base/hd_math.h"
#include "features/ciede/ciede.h"
#include "features/ciede/ciede_bounds.h"
#include "features/ciede/ciede_math.h"

namespace twinmaf {
namespace {

using ciede::CiedeBounds;
using ciede::IvF;

bool holds(const IvF& iv, float v) { return iv.lo <= v && v <= iv.hi; }
bool same(float a, float b) { return float_bits(a) == float_bits(b); }

TEST(CiedeBounds, Pow25Constants) {
  volatile double d25 = 25.0;
  volatile float f25 = 25.0f;
  EXPECT_EQ(ciede::pow25_7(), std::pow(d25, 7.0));
  EXPECT_EQ(ciede::pow25_7f(), ::powf(f25, 7.0f));
}

TEST(CiedeBounds, HoldTheCpuValueEveryDepth) {
  std::mt19937_64 rng(31);
  for (int bpc : {8, 10, 12, 16}) {
    const CiedeLevels k = ciede_levels(bpc);
    const int top = (1 << bpc) - 1;
    std::uniform_int_distribution<int> any(0, top), near(-12 << (bpc - 8), 12 << (bpc - 8));
    long pixels = 0, sure = 0;
    for (int n = 0; n < 200000; ++n) {
      uint16_t s[6];
      for (int c = 0; c < 3; ++c) s[c] = static_cast<uint16_t>(n % 7 == 0 ? (any(rng) & 1) * top : any(rng));
      for (int c = 0; c < 3; ++c) {  // a distorted colour near the reference, or anywhere
        const int v = n % 3 == 0 ? any(rng) : s[c] + near(rng);
        s[3 + c] = static_cast<uint16_t>(v < 0 ? 0 : (v > top ? top : v));
      }
      if (n % 11 == 0) s[1] = s[2] = s[4] = s[5] = static_cast<uint16_t>(128 << (bpc - 8));  // greys
      const CiedeLab r = ciede_lab(s[0], s[1], s[2], k), d = ciede_lab(s[3], s[4], s[5], k);
      CiedeBounds m;
      const ciede::Lab<CiedeBounds> rb = ciede::lab(m, s[0], s[1], s[2], k);
      const ciede::Lab<CiedeBounds> db = ciede::lab(m, s[3], s[4], s[5], k);
      const bool lab_sure = !m.unsure;
      if (lab_sure) {
        ASSERT_TRUE(holds(rb.l, r.l) && holds(rb.a, r.a) && holds(rb.b, r.b)) << bpc << " " << n;
        ASSERT_TRUE(holds(db.l, d.l) && holds(db.a, d.a) && holds(db.b, d.b)) << bpc << " " << n;
      }
      const float e = ciede_de00(r, d);
      const IvF eb = ciede::de00(m, rb, db);
      ++pixels;
      if (!m.unsure && eb.point()) {
        ++sure;
        ASSERT_TRUE(same(eb.lo, e)) << bpc << " " << n << ": " << eb.lo << " " << e;
      } else if (!m.unsure) {
        ASSERT_TRUE(holds(eb, e) || e != e) << bpc << " " << n;
      }
    }
    std::printf("%d bit: %ld of %ld dE00 pinned to one float (%.4f%% to the host)\n", bpc, sure, pixels,
                100.0 * static_cast<double>(pixels - sure) / static_cast<double>(pixels));
    EXPECT_GT(sure, pixels * 99 / 100);
  }
}

// Every float c in [2^-16, 2^16]: this host's powf(c, 7) is one of the
// model's floats (ciede_bounds.h); also what ciede_powf_model_holds samples.
TEST(CiedeBounds, PowfModelHoldsForEveryFloat) {
  const uint32_t first = float_bits(0x1p-16f), last = float_bits(0x1p16f);
  long two = 0;
  for (uint32_t u = first; u <= last; ++u) {
    const float c = bits_float(u);
    const IvF b = ciede::powf7_bounds(c);
    const float g = ::powf(c, 7.0f);
    if (!holds(b, g)) FAIL() << "powf(" << c << ", 7) = " << g << " outside [" << b.lo << ", " << b.hi << "]";
    two += !b.point();
  }
  std::printf("%ld of %u floats have two candidates\n", two, last - first + 1);
  EXPECT_TRUE(ciede_powf_model_holds());
}

}  // namespace
}  // namespace twinmaf
