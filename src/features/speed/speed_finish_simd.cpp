// speed: est_params' sums in SIMD (Google Highway, one source for every
// target), equal to speed_shifted_sums_ref and speed_covariance_sums_ref
// (speed.h).
//
// Shifted sums: lane a holds sub-image a's float sum and adds its sample of
// each pixel's window (a gather), pixels in raster order: each lane is the
// reference's sequential sum.
//
// Covariance sums:
// Per row of the shifted sub-images the 25 differences d_a of each pixel are
// formed in double as the reference forms them; then d_a times the vector
// of d_b is added to the accumulators of (a, b), ceil((a+1)/lanes) vectors
// per row a, each accumulator over the row's pixels in order. Each
// accumulator still receives d_a * d_b once per pixel, in raster order, by
// the same IEEE multiply and add (Highway's Mul and Add; nothing fused: the
// project builds with -ffp-contract=off), so every sum is the reference's.
// Lanes past b = a, padding of the row, accumulate products of finite
// values that are never read.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/speed/speed_finish_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "base/simd_kernel.h"
#include "features/speed/speed.h"

TWINMAF_SIMD_BEGIN

void ShiftedSumsSimd(const SpeedGeometry& g, const float* band, float* sum) {
  constexpr int kN = kSpeedBlockSamples;
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t n = hn::Lanes(d);
  const size_t lanes = (kN + n - 1) / n * n;
  const int tw = g.trunc_w;
  const int sw = g.trunc_w - kSpeedBlock + 1;
  const int sh = g.trunc_h - kSpeedBlock + 1;
  // Lane a gathers sample (a / 5, a % 5) of the 5x5 window at each pixel;
  // padding lanes read the window's first sample and are dropped.
  auto offset = hwy::AllocateAligned<int32_t>(lanes);
  auto acc = hwy::AllocateAligned<float>(lanes);
  for (size_t a = 0; a < lanes; ++a) {
    offset[a] = a < size_t(kN) ? int32_t(a / kSpeedBlock) * tw + int32_t(a % kSpeedBlock) : 0;
    acc[a] = 0.0f;
  }
  for (int i = 0; i < sh; ++i)
    for (int j = 0; j < sw; ++j) {
      const float* p = band + i * tw + j;
      for (size_t v = 0; v < lanes; v += n)
        hn::Store(hn::Add(hn::Load(d, acc.get() + v), hn::GatherIndex(d, p, hn::Load(di, offset.get() + v))), d,
                  acc.get() + v);
    }
  std::copy(acc.get(), acc.get() + kN, sum);
}

void CovarianceSumsSimd(const SpeedGeometry& g, const float* band, const float* mean, double* acc) {
  constexpr int kN = kSpeedBlockSamples;
  const hn::ScalableTag<double> d;
  const size_t n = hn::Lanes(d);
  const auto padded = [n](size_t len) { return (len + n - 1) / n * n; };
  size_t start[kN + 1];
  start[0] = 0;
  for (int a = 0; a < kN; ++a) start[a + 1] = start[a] + padded(size_t(a) + 1);
  const int tw = g.trunc_w;
  const int sw = g.trunc_w - kSpeedBlock + 1;
  const int sh = g.trunc_h - kSpeedBlock + 1;
  const size_t stride = padded(kN);  // one pixel's differences, zero padded
  auto sums = hwy::AllocateAligned<double>(start[kN]);
  auto dev = hwy::AllocateAligned<double>(stride * size_t(sw));
  std::fill(sums.get(), sums.get() + start[kN], 0.0);
  std::fill(dev.get(), dev.get() + stride * size_t(sw), 0.0);
  // One chain per vector of a row's accumulators: lanes b .. b+n-1 of row a,
  // padded to a multiple of four with chains into a scratch vector.
  struct Chain {
    int a;
    size_t b;
    double* sum;
  };
  auto scratch = hwy::AllocateAligned<double>(n);
  std::vector<Chain> chains;
  for (int a = 0; a < kN; ++a)
    for (size_t b = 0; b <= size_t(a); b += n) chains.push_back({a, b, sums.get() + start[a] + b});
  while (chains.size() % 4) chains.push_back({0, 0, scratch.get()});
  int offset[kN];
  for (int a = 0; a < kN; ++a) offset[a] = (a / kSpeedBlock) * tw + a % kSpeedBlock;
  for (int i = 0; i < sh; ++i) {
    // A row's differences first: the vector loads below then never wait on
    // the scalar stores that wrote them.
    for (int j = 0; j < sw; ++j) {
      const float* p = band + i * tw + j;
      double* dj = dev.get() + size_t(j) * stride;
      for (int a = 0; a < kN; ++a) dj[a] = static_cast<double>(p[offset[a]]) - static_cast<double>(mean[a]);
    }
    // Four accumulators at a time, each over the row's pixels in order: four
    // independent chains of adds in flight, the sums in registers.
    for (size_t k = 0; k < chains.size(); k += 4) {
      const Chain c0 = chains[k], c1 = chains[k + 1], c2 = chains[k + 2], c3 = chains[k + 3];
      auto s0 = hn::Load(d, c0.sum), s1 = hn::Load(d, c1.sum), s2 = hn::Load(d, c2.sum), s3 = hn::Load(d, c3.sum);
      const double* dj = dev.get();
      for (int j = 0; j < sw; ++j, dj += stride) {
        s0 = hn::Add(s0, hn::Mul(hn::Set(d, dj[c0.a]), hn::Load(d, dj + c0.b)));
        s1 = hn::Add(s1, hn::Mul(hn::Set(d, dj[c1.a]), hn::Load(d, dj + c1.b)));
        s2 = hn::Add(s2, hn::Mul(hn::Set(d, dj[c2.a]), hn::Load(d, dj + c2.b)));
        s3 = hn::Add(s3, hn::Mul(hn::Set(d, dj[c3.a]), hn::Load(d, dj + c3.b)));
      }
      hn::Store(s0, d, c0.sum);
      hn::Store(s1, d, c1.sum);
      hn::Store(s2, d, c2.sum);
      hn::Store(s3, d, c3.sum);
    }
  }
  for (int a = 0; a < kN; ++a)
    for (int b = 0; b <= a; ++b) *acc++ = sums[start[a] + size_t(b)];
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(ShiftedSumsSimd);
HWY_EXPORT(CovarianceSumsSimd);

void speed_shifted_sums_simd(const SpeedGeometry& g, const float* band, float* sum) {
  HWY_DYNAMIC_DISPATCH(ShiftedSumsSimd)(g, band, sum);
}

void speed_covariance_sums_simd(const SpeedGeometry& g, const float* band, const float* mean, double* acc) {
  HWY_DYNAMIC_DISPATCH(CovarianceSumsSimd)(g, band, mean, acc);
}

}  // namespace twinmaf
#endif
