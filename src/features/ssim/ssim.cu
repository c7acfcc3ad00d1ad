// float_ssim / float_ms_ssim CUDA kernels: SsimSums of every scale, bit for
// bit the CPU's (ssim.h). Per frame, in stream order:
//   load       one thread per luma sample: picture_copy's float;
//   decimate   one thread per output of level i + 1: the taps' float
//              products widened and summed in double in tap order (rows
//              outer), borders reflected, as ssim_decimate;
//   horizontal per SSIM level, one thread per (x, row): the five maps (the
//              images, their float squares and product) through the 11-tap
//              Gaussian, each output (float)(sum_k (double)(float)(v_k g_k));
//   pixel      one thread per valid pixel: the vertical pass the same way over
//              the horizontal results, ssim_pixel (ssim_math.h, the CPU's
//              function), and the four terms l c s, l, c, s into their trees;
//   sums       gpu/ordered_sum.cuh over the trees: each sum equals the CPU's
//              running double sum in raster order.
// Every float and double operation is the CPU's, in its order (the file
// builds with --fmad=false; sqrt is IEEE).
#include "features/common/float_picture.h"
#include "features/ssim/ssim_kernels.h"
#include "gpu/ordered_sum.cuh"
#include "features/common/float_picture_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

__constant__ float c_gauss[kSsimWindow] = {kSsimGauss[0], kSsimGauss[1], kSsimGauss[2], kSsimGauss[3],
                                           kSsimGauss[4], kSsimGauss[5], kSsimGauss[6], kSsimGauss[7],
                                           kSsimGauss[8], kSsimGauss[9], kSsimGauss[10]};

__device__ float decimated(const float* in, int w, int h, int x, int y, int factor, const float* k, int kw, int kh) {
  const int uc = kw / 2, vc = kh / 2;
  const int x0 = factor * x - uc, y0 = factor * y - vc;
  double acc = 0.0;
  if (x0 >= 0 && x0 + kw <= w && y0 >= 0 && y0 + kh <= h) {  // no tap reflected: the same sum, indices direct
    for (int a = 0; a < kh; ++a) {
      const float* row = in + static_cast<std::size_t>(y0 + a) * w + x0;
      const float* ka = k + a * kw;
      for (int b = 0; b < kw; ++b) acc += static_cast<double>(row[b] * ka[b]);
    }
    return static_cast<float>(acc);
  }
  for (int a = 0; a < kh; ++a) {
    const float* row = in + static_cast<std::size_t>(ssim_reflect(factor * y + a - vc, h)) * w;
    for (int b = 0; b < kw; ++b) acc += static_cast<double>(row[ssim_reflect(factor * x + b - uc, w)] * k[a * kw + b]);
  }
  return static_cast<float>(acc);
}

__global__ void __launch_bounds__(kThreads)
    ssim_decimate_kernel(SsimLevel in, SsimLevel out, int factor, const float* k, int kw, int kh) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= out.w) return;
  const std::size_t o = static_cast<std::size_t>(y) * out.w + x;
  out.ref[o] = decimated(in.ref, in.w, in.h, x, y, factor, k, kw, kh);
  out.dis[o] = decimated(in.dis, in.w, in.h, x, y, factor, k, kw, kh);
}

// Map m of the horizontal pass: rows of dw floats, h rows per map.
__global__ void __launch_bounds__(kThreads) ssim_horizontal_kernel(SsimLevel v, float* hmaps) {
  const int dw = v.w - (kSsimWindow - 1);
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= dw) return;
  const float* r = v.ref + static_cast<std::size_t>(y) * v.w + x;
  const float* d = v.dis + static_cast<std::size_t>(y) * v.w + x;
  double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
  for (int k = 0; k < kSsimWindow; ++k) {
    const float a = r[k], b = d[k], g = c_gauss[k];
    acc[0] += static_cast<double>(a * g);
    acc[1] += static_cast<double>(b * g);
    acc[2] += static_cast<double>((a * a) * g);
    acc[3] += static_cast<double>((b * b) * g);
    acc[4] += static_cast<double>((a * b) * g);
  }
  const std::size_t plane = static_cast<std::size_t>(v.h) * dw, o = static_cast<std::size_t>(y) * dw + x;
#pragma unroll
  for (int m = 0; m < 5; ++m) hmaps[m * plane + o] = static_cast<float>(acc[m]);
}

__global__ void __launch_bounds__(kThreads) ssim_pixel_kernel(SsimLevel v, const float* hmaps, SsimForest f,
                                                              int tree0) {
  const int dw = v.w - (kSsimWindow - 1);
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= dw) return;
  const std::size_t plane = static_cast<std::size_t>(v.h) * dw;
  float m[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) {
    const float* col = hmaps + i * plane + static_cast<std::size_t>(y) * dw + x;
    double acc = 0.0;
#pragma unroll
    for (int k = 0; k < kSsimWindow; ++k) acc += static_cast<double>(col[static_cast<std::size_t>(k) * dw] * c_gauss[k]);
    m[i] = static_cast<float>(acc);
  }
  double l, c, s;
  ssim_pixel<SsimScalarLanes>(m[0], m[1], m[2], m[3], m[4], l, c, s);
  const std::size_t idx = static_cast<std::size_t>(y) * dw + x;
  const double terms[kSsimSums] = {l * c * s, l, c, s};
#pragma unroll
  for (int q = 0; q < kSsimSums; ++q)
    f.terms[static_cast<std::size_t>(f.tree[tree0 + q].node_begin[0]) * kSsimLeaf + idx] = terms[q];
}

dim3 grid_of(int w, int h) { return dim3(static_cast<unsigned>((w + kThreads - 1) / kThreads), static_cast<unsigned>(h)); }

}  // namespace

cudaError_t ssim_enqueue(const SsimLaunch& l, uint64_t* ret, cudaStream_t stream) {
  if (l.levels == 0) return cudaSuccess;
  const SsimLevel& v0 = l.level[0];
  cudaError_t e = float_picture_load({l.ref, l.dis, l.pitch, v0.w, v0.h, l.bpc, 0.0f, v0.ref, v0.dis}, stream);
  if (e != cudaSuccess) return e;
  for (int i = 0; i + 1 < l.levels; ++i)
    ssim_decimate_kernel<<<grid_of(l.level[i + 1].w, l.level[i + 1].h), kThreads, 0, stream>>>(
        l.level[i], l.level[i + 1], l.factor, l.kernel, l.kw, l.kh);
  for (int i = l.first_ssim; i < l.levels; ++i) {
    const SsimLevel& v = l.level[i];
    const int dw = v.w - (kSsimWindow - 1), dh = v.h - (kSsimWindow - 1);
    if (dw <= 0 || dh <= 0) continue;
    ssim_horizontal_kernel<<<grid_of(dw, v.h), kThreads, 0, stream>>>(v, l.hmaps);
    ssim_pixel_kernel<<<grid_of(dw, dh), kThreads, 0, stream>>>(v, l.hmaps, l.sums, kSsimSums * (i - l.first_ssim));
  }
  e = cudaGetLastError();
  return e != cudaSuccess ? e : ordered_sum_enqueue_terms(l.sums, ret, stream);
}

}  // namespace twinmaf::cuda
