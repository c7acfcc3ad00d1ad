// float_ssim / float_ms_ssim row kernels: SIMD == scalar reference, bit for
// bit, on every target: the kernels alone (every length around the vector
// sizes, every tap count the drivers use, special values) and whole frames
// (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "features/ssim/ssim.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {

bool same_bits(const void* a, const void* b, size_t bytes) { return std::memcmp(a, b, bytes) == 0; }

float uniform(SplitMix64& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(rng.next() >> 40) * (1.0f / 16777216.0f);
}

}  // namespace

void check_ssim_weighted_sum_row(const char* target, int64_t& cases) {
  // The weight tables the drivers pass: the Gaussian, the 9x9 low-pass (negative
  // taps), boxes of 2, 3, 10.
  std::vector<std::vector<float>> tables = {std::vector<float>(kSsimGauss, kSsimGauss + kSsimWindow),
                                            std::vector<float>(ms_ssim_lpf_kernel(), ms_ssim_lpf_kernel() + 81)};
  for (int f : {2, 3, 10}) {
    tables.emplace_back(static_cast<size_t>(f * f));
    ssim_box_kernel(f, tables.back().data());
  }
  SplitMix64 rng(7);
  std::vector<float> data(4096);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = i % 7 == 0 ? static_cast<float>(rng.next() % 256) : uniform(rng, -20.0f, 65025.0f);
  {
    for (const std::vector<float>& w : tables)
      for (int n = 1; n <= 70; ++n) {
        const int taps = static_cast<int>(w.size());
        std::vector<const float*> src(static_cast<size_t>(taps));
        for (int k = 0; k < taps; ++k) src[static_cast<size_t>(k)] = data.data() + rng.next() % (data.size() - n);
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
        ssim_row_kernels_ref().weighted_sum_row(src.data(), w.data(), taps, n, want.data());
        ssim_row_kernels_simd().weighted_sum_row(src.data(), w.data(), taps, n, got.data());
        ASSERT_TRUE(same_bits(want.data(), got.data(), want.size() * sizeof(float)))
            << "weighted_sum_row_" << target << ": taps " << taps << " n " << n;
        ++cases;
      }
  }
}

void check_ssim_pixel_terms_row(const char* target, int64_t& cases) {
  constexpr int kMax = 67;
  SplitMix64 rng(11);
  // Per pixel: means, then the filtered squares and product around their
  // moments, including flat windows (sd 0, covariance slightly negative),
  // variances rounding below 0, -0 and NaN maps.
  std::vector<float> mu1(kMax), mu2(kMax), xx(kMax), yy(kMax), xy(kMax);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 0; i < kMax; ++i) {
    mu1[i] = uniform(rng, 0.0f, 255.0f);
    mu2[i] = i % 5 == 0 ? mu1[i] : uniform(rng, 0.0f, 255.0f);
    switch (i % 6) {
      case 0:  // flat and identical: s1 = s2 = 0, covariance just below 0
        xx[i] = mu1[i] * mu1[i];
        yy[i] = xx[i];
        xy[i] = std::nextafter(xx[i], 0.0f);
        break;
      case 1:  // variances that round below 0
        xx[i] = std::nextafter(mu1[i] * mu1[i], 0.0f);
        yy[i] = std::nextafter(mu2[i] * mu2[i], 0.0f);
        xy[i] = mu1[i] * mu2[i] - uniform(rng, 0.0f, 30.0f);
        break;
      case 2:  // -0 means and squares
        mu1[i] = -0.0f;
        xx[i] = -0.0f;
        yy[i] = mu2[i] * mu2[i];
        xy[i] = -0.0f;
        break;
      case 3:  // NaN
        xx[i] = nan;
        yy[i] = mu2[i] * mu2[i] + 4.0f;
        xy[i] = mu1[i] * mu2[i];
        break;
      default:
        xx[i] = mu1[i] * mu1[i] + uniform(rng, 0.0f, 3000.0f);
        yy[i] = mu2[i] * mu2[i] + uniform(rng, 0.0f, 3000.0f);
        xy[i] = mu1[i] * mu2[i] + uniform(rng, -1500.0f, 1500.0f);
    }
  }
  {
    for (int off = 0; off < 4; ++off)
      for (int n = 1; n + off <= kMax; ++n) {
        std::vector<double> want(3 * static_cast<size_t>(n)), got(want.size());
        const size_t nz = static_cast<size_t>(n);
        ssim_row_kernels_ref().pixel_terms_row(&mu1[off], &mu2[off], &xx[off], &yy[off], &xy[off], n, want.data(),
                                               want.data() + nz, want.data() + 2 * nz);
        ssim_row_kernels_simd().pixel_terms_row(&mu1[off], &mu2[off], &xx[off], &yy[off], &xy[off], n, got.data(),
                                                got.data() + nz, got.data() + 2 * nz);
        ASSERT_TRUE(same_bits(want.data(), got.data(), want.size() * sizeof(double)))
            << "pixel_terms_row_" << target << ": offset " << off << " n " << n;
        ++cases;
      }
  }
}

void check_ssim_frames(const char* target, int64_t& total) {
  int cases = 0;
  {
    uint64_t seed = 100;
    for (int bpc : {8, 10, 12, 16}) {
      // float_ssim: scales 1..4 and 10, sizes from the smallest valid area up,
      // odd and around the vector lengths.
      for (int scale : {1, 2, 3, 4, 10})
        for (auto [w, h] : {std::pair{11, 11}, std::pair{12, 19}, std::pair{27, 13}, std::pair{43, 37},
                            std::pair{97, 61}, std::pair{130, 115}}) {
          if (scale > 1 && (ssim_decimated_size(w, scale) < kSsimWindow || ssim_decimated_size(h, scale) < kSsimWindow))
            continue;
          const int off = static_cast<int>(seed % 5), pad = static_cast<int>(seed % 3);
          TestPlane ref(w, h, bpc, off, pad), dis(w, h, bpc, off, pad);
          fill_pair(ref, dis, ++seed);
          SsimSums want, got;
          float_ssim_terms(ref.view, dis.view, bpc, scale, ssim_row_kernels_ref(), want);
          float_ssim_terms(ref.view, dis.view, bpc, scale, ssim_row_kernels_simd(), got);
          ASSERT_TRUE(want.l > 0 && want.lcs != 0) << w << "x" << h << " scale " << scale;
          ASSERT_EQ(got, want) << "float_ssim_" << target << ": bpc " << bpc << " " << w << "x" << h << " scale "
                               << scale << " seed " << seed;
          ++cases;
        }
      for (auto [w, h] : {std::pair{176, 176}, std::pair{181, 178}, std::pair{199, 203}}) {
        const int off = static_cast<int>(seed % 5), pad = static_cast<int>(seed % 3);
        TestPlane ref(w, h, bpc, off, pad), dis(w, h, bpc, off, pad);
        fill_pair(ref, dis, ++seed);
        SsimSums want[kMsSsimScales], got[kMsSsimScales];
        float_ms_ssim_terms(ref.view, dis.view, bpc, ssim_row_kernels_ref(), want);
        float_ms_ssim_terms(ref.view, dis.view, bpc, ssim_row_kernels_simd(), got);
        for (int i = 0; i < kMsSsimScales; ++i)
          ASSERT_EQ(got[i], want[i]) << "float_ms_ssim_" << target << ": bpc " << bpc << " " << w << "x" << h
                                     << " scale " << i << " seed " << seed;
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 50);  // per target (72: float_ssim's valid sizes x scales, ms_ssim's 3, x 4 depths)
  total += cases;
}

// float_ssim (scale 1) of an 8-bit pair through each table.
std::function<void(bool)> bench_ssim_frames(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  return [p](bool simd) {
    SsimSums sums;
    float_ssim_terms(p->a.view, p->b.view, 8, 1, simd ? ssim_row_kernels_simd() : ssim_row_kernels_ref(), sums);
    keep(sums);
  };
}

}  // namespace twinmaf::test
