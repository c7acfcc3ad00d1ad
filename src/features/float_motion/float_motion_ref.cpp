// float_motion CPU reference kernels: blur, bilinear half-size scaling, SAD row
// sums (contract: float_motion.h).
#include <cmath>

#include "base/hd_math.h"
#include "features/float_motion/float_motion.h"

namespace twinmaf {

std::vector<float> float_motion_filter(int filter_size) {
  // libvmaf motion_tools.h: FILTER_3_s, FILTER_5_NO_OP_s, FILTER_5_s.
  if (filter_size == 3) return {0.166378498f, 0.667243004f, 0.166378498f};
  if (filter_size == 1) return {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
  return {0.054488685f, 0.244201342f, 0.402619947f, 0.244201342f, 0.054488685f};
}

namespace {

// The blur with a compile-time tap count, so that the loops over columns run
// several columns at once (each output keeps its order of additions).
template <int N>
void blur(const float* f, const float* src, int w, int h, std::ptrdiff_t stride, float* tmp, float* dst) {
  constexpr int r = N / 2;
  // Vertical pass: mirrored rows, the same sum at every row.
  for (int i = 0; i < h; ++i) {
    const float* rows[N];
    for (int k = 0; k < N; ++k) rows[k] = src + reflect101(i - r + k, h) * stride;
    float* __restrict t = tmp + i * stride;
    for (int j = 0; j < w; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < N; ++k) acc += f[k] * rows[k][j];
      t[j] = acc;
    }
  }
  // Horizontal pass: mirrored columns at both ends, plain indices between.
  const int lo = r < w ? r : w;
  const int hi = w - r > lo ? w - r : lo;
  for (int i = 0; i < h; ++i) {
    const float* __restrict t = tmp + i * stride;
    float* __restrict d = dst + i * stride;
    auto edge = [&](int j) {
      float acc = 0.0f;
      for (int k = 0; k < N; ++k) acc += f[k] * t[reflect101(j - r + k, w)];
      return acc;
    };
    for (int j = 0; j < lo; ++j) d[j] = edge(j);
    for (int j = lo; j < hi; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < N; ++k) acc += f[k] * t[j - r + k];
      d[j] = acc;
    }
    for (int j = hi; j < w; ++j) d[j] = edge(j);
  }
}

}  // namespace

void float_motion_blur_ref(const std::vector<float>& taps, const float* src, int w, int h,
                           std::ptrdiff_t stride, float* tmp, float* dst) {
  if (taps.size() == 3)
    blur<3>(taps.data(), src, w, h, stride, tmp, dst);
  else
    blur<5>(taps.data(), src, w, h, stride, tmp, dst);
}

namespace {

// vif_tools.c's mirror(float, float, float), in float.
float mirror_f(float i, float left, float right) {
  return i < left ? -i : (i > right ? 2 * right - i : i);
}

// Source index pair and weight of output position x for a ratio n/dn (float),
// libvmaf's (x + 0.5) * ratio - 0.5 in double, then float.
struct Tap {
  int i1, i2;
  float d;
};
Tap bilinear_tap(int x, float ratio, int n) {
  const auto xx = static_cast<float>((x + 0.5) * static_cast<double>(ratio) - 0.5);
  const auto right = static_cast<float>(n - 1);
  // floor/ceil of the float widened to double, narrowed back for mirror().
  const int i1 = static_cast<int>(mirror_f(static_cast<float>(std::floor(static_cast<double>(xx))), 0.0f, right));
  const int i2 = static_cast<int>(mirror_f(static_cast<float>(std::ceil(static_cast<double>(xx))), 0.0f, right));
  return {i1, i2, xx - static_cast<float>(i1)};
}

}  // namespace

void float_motion_scale_ref(const float* src, int w, int h, std::ptrdiff_t stride, float* dst, int dw,
                            int dh) {
  if (w == dw && h == dh) {  // libvmaf copies
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) dst[i * dw + j] = src[i * stride + j];
    return;
  }
  const float ratio_x = static_cast<float>(w) / static_cast<float>(dw);
  const float ratio_y = static_cast<float>(h) / static_cast<float>(dh);
  std::vector<Tap> cols(static_cast<size_t>(dw));
  for (int x = 0; x < dw; ++x) cols[static_cast<size_t>(x)] = bilinear_tap(x, ratio_x, w);
  for (int y = 0; y < dh; ++y) {
    const Tap ty = bilinear_tap(y, ratio_y, h);
    const float* r1 = src + ty.i1 * stride;
    const float* r2 = src + ty.i2 * stride;
    const float dy = ty.d;
    float* d = dst + static_cast<std::ptrdiff_t>(y) * dw;
    for (int x = 0; x < dw; ++x) {
      const Tap& tx = cols[static_cast<size_t>(x)];
      const float dx = tx.d;
      d[x] = (1 - dy) * (1 - dx) * r1[tx.i1] + (1 - dy) * dx * r1[tx.i2] + dy * (1 - dx) * r2[tx.i1] +
             dy * dx * r2[tx.i2];
    }
  }
}

void float_motion_sad_rows_ref(const float* a, const float* b, int w, int h, std::ptrdiff_t stride,
                               std::vector<float>& rows) {
  for (int i = 0; i < h; ++i) {
    const float* ra = a + i * stride;
    const float* rb = b + i * stride;
    float line = 0.0f;
    for (int j = 0; j < w; ++j) line += std::fabs(ra[j] - rb[j]);
    rows.push_back(line);
  }
}

}  // namespace twinmaf
