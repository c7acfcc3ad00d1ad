// Moves decoded samples: a gather and a right shift of integers, exact.
#include "io/nvdec_unpack.h"

namespace twinmaf::cuda {

namespace {

constexpr int kThreadsX = 128, kThreadsY = 2;

template <class T>
__global__ void unpack_kernel(SurfacePlane s, uint8_t* dst, std::size_t dst_pitch, int w, int h) {
  const int x = blockIdx.x * kThreadsX + threadIdx.x;
  const int y = blockIdx.y * kThreadsY + threadIdx.y;
  if (x >= w || y >= h) return;
  const T* row = reinterpret_cast<const T*>(s.data + static_cast<std::size_t>(y) * s.pitch);
  T* out = reinterpret_cast<T*>(dst + static_cast<std::size_t>(y) * dst_pitch);
  out[x] = static_cast<T>(row[s.step * x + s.first] >> s.shift);
}

}  // namespace

cudaError_t unpack_plane(const SurfacePlane& src, uint8_t* dst, std::size_t dst_pitch, int w, int h,
                         cudaStream_t stream) {
  const dim3 block(kThreadsX, kThreadsY);
  const dim3 grid(unsigned(w + kThreadsX - 1) / kThreadsX, unsigned(h + kThreadsY - 1) / kThreadsY);
  if (src.bytes == 1) unpack_kernel<uint8_t><<<grid, block, 0, stream>>>(src, dst, dst_pitch, w, h);
  else unpack_kernel<uint16_t><<<grid, block, 0, stream>>>(src, dst, dst_pitch, w, h);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
