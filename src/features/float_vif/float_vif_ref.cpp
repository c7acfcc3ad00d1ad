// float_vif CPU reference kernels: picture conversion, prescale, the
// decimating filters between scales, the five filtered images of each scale
// and the statistic's row sums (contract: float_vif.h).

// No code in this file reads floating-point exception flags or enables traps,
// so GCC may evaluate the statistic's selects unconditionally and vectorise its
// row loop (it otherwise keeps branches around operations that could raise
// one). Values do not change; contraction stays off (-ffp-contract=off holds).
// Before the includes: the inline statistic must carry the same option to be
// inlined into the loop.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "base/hd_math.h"
#include "features/common/float_filter.h"
#include "features/common/float_picture.h"
#include "features/common/float_resample.h"
#include "features/float_vif/float_vif.h"

namespace twinmaf {

namespace {

struct Scratch {
  std::vector<float> pic_ref, pic_dis;  // the converted pictures when they are resampled
  std::vector<float> ref, dis;          // the current scale's images, rows `side` floats apart
  std::vector<float> next_ref, next_dis;
  std::vector<float> acc;      // the vertical passes of one row of mu1, mu2, xx, yy, xy
  std::vector<float> rows;     // that row of mu1, mu2, xx, yy, xy
  std::vector<float> terms;    // its statistic: w num terms, then w den terms
  std::vector<float> scratch;  // filter_separable's 2 * w
};

// Row sources of filter_separable over an image of w floats per row.
struct ImageRows {
  const float* p;
  int w;
  const float* operator()(int y, float*) const { return p + static_cast<std::ptrdiff_t>(y) * w; }
};

// One tap of the five moments' vertical passes: rows a (reference) and b
// (distorted) scaled by t into mu1, mu2, xx, yy, xy (restrict: distinct rows,
// so the loop vectorises).
void moments_tap(float t, const float* __restrict a, const float* __restrict b, float* __restrict mu1,
                 float* __restrict mu2, float* __restrict xx, float* __restrict yy, float* __restrict xy, int w) {
  for (int x = 0; x < w; ++x) {
    mu1[x] += t * a[x];
    mu2[x] += t * b[x];
    xx[x] += t * (a[x] * a[x]);
    yy[x] += t * (b[x] * b[x]);
    xy[x] += t * (a[x] * b[x]);
  }
}

// The vertical passes (filter_vertical's sums) of the five moments of row y:
// ref, dis, ref*ref, dis*dis and ref*dis, the products rounded to float, each
// row of ref and dis read once per tap. acc holds 5 rows of w floats.
void moments_vertical(std::span<const float> taps, const float* ref, const float* dis, int w, int h, int y,
                      float* acc) {
  const size_t wz = static_cast<size_t>(w);
  for (size_t i = 0; i < 5 * wz; ++i) acc[i] = 0;
  const int r = static_cast<int>(taps.size()) / 2;
  for (int k = 0; k < static_cast<int>(taps.size()); ++k) {
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(reflect101(y - r + k, h)) * w;
    moments_tap(taps[static_cast<size_t>(k)], ref + row, dis + row, acc, acc + wz, acc + 2 * wz, acc + 3 * wz,
                acc + 4 * wz, w);
  }
}

// The statistic of one row (w pixels) into num and den. The parameters come
// by value: loads the loop makes unconditionally, so it if-converts.
void statistic_row(const float* __restrict mu1, const float* __restrict mu2, const float* __restrict xx,
                   const float* __restrict yy, const float* __restrict xy, float* __restrict num,
                   float* __restrict den, int w, const FloatVifStatParams sp) {
  for (int x = 0; x < w; ++x) {
    const FloatVifPixel v = float_vif_pixel(mu1[x], mu2[x], xx[x], yy[x], xy[x], sp);
    num[x] = v.num;
    den[x] = v.den;
  }
}

// Stage 0: the luma plane as the scale-0 image of W x H floats.
void scale0_image(const PlaneView& plane, const FloatVifKernelParams& p, std::vector<float>& pic,
                  std::vector<float>& out) {
  const size_t n = static_cast<size_t>(p.scaled_w) * static_cast<size_t>(p.scaled_h);
  out.resize(n);
  if (p.scaled_w == p.w && p.scaled_h == p.h) {
    float_picture_plane(plane, p.bpc, -128, out.data(), p.w);
    return;
  }
  pic.resize(static_cast<size_t>(p.w) * static_cast<size_t>(p.h));
  float_picture_plane(plane, p.bpc, -128, pic.data(), p.w);
  resample_plane(p.method, pic.data(), p.w, p.w, p.h, out.data(), p.scaled_w, p.scaled_w, p.scaled_h);
}

// Stages 2-3 of one scale (w x h images ref and dis): the row sums.
void scale_sums(std::span<const float> taps, const float* ref, const float* dis, int w, int h,
                const FloatVifStatParams& sp, Scratch& s, std::vector<float>& num, std::vector<float>& den) {
  const size_t wz = static_cast<size_t>(w);
  s.acc.resize(5 * wz);
  s.rows.resize(5 * wz);
  s.terms.resize(2 * wz);
  const float* m = s.rows.data();
  num.resize(static_cast<size_t>(h));
  den.resize(static_cast<size_t>(h));
  for (int y = 0; y < h; ++y) {
    moments_vertical(taps, ref, dis, w, h, y, s.acc.data());
    for (size_t i = 0; i < 5; ++i) filter_horizontal(taps, w, 1, s.acc.data() + i * wz, s.rows.data() + i * wz);
    statistic_row(m, m + wz, m + 2 * wz, m + 3 * wz, m + 4 * wz, s.terms.data(), s.terms.data() + wz, w, sp);
    float row_num = 0.0f, row_den = 0.0f;
    for (size_t x = 0; x < wz; ++x) {
      row_num += s.terms[x];
      row_den += s.terms[wz + x];
    }
    num[static_cast<size_t>(y)] = row_num;
    den[static_cast<size_t>(y)] = row_den;
  }
}

}  // namespace

void float_vif_terms_ref(const PlaneView& ref, const PlaneView& dis, const FloatVifKernelParams& p,
                         FloatVifTerms& out) {
  thread_local Scratch s;
  scale0_image(ref, p, s.pic_ref, s.ref);
  scale0_image(dis, p, s.pic_dis, s.dis);
  int w = p.scaled_w, h = p.scaled_h;
  for (int scale = 0; scale < kFloatVifScales; ++scale) {
    const std::span<const float> taps = p.taps[scale];
    if (scale > 0) {
      // Stage 1: filter with this scale's taps, keep the even rows and columns.
      const int nw = w / 2, nh = h / 2;
      const size_t n = static_cast<size_t>(nw) * static_cast<size_t>(nh);
      s.next_ref.resize(n);
      s.next_dis.resize(n);
      s.scratch.resize(2 * static_cast<size_t>(w));
      filter_separable(taps, w, h, 2, ImageRows{s.ref.data(), w}, s.next_ref.data(), nw, s.scratch.data());
      filter_separable(taps, w, h, 2, ImageRows{s.dis.data(), w}, s.next_dis.data(), nw, s.scratch.data());
      std::swap(s.ref, s.next_ref);
      std::swap(s.dis, s.next_dis);
      w = nw;
      h = nh;
    }
    if (scale < p.first_scale) {
      out.num[scale].clear();
      out.den[scale].clear();
      continue;
    }
    scale_sums(taps, s.ref.data(), s.dis.data(), w, h, p.stat, s, out.num[scale], out.den[scale]);
  }
}

}  // namespace twinmaf
