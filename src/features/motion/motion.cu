// motion CUDA kernel: the SAD of blur(prev - cur) as one uint64, equal to
// motion_sad_ref (motion.h: every intermediate is an integer and the SAD is an
// order-free integer sum).
//
// One fused kernel: a block owns a strip of kTileW columns and kTileH rows; it
// forms the vertical 5-tap sums of the difference for its columns plus two
// reflected columns on each side in shared memory, then the horizontal pass,
// |v|, a block sum and one atomicAdd.
#include "features/motion/motion_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kTileW = 128;
constexpr int kTileH = 8;

// motion.h kMotionFilter, uploaded by motion_set_filter.
__constant__ int32_t c_filter[5];

__device__ __forceinline__ int reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

template <typename T>
__global__ void motion_sad_kernel(const uint8_t* prev, const uint8_t* cur, std::size_t pitch, int w, int h,
                                  int bpc, unsigned long long* out) {
  __shared__ int32_t ybuf[kTileH][kTileW + 4];
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int64_t y_round = int64_t{1} << (bpc - 1);
  // Vertical pass for columns x0-2 .. x0+kTileW+1 (reflected at the edges).
  for (int r = 0; r < kTileH; ++r) {
    const int y = y0 + r;
    if (y >= h) break;
    for (int c = threadIdx.x; c < kTileW + 4; c += blockDim.x) {
      const int x = x0 - 2 + c;
      if (x >= w + 2) continue;
      const int xs = reflect(x, w);
      int64_t acc = 0;
      for (int k = 0; k < 5; ++k) {
        const int ry = reflect(y - 2 + k, h);
        const int32_t d = int32_t(row_ptr<T>(prev, pitch, ry)[xs]) - int32_t(row_ptr<T>(cur, pitch, ry)[xs]);
        acc += int64_t{c_filter[k]} * d;
      }
      ybuf[r][c] = static_cast<int32_t>((acc + y_round) >> bpc);
    }
  }
  __syncthreads();
  uint64_t sad = 0;
  const int x = x0 + threadIdx.x;
  if (x < w) {
    for (int r = 0; r < kTileH && y0 + r < h; ++r) {
      int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += int64_t{c_filter[k]} * ybuf[r][threadIdx.x + k];
      const int32_t v = static_cast<int32_t>((acc + (int64_t{1} << 15)) >> 16);
      sad += static_cast<uint32_t>(v < 0 ? -v : v);
    }
  }
  sad = block_sum(sad);
  if (threadIdx.x == 0 && sad) atomicAdd(out, static_cast<unsigned long long>(sad));
}

}  // namespace

cudaError_t motion_set_filter(const int32_t taps[5]) {
  return cudaMemcpyToSymbol(c_filter, taps, 5 * sizeof(int32_t));
}

cudaError_t motion_sad(const uint8_t* prev, const uint8_t* cur, std::size_t pitch, int w, int h, int bpc,
                       unsigned long long* out, cudaStream_t stream) {
  const dim3 grid((w + kTileW - 1) / kTileW, (h + kTileH - 1) / kTileH);
  if (bpc > 8)
    motion_sad_kernel<uint16_t><<<grid, kTileW, 0, stream>>>(prev, cur, pitch, w, h, bpc, out);
  else
    motion_sad_kernel<uint8_t><<<grid, kTileW, 0, stream>>>(prev, cur, pitch, w, h, bpc, out);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
