// float_picture_load: one thread per luma sample of both pictures, the CPU's
// float_picture_sample.
#include "features/common/float_picture.h"
#include "features/common/float_picture_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads) load_kernel(FloatPictureLoad l, float scale) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= l.w) return;
  const std::size_t o = static_cast<std::size_t>(y) * l.w + x;
  l.out_ref[o] = float_picture_sample(row_ptr<T>(l.ref, l.pitch, y)[x], scale, l.offset);
  l.out_dis[o] = float_picture_sample(row_ptr<T>(l.dis, l.pitch, y)[x], scale, l.offset);
}

}  // namespace

cudaError_t float_picture_load(const FloatPictureLoad& l, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((l.w + kThreads - 1) / kThreads), static_cast<unsigned>(l.h));
  const float scale = static_cast<float>(1 << (l.bpc - 8));
  if (l.bpc > 8)
    load_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(l, scale);
  else
    load_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(l, scale);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
