// psnr_hvs CUDA kernels: libvmaf's per-plane running float sum ret, exactly.
// One thread per 8x8 block runs the shared scalar block kernel (the CPU's
// operations in the CPU's order; --fmad=false, IEEE division and sqrt),
// stores its 64 terms in order (one leaf); their ordered sums are
// gpu/ordered_sum.cuh's, one tree per plane.
#include "features/psnr_hvs/psnr_hvs_kernels.h"
#include "gpu/ordered_sum.cuh"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

__constant__ float c_csf[3][64];
__constant__ float c_mask[3][64];

constexpr int kLeafThreads = 128;

template <typename T>
__global__ void __launch_bounds__(kLeafThreads) leaf_kernel(PsnrHvsLaunch l) {
  const int g = static_cast<int>(blockIdx.x) * kLeafThreads + static_cast<int>(threadIdx.x);
  if (g >= l.sums.leaves) return;
  int b = 0;
  const int p = ordered_sum_tree_of(l.sums, 0, g, &b);
  const PsnrHvsPlaneGeometry& pg = l.plane[p];
  const int x0 = (b % pg.nbx) * kPsnrHvsStep, y0 = (b / pg.nbx) * kPsnrHvsStep;
  int32_t s[64], d[64];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const T* rs = row_ptr<T>(pg.ref, pg.pitch, y0 + i) + x0;
    const T* rd = row_ptr<T>(pg.dis, pg.pitch, y0 + i) + x0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      s[8 * i + j] = rs[j];
      d[8 * i + j] = rd[j];
    }
  }
  float t[64];
  psnr_hvs_block_terms<int32_t, float>(s, d, c_csf[p], c_mask[p], t);
  float* out = l.sums.terms + static_cast<size_t>(g) * kPsnrHvsTerms;
  float4* out4 = reinterpret_cast<float4*>(out);
#pragma unroll
  for (int k = 0; k < 16; ++k) out4[k] = make_float4(t[4 * k], t[4 * k + 1], t[4 * k + 2], t[4 * k + 3]);
}

}  // namespace

cudaError_t psnr_hvs_set_tables(const float csf[3][64], const float mask[3][64]) {
  cudaError_t e = cudaMemcpyToSymbol(c_csf, csf, sizeof(c_csf));
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(c_mask, mask, sizeof(c_mask));
  return e;
}

cudaError_t psnr_hvs_enqueue(const PsnrHvsLaunch& l, uint32_t* ret, cudaStream_t stream) {
  if (l.sums.leaves == 0) return cudaSuccess;
  const auto grid = static_cast<unsigned>((l.sums.leaves + kLeafThreads - 1) / kLeafThreads);
  if (l.bpc > 8)
    leaf_kernel<uint16_t><<<grid, kLeafThreads, 0, stream>>>(l);
  else
    leaf_kernel<uint8_t><<<grid, kLeafThreads, 0, stream>>>(l);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : ordered_sum_enqueue_terms(l.sums, ret, stream);
}

cudaError_t psnr_hvs_sum_terms(const PsnrHvsLaunch& l, uint32_t* ret, cudaStream_t stream) {
  return ordered_sum_enqueue_terms(l.sums, ret, stream);
}

}  // namespace twinmaf::cuda
