// The device range check: OR of uint16 samples, 8 per 16-byte load where the
// row allows it. Integer OR is exact in any order.
#include "gpu/range_check_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = 4;

__global__ void range_or_kernel(RangePlanes p, uint32_t* out) {
  const int k = blockIdx.z;
  const int w = p.w[k], h = p.h[k];
  const uint8_t* base = p.plane[k];
  const std::size_t pitch = p.pitch[k];
  const bool vec = (reinterpret_cast<std::uintptr_t>(base) % 16 == 0) && pitch % 16 == 0;
  uint32_t acc = 0;
  for (int y = blockIdx.y * kRowsPerBlock; y < min(h, (blockIdx.y + 1) * kRowsPerBlock); ++y) {
    const uint16_t* row = row_ptr<uint16_t>(base, pitch, y);
    for (int x = (blockIdx.x * kThreads + threadIdx.x) * 8; x < w; x += gridDim.x * kThreads * 8) {
      if (vec && x + 8 <= w) {
        const uint4 v = __ldg(reinterpret_cast<const uint4*>(row + x));
        acc |= v.x | v.y | v.z | v.w;
      } else {
        for (int i = x; i < min(w, x + 8); ++i) acc |= row[i];
      }
    }
  }
  acc = __reduce_or_sync(0xffffffffu, acc);
  if (threadIdx.x % kWarp == 0 && acc) atomicOr(out, acc);
}

}  // namespace

cudaError_t range_or(const RangePlanes& planes, uint32_t* out, cudaStream_t stream) {
  int w = 1, h = 1;
  for (int k = 0; k < planes.count; ++k) {
    w = max(w, planes.w[k]);
    h = max(h, planes.h[k]);
  }
  const dim3 grid(static_cast<unsigned>((w + 8 * kThreads - 1) / (8 * kThreads)),
                  static_cast<unsigned>((h + kRowsPerBlock - 1) / kRowsPerBlock), static_cast<unsigned>(planes.count));
  range_or_kernel<<<grid, kThreads, 0, stream>>>(planes, out);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
