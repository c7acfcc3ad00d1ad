// float_ansnr CUDA kernels: the CPU's float steps (float_ansnr.h), in its
// order. load: one thread per sample; filter: one thread per output pixel
// (float_ansnr_filter_at, the CPU's operations); rows: one thread per image
// row, the running float sums of A*A and (A-B)*(A-B) over its columns; total:
// one thread, the running float sums of the row sums. The file builds with
// --fmad=false: no product is fused into a sum.
#include "base/hd_math.h"
#include "features/common/float_picture.h"
#include "features/float_ansnr/float_ansnr_kernels.h"
#include "features/float_ansnr/float_ansnr_math.h"
#include "features/common/float_picture_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

__constant__ float c_ref[9];
__constant__ float c_dis[25];

__global__ void __launch_bounds__(kThreads) float_ansnr_filter_kernel(FloatAnsnrLaunch l) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= l.w) return;
  const std::size_t o = static_cast<std::size_t>(y) * l.w + x;
  l.fa[o] = float_ansnr_filter_at(c_ref, 3, l.a, l.w, l.h, x, y);
  l.fb[o] = float_ansnr_filter_at(c_dis, 5, l.b, l.w, l.h, x, y);
}

__global__ void __launch_bounds__(kThreads) float_ansnr_rows_kernel(FloatAnsnrLaunch l) {
  const int y = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (y >= l.h) return;
  const float* fa = l.fa + static_cast<std::size_t>(y) * l.w;
  const float* fb = l.fb + static_cast<std::size_t>(y) * l.w;
  float sig = 0.0f, noise = 0.0f;
  for (int x = 0; x < l.w; ++x) {
    const float d = fa[x] - fb[x];
    sig += fa[x] * fa[x];
    noise += d * d;
  }
  l.rows[y] = sig;
  l.rows[l.h + y] = noise;
}

__global__ void float_ansnr_total_kernel(FloatAnsnrLaunch l, uint32_t* sums) {
  const int q = static_cast<int>(threadIdx.x);  // 0: sig, 1: noise
  const float* rows = l.rows + static_cast<std::size_t>(q) * l.h;
  float s = 0.0f;
  for (int y = 0; y < l.h; ++y) s += rows[y];
  sums[q] = float_bits(s);
}

}  // namespace

cudaError_t float_ansnr_set_filters(const float ref[9], const float dis[25]) {
  cudaError_t e = cudaMemcpyToSymbol(c_ref, ref, sizeof(c_ref));
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(c_dis, dis, sizeof(c_dis));
  return e;
}

cudaError_t float_ansnr_enqueue(const FloatAnsnrLaunch& l, uint32_t* sums, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((l.w + kThreads - 1) / kThreads), static_cast<unsigned>(l.h));
  const cudaError_t e = float_picture_load({l.ref, l.dis, l.pitch, l.w, l.h, l.bpc, -128.0f, l.a, l.b}, stream);
  if (e != cudaSuccess) return e;
  float_ansnr_filter_kernel<<<grid, kThreads, 0, stream>>>(l);
  float_ansnr_rows_kernel<<<static_cast<unsigned>((l.h + kThreads - 1) / kThreads), kThreads, 0, stream>>>(l);
  float_ansnr_total_kernel<<<1, 2, 0, stream>>>(l, sums);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
