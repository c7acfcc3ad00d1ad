// float_psnr CUDA kernel: one thread per luma sample forms the CPU's float
// squared difference (float_psnr_term) and its integer number of units; a
// block sum and one 64-bit atomic per block give the frame's total, exact in
// any order.
#include "features/common/float_picture.h"
#include "features/float_psnr/float_psnr_math.h"
#include "features/float_psnr/float_psnr_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
    float_psnr_kernel(FloatPsnrLaunch l, float scale, float per_unit, unsigned long long* units) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  unsigned long long u = 0;
  if (x < l.w) {
    const float a = float_picture_sample(row_ptr<T>(l.ref, l.pitch, y)[x], scale, 0.0f);
    const float b = float_picture_sample(row_ptr<T>(l.dis, l.pitch, y)[x], scale, 0.0f);
    u = static_cast<unsigned long long>(float_psnr_term(a, b) * per_unit);  // an integer below 2^33: exact
  }
  u = block_sum(u);
  if (threadIdx.x == 0 && u != 0) atomicAdd(units, u);
}

}  // namespace

cudaError_t float_psnr_enqueue(const FloatPsnrLaunch& l, unsigned long long* units, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((l.w + kThreads - 1) / kThreads), static_cast<unsigned>(l.h));
  const float scale = static_cast<float>(1 << (l.bpc - 8));
  const float per_unit = scale * scale;
  if (l.bpc > 8)
    float_psnr_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(l, scale, per_unit, units);
  else
    float_psnr_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(l, scale, per_unit, units);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
