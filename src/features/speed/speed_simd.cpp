// speed_chroma / speed_temporal stages 1-3 in SIMD (Google Highway, one
// source for every target): the 1/16 image, equal to speed_ref.cpp's bit
// for bit (speed.h has the contract); stages 4-5 are speed_band_from_small.
// A resampling lanczos4 prescale runs the reference whole.
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
// Resampling prescale (nearest, bilinear, bicubic): the reference
// resamples the whole image, then filters it. Here only the scaled rows the
// kept rows' taps read are formed, in lanes inside the vertical pass and
// never stored: per column the resampler's expression (float_resample.cpp;
// windows from speed_window, the twin's own per-axis computation, equal to
// the resampler's) in its order, the source values from F rows converted on
// first use: gathered, or where a vector's columns lie within two vectors'
// width, picked from two loads by table lookups. Each scaled value is the same float the reference
// stores, so the pass's sums are too.
//
// Padding (speed_ref.cpp's third case, scaled side rounded up past the
// input): the reference filters rows and columns of zeros there. A zero row
// adds t * +0 = +0 to acc (taps are positive), which is never -0 (it starts +0 and a
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
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/hd_math.h"
#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/common/float_filter.h"
#include "features/common/float_picture.h"
#include "features/speed/speed.h"

TWINMAF_SIMD_BEGIN
namespace {

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

// The float image F of plane a (minus b when kDiff), w x h, each row
// converted on its first use.
template <typename T, bool kDiff>
class ImageRows {
 public:
  ImageRows(const PlaneView& a, const PlaneView* b, float divisor)
      : a_(a), b_(b), divisor_(divisor), data_(new float[static_cast<size_t>(a.w) * static_cast<size_t>(a.h)]),
        done_(static_cast<size_t>(a.h), 0) {}

  const float* row(int y) {
    float* out = data_.get() + static_cast<size_t>(y) * static_cast<size_t>(a_.w);
    if (done_[static_cast<size_t>(y)]) return out;
    done_[static_cast<size_t>(y)] = 1;
    const DF df;
    const size_t n = hn::Lanes(df);
    const size_t w = static_cast<size_t>(a_.w);
    const VF inverse = hn::Set(df, 1.0f / divisor_);
    const auto bias = hn::Set(hn::Rebind<int32_t, DF>(), 128 * static_cast<int32_t>(divisor_));
    const T* ra = a_.row<T>(y);
    const T* rb = kDiff ? b_->row<T>(y) : nullptr;
    size_t x = 0;
    for (; x + n <= w; x += n) hn::StoreU(image_values<T, kDiff>(df, ra, rb, x, bias, inverse), df, out + x);
    for (; x < w; ++x) {
      float v = float_picture_sample(ra[x], divisor_, -128.0f);
      if constexpr (kDiff) v = v - float_picture_sample(rb[x], divisor_, -128.0f);
      out[x] = v;
    }
    return out;
  }

 private:
  const PlaneView& a_;
  const PlaneView* b_;
  float divisor_;
  std::unique_ptr<float[]> data_;
  std::vector<uint8_t> done_;
};

// speed_window of every output coordinate of an axis, as lanes. For the
// vector of lanes at x (a multiple of the lane count n), when every column
// index it reads lies in [base, base + 2n) and base + 2n <= the source
// width: local, and rel = idx - base, so the values come from two loaded
// vectors by table lookups instead of a gather (the same floats).
struct AxisWindows {
  std::array<std::vector<int32_t>, 4> idx, rel;
  std::array<std::vector<float>, 4> w;
  std::vector<int32_t> base;
  std::vector<uint8_t> local;

  AxisWindows(SpeedSource source, int n, int dst, size_t lanes) {
    const int taps = speed_window_taps(source);
    for (int i = 0; i < 4; ++i) {
      idx[i].resize(static_cast<size_t>(dst));
      rel[i].resize(static_cast<size_t>(dst));
      w[i].resize(static_cast<size_t>(dst));
    }
    for (int x = 0; x < dst; ++x) {
      const SpeedWindow win = speed_window(source, n, dst, x);
      for (int i = 0; i < 4; ++i) {
        idx[i][static_cast<size_t>(x)] = win.idx[i];
        w[i][static_cast<size_t>(x)] = win.w[i];
      }
    }
    const int span = 2 * static_cast<int>(lanes);
    for (size_t x = 0; x + lanes <= static_cast<size_t>(dst); x += lanes) {
      int lo = n, hi = -1;
      for (int i = 0; i < taps; ++i)
        for (size_t j = x; j < x + lanes; ++j) {
          lo = std::min(lo, idx[i][j]);
          hi = std::max(hi, idx[i][j]);
        }
      base.push_back(lo);
      local.push_back(hi - lo < span && lo + span <= n);
      for (int i = 0; i < taps; ++i)
        for (size_t j = x; j < x + lanes; ++j) rel[i][j] = idx[i][j] - lo;
    }
  }
};

// Source row values at the columns idx[i] of the lanes at x.
template <bool kLocal>
HWY_INLINE VF fetch(DF df, const float* row, const AxisWindows& c, int i, size_t x) {
  const hn::Rebind<int32_t, DF> di;
  if constexpr (kLocal) {
    const size_t n = hn::Lanes(df);
    const float* p = row + c.base[x / n];
    const auto rel = hn::LoadU(di, c.rel[i].data() + x);
    const auto lane = hn::IndicesFromVec(df, hn::And(rel, hn::Set(di, static_cast<int32_t>(n - 1))));
    const auto first = hn::RebindMask(df, hn::Lt(rel, hn::Set(di, static_cast<int32_t>(n))));
    return hn::IfThenElse(first, hn::TableLookupLanes(hn::LoadU(df, p), lane),
                          hn::TableLookupLanes(hn::LoadU(df, p + n), lane));
  } else {
    return hn::GatherIndex(df, row, hn::LoadU(di, c.idx[i].data() + x));
  }
}

// S(x .. x + lanes, y): float_resample.cpp's per-pixel expression for the
// window wy of row y (its source rows r[j] = F row wy.idx[j]) and the
// columns' windows c, in its order.
template <SpeedSource kSource, bool kLocal>
HWY_INLINE VF resampled_values(DF df, const SpeedWindow& wy, const float* const* r, const AxisWindows& c, size_t x) {
  if constexpr (kSource == SpeedSource::kNearest) {
    return fetch<kLocal>(df, r[0], c, 0, x);
  } else if constexpr (kSource == SpeedSource::kBilinear) {
    // (1-dy)*(1-dx)*r1[x1] + (1-dy)*dx*r1[x2] + dy*(1-dx)*r2[x1] + dy*dx*r2[x2]
    const VF one = hn::Set(df, 1.0f);
    const VF dx = hn::LoadU(df, c.w[0].data() + x);
    const VF ux = hn::Sub(one, dx);
    const VF dy = hn::Set(df, wy.w[0]);
    const VF uy = hn::Sub(one, dy);
    VF v = hn::Mul(hn::Mul(uy, ux), fetch<kLocal>(df, r[0], c, 0, x));
    v = hn::Add(v, hn::Mul(hn::Mul(uy, dx), fetch<kLocal>(df, r[0], c, 1, x)));
    v = hn::Add(v, hn::Mul(hn::Mul(dy, ux), fetch<kLocal>(df, r[1], c, 0, x)));
    return hn::Add(v, hn::Mul(hn::Mul(dy, dx), fetch<kLocal>(df, r[1], c, 1, x)));
  } else {
    // value += src * (wx[i] * wy[j]), rows outside, from +0.
    VF v = hn::Zero(df);
    for (int j = 0; j < 4; ++j) {
      const VF wj = hn::Set(df, wy.w[j]);
      for (int i = 0; i < 4; ++i) {
        const VF weight = hn::Mul(hn::LoadU(df, c.w[i].data() + x), wj);
        v = hn::Add(v, hn::Mul(fetch<kLocal>(df, r[j], c, i, x), weight));
      }
    }
    return v;
  }
}

// acc at the lanes at x: sum over taps of t_k * S(x, row of tap k), from +0.
template <SpeedSource kSource, bool kLocal>
HWY_INLINE VF resampled_sum(DF df, const std::vector<float>& taps, const SpeedWindow* wy,
                            const std::array<const float*, 4>* src, const AxisWindows& c, size_t x) {
  VF s = hn::Zero(df);
  for (size_t k = 0; k < taps.size(); ++k)
    s = hn::Add(s, hn::Mul(hn::Set(df, taps[k]), resampled_values<kSource, kLocal>(df, wy[k], src[k].data(), c, x)));
  return s;
}

// The scalar expression of resampled_values at one column.
template <SpeedSource kSource>
float resampled_value(const SpeedWindow& wy, const float* const* r, const AxisWindows& c, size_t x) {
  if constexpr (kSource == SpeedSource::kNearest) {
    return r[0][c.idx[0][x]];
  } else if constexpr (kSource == SpeedSource::kBilinear) {
    const float dx = c.w[0][x], dy = wy.w[0];
    const int32_t x1 = c.idx[0][x], x2 = c.idx[1][x];
    return (1 - dy) * (1 - dx) * r[0][x1] + (1 - dy) * dx * r[0][x2] + dy * (1 - dx) * r[1][x1] +
           dy * dx * r[1][x2];
  } else {
    float v = 0;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) v += r[j][c.idx[i][x]] * (c.w[i][x] * wy.w[j]);
    return v;
  }
}

// The 1/16 image of the resampled image S (scaled_w x scaled_h) of F:
// per kept row, acc = sum over taps of t_k * S(x, row of tap k), from +0,
// lanes over columns; S is formed in lanes where the pass reads it and
// never stored.
template <typename T, bool kDiff, SpeedSource kSource>
void resampled_small_image(const SpeedKernelParams& kp, const PlaneView& a, const PlaneView* b, float* small) {
  const SpeedGeometry& g = kp.g;
  const std::vector<float>& taps = kp.antialias;
  const int fw = static_cast<int>(taps.size());
  const int r = fw / 2;
  const int rows_per_window = speed_window_taps(kSource);
  ImageRows<T, kDiff> image(a, b, kp.sample_divisor);
  const DF df;
  const size_t n = hn::Lanes(df);
  const AxisWindows cols(kSource, g.w, g.scaled_w, n);
  std::vector<float> acc(static_cast<size_t>(g.scaled_w));
  std::vector<SpeedWindow> wy(static_cast<size_t>(fw));
  std::vector<std::array<const float*, 4>> src(static_cast<size_t>(fw));
  const size_t width = static_cast<size_t>(g.scaled_w);
  for (int oy = 0; oy < g.op_h; ++oy) {
    for (int k = 0; k < fw; ++k) {
      wy[k] = speed_window(kSource, g.h, g.scaled_h, reflect101(oy * kSpeedDecimation - r + k, g.scaled_h));
      for (int j = 0; j < rows_per_window; ++j) src[k][j] = image.row(wy[k].idx[j]);
    }
    size_t x = 0;
    for (; x + n <= width; x += n) {
      const VF s = cols.local[x / n] ? resampled_sum<kSource, true>(df, taps, wy.data(), src.data(), cols, x)
                                     : resampled_sum<kSource, false>(df, taps, wy.data(), src.data(), cols, x);
      hn::StoreU(s, df, acc.data() + x);
    }
    for (; x < width; ++x) {
      float s = 0;
      for (int k = 0; k < fw; ++k) s += taps[k] * resampled_value<kSource>(wy[k], src[k].data(), cols, x);
      acc[x] = s;
    }
    horizontal(taps, g.scaled_w, acc.data(), small + static_cast<size_t>(oy) * g.op_w);
  }
}

template <typename T, bool kDiff>
void small_image(const SpeedKernelParams& kp, SpeedSource source, const PlaneView& a, const PlaneView* b,
                 float* small) {
  switch (source) {
    case SpeedSource::kDirect: return small_image<T, kDiff>(kp, a, b, small);
    case SpeedSource::kNearest: return resampled_small_image<T, kDiff, SpeedSource::kNearest>(kp, a, b, small);
    case SpeedSource::kBilinear: return resampled_small_image<T, kDiff, SpeedSource::kBilinear>(kp, a, b, small);
    case SpeedSource::kBicubic: return resampled_small_image<T, kDiff, SpeedSource::kBicubic>(kp, a, b, small);
  }
}

}  // namespace

// Stages 1-3 into small (op_w x op_h) from source (speed_source(kp)); b is
// null for speed_chroma.
void SmallSimd(const SpeedKernelParams& kp, SpeedSource source, const PlaneView& a, const PlaneView* b,
               float* small) {
  if (kp.bpc == 8) {
    if (b) small_image<uint8_t, true>(kp, source, a, b, small);
    else small_image<uint8_t, false>(kp, source, a, b, small);
  } else {
    if (b) small_image<uint16_t, true>(kp, source, a, b, small);
    else small_image<uint16_t, false>(kp, source, a, b, small);
  }
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(SmallSimd);

namespace {

// Stages 1-5 in SIMD; false (nothing done) for a resampling lanczos4
// prescale.
bool band_simd(const SpeedKernelParams& kp, const PlaneView& a, const PlaneView* b, SpeedBand& band) {
  const std::optional<SpeedSource> source = speed_source(kp);
  if (!source) return false;
  std::vector<float> small(static_cast<size_t>(kp.g.op_w) * static_cast<size_t>(kp.g.op_h));
  HWY_DYNAMIC_DISPATCH(SmallSimd)(kp, *source, a, b, small.data());
  speed_band_from_small(kp, small.data(), band);
  return true;
}

}  // namespace

void speed_band_simd(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band) {
  if (!band_simd(kp, plane, nullptr, band)) speed_band_ref(kp, plane, band);
}

void speed_difference_band_simd(const SpeedKernelParams& kp, const PlaneView& prev, const PlaneView& cur,
                                SpeedBand& band) {
  if (!band_simd(kp, prev, &cur, band)) speed_difference_band_ref(kp, prev, cur, band);
}

// The est_params sums' kernels are speed_finish_simd.cpp's.
const SpeedDsp& speed_dsp_simd() {
  static constexpr SpeedDsp k{&speed_band_simd, &speed_difference_band_simd, &speed_shifted_sums_simd,
                              &speed_covariance_sums_simd};
  return k;
}

void speed_dsp_init(SpeedDsp& dsp) {
  dsp = speed_dsp_ref();
  if (simd_enabled()) dsp = speed_dsp_simd();
}

}  // namespace twinmaf
#endif
