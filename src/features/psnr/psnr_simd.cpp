// psnr SSE in SIMD (Google Highway, one source for every target): equal to
// psnr_plane_sse_ref (integer sums, exact in any order). Per row, squares
// e^2 (< 2^32) are summed in uint32 lanes as their high and low 16 bits
// (each lane's sums <= 32768 * 65535 < 2^31), then (H << 16) + L is added
// to the uint64 total. Rows shorter than one vector: scalar tail of the same
// arithmetic.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/psnr/psnr_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/psnr/psnr.h"

TWINMAF_SIMD_BEGIN
namespace {

template <typename T>
uint64_t sse(const PlaneView& a, const PlaneView& b) {
  const hn::ScalableTag<uint32_t> d;
  const hn::Rebind<T, decltype(d)> dt;
  const size_t n = hn::Lanes(d);
  const size_t w = static_cast<size_t>(a.w);
  const auto lo_mask = hn::Set(d, 0xffffu);
  uint64_t total = 0;
  for (int y = 0; y < a.h; ++y) {
    const T* ra = a.row<T>(y);
    const T* rb = b.row<T>(y);
    auto hi = hn::Zero(d), lo = hn::Zero(d);
    size_t x = 0;
    for (; x + n <= w; x += n) {
      const auto va = hn::PromoteTo(d, hn::LoadU(dt, ra + x));
      const auto vb = hn::PromoteTo(d, hn::LoadU(dt, rb + x));
      const auto e = hn::Sub(hn::Max(va, vb), hn::Min(va, vb));
      const auto sq = hn::Mul(e, e);
      hi = hn::Add(hi, hn::ShiftRight<16>(sq));
      lo = hn::Add(lo, hn::And(sq, lo_mask));
    }
    uint64_t row = (uint64_t{hn::GetLane(hn::SumOfLanes(d, hi))} << 16) + hn::GetLane(hn::SumOfLanes(d, lo));
    for (; x < w; ++x) {
      const uint32_t e = ra[x] > rb[x] ? ra[x] - rb[x] : rb[x] - ra[x];
      row += uint64_t{e * e};
    }
    total += row;
  }
  return total;
}

}  // namespace

uint64_t SseSimd(const PlaneView& a, const PlaneView& b, int bpc) {
  return bpc > 8 ? sse<uint16_t>(a, b) : sse<uint8_t>(a, b);
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(SseSimd);

uint64_t psnr_plane_sse_simd(const PlaneView& a, const PlaneView& b, int bpc) {
  return HWY_DYNAMIC_DISPATCH(SseSimd)(a, b, bpc);
}

const PsnrDsp& psnr_dsp_simd() {
  static constexpr PsnrDsp k{&psnr_plane_sse_simd};
  return k;
}

void psnr_dsp_init(PsnrDsp& dsp) {
  dsp = psnr_dsp_ref();
  if (simd_enabled()) dsp = psnr_dsp_simd();
}

}  // namespace twinmaf
#endif
