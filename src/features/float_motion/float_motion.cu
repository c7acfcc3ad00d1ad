// float_motion CUDA kernels: the SAD row sums of FloatMotionTerms, bit for bit
// the CPU's (float_motion.h). Per plane, both frames at once (blockIdx.z):
//   vertical    one thread per sample: the float sum from +0 in tap order of
//               tap * (picture_copy's float, offset -128) over mirrored rows;
//   horizontal  one thread per sample: the same over mirrored columns of the
//               vertical pass (the blurred picture);
//   half        add_scale1: one thread per half-size sample, the bilinear
//               sample (float_motion_math.h, the CPU's function);
//   rows        one thread per row: the float sum from +0 of |prev - cur| in
//               column order.
// The blur of frame i-1 is recomputed from its picture (the ring keeps it), so
// no state passes between frames. The file builds with --fmad=false.
#include <cmath>

#include "base/hd_math.h"
#include "features/common/float_picture.h"
#include "features/float_motion/float_motion_kernels.h"
#include "features/float_motion/float_motion_math.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

dim3 grid_of(int w, int h) {
  return dim3(static_cast<unsigned>((w + kThreads - 1) / kThreads), static_cast<unsigned>(h), 2);
}

struct Taps {
  float f[kFloatMotionMaxTaps];
  int n;
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    float_motion_vertical_kernel(FloatMotionPlane p, Taps t, float scale, float* tmp0, float* tmp1) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  const int q = static_cast<int>(blockIdx.z);
  if (x >= p.w) return;
  const int r = t.n / 2;
  float acc = 0.0f;
  for (int k = 0; k < t.n; ++k)
    acc += t.f[k] * float_picture_sample(row_ptr<T>(p.pic[q], p.pitch[q], reflect101(y - r + k, p.h))[x], scale,
                                         -128.0f);
  (q ? tmp1 : tmp0)[static_cast<std::size_t>(y) * p.w + x] = acc;
}

__global__ void __launch_bounds__(kThreads)
    float_motion_horizontal_kernel(FloatMotionPlane p, Taps t, const float* tmp0, const float* tmp1, float* blur0,
                                   float* blur1) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  const int q = static_cast<int>(blockIdx.z);
  if (x >= p.w) return;
  const int r = t.n / 2;
  const float* row = (q ? tmp1 : tmp0) + static_cast<std::size_t>(y) * p.w;
  float acc = 0.0f;
  for (int k = 0; k < t.n; ++k) acc += t.f[k] * row[reflect101(x - r + k, p.w)];
  (q ? blur1 : blur0)[static_cast<std::size_t>(y) * p.w + x] = acc;
}

__global__ void __launch_bounds__(kThreads)
    float_motion_half_kernel(FloatMotionPlane p, const float* blur0, const float* blur1, float* half0, float* half1) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  const int q = static_cast<int>(blockIdx.z);
  if (x >= p.w1) return;
  const FloatMotionTap ty = float_motion_tap(y, p.ratio_y, p.h);
  const FloatMotionTap tx = float_motion_tap(x, p.ratio_x, p.w);
  const float* src = q ? blur1 : blur0;
  (q ? half1 : half0)[static_cast<std::size_t>(y) * p.w1 + x] =
      float_motion_bilinear(src + static_cast<std::size_t>(ty.i1) * p.w, src + static_cast<std::size_t>(ty.i2) * p.w,
                            ty, tx);
}

__global__ void __launch_bounds__(kThreads)
    float_motion_rows_kernel(const float* a, const float* b, int w, int h, float* rows) {
  const int y = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (y >= h) return;
  const float* ra = a + static_cast<std::size_t>(y) * w;
  const float* rb = b + static_cast<std::size_t>(y) * w;
  float line = 0.0f;
  for (int x = 0; x < w; ++x) line += fabsf(ra[x] - rb[x]);
  rows[y] = line;
}

__global__ void float_motion_flag_kernel(float* terms) { terms[0] = 1.0f; }

}  // namespace

cudaError_t float_motion_enqueue(const FloatMotionLaunch& l, float* terms, cudaStream_t stream) {
  float_motion_flag_kernel<<<1, 1, 0, stream>>>(terms);
  float* rows = terms + 1;
  Taps t;
  t.n = l.ntaps;
  for (int k = 0; k < kFloatMotionMaxTaps; ++k) t.f[k] = l.taps[k];
  const float scale = static_cast<float>(1 << (l.bpc - 8));
  for (int pl = 0; pl < l.planes; ++pl) {
    const FloatMotionPlane& p = l.plane[pl];
    if (l.bpc > 8)
      float_motion_vertical_kernel<uint16_t><<<grid_of(p.w, p.h), kThreads, 0, stream>>>(p, t, scale, l.tmp[0],
                                                                                          l.tmp[1]);
    else
      float_motion_vertical_kernel<uint8_t><<<grid_of(p.w, p.h), kThreads, 0, stream>>>(p, t, scale, l.tmp[0],
                                                                                         l.tmp[1]);
    float_motion_horizontal_kernel<<<grid_of(p.w, p.h), kThreads, 0, stream>>>(p, t, l.tmp[0], l.tmp[1], l.blur[0],
                                                                                 l.blur[1]);
    const auto row_grid = [](int h) { return static_cast<unsigned>((h + kThreads - 1) / kThreads); };
    float_motion_rows_kernel<<<row_grid(p.h), kThreads, 0, stream>>>(l.blur[0], l.blur[1], p.w, p.h, rows + p.rows_at);
    if (l.add_scale1) {
      float_motion_half_kernel<<<grid_of(p.w1, p.h1), kThreads, 0, stream>>>(p, l.blur[0], l.blur[1], l.half[0],
                                                                               l.half[1]);
      float_motion_rows_kernel<<<row_grid(p.h1), kThreads, 0, stream>>>(l.half[0], l.half[1], p.w1, p.h1,
                                                                         rows + p.rows1_at);
    }
  }
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
