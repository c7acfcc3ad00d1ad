// float_motion's per-sample steps shared by the CPU reference
// (float_motion_ref.cpp) and the CUDA kernels (float_motion.cu): the
// motion_add_scale1 bilinear taps and sample. CUDA-safe: base/hd.h and <cmath>.
#pragma once

#include <cmath>

#include "base/hd.h"

namespace twinmaf {

// vif_tools.c's mirror(float, float, float), in float.
TWINMAF_HD float float_motion_mirror(float i, float left, float right) {
  return i < left ? -i : (i > right ? 2 * right - i : i);
}

// Source index pair and weight of output position x for a ratio n/dn (float),
// libvmaf's (x + 0.5) * ratio - 0.5 in double, then float.
struct FloatMotionTap {
  int i1, i2;
  float d;
};
TWINMAF_HD FloatMotionTap float_motion_tap(int x, float ratio, int n) {
  const auto xx = static_cast<float>((x + 0.5) * static_cast<double>(ratio) - 0.5);
  const auto right = static_cast<float>(n - 1);
  // floor/ceil of the float widened to double, narrowed back for mirror().
  const int i1 = static_cast<int>(float_motion_mirror(static_cast<float>(floor(static_cast<double>(xx))), 0.0f, right));
  const int i2 = static_cast<int>(float_motion_mirror(static_cast<float>(ceil(static_cast<double>(xx))), 0.0f, right));
  return {i1, i2, xx - static_cast<float>(i1)};
}

// The scaled sample from rows r1 (ty.i1) and r2 (ty.i2), as libvmaf's
// vif_scale_frame_s forms it (float, left to right).
TWINMAF_HD float float_motion_bilinear(const float* r1, const float* r2, FloatMotionTap ty, FloatMotionTap tx) {
  const float dy = ty.d, dx = tx.d;
  return (1 - dy) * (1 - dx) * r1[tx.i1] + (1 - dy) * dx * r1[tx.i2] + dy * (1 - dx) * r2[tx.i1] +
         dy * dx * r2[tx.i2];
}

}  // namespace twinmaf
