// float_motion CPU reference kernels: blur, bilinear half-size scaling, SAD row
// sums (contract: float_motion.h).
#include <cmath>

#include "base/hd_math.h"
#include "features/float_motion/float_motion.h"
#include "features/float_motion/float_motion_math.h"

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


void float_motion_scale_ref(const float* src, int w, int h, std::ptrdiff_t stride, float* dst, int dw,
                            int dh) {
  if (w == dw && h == dh) {  // libvmaf copies
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) dst[i * dw + j] = src[i * stride + j];
    return;
  }
  const float ratio_x = static_cast<float>(w) / static_cast<float>(dw);
  const float ratio_y = static_cast<float>(h) / static_cast<float>(dh);
  std::vector<FloatMotionTap> cols(static_cast<size_t>(dw));
  for (int x = 0; x < dw; ++x) cols[static_cast<size_t>(x)] = float_motion_tap(x, ratio_x, w);
  for (int y = 0; y < dh; ++y) {
    const FloatMotionTap ty = float_motion_tap(y, ratio_y, h);
    const float* r1 = src + ty.i1 * stride;
    const float* r2 = src + ty.i2 * stride;
    float* d = dst + static_cast<std::ptrdiff_t>(y) * dw;
    for (int x = 0; x < dw; ++x) {
      const FloatMotionTap& tx = cols[static_cast<size_t>(x)];
      d[x] = float_motion_bilinear(r1, r2, ty, tx);
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
