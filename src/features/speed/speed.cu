// speed_chroma / speed_temporal CUDA kernels: one thread per value of each
// pass, the value computed by speed_math.h (the operations the host tests
// check against the CPU reference). Seven launches per frame, every image of
// the frame in the grid's last dimension:
//   vertical:   vert = speed_vertical_value for every 16th row and every
//               column (the resampled samples computed where read);
//   horizontal: small = speed_horizontal_value, every 16th column;
//   band:       speed_band_value on the top-left trunc_w x trunc_h;
//   means:      one thread per block offset: speed_shifted_sum, then
//               speed_shifted_mean;
//   covariance: one thread per pair: speed_covariance_sum (the longest
//               sequence: (trunc_w - 4) (trunc_h - 4) terms, 31,000 at 4K
//               luma; the pairs of an image spread over 11 blocks);
//   qr:         one block per image, one thread per matrix entry: K
//               (speed_covariance_entry), then speed_qr's steps (speed_finish.cpp)
//               in shared memory, the reflector by one thread
//               (speed_reflector), each product entry by its thread
//               (speed_product_entry) over the same index ranges; a word
//               per image tells whether the steps ran dense;
//   variance:   one thread per 5x5 block: speed_block_variance, q and r
//               staged in shared memory.
// Nothing is reduced across threads: each value is one thread's fixed
// sequence of operations.
#include "features/speed/speed_kernels.h"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 128;

template <typename T, bool kDiff, SpeedSource kSource>
__global__ void __launch_bounds__(kThreads) vertical_kernel(SpeedLaunch l) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x >= l.scaled_w) return;
  const int oy = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  l.vert[(static_cast<std::size_t>(k) * l.op_h + oy) * l.scaled_w + x] =
      speed_vertical_value<T, kDiff, kSource>(l, k, oy, x);
}

__global__ void __launch_bounds__(kThreads) horizontal_kernel(SpeedLaunch l) {
  const int ox = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (ox >= l.op_w) return;
  const int oy = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  l.small[(static_cast<std::size_t>(k) * l.op_h + oy) * l.op_w + ox] = speed_horizontal_value(l, k, oy, ox);
}

__global__ void __launch_bounds__(kThreads) band_kernel(SpeedLaunch l, uint32_t* present, float* bands) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x >= l.trunc_w) return;
  const int y = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  bands[k * l.band_size() + static_cast<std::size_t>(y) * l.trunc_w + x] = speed_band_value(l, k, x, y);
  if (x == 0 && y == 0 && k == 0) *present = 1;
}

constexpr int kSumThreads = 32;

__global__ void __launch_bounds__(kSumThreads) means_kernel(SpeedLaunch l, const float* bands) {
  const int a = static_cast<int>(threadIdx.x), k = static_cast<int>(blockIdx.x);
  if (a >= kSpeedBlockSamples) return;
  const float sum = speed_shifted_sum(bands + k * l.band_size(), l.trunc_w, l.trunc_h, a);
  l.means[k * kSpeedBlockSamples + a] = speed_shifted_mean(sum, l.trunc_w, l.trunc_h);
}

__global__ void __launch_bounds__(kSumThreads) covariance_kernel(SpeedLaunch l, const float* bands, double* sums) {
  const int t = static_cast<int>(blockIdx.x) * kSumThreads + static_cast<int>(threadIdx.x);
  if (t >= kSpeedPairs) return;
  const int k = static_cast<int>(blockIdx.y);
  int a, b;
  speed_pair(t, &a, &b);
  const float* mean = l.means + k * kSpeedBlockSamples;
  sums[k * kSpeedPairs + t] =
      speed_covariance_sum(bands + k * l.band_size(), l.trunc_w, l.trunc_h, a, mean[a], b, mean[b]);
}

constexpr int kQrThreads = 640;  // whole warps, one thread per matrix entry

__global__ void __launch_bounds__(kQrThreads) qr_kernel(SpeedLaunch l, const double* sums, float* factors,
                                                        uint32_t* dense_words) {
  constexpr int n = kSpeedBlockSamples;
  __shared__ float k[kSpeedMatrix], z[kSpeedMatrix], q[kSpeedMatrix], h[kSpeedMatrix];
  __shared__ float v[n];
  __shared__ float vn_shared;
  const int e = static_cast<int>(threadIdx.x), image = static_cast<int>(blockIdx.x);
  const bool entry = e < kSpeedMatrix;
  const int i = e / n, j = e % n;
  if (entry) {
    k[e] = speed_covariance_entry(sums + image * kSpeedPairs, l.trunc_w, l.trunc_h, i, j);
    z[e] = k[e];
    q[e] = i == j ? 1.0f : 0.0f;
  }
  __syncthreads();
  bool dense = false;
  for (int c = 0; c < n - 1; ++c) {
    if (entry && (i < c || j < c)) z[e] = i == j ? 1.0f : 0.0f;
    __syncthreads();
    if (e == 0) vn_shared = speed_reflector(z, c, k[c * n + c], v);
    __syncthreads();
    const float vn = vn_shared;
    if (entry) h[e] = speed_reflection_entry(v, i, j);
    dense = dense || !(isfinite(vn) && vn > 0.0f);
    __syncthreads();
    float tz = 0.0f, tq = 0.0f;
    if (entry) {
      if (dense) {
        tz = speed_product_entry(h, z, n, 0, i, j);
        tq = speed_product_entry(h, q, n, 0, i, j);
      } else {
        tz = i > c && j > c ? speed_product_entry(h, z, n, c, i, j) : z[e];
        tq = i >= c ? speed_product_entry(h, q, n, c, i, j) : q[e];
      }
    }
    __syncthreads();
    if (entry) {
      z[e] = tz;
      q[e] = tq;
    }
    __syncthreads();
  }
  if (e == 0) dense_words[image] = dense;
  if (entry) {
    float* f = factors + static_cast<std::size_t>(image) * 2 * kSpeedMatrix;
    f[e] = q[e];
    f[kSpeedMatrix + e] = speed_product_entry(q, k, n, 0, i, j);
  }
}

__global__ void __launch_bounds__(kThreads) variance_kernel(SpeedLaunch l, const float* factors, const float* bands,
                                                             float* variance) {
  __shared__ float qr[2 * kSpeedMatrix];
  const int k = static_cast<int>(blockIdx.y);
  const float* f = factors + static_cast<std::size_t>(k) * 2 * kSpeedMatrix;
  for (int e = static_cast<int>(threadIdx.x); e < 2 * kSpeedMatrix; e += kThreads) qr[e] = f[e];
  __syncthreads();
  const int nbx = l.trunc_w / kSpeedBlock, nb = nbx * (l.trunc_h / kSpeedBlock);
  const int b = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (b >= nb) return;
  variance[k * nb + b] =
      speed_block_variance(qr, qr + kSpeedMatrix, bands + k * l.band_size(), l.trunc_w, b % nbx, b / nbx);
}

__global__ void windows_kernel(SpeedSource source, int n, int dst, SpeedWindow* out) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x < dst) out[x] = speed_window(source, n, dst, x);
}

unsigned blocks(int n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <typename T, bool kDiff>
void launch_vertical(const SpeedLaunch& l, dim3 grid, cudaStream_t stream) {
  switch (l.source) {
    case SpeedSource::kDirect: vertical_kernel<T, kDiff, SpeedSource::kDirect><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kNearest: vertical_kernel<T, kDiff, SpeedSource::kNearest><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kBilinear: vertical_kernel<T, kDiff, SpeedSource::kBilinear><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kBicubic: vertical_kernel<T, kDiff, SpeedSource::kBicubic><<<grid, kThreads, 0, stream>>>(l); return;
  }
}

}  // namespace

cudaError_t speed_resample_windows(SpeedSource source, int src, int dst, SpeedWindow* out, cudaStream_t stream) {
  windows_kernel<<<blocks(dst), kThreads, 0, stream>>>(source, src, dst, out);
  return cudaGetLastError();
}

cudaError_t speed_enqueue(const SpeedLaunch& l, uint32_t* present, double* sums, float* factors, float* bands,
                          float* variance, cudaStream_t stream) {
  const auto z = static_cast<unsigned>(l.images);
  const dim3 vgrid(blocks(l.scaled_w), static_cast<unsigned>(l.op_h), z);
  if (l.bpc == 8) {
    if (l.difference) launch_vertical<uint8_t, true>(l, vgrid, stream);
    else launch_vertical<uint8_t, false>(l, vgrid, stream);
  } else {
    if (l.difference) launch_vertical<uint16_t, true>(l, vgrid, stream);
    else launch_vertical<uint16_t, false>(l, vgrid, stream);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  horizontal_kernel<<<dim3(blocks(l.op_w), static_cast<unsigned>(l.op_h), z), kThreads, 0, stream>>>(l);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  band_kernel<<<dim3(blocks(l.trunc_w), static_cast<unsigned>(l.trunc_h), z), kThreads, 0, stream>>>(l, present, bands);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  means_kernel<<<z, kSumThreads, 0, stream>>>(l, bands);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  covariance_kernel<<<dim3((kSpeedPairs + kSumThreads - 1) / kSumThreads, z), kSumThreads, 0, stream>>>(l, bands, sums);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  qr_kernel<<<z, kQrThreads, 0, stream>>>(l, sums, factors, present + 1);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const int nb = (l.trunc_w / kSpeedBlock) * (l.trunc_h / kSpeedBlock);
  variance_kernel<<<dim3(blocks(nb), z), kThreads, 0, stream>>>(l, factors, bands, variance);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
