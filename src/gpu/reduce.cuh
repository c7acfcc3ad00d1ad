// Device helpers shared by twins: exact integer block reductions.
#pragma once

#include <cstdint>

namespace twinmaf::cuda {

inline constexpr int kWarp = 32;

// Sum of v over the block (blockDim.x a multiple of kWarp, <= 1024); the
// result is valid in thread 0. Integer sums are exact in any order.
template <typename T>
__device__ T block_sum(T v) {
  __shared__ T warp_sums[1024 / kWarp];
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / kWarp;
  v = threadIdx.x < warps ? warp_sums[threadIdx.x] : T(0);
  if (warp == 0)
    for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();  // warp_sums may be reused by the next call
  return v;
}

// Row pointer of a pitched plane (pitch in bytes).
template <typename T>
__device__ __forceinline__ const T* row_ptr(const uint8_t* plane, std::size_t pitch, int y) {
  return reinterpret_cast<const T*>(plane + static_cast<std::size_t>(y) * pitch);
}

}  // namespace twinmaf::cuda
