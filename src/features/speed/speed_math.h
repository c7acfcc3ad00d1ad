// speed_chroma / speed_temporal twin arithmetic: the device's stages 1-5
// (speed.h) value by value, and est_params' sums and QR steps entry by entry,
// as TWINMAF_HD functions, so that the host runs exactly the operations the
// CUDA kernels (speed.cu) run and the twin tests compare them with the CPU
// reference without a GPU. CUDA-safe, CUDA-free.
//
// Every float and double operation goes through the rn_* helpers below: the
// IEEE round-to-nearest intrinsic on the device (never contracted, whatever
// the flags), the plain operator on the host (-ffp-contract=off, SSE): the
// same result on both. Each function names the reference expression it
// reproduces (speed_ref.cpp, speed_finish.cpp, features/common/float_filter.h,
// features/common/float_resample.h, features/common/float_picture.h).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

inline constexpr int kSpeedBlock = 5;                                // block side
inline constexpr int kSpeedBlockSamples = kSpeedBlock * kSpeedBlock;  // 25
// The covariance's pairs b <= a of block offsets, row by row (a, then b =
// 0..a): index a (a + 1) / 2 + b.
inline constexpr int kSpeedPairs = kSpeedBlockSamples * (kSpeedBlockSamples + 1) / 2;  // 325

// Anti-alias taps: gaussian_filter_size(1, ks) <= 35 for every accepted ks
// (9 * 3.72 rounded up to odd); local mean: gaussian_filter_size(4, ks) <= 9.
inline constexpr int kSpeedMaxAntialiasTaps = 35;
inline constexpr int kSpeedMaxLocalMeanTaps = 9;
inline constexpr int kSpeedMaxImages = 4;

// How the w x h float image F becomes the scaled_w x scaled_h image S the
// anti-alias pass filters.
enum class SpeedSource : uint8_t {
  kDirect,    // S = F inside w x h, 0 outside (no resampling, or equal sizes)
  kNearest,   // float_resample.h's methods but lanczos4
  kBilinear,
  kBicubic,
};

// One output coordinate's source window along one axis (float_resample.h):
// nearest idx[0]; bilinear idx[0] = i1, idx[1] = i2, w[0] = d; bicubic
// idx[i], w[i] for taps -1..2.
struct SpeedWindow {
  int idx[4];
  float w[4];
};

// One image: F = sample(a) (minus sample(b) when the launch differences:
// speed_temporal), samples 8-bit when bpc == 8, else 16-bit; pitches in
// bytes.
struct SpeedImage {
  const uint8_t* a = nullptr;
  const uint8_t* b = nullptr;
  std::size_t pitch_a = 0, pitch_b = 0;
};

// One frame's work: the geometry (SpeedGeometry), taps and scratch.
struct SpeedLaunch {
  int w = 0, h = 0;                // input plane
  int scaled_w = 0, scaled_h = 0;  // S
  int op_w = 0, op_h = 0;          // 1/16 image
  int trunc_w = 0, trunc_h = 0;    // band
  int bpc = 8;
  float inverse = 1;               // 1 / float_picture_scale(bpc): 2^-k, exact
  SpeedSource source = SpeedSource::kDirect;
  bool difference = false;         // every image has b
  int images = 0;
  SpeedImage image[kSpeedMaxImages];
  int aa_taps = 0;
  float aa[kSpeedMaxAntialiasTaps] = {};
  int lm_taps = 0;
  float lm[kSpeedMaxLocalMeanTaps] = {};
  const SpeedWindow* cols = nullptr;  // scaled_w entries (resampling only)
  const SpeedWindow* rows = nullptr;  // scaled_h entries
  float* vert = nullptr;   // images x op_h x scaled_w: the vertical pass
  float* small = nullptr;  // images x op_h x op_w: the 1/16 images
  float* means = nullptr;  // images x kSpeedBlockSamples: the shifted sub-images' means

  TWINMAF_HD std::size_t band_size() const { return std::size_t(trunc_w) * std::size_t(trunc_h); }
};

// float_picture_sample(s, 2^k, -128) = (float)s / 2^k + -128; with s < 2^16,
// s / 2^k equals s * 2^-k exactly.
template <typename T>
TWINMAF_HD float speed_sample(const uint8_t* plane, std::size_t pitch, int x, int y, float inverse) {
  const T s = reinterpret_cast<const T*>(plane + static_cast<std::size_t>(y) * pitch)[x];
  return hd::rn_add(hd::rn_mul(static_cast<float>(s), inverse), -128.0f);
}

// F(x, y): a sample, or speed_temporal's prev - cur (DifferenceRows).
template <typename T, bool kDiff>
TWINMAF_HD float speed_image_value(const SpeedLaunch& l, const SpeedImage& im, int x, int y) {
  const float a = speed_sample<T>(im.a, im.pitch_a, x, y, l.inverse);
  if constexpr (kDiff) return hd::rn_sub(a, speed_sample<T>(im.b, im.pitch_b, x, y, l.inverse));
  return a;
}

// S(x, y): float_resample.cpp's per-pixel expressions with the windows of
// column x and row y; kDirect pads a side rounded up past the input with
// zeros, as speed_ref.cpp does (init proved no kept output reads them).
template <typename T, bool kDiff, SpeedSource kSource>
TWINMAF_HD float speed_source_value(const SpeedLaunch& l, const SpeedImage& im, int x, int y) {
  using namespace hd;
  if constexpr (kSource == SpeedSource::kDirect) {
    return x < l.w && y < l.h ? speed_image_value<T, kDiff>(l, im, x, y) : 0.0f;
  } else if constexpr (kSource == SpeedSource::kNearest) {
    return speed_image_value<T, kDiff>(l, im, l.cols[x].idx[0], l.rows[y].idx[0]);
  } else if constexpr (kSource == SpeedSource::kBilinear) {
    const SpeedWindow& c = l.cols[x];
    const SpeedWindow& r = l.rows[y];
    const float dx = c.w[0], dy = r.w[0];
    const float ux = rn_sub(1.0f, dx), uy = rn_sub(1.0f, dy);
    // (1-dy)*(1-dx)*r1[x1] + (1-dy)*dx*r1[x2] + dy*(1-dx)*r2[x1] + dy*dx*r2[x2],
    // left to right.
    float v = rn_mul(rn_mul(uy, ux), speed_image_value<T, kDiff>(l, im, c.idx[0], r.idx[0]));
    v = rn_add(v, rn_mul(rn_mul(uy, dx), speed_image_value<T, kDiff>(l, im, c.idx[1], r.idx[0])));
    v = rn_add(v, rn_mul(rn_mul(dy, ux), speed_image_value<T, kDiff>(l, im, c.idx[0], r.idx[1])));
    return rn_add(v, rn_mul(rn_mul(dy, dx), speed_image_value<T, kDiff>(l, im, c.idx[1], r.idx[1])));
  } else {
    // value += src * (wx[i] * wy[j]), rows outside, from +0.
    const SpeedWindow& c = l.cols[x];
    const SpeedWindow& r = l.rows[y];
    float v = 0.0f;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        v = rn_add(v, rn_mul(speed_image_value<T, kDiff>(l, im, c.idx[i], r.idx[j]), rn_mul(c.w[i], r.w[j])));
    return v;
  }
}

// filter_vertical at row 16 oy, column x < scaled_w, of image k:
// sum over t of aa[t] * S(x, reflect101(16 oy - r + t, scaled_h)), from +0.
template <typename T, bool kDiff, SpeedSource kSource>
TWINMAF_HD float speed_vertical_value(const SpeedLaunch& l, int k, int oy, int x) {
  const SpeedImage& im = l.image[k];
  const int y0 = oy * 16 - l.aa_taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < l.aa_taps; ++t)
    acc = hd::rn_add(
        acc, hd::rn_mul(l.aa[t], speed_source_value<T, kDiff, kSource>(l, im, x, reflect101(y0 + t, l.scaled_h))));
  return acc;
}

// filter_horizontal at column 16 ox of the vertical pass's row oy.
TWINMAF_HD float speed_horizontal_value(const SpeedLaunch& l, int k, int oy, int ox) {
  const float* row = l.vert + (static_cast<std::size_t>(k) * l.op_h + oy) * l.scaled_w;
  const int x0 = ox * 16 - l.aa_taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < l.aa_taps; ++t)
    acc = hd::rn_add(acc, hd::rn_mul(l.aa[t], row[reflect101(x0 + t, l.scaled_w)]));
  return acc;
}

// Band value (x, y) of image k: small - filter_plane(lm, small) there; the
// local mean's vertical values are recomputed per use (same operations,
// same bits).
TWINMAF_HD float speed_band_value(const SpeedLaunch& l, int k, int x, int y) {
  using namespace hd;
  const float* s = l.small + static_cast<std::size_t>(k) * l.op_h * l.op_w;
  const int r = l.lm_taps / 2;
  float mean = 0.0f;
  for (int t = 0; t < l.lm_taps; ++t) {
    const int xx = reflect101(x - r + t, l.op_w);
    float v = 0.0f;
    for (int j = 0; j < l.lm_taps; ++j)
      v = rn_add(v, rn_mul(l.lm[j], s[static_cast<std::size_t>(reflect101(y - r + j, l.op_h)) * l.op_w + xx]));
    mean = rn_add(mean, rn_mul(l.lm[t], v));
  }
  return rn_sub(s[static_cast<std::size_t>(y) * l.op_w + x], mean);
}

// est_params' sums of one band (speed.h stage 6), over the (tw - 4) x
// (th - 4) pixels of the shifted sub-images in raster order; block offset a
// in [0, 25) reads sample (a / 5, a % 5) of each pixel's 5x5 window.
//
// Sum of sub-image a: float, from +0.
TWINMAF_HD float speed_shifted_sum(const float* band, int tw, int th, int a) {
  const float* base = band + (a / kSpeedBlock) * tw + a % kSpeedBlock;
  const int sw = tw - kSpeedBlock + 1, sh = th - kSpeedBlock + 1;
  float s = 0.0f;
  for (int i = 0; i < sh; ++i)
    for (int j = 0; j < sw; ++j) s = hd::rn_add(s, base[i * tw + j]);
  return s;
}

// Mean of sub-image a: its sum divided by the area, in float.
TWINMAF_HD float speed_shifted_mean(float sum, int tw, int th) {
  return hd::rn_div(sum, hd::int_float((tw - kSpeedBlock + 1) * (th - kSpeedBlock + 1)));
}

// (a, b) of pair index t < kSpeedPairs.
TWINMAF_HD void speed_pair(int t, int* a, int* b) {
  int r = 0;
  while ((r + 1) * (r + 2) / 2 <= t) ++r;
  *a = r;
  *b = t - r * (r + 1) / 2;
}

// Covariance sum of the pair (a, b): double, from +0, of (x_a - mean_a) *
// (x_b - mean_b), each difference taken in double from two floats.
TWINMAF_HD double speed_covariance_sum(const float* band, int tw, int th, int a, float mean_a, int b,
                                       float mean_b) {
  using namespace hd;
  const float* pa = band + (a / kSpeedBlock) * tw + a % kSpeedBlock;
  const float* pb = band + (b / kSpeedBlock) * tw + b % kSpeedBlock;
  const double ma = mean_a, mb = mean_b;
  const int sw = tw - kSpeedBlock + 1, sh = th - kSpeedBlock + 1;
  double s = 0.0;
  for (int i = 0; i < sh; ++i)
    for (int j = 0; j < sw; ++j)
      s = rn_add(s, rn_mul(rn_sub(static_cast<double>(pa[i * tw + j]), ma),
                           rn_sub(static_cast<double>(pb[i * tw + j]), mb)));
  return s;
}

// est_params' solve, the part that depends on the covariance matrix K alone
// (speed_finish.cpp's speed_qr): K's QR factors q (the product of the
// Householder reflections, Q') and r = q K. Matrices are kSpeedBlockSamples
// square, row-major floats.
inline constexpr int kSpeedMatrix = kSpeedBlockSamples * kSpeedBlockSamples;

// K[a][b] from the covariance sums: the sum of the pair over the area, a
// double division rounded to float.
TWINMAF_HD float speed_covariance_entry(const double* sums, int tw, int th, int a, int b) {
  const int hi = a > b ? a : b, lo = a > b ? b : a;
  const double area = static_cast<double>((tw - kSpeedBlock + 1) * (th - kSpeedBlock + 1));
  return hd::to_float(hd::rn_div(sums[hi * (hi + 1) / 2 + lo], area));
}

// Euclidean norm of v[0..n): float sum of squares from +0, double sqrt,
// float result.
TWINMAF_HD float speed_norm(const float* v, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s = hd::rn_add(s, hd::rn_mul(v[i], v[i]));
  return hd::to_float(hd::rn_sqrt(static_cast<double>(s)));
}

// The reflector of step c from column c of the matrix z being reduced:
// v = that column, v[c] += sign(K[c][c]) |v| (sign +1 for >= 0), v /= |v|.
// Returns the second norm: the steps from this one on multiply densely
// unless it is finite and positive.
TWINMAF_HD float speed_reflector(const float* z, int c, float kcc, float* v) {
  for (int i = 0; i < kSpeedBlockSamples; ++i) v[i] = z[i * kSpeedBlockSamples + c];
  const float norm = speed_norm(v, kSpeedBlockSamples);
  v[c] = hd::rn_add(v[c], hd::rn_mul(kcc >= 0.0f ? 1.0f : -1.0f, norm));
  const float vn = speed_norm(v, kSpeedBlockSamples);
  for (int i = 0; i < kSpeedBlockSamples; ++i) v[i] = hd::rn_div(v[i], vn);
  return vn;
}

// Entry (i, j) of the reflection I - 2 v v': -2 v_i v_j, plus 1 on the
// diagonal.
TWINMAF_HD float speed_reflection_entry(const float* v, int i, int j) {
  const float h = hd::rn_mul(hd::rn_mul(-2.0f, v[i]), v[j]);
  return i == j ? hd::rn_add(h, 1.0f) : h;
}

// Entry (i, j) of x y for square x and y of `cols` columns: the sum over
// k = lo .. kSpeedBlockSamples - 1 of x[i][k] y[k][j], from +0.
TWINMAF_HD float speed_product_entry(const float* x, const float* y, int cols, int lo, int i, int j) {
  float s = 0.0f;
  for (int k = lo; k < kSpeedBlockSamples; ++k)
    s = hd::rn_add(s, hd::rn_mul(x[i * kSpeedBlockSamples + k], y[k * cols + j]));
  return s;
}

// est_params' epsilon: the threshold of K's eigenvalues and R's pivots, and
// the eigenvalue iteration's negligibility factor.
inline constexpr double kSpeedEps = 1e-6;

// Whether est_params' back substitution runs to the end: every pivot
// |r_ii| at least kSpeedEps (float magnitude compared in double; a NaN
// pivot passes, as in libvmaf).
TWINMAF_HD bool speed_solvable(const float* r) {
  for (int i = 0; i < kSpeedBlockSamples; ++i)
    if (static_cast<double>(fabsf(r[i * (kSpeedBlockSamples + 1)])) < kSpeedEps) return false;
  return true;
}

// est_params' variance of block (bx, by) of a band (speed_solvable factors):
// y_a = the block's sample (a / 5, a % 5); qy = q y, each entry a sum over
// k from +0; R x = qy by back substitution, x_i = (qy_i - x_m r_im for m =
// i + 1 .. 24 in order) / r_ii from the last row up; then the sum over a of
// (x_a y_a) / 25, its first term taken as it is (not added to +0).
// speed_finish.cpp's solve runs the same operations column-vectorised.
TWINMAF_HD float speed_block_variance(const float* q, const float* r, const float* band, int tw, int bx, int by) {
  using namespace hd;
  constexpr int n = kSpeedBlockSamples;
  float y[n], x[n];
  for (int a = 0; a < n; ++a)
    y[a] = band[(by * kSpeedBlock + a / kSpeedBlock) * tw + bx * kSpeedBlock + a % kSpeedBlock];
  for (int i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s = rn_add(s, rn_mul(q[i * n + k], y[k]));
    x[i] = s;
  }
  for (int i = n - 1; i >= 0; --i) {
    float xi = x[i];
    for (int m = i + 1; m < n; ++m) xi = rn_sub(xi, rn_mul(x[m], r[i * n + m]));
    x[i] = rn_div(xi, r[i * n + i]);
  }
  float v = rn_div(rn_mul(x[0], y[0]), static_cast<float>(n));
  for (int a = 1; a < n; ++a) v = rn_add(v, rn_div(rn_mul(x[a], y[a]), static_cast<float>(n)));
  return v;
}

// float_resample.cpp's mirror: one reflection about 0 and last, in float.
TWINMAF_HD int speed_mirror(float i, int last) {
  using namespace hd;
  const float r = int_float(last);
  return float_int(i < 0.0f ? -i : (i > r ? rn_sub(rn_mul(2.0f, r), i) : i));
}

// source_position: (float)((x + 0.5) * (double)ratio - 0.5).
TWINMAF_HD float speed_source_position(int x, float ratio) {
  using namespace hd;
  return to_float(rn_add(rn_mul(rn_add(static_cast<double>(x), 0.5), static_cast<double>(ratio)), -0.5));
}

// keys_cubic with a = -0.75: (a + 2) = 1.25 and (a + 3) = 2.25 exactly.
TWINMAF_HD float speed_keys_cubic(float t) {
  using namespace hd;
  if (t < 0.0f) t = -t;
  if (t < 1.0f) return rn_add(rn_mul(rn_mul(rn_sub(rn_mul(1.25f, t), 2.25f), t), t), 1.0f);
  if (t < 2.0f) return rn_mul(rn_sub(rn_mul(rn_add(rn_mul(rn_sub(t, 5.0f), t), 8.0f), t), 4.0f), -0.75f);
  return 0.0f;
}

// The window of output x of an axis of n source and dst output samples
// (nearest: the index; bilinear: linear_tap, the fraction after the mirror;
// bicubic: window<-1, 2> with keys_cubic). floor and ceil are exact.
TWINMAF_HD SpeedWindow speed_window(SpeedSource source, int n, int dst, int x) {
  using namespace hd;
  const float ratio = rn_div(int_float(n), int_float(dst));
  SpeedWindow win{};
  if (source == SpeedSource::kNearest) {
    win.idx[0] = float_int(rn_mul(int_float(x), ratio));
  } else if (source == SpeedSource::kBilinear) {
    const float p = speed_source_position(x, ratio);
    win.idx[0] = speed_mirror(static_cast<float>(floor(static_cast<double>(p))), n - 1);
    win.idx[1] = speed_mirror(static_cast<float>(ceil(static_cast<double>(p))), n - 1);
    win.w[0] = rn_sub(p, int_float(win.idx[0]));
  } else if (source == SpeedSource::kBicubic) {
    const float p = speed_source_position(x, ratio);
    const int x0 = static_cast<int>(floor(static_cast<double>(p)));
    const float d = rn_sub(p, int_float(x0));
    for (int i = -1; i <= 2; ++i) {
      win.w[i + 1] = speed_keys_cubic(rn_sub(int_float(i), d));
      win.idx[i + 1] = speed_mirror(int_float(x0 + i), n - 1);
    }
  }
  return win;
}

// The source indices a window reads (the rest are 0).
TWINMAF_HD int speed_window_taps(SpeedSource source) {
  return source == SpeedSource::kNearest ? 1 : source == SpeedSource::kBilinear ? 2 : 4;
}

}  // namespace twinmaf
