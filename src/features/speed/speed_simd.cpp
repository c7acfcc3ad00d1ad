// speed_chroma / speed_temporal stages 1-3 in SIMD (Google Highway, one
// source for every target): the 1/16 image of an input that is not
// resampled (!kp.prescale), equal to speed_ref.cpp's bit for bit (speed.h
// has the contract); stages 4-5 are speed_band_from_small, and with a
// prescale the reference runs whole.
//
// Vertical anti-alias pass at each kept row 16 oy: lanes are columns. Per
// column vector, for each tap k in order from +0, acc = acc + t_k * F, with F
// the float image value of row reflect101(16 oy - r + k, scaled_h). Each lane
// is one column's sum with the reference's operations in its order
// (Highway's Mul and Add are plain IEEE; -ffp-contract=off keeps the tail
// unfused), four column vectors at a time for independent add chains;
// columns past the last whole vector take the reference's scalar expression.
//
// F from integers, exactly: the reference's F = (float)s / 2^k + -128
// (k = bpc - 8, s < 2^16). s / 2^k is exact, and the sum's exact value
// (s - 128 * 2^k) / 2^k is a multiple of 2^-k below 2^8 in magnitude (at
// most 16 significant bits), so the float add returns it unrounded; the
// integer m = s - 128 * 2^k (|m| <= 2^15) converts exactly and m * 2^-k is
// that value. speed_temporal's F(a) - F(b) = (a - b) / 2^k alike (a
// multiple of 2^-k below 2^9: 17 bits), so (float)(a - b) * 2^-k. A zero is
// +0 both ways (x + -x rounds to +0; (float)0 * 2^-k = +0).
//
// Padding (speed_ref.cpp's third case, scaled side rounded up past the
// input): the reference filters rows and columns of zeros there. A zero row
// adds t * +0 = +0 to acc, which is never -0 (it starts +0 and a
// round-to-nearest sum is -0 only of two -0), so that tap is skipped;
// columns at or past w get acc = +0 (their sums of t * +0).
//
// Horizontal pass at every 16th column: filter_horizontal's edge outputs
// (reflected reads) by its own code, the interior lane-parallel over
// outputs, each lane's taps in order from +0 as there, the values of tap k
// gathered 16 floats apart.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/speed/speed_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hd_math.h"
#include "features/common/float_filter.h"
#include "features/common/float_picture.h"
#include "features/speed/speed.h"

HWY_BEFORE_NAMESPACE();
namespace twinmaf {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// The rows one vertical pass reads (zero rows left out) and their taps.
template <typename T>
struct TapRows {
  std::vector<const T*> a, b;  // b: speed_temporal's current frame
  std::vector<float> taps;
};

// F at x of tap rows a (minus b when kDiff): (float)(a - bias) or
// (float)(a - b), times 2^-k above 8 bit.
template <typename T, bool kDiff>
HWY_INLINE VF image_values(DF df, const T* a, const T* b, size_t x, hn::Vec<hn::Rebind<int32_t, DF>> bias,
                           VF inverse) {
  const hn::Rebind<int32_t, DF> di;
  const hn::Rebind<T, DF> dt;
  const auto ia = hn::PromoteTo(di, hn::LoadU(dt, a + x));
  const auto ib = kDiff ? hn::PromoteTo(di, hn::LoadU(dt, b + x)) : bias;
  const VF v = hn::ConvertTo(df, hn::Sub(ia, ib));
  if constexpr (sizeof(T) == 1) return v;  // bpc 8: 2^-0
  else return hn::Mul(v, inverse);
}

// acc[x] for x < w: the vertical pass over rows.
template <typename T, bool kDiff>
void vertical(const TapRows<T>& rows, int w, float divisor, float* acc) {
  const DF df;
  const size_t n = hn::Lanes(df);
  const size_t fw = rows.taps.size();
  const size_t width = static_cast<size_t>(w);
  const VF inverse = hn::Set(df, 1.0f / divisor);  // a power of two: exact
  const auto bias = hn::Set(hn::Rebind<int32_t, DF>(), 128 * static_cast<int32_t>(divisor));
  const T* const* a = rows.a.data();
  const T* const* b = kDiff ? rows.b.data() : nullptr;
  size_t x = 0;
  for (; x + 4 * n <= width; x += 4 * n) {
    VF s0 = hn::Zero(df), s1 = hn::Zero(df), s2 = hn::Zero(df), s3 = hn::Zero(df);
    for (size_t k = 0; k < fw; ++k) {
      const VF t = hn::Set(df, rows.taps[k]);
      const T* bk = kDiff ? b[k] : nullptr;
      s0 = hn::Add(s0, hn::Mul(t, image_values<T, kDiff>(df, a[k], bk, x, bias, inverse)));
      s1 = hn::Add(s1, hn::Mul(t, image_values<T, kDiff>(df, a[k], bk, x + n, bias, inverse)));
      s2 = hn::Add(s2, hn::Mul(t, image_values<T, kDiff>(df, a[k], bk, x + 2 * n, bias, inverse)));
      s3 = hn::Add(s3, hn::Mul(t, image_values<T, kDiff>(df, a[k], bk, x + 3 * n, bias, inverse)));
    }
    hn::StoreU(s0, df, acc + x);
    hn::StoreU(s1, df, acc + x + n);
    hn::StoreU(s2, df, acc + x + 2 * n);
    hn::StoreU(s3, df, acc + x + 3 * n);
  }
  for (; x + n <= width; x += n) {
    VF s = hn::Zero(df);
    for (size_t k = 0; k < fw; ++k)
      s = hn::Add(s, hn::Mul(hn::Set(df, rows.taps[k]),
                             image_values<T, kDiff>(df, a[k], kDiff ? b[k] : nullptr, x, bias, inverse)));
    hn::StoreU(s, df, acc + x);
  }
  for (; x < width; ++x) {
    float s = 0;
    for (size_t k = 0; k < fw; ++k) {
      float v = float_picture_sample(a[k][x], divisor, -128.0f);
      if constexpr (kDiff) v = v - float_picture_sample(b[k][x], divisor, -128.0f);
      s += rows.taps[k] * v;
    }
    acc[x] = s;
  }
}

// filter_horizontal at step 16: the reflected edges by the reference, the
// interior with lanes over outputs, tap k's values gathered 16 apart.
void horizontal(const std::vector<float>& taps, int w, const float* acc, float* out) {
  const DF df;
  const hn::Rebind<int32_t, DF> di;
  const size_t n = hn::Lanes(df);
  const int r = static_cast<int>(taps.size()) / 2;
  filter_horizontal_edges(taps, w, kSpeedDecimation, acc, out);
  const auto [lo, hi] = filter_horizontal_interior(static_cast<int>(taps.size()), w, kSpeedDecimation);
  const auto stride = hn::Mul(hn::Iota(di, 0), hn::Set(di, kSpeedDecimation));
  int ox = lo;
  for (; ox + static_cast<int>(n) <= hi; ox += static_cast<int>(n)) {
    const float* base = acc + ox * kSpeedDecimation - r;
    VF s = hn::Zero(df);
    for (size_t k = 0; k < taps.size(); ++k)
      s = hn::Add(s, hn::Mul(hn::Set(df, taps[k]), hn::GatherIndex(df, base + k, stride)));
    hn::StoreU(s, df, out + ox);
  }
  for (; ox < hi; ++ox) {
    const float* base = acc + ox * kSpeedDecimation - r;
    float s = 0;
    for (size_t k = 0; k < taps.size(); ++k) s += taps[k] * base[k];
    out[ox] = s;
  }
}

// The 1/16 image (op_w x op_h) of plane a (minus b when kDiff).
template <typename T, bool kDiff>
void small_image(const SpeedKernelParams& kp, const PlaneView& a, const PlaneView* b, float* small) {
  const SpeedGeometry& g = kp.g;
  const std::vector<float>& taps = kp.antialias;
  const int r = static_cast<int>(taps.size()) / 2;
  const int cols = std::min(g.w, g.scaled_w);
  // Columns at or past w stay +0 (the padded case).
  std::vector<float> acc(static_cast<size_t>(g.scaled_w), 0.0f);
  TapRows<T> rows;
  for (int oy = 0; oy < g.op_h; ++oy) {
    rows.a.clear();
    rows.b.clear();
    rows.taps.clear();
    for (int k = 0; k < static_cast<int>(taps.size()); ++k) {
      const int y = reflect101(oy * kSpeedDecimation - r + k, g.scaled_h);
      if (y >= g.h) continue;  // a zero row (padded case)
      rows.a.push_back(a.row<T>(y));
      if constexpr (kDiff) rows.b.push_back(b->row<T>(y));
      rows.taps.push_back(taps[static_cast<size_t>(k)]);
    }
    vertical<T, kDiff>(rows, cols, kp.sample_divisor, acc.data());
    horizontal(taps, g.scaled_w, acc.data(), small + static_cast<size_t>(oy) * g.op_w);
  }
}

}  // namespace

// Stages 1-3 of an unresampled input into small (op_w x op_h); b is null
// for speed_chroma.
void SmallSimd(const SpeedKernelParams& kp, const PlaneView& a, const PlaneView* b, float* small) {
  if (kp.bpc == 8) {
    if (b) small_image<uint8_t, true>(kp, a, b, small);
    else small_image<uint8_t, false>(kp, a, b, small);
  } else {
    if (b) small_image<uint16_t, true>(kp, a, b, small);
    else small_image<uint16_t, false>(kp, a, b, small);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace twinmaf
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(SmallSimd);

namespace {

void band_simd(const SpeedKernelParams& kp, const PlaneView& a, const PlaneView* b, SpeedBand& band) {
  std::vector<float> small(static_cast<size_t>(kp.g.op_w) * static_cast<size_t>(kp.g.op_h));
  HWY_DYNAMIC_DISPATCH(SmallSimd)(kp, a, b, small.data());
  speed_band_from_small(kp, small.data(), band);
}

}  // namespace

void speed_band_simd(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band) {
  if (kp.prescale)
    speed_band_ref(kp, plane, band);
  else
    band_simd(kp, plane, nullptr, band);
}

void speed_difference_band_simd(const SpeedKernelParams& kp, const PlaneView& prev, const PlaneView& cur,
                                SpeedBand& band) {
  if (kp.prescale)
    speed_difference_band_ref(kp, prev, cur, band);
  else
    band_simd(kp, prev, &cur, band);
}

}  // namespace twinmaf
#endif
