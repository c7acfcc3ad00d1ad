// float_moment CUDA kernel: one thread per luma sample of each picture forms
// the CPU's float sample and float square and their integer numbers of units;
// block sums and one 64-bit atomic per block and sum give the frame's
// totals, exact in any order.
#include "features/common/float_picture.h"
#include "features/float_moment/float_moment_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
    float_moment_kernel(FloatMomentLaunch l, float scale, float per_unit2, unsigned long long* units) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  const int q = static_cast<int>(blockIdx.z);  // picture
  unsigned long long u1 = 0, u2 = 0;
  if (x < l.w) {
    const float a = float_picture_sample(row_ptr<T>(l.plane[q], l.pitch[q], y)[x], scale, 0.0f);
    u1 = static_cast<unsigned long long>(a * scale);            // the sample: exact
    u2 = static_cast<unsigned long long>((a * a) * per_unit2);  // an integer below 2^33: exact
  }
  u1 = block_sum(u1);
  u2 = block_sum(u2);
  if (threadIdx.x == 0) {
    if (u1 != 0) atomicAdd(units + q, u1);
    if (u2 != 0) atomicAdd(units + 2 + q, u2);
  }
}

}  // namespace

cudaError_t float_moment_enqueue(const FloatMomentLaunch& l, unsigned long long* units, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((l.w + kThreads - 1) / kThreads), static_cast<unsigned>(l.h), 2);
  const float scale = static_cast<float>(1 << (l.bpc - 8));
  if (l.bpc > 8)
    float_moment_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(l, scale, scale * scale, units);
  else
    float_moment_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(l, scale, scale * scale, units);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
