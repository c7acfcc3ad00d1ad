// Float Gaussian filters and the separable float convolution of libvmaf's
// float features (speed_chroma, speed_temporal and float_vif).
//
// Reference: libvmaf f85a8536 feature/vif_tools.{c,h} (valid_kernelscales,
// vif_validate_kernelscale, vif_get_filter_size, vif_get_filter,
// get_1d_gaussian_kernel, vif_filter1d_s) and feature/common/convolution*.
//
// Numeric contract (bit-exact with libvmaf's scalar C, compiled without FMA
// contraction):
// - Kernel scale k is a float. It is accepted when the float |k - v|, as a
//   double, is below the double 1e-3 for one of libvmaf's 21 values v, each a
//   float expression (1/2, 3/2, 360/97, 1/2.25, ...).
// - Filter size at scale s in 0..4: n = 2^(4-s) + 1; size = the odd integer
//   at or above ceil((float)(n * k)), at least 3.
// - Gaussian taps for an odd size and a float stdev: for t = i - size/2,
//   num = exp(-0.5 * t / stdev * t / stdev)   (double, libm exp, as float)
//   den = 1 / (stdev * sqrt(2 * pi))          (double, as float)
//   tap = num / den (float); the taps are then divided by their float sum,
//   accumulated in index order from +0.
// - Separable filter (vif_filter1d_s): for each output row y, a vertical
//   pass over every column, acc = sum over taps k in order of
//   f[k] * src[reflect(y - r + k)][x] (float, from +0), then a horizontal pass
//   over that row, again sum over k of f[k] * row[reflect(x - r + k)].
//   reflect is reflect-101 (-i -> i, n-1+i -> n-1-i) applied once, defined
//   for radius r = size / 2 <= n - 1 in each direction (callers guarantee it).
//   libvmaf's AVX2 convolution sums the same products in the same order with
//   separate multiplies and adds, so it agrees with this scalar order.
// - Decimated output (step > 1) computes only the outputs at rows and columns
//   that are multiples of step, each with exactly the operations above: the
//   filtered image sampled like libvmaf's vif_dec2_s/vif_dec16_s, without the
//   rows decimation drops (the vertical pass still covers every column).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "base/assert.h"
#include "base/hd_math.h"

namespace twinmaf {

// libvmaf's accepted kernel scales, in its order.
std::span<const float> valid_kernelscales();
bool kernelscale_is_valid(float kernelscale);
// The accepted values as "%g" texts, comma-separated (for error messages).
std::string kernelscales_text();

// Taps of the Gaussian filter of scale 0..4 (libvmaf's vif_get_filter_size).
int gaussian_filter_size(int scale, float kernelscale);

// Normalised Gaussian taps of an odd size (libvmaf's get_1d_gaussian_kernel).
std::vector<float> gaussian_taps(int size, float stdev);

// The filter of one VIF scale: gaussian_taps(size, size / 5.0f).
std::vector<float> vif_gaussian_filter(int scale, float kernelscale);

// The two passes of a separable reflect-101 filter of a w x h image, for one
// output row. Each output is libvmaf's sum, tap by tap from +0, in tap order;
// the loops run over taps outside and samples inside (so they vectorise),
// which keeps every output's own order. Requires taps.size() odd and
// taps.size() / 2 <= min(w, h) - 1.
//
// Vertical pass at row y < h: acc[x] = sum over k of taps[k] *
// rows(reflect101(y - r + k, h))[x] for x < w, r = taps.size() / 2, where
// rows(y, buf) returns a pointer to the w floats of row y (its own storage,
// or buf, w floats of scratch, filled).
template <class Rows>
void filter_vertical(std::span<const float> taps, int w, int h, int y, const Rows& rows, float* acc, float* buf) {
  const int fw = static_cast<int>(taps.size());
  const int r = fw / 2;
  TWINMAF_DASSERT(fw % 2 == 1 && r <= h - 1 && y < h);
  for (int x = 0; x < w; ++x) acc[x] = 0;
  for (int k = 0; k < fw; ++k) {
    const float* src = rows(reflect101(y - r + k, h), buf);
    const float t = taps[k];
    for (int x = 0; x < w; ++x) acc[x] += t * src[x];
  }
}

// Horizontal pass of a vertical pass's row acc (w floats): out[ox] = sum over
// k of taps[k] * acc[reflect101(ox * step - r + k, w)] for ox < w / step.
void filter_horizontal(std::span<const float> taps, int w, int step, const float* acc, float* out);

// The outputs of filter_horizontal (taps taps) whose taps all lie inside the
// row, [lo, hi) (possibly empty): no reflection there.
struct FilterInterior {
  int lo, hi;
};
FilterInterior filter_horizontal_interior(int taps, int w, int step);
// filter_horizontal's outputs outside filter_horizontal_interior only.
void filter_horizontal_edges(std::span<const float> taps, int w, int step, const float* acc, float* out);

// Output row oy of the separable filter of a w x h image given row by row
// (rows as for filter_vertical): out[ox] for ox < w / step is the filtered
// image at (oy * step, ox * step). `scratch` holds 2 * w floats. Requires
// oy * step < h.
template <class Rows>
void filter_separable_row(std::span<const float> taps, int w, int h, int step, int oy, const Rows& rows,
                          float* out, float* scratch) {
  filter_vertical(taps, w, h, oy * step, rows, scratch, scratch + w);
  filter_horizontal(taps, w, step, scratch, out);
}

// Every output row of filter_separable_row: writes dst[oy * dst_stride + ox]
// for oy < h / step, ox < w / step.
template <class Rows>
void filter_separable(std::span<const float> taps, int w, int h, int step, const Rows& rows,
                      float* dst, std::ptrdiff_t dst_stride, float* scratch) {
  for (int oy = 0; oy < h / step; ++oy)
    filter_separable_row(taps, w, h, step, oy, rows, dst + oy * dst_stride, scratch);
}

// filter_separable of a float image (stride in floats), step 1.
void filter_plane(std::span<const float> taps, const float* src, std::ptrdiff_t src_stride, int w,
                  int h, float* dst, std::ptrdiff_t dst_stride);

}  // namespace twinmaf
