// speed's est_params sums (shifted sub-images, covariances): SIMD == scalar
// reference, bit for bit, on every target, band size and value range
// (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "base/hd_math.h"
#include "features/speed/speed.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {

// A band of trunc_w x trunc_h floats: uniform in [-scale, scale], with every
// 7th sample a tiny or a large value (sums that lose low bits when reordered).
std::vector<float> band_of(int tw, int th, float scale, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> b(static_cast<size_t>(tw) * th);
  for (size_t i = 0; i < b.size(); ++i) {
    const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;  // [0, 1)
    float v = static_cast<float>((2 * u - 1) * scale);
    if (i % 7 == 3) v *= (rng.next() & 1) ? 1e-6f : 1e4f;
    b[i] = v;
  }
  return b;
}

}  // namespace

void check_speed_est_params_sums(const char* target, int64_t& cases) {
  const SpeedDsp& ref = speed_dsp_ref();
  const SpeedDsp& simd = speed_dsp_simd();
  {
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
          ref.shifted_sums(g, band.data(), sum_want);
          simd.shifted_sums(g, band.data(), sum_got);
          for (int a = 0; a < kSpeedBlockSamples; ++a)
            ASSERT_EQ(float_bits(sum_got[a]), float_bits(sum_want[a]))
                << "speed_shifted_sums_" << target << ": " << tw << "x" << th << " scale " << scale << " window "
                << a << ": " << sum_got[a] << " != " << sum_want[a];
          double want[kSpeedPairs], got[kSpeedPairs];
          ref.covariance_sums(g, band.data(), mean, want);
          simd.covariance_sums(g, band.data(), mean, got);
          for (int k = 0; k < kSpeedPairs; ++k)
            ASSERT_EQ(double_bits(got[k]), double_bits(want[k]))
                << "speed_covariance_sums_" << target << ": " << tw << "x" << th << " scale " << scale << " pair "
                << k << ": " << got[k] << " != " << want[k];
          ++cases;
        }
  }
}

// The sums over a band of about (w/4) x (h/4) values (multiples of 5).
std::function<void(bool)> bench_speed_est_params_sums(int w, int h) {
  SpeedGeometry g;
  g.trunc_w = w / 4 / 5 * 5;
  g.trunc_h = h / 4 / 5 * 5;
  auto band = std::make_shared<std::vector<float>>(band_of(g.trunc_w, g.trunc_h, 130.0f, 3));
  return [g, band](bool simd) {
    const SpeedDsp& k = simd ? speed_dsp_simd() : speed_dsp_ref();
    float sum[kSpeedBlockSamples];
    k.shifted_sums(g, band->data(), sum);
    for (float& m : sum) m *= 0.001f;
    double acc[kSpeedPairs];
    k.covariance_sums(g, band->data(), sum, acc);
    keep(acc);
  };
}

}  // namespace twinmaf::test
