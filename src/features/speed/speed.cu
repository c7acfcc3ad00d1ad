// speed_chroma / speed_temporal CUDA kernels: one thread per value of each
// pass, the value computed by speed_math.h (the operations the host tests
// check against the CPU reference). Three launches per frame, every image of
// the frame in blockIdx.z:
//   vertical:   vert = speed_vertical_value for every 16th row and every
//               column (the resampled samples computed where read);
//   horizontal: small = speed_horizontal_value, every 16th column;
//   band:       speed_band_value on the top-left trunc_w x trunc_h.
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

cudaError_t speed_enqueue(const SpeedLaunch& l, uint32_t* present, float* bands, cudaStream_t stream) {
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
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
