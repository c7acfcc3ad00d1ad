// Float Gaussian filters and the separable float convolution (contract:
// float_filter.h).
#include "features/common/float_filter.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/options.h"

namespace twinmaf {

namespace {

constexpr double kPi = 3.14159265358979323846;

// libvmaf's table, each entry the float expression it is written as.
constexpr std::array<float, 21> kKernelscales = {
    1.0f,        1.0f / 2.0f,  3.0f / 2.0f, 2.0f,      2.0f / 3.0f,  24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,        1.0f / 2.25f,
    1.4746f,     1.54f,        1.6f,        1.06667f,  0.711111f,   0.740740f,     1.111111f,
};

// The smallest odd integer >= ceil(f).
int odd_at_or_above(float f) {
  const int c = static_cast<int>(std::ceil(f));
  return c % 2 == 0 ? c + 1 : c;
}

// Gaussian density at x (mean 0) in libvmaf's mixed precision.
float gaussian_density(float x, float stdev) {
  const float num = static_cast<float>(std::exp(-0.5 * x / stdev * x / stdev));
  const float den = static_cast<float>(1 / (stdev * std::sqrt(2 * kPi)));
  return num / den;
}

}  // namespace

std::span<const float> valid_kernelscales() { return kKernelscales; }

bool kernelscale_is_valid(float kernelscale) {
  for (float v : kKernelscales)
    if (std::fabs(kernelscale - v) < 1e-3) return true;  // float |diff| vs double
  return false;
}

std::string kernelscales_text() {
  std::string text;
  for (float v : kKernelscales) text += (text.empty() ? "" : ", ") + format_g(v);
  return text;
}

int gaussian_filter_size(int scale, float kernelscale) {
  TWINMAF_DASSERT(scale >= 0 && scale <= 4);
  const int n = (1 << (4 - scale)) + 1;
  const int size = odd_at_or_above(static_cast<float>(n) * kernelscale);
  return size > 3 ? size : 3;
}

std::vector<float> gaussian_taps(int size, float stdev) {
  TWINMAF_DASSERT(size % 2 == 1);
  std::vector<float> taps(static_cast<size_t>(size));
  const int half = (size - 1) / 2;
  float sum = 0;
  for (int i = 0; i < size; ++i) {
    taps[i] = gaussian_density(static_cast<float>(i - half), stdev);
    sum += taps[i];
  }
  for (float& t : taps) t /= sum;
  return taps;
}

std::vector<float> vif_gaussian_filter(int scale, float kernelscale) {
  const int size = gaussian_filter_size(scale, kernelscale);
  return gaussian_taps(size, static_cast<float>(size) / 5.0f);
}

FilterInterior filter_horizontal_interior(int taps, int w, int step) {
  const int r = taps / 2;
  return {(r + step - 1) / step, std::min(w / step, (w - 1 - r) / step + 1)};
}

void filter_horizontal_edges(std::span<const float> taps, int w, int step, const float* acc, float* out) {
  const int fw = static_cast<int>(taps.size());
  const int r = fw / 2;
  TWINMAF_DASSERT(fw % 2 == 1 && step >= 1 && r <= w - 1);
  const FilterInterior in = filter_horizontal_interior(fw, w, step);
  for (int ox = 0; ox < w / step; ++ox) {
    if (ox >= in.lo && ox < in.hi) continue;
    const int x = ox * step;
    float a = 0;
    for (int k = 0; k < fw; ++k) a += taps[k] * acc[reflect101(x - r + k, w)];
    out[ox] = a;
  }
}

void filter_horizontal(std::span<const float> taps, int w, int step, const float* acc, float* out) {
  const int fw = static_cast<int>(taps.size());
  const int r = fw / 2;
  filter_horizontal_edges(taps, w, step, acc, out);
  const auto [lo, hi] = filter_horizontal_interior(fw, w, step);
  for (int ox = lo; ox < hi; ++ox) out[ox] = 0;
  for (int k = 0; k < fw; ++k) {
    const float t = taps[k];
    const float* in = acc + k - r;
    if (step == 1) {
      for (int ox = lo; ox < hi; ++ox) out[ox] += t * in[ox];  // contiguous: vectorises
    } else {
      for (int ox = lo; ox < hi; ++ox) out[ox] += t * in[ox * step];
    }
  }
}

void filter_plane(std::span<const float> taps, const float* src, std::ptrdiff_t src_stride, int w,
                  int h, float* dst, std::ptrdiff_t dst_stride) {
  std::vector<float> scratch(2 * static_cast<size_t>(w));
  filter_separable(
      taps, w, h, 1, [src, src_stride](int y, float*) { return src + y * src_stride; }, dst,
      dst_stride, scratch.data());
}

}  // namespace twinmaf
