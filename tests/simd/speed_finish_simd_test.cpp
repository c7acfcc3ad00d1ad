// speed's est_params sums (shifted sub-images, covariances): SIMD == scalar
// reference, bit for bit, on every target, band size and value range.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "base/hd_math.h"
#include "features/speed/speed.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf {
namespace {

// A band of trunc_w x trunc_h floats: uniform in [-scale, scale], with every
// 7th sample a tiny or a large value (sums that lose low bits when reordered).
std::vector<float> band_of(int tw, int th, float scale, uint64_t seed) {
  test::SplitMix64 rng(seed);
  std::vector<float> b(static_cast<size_t>(tw) * th);
  for (size_t i = 0; i < b.size(); ++i) {
    const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;  // [0, 1)
    float v = static_cast<float>((2 * u - 1) * scale);
    if (i % 7 == 3) v *= (rng.next() & 1) ? 1e-6f : 1e4f;
    b[i] = v;
  }
  return b;
}

TEST(SpeedSimd, EstParamsSumsEqualReference) {
  ASSERT_FALSE(test::simd_targets().empty()) << "no SIMD target to test on this machine";
  int cases = 0;
  test::for_each_target([&](const char* target) {
    std::printf("speed_covariance_sums: target %s\n", target);
    uint64_t seed = 1;
    for (int tw : {5, 10, 15, 40, 65, 120})
      for (int th : {5, 10, 25, 35})
        for (float scale : {1.0f, 130.0f, 3e4f}) {
          SpeedGeometry g;
          g.trunc_w = tw;
          g.trunc_h = th;
          const std::vector<float> band = band_of(tw, th, scale, ++seed);
          float mean[kSpeedBlockSamples];
          for (int a = 0; a < kSpeedBlockSamples; ++a) mean[a] = band[size_t(a) * 3 % band.size()] * 0.5f;
          float sum_want[kSpeedBlockSamples], sum_got[kSpeedBlockSamples];
          speed_shifted_sums_ref(g, band.data(), sum_want);
          speed_shifted_sums_simd(g, band.data(), sum_got);
          for (int a = 0; a < kSpeedBlockSamples; ++a)
            ASSERT_EQ(float_bits(sum_got[a]), float_bits(sum_want[a]))
                << "speed_shifted_sums_" << target << ": " << tw << "x" << th << " scale " << scale << " window "
                << a << ": " << sum_got[a] << " != " << sum_want[a];
          double want[kSpeedPairs], got[kSpeedPairs];
          speed_covariance_sums_ref(g, band.data(), mean, want);
          speed_covariance_sums_simd(g, band.data(), mean, got);
          for (int k = 0; k < kSpeedPairs; ++k)
            ASSERT_EQ(double_bits(got[k]), double_bits(want[k]))
                << "speed_covariance_sums_" << target << ": " << tw << "x" << th << " scale " << scale << " pair "
                << k << ": " << got[k] << " != " << want[k];
          ++cases;
        }
  });
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace twinmaf
