// float_ansnr's filter, per output pixel, shared by the CPU reference (which
// runs the same operations a row at a time) and the CUDA kernel. CUDA-safe:
// base/hd.h only.
#pragma once

#include "base/hd.h"

namespace twinmaf {

// libvmaf's border: -k -> k at the start, n-1+k -> n-k at the end.
TWINMAF_HD int float_ansnr_mirror(int i, int n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * n - i - 1;
  return i;
}

// Output (x, y) of the `width`-tap 2-D filter f (row-major) over the w x h
// plane src: per kernel row a float running sum of tap * sample over the
// columns from +0, and a float running sum of those from +0.
TWINMAF_HD float float_ansnr_filter_at(const float* f, int width, const float* src, int w, int h, int x, int y) {
  const int r = width / 2;
  float acc = 0.0f;
  for (int fi = 0; fi < width; ++fi) {
    const float* row = src + static_cast<long>(float_ansnr_mirror(y - r + fi, h)) * w;
    float inner = 0.0f;
    for (int fj = 0; fj < width; ++fj) inner += f[fi * width + fj] * row[float_ansnr_mirror(x - r + fj, w)];
    acc += inner;
  }
  return acc;
}

}  // namespace twinmaf
