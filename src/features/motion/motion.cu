// motion CUDA kernel: the SAD of blur(prev - cur) as one uint64, equal to
// motion_sad_ref (motion.h: every intermediate is an integer and the SAD is an
// order-free integer sum).
//
// One fused kernel, no shared memory: a warp owns a strip of kStripW = 28
// output columns and kStripH rows. Lane l holds input column x0 - 2 + l
// (reflected) and walks down the strip's rows plus two reflected rows on each
// side, loading each difference once and keeping the last five in registers;
// each vertical sum goes to the lane's neighbours by shuffles for the
// horizontal pass, and lanes 2..29 add |blur| for their column. The taps are
// immediates (motion_math.h). A vertical sum is below 2^16 * (2^bpc - 1) in
// magnitude: int32 for 8-bit samples, int64 above; a horizontal one below
// 2^32 (|vertical result| < 2^16): int64, one wide multiply-add per tap. Per
// lane the SAD stays below 2^16 * kStripH (|blur| < 2^16), so uint32; each
// warp adds its uint64 sum with one atomicAdd.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "base/hd_math.h"
#include "features/motion/motion_kernels.h"
#include "features/motion/motion_math.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kStripW = kWarp - 4;
constexpr int kStripH = 32;
constexpr int kWarpsPerBlock = 4;

template <typename T>
__global__ void __launch_bounds__(kWarp * kWarpsPerBlock)
    motion_sad_kernel(const uint8_t* prev, const uint8_t* cur, std::size_t pitch, int w, int h, int bpc,
                      unsigned long long* out) {
  using VAcc = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;
  // A local copy: namespace-scope constexpr arrays are host objects.
  constexpr int32_t kF[5] = {kMotionFilter[0], kMotionFilter[1], kMotionFilter[2], kMotionFilter[3],
                             kMotionFilter[4]};
  const int lane = threadIdx.x % kWarp;
  const int strip = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarp;
  const int x0 = strip * kStripW, y0 = blockIdx.y * kStripH;
  if (x0 >= w) return;  // whole warp
  const int y1 = min(y0 + kStripH, h);
  // Lanes past column w + 1 feed no valid output; clamp them into the row.
  const int x = x0 - 2 + lane;
  const int xs = x <= w + 1 ? reflect101(x, w) : w - 1;
  const bool owns = lane >= 2 && lane < kWarp - 2 && x < w;
  int src[5];  // the lanes holding this column's horizontal taps
  for (int k = 0; k < 5; ++k) src[k] = min(max(lane + k - 2, 0), kWarp - 1);
  const VAcc y_round = VAcc{1} << (bpc - 1);
  const auto diff = [&](int y) {
    const int ry = reflect101(y, h);  // n >= kMotionMinSize, y in [-2, h + 1]
    return int32_t(row_ptr<T>(prev, pitch, ry)[xs]) - int32_t(row_ptr<T>(cur, pitch, ry)[xs]);
  };
  int32_t d0 = diff(y0 - 2), d1 = diff(y0 - 1), d2 = diff(y0), d3 = diff(y0 + 1);
  uint32_t sad = 0;
  for (int y = y0; y < y1; ++y) {
    const int32_t d4 = diff(y + 2);
    const VAcc acc = VAcc{kF[0]} * d0 + VAcc{kF[1]} * d1 + VAcc{kF[2]} * d2 + VAcc{kF[3]} * d3 +
                     VAcc{kF[4]} * d4 + y_round;
    const int32_t v = static_cast<int32_t>(acc >> bpc);
    int64_t hacc = (int64_t{1} << 15) + int64_t{kF[2]} * v;
#pragma unroll
    for (int k = 0; k < 5; ++k)
      if (k != 2) hacc += int64_t{kF[k]} * __shfl_sync(0xffffffffu, v, src[k]);
    const int32_t b = static_cast<int32_t>(hacc >> 16);
    if (owns) sad += static_cast<uint32_t>(b < 0 ? -b : b);
    d0 = d1;
    d1 = d2;
    d2 = d3;
    d3 = d4;
  }
  unsigned long long total = sad;
  for (int o = kWarp / 2; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
  if (lane == 0 && total) atomicAdd(out, total);
}

}  // namespace

cudaError_t motion_sad(const uint8_t* prev, const uint8_t* cur, std::size_t pitch, int w, int h, int bpc,
                       unsigned long long* out, cudaStream_t stream) {
  const int strips = (w + kStripW - 1) / kStripW;
  const dim3 grid((strips + kWarpsPerBlock - 1) / kWarpsPerBlock, (h + kStripH - 1) / kStripH);
  const int threads = kWarp * kWarpsPerBlock;
  if (bpc > 8)
    motion_sad_kernel<uint16_t><<<grid, threads, 0, stream>>>(prev, cur, pitch, w, h, bpc, out);
  else
    motion_sad_kernel<uint8_t><<<grid, threads, 0, stream>>>(prev, cur, pitch, w, h, bpc, out);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
