// psnr CUDA kernel: SSE of a plane pair as uint64 (integer sums are
// order-independent, so this equals psnr_sse_ref). Each block sums its pixels
// and adds once to the plane's total with atomicAdd.
#include "features/psnr/psnr_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void psnr_sse_kernel(const uint8_t* a, const uint8_t* b, std::size_t pitch, int w, int h,
                                unsigned long long* out) {
  uint64_t acc = 0;
  const int64_t n = int64_t(w) * h;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int y = static_cast<int>(i / w), x = static_cast<int>(i % w);
    const int32_t e = int32_t(row_ptr<T>(a, pitch, y)[x]) - int32_t(row_ptr<T>(b, pitch, y)[x]);
    const uint32_t m = static_cast<uint32_t>(e < 0 ? -e : e);
    acc += uint64_t(m) * m;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0 && acc) atomicAdd(out, static_cast<unsigned long long>(acc));
}

}  // namespace

cudaError_t psnr_sse(const uint8_t* a, const uint8_t* b, std::size_t pitch, int w, int h, int bpc,
                     unsigned long long* out, int blocks, cudaStream_t stream) {
  const int64_t n = int64_t(w) * h;
  const int grid = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, blocks));
  if (bpc > 8)
    psnr_sse_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(a, b, pitch, w, h, out);
  else
    psnr_sse_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(a, b, pitch, w, h, out);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
