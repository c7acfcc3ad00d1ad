// cambi CUDA kernels: one picture's stages 1-5 (cambi.h), equal to
// cambi_picture_terms_ref. Per picture, in stream order:
//   convert   one thread per processed sample: resample (the host's
//             positions), to 10 bit, and the anti-dithering average computed
//             out of place from the four converted inputs (the CPU's in-place
//             order reads only samples it has not yet overwritten);
//   zero      the zero-derivative flags;
//   mask      the 7x7 flag sum > threshold, only at the positions scale 0
//             keeps (every later scale keeps a subset of them);
//   mode      per scale: decimation (stride 2 into the previous scale, or
//             into the converted image with the speedup) fused with the 3x3
//             mode filter read out of place, and the band row of each pixel;
//   cvalue    one grid for every picture and scale (CvalueGrid): a block
//             owns a 32x32 tile, loads the band rows of its
//             (32 + 2p)^2 window halo into shared memory (outside the picture:
//             kNoBand, so the window is clipped as the CPU's) with, per
//             sample, where its run of equal band rows ends in its row; each
//             thread counts, per pixel of its column strip, the window's
//             samples of band rows b - n .. b + n in 16-bit fields (<= 4225 <
//             2^16), a run at a time (banded areas are long runs, so a window
//             row costs a few steps, not 2p + 1), sliding the window down a
//             row where the band row stays, then forms the c-value with the
//             CPU's float steps and adds its units;
//   pool      one block per (picture, scale): the order-free value, the
//             exact total of a radix-selected top k, or libvmaf's quick
//             select and ordered double sum by the block (cambi_pool.cuh).
// Every float operation is the CPU's (int -> float, one multiply by the host's
// table, compares, the double loop), written with explicit _rn intrinsics; the
// file builds with --fmad=false as the rest of the library.
#include <cstddef>
#include <cstdint>

#include "features/cambi/cambi_kernels.h"
#include "features/cambi/cambi_math.h"
#include "features/cambi/cambi_pool.cuh"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int16_t kNoBand = 0x7fff;  // minus any band row (< 1057) exceeds 2 * 32
constexpr int kThreads = 256;
constexpr int kTile = 32;                    // c-value outputs per block side
constexpr int kTileRows = kThreads / kTile;  // thread rows; each thread owns kTile / kTileRows outputs
constexpr int kMaskRadius = 3;

struct BandArgs {
  int base = 0, size = 0, vlt = 0;
  int tvi[kCambiTwinDiffs] = {};
  int weight[kCambiTwinDiffs] = {};
  const float* recip = nullptr;
};

template <typename T>
__device__ __forceinline__ int convert_at(const CambiPictureArgs& a, int up, int down, int round, int i, int j) {
  const int y = a.src_y ? a.src_y[i] : i;
  const int x = a.src_x ? a.src_x[j] : j;
  const T* row = row_ptr<T>(a.plane, a.pitch, y);
  return ((static_cast<int>(row[x]) << up) + round) >> down;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) cambi_convert_kernel(CambiPictureArgs a, int bpc, bool anti_dither) {
  const int j = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x % 32);
  const int i = static_cast<int>(blockIdx.y) * (kThreads / 32) + static_cast<int>(threadIdx.x / 32);
  if (i >= a.h || j >= a.w) return;
  const int up = bpc <= 9 ? 10 - bpc : 0;
  const int down = bpc >= 10 ? bpc - 10 : 0;
  const int round = down > 0 ? 1 << (down - 1) : 0;
  int v = convert_at<T>(a, up, down, round, i, j);
  if (anti_dither) {
    const bool right = j + 1 < a.w, below = i + 1 < a.h;
    if (right && below)
      v = (v + convert_at<T>(a, up, down, round, i, j + 1) + convert_at<T>(a, up, down, round, i + 1, j) +
           convert_at<T>(a, up, down, round, i + 1, j + 1)) >>
          2;
    else if (below)
      v = (v + convert_at<T>(a, up, down, round, i + 1, j)) >> 1;
    else if (right)
      v = (v + convert_at<T>(a, up, down, round, i, j + 1)) >> 1;
  }
  a.img0[static_cast<std::size_t>(i) * a.w + j] = static_cast<uint16_t>(v);
}

// Flag of (i, j): equal to the right and the lower neighbour (missing = equal).
__global__ void __launch_bounds__(kThreads) cambi_zero_kernel(CambiPictureArgs a) {
  const int j = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x % 32);
  const int i = static_cast<int>(blockIdx.y) * (kThreads / 32) + static_cast<int>(threadIdx.x / 32);
  if (i >= a.h || j >= a.w) return;
  const uint16_t* r = a.img0 + static_cast<std::size_t>(i) * a.w;
  const uint16_t* below = i + 1 < a.h ? r + a.w : r;
  const bool z = (j + 1 >= a.w || r[j] == r[j + 1]) && r[j] == below[j];
  a.zero[static_cast<std::size_t>(i) * a.w + j] = z ? 1 : 0;
}

// mask0(r, c) = mask(r << speedup, c << speedup).
__global__ void __launch_bounds__(kThreads) cambi_mask_kernel(CambiPictureArgs a) {
  const int c = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x % 32);
  const int r = static_cast<int>(blockIdx.y) * (kThreads / 32) + static_cast<int>(threadIdx.x / 32);
  if (r >= a.sh[0] || c >= a.sw[0]) return;
  const int y = r << a.speedup, x = c << a.speedup;
  const int y0 = y - kMaskRadius < 0 ? 0 : y - kMaskRadius;
  const int y1 = y + kMaskRadius >= a.h ? a.h - 1 : y + kMaskRadius;
  const int x0 = x - kMaskRadius < 0 ? 0 : x - kMaskRadius;
  const int x1 = x + kMaskRadius >= a.w ? a.w - 1 : x + kMaskRadius;
  uint32_t sum = 0;
  for (int yy = y0; yy <= y1; ++yy) {
    const uint8_t* z = a.zero + static_cast<std::size_t>(yy) * a.w;
    for (int xx = x0; xx <= x1; ++xx) sum += z[xx];
  }
  a.mask0[static_cast<std::size_t>(r) * a.sw[0] + c] = sum > a.mask_threshold ? 1 : 0;
}

// Scale image (w x h) = the 3x3 mode of src sampled every `step` samples
// (src is src_w wide); band rows from the scale's mask (mask0 at r << shift,
// c << shift).
__global__ void __launch_bounds__(kThreads)
    cambi_mode_kernel(const uint16_t* __restrict__ src, int src_w, int step, uint16_t* __restrict__ out,
                      int16_t* __restrict__ band, const uint8_t* __restrict__ mask0, int mask_w, int shift, int w,
                      int h, int base, int size) {
  const int c = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x % 32);
  const int r = static_cast<int>(blockIdx.y) * (kThreads / 32) + static_cast<int>(threadIdx.x / 32);
  if (r >= h || c >= w) return;
  const auto in = [&](int y, int x) -> int {
    return src[static_cast<std::size_t>(y) * step * src_w + static_cast<std::size_t>(x) * step];
  };
  // Horizontal mode of row y at column c (first and last column unchanged).
  const auto hmode = [&](int y) -> int {
    return c == 0 || c == w - 1 ? in(y, c) : cambi_mode3<int>(in(y, c - 1), in(y, c), in(y, c + 1));
  };
  const int v = h < 3 || r == 0 || r == h - 1 ? in(r, c) : cambi_mode3<int>(hmode(r - 1), hmode(r), hmode(r + 1));
  const std::size_t o = static_cast<std::size_t>(r) * w + c;
  out[o] = static_cast<uint16_t>(v);
  const bool masked = mask0[(static_cast<std::size_t>(r) << shift) * mask_w + (static_cast<std::size_t>(c) << shift)];
  const int b = v - base;
  band[o] = masked && static_cast<unsigned>(b) < static_cast<unsigned>(size) ? static_cast<int16_t>(b) : kNoBand;
}

// Count of band row b + d - N from the packed fields (d in [0, 2N]).
template <int N>
__device__ __forceinline__ int field(const unsigned long long (&cnt)[(2 * N + 4) / 4], int d) {
  return static_cast<int>((cnt[d >> 2] >> ((d & 3) * 16)) & 0xffffu);
}

// The CPU's c-value of a pixel of band row b from its window counts.
template <int N>
__device__ __forceinline__ float c_value(const unsigned long long (&cnt)[(2 * N + 4) / 4], int b, const BandArgs& ba) {
  const int v = b + ba.base;
  const int p0 = field<N>(cnt, N);
  float best = 0.0f;
#pragma unroll
  for (int d = 1; d <= N; ++d) {
    if (v > ba.tvi[d - 1] || v + N + d <= ba.vlt) continue;
    const int up = field<N>(cnt, N + d);
    const int down = b >= d ? field<N>(cnt, N - d) : 0;
    const int m = up > down ? up : down;
    const float val = __fmul_rn(__int2float_rn(ba.weight[d - 1] * p0 * m), __ldg(ba.recip + p0 + m));
    if (val > best) best = val;
  }
  return best;
}

constexpr int kPoolMax = 2 * kCambiTwinScales;  // (picture, scale) entries of a frame

// The c-value tiles of every picture and scale of a frame in one grid: block
// b is tile b - first[e] (row-major, tiles_x per row) of entry e, where
// first[e] <= b < first[e + 1]. The coarsest scales come first: their tiles
// take longest (their windows are less banded), and the finer scales' many
// tiles then fill the SMs they leave.
struct CvalueGrid {
  int entries = 0;
  int first[kPoolMax + 1] = {};
  int tiles_x[kPoolMax] = {};
  int w[kPoolMax] = {}, h[kPoolMax] = {};
  const int16_t* band[kPoolMax] = {};
  float* cval[kPoolMax] = {};
  CambiDeviceScale* terms[kPoolMax] = {};
};

template <int N>
__global__ void __launch_bounds__(kThreads) cambi_cvalue_kernel(CvalueGrid g, int p, BandArgs ba) {
  constexpr int kWords = (2 * N + 4) / 4;  // 2N + 1 16-bit fields
  extern __shared__ int16_t tile[];
  const int side = kTile + 2 * p;
  // run[i]: the column (in the tile row) where the run of equal band rows
  // holding i ends; side <= 96, so a byte.
  uint8_t* run = reinterpret_cast<uint8_t*>(tile + side * side);
  const int block = static_cast<int>(blockIdx.x);
  int e = 0;
  while (e + 1 < g.entries && block >= g.first[e + 1]) ++e;
  const int16_t* __restrict__ band = g.band[e];
  float* __restrict__ cval = g.cval[e];
  const int w = g.w[e], h = g.h[e];
  const int local = block - g.first[e];
  const int x0 = (local % g.tiles_x[e]) * kTile, y0 = (local / g.tiles_x[e]) * kTile;
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < side * side; i += kThreads) {
    const int sy = i / side, sx = i - sy * side;
    const int gy = y0 - p + sy, gx = x0 - p + sx;
    tile[i] = gy >= 0 && gy < h && gx >= 0 && gx < w ? band[static_cast<std::size_t>(gy) * w + gx] : kNoBand;
  }
  __syncthreads();
  for (int sy = tid; sy < side; sy += kThreads) {
    const int16_t* t = tile + sy * side;
    uint8_t* r = run + sy * side;
    r[side - 1] = static_cast<uint8_t>(side);
    for (int sx = side - 2; sx >= 0; --sx) r[sx] = t[sx] == t[sx + 1] ? r[sx + 1] : static_cast<uint8_t>(sx + 1);
  }
  __syncthreads();
  // Thread t owns column lx = t % 32 of the rows (t / 32) kRun .. + kRun - 1,
  // top down. A pixel of the band row its counts are relative to takes the pixel
  // above's counts less the window row that left and plus the one that
  // entered: integers, and each field holds at least what leaves, so no
  // borrow crosses fields. Any other pixel counts its whole window.
  constexpr int kRun = kTile / kTileRows;
  unsigned long long units = 0, nonzero = 0;
  unsigned long long cnt[kWords] = {};
  int counted = kNoBand;  // the band row cnt is relative to (kNoBand: none)
  const int lx = tid % kTile, x = x0 + lx;
  const int end = lx + 2 * p + 1;
  // Each window row [lx, lx + 2p] is walked run by run: a run of equal band
  // rows adds (or takes) its length inside the window to (from) one field.
  const auto walk = [&](int row, int b, bool add) {
    const int16_t* t = tile + row * side;
    const uint8_t* r = run + row * side;
    for (int sx = lx; sx < end;) {
      const int next = r[sx] < end ? r[sx] : end;
      const unsigned d = static_cast<unsigned>(t[sx] - b + N);
      if (d <= 2u * N) {
        const unsigned long long inc = static_cast<unsigned long long>(next - sx) << ((d & 3u) * 16u);
#pragma unroll
        for (int k = 0; k < kWords; ++k) {
          const unsigned long long step = (d >> 2) == static_cast<unsigned>(k) ? inc : 0ull;
          cnt[k] = add ? cnt[k] + step : cnt[k] - step;
        }
      }
      sx = next;
    }
  };
  for (int q = 0; q < kRun; ++q) {
    const int ly = static_cast<int>(tid / kTile) * kRun + q, y = y0 + ly;
    if (y >= h || x >= w) break;  // and every row below
    const int b = tile[(ly + p) * side + lx + p];
    float best = 0.0f;
    if (b == kNoBand) {
      counted = kNoBand;
    } else {
      if (b == counted) {
        walk(ly - 1, b, false);
        walk(ly + 2 * p, b, true);
      } else {
#pragma unroll
        for (int k = 0; k < kWords; ++k) cnt[k] = 0;
        for (int dy = 0; dy <= 2 * p; ++dy) walk(ly + dy, b, true);
        counted = b;
      }
      best = c_value<N>(cnt, b, ba);
    }
    cval[static_cast<std::size_t>(y) * w + x] = best;
    if (best != 0.0f) {
      ++nonzero;
      units += static_cast<unsigned long long>(cambi_c_units(best));
    }
  }
  // Integer totals: exact in any order (< 2^63 below 2^25 samples, cambi.h).
  units = block_sum(units);
  nonzero = block_sum(nonzero);
  if (tid == 0 && nonzero != 0) {
    atomicAdd(&g.terms[e]->units, units);
    atomicAdd(&g.terms[e]->nonzero, nonzero);
  }
}

struct PoolArgs {
  float* cval[kPoolMax] = {};
  int* scratch[kPoolMax] = {};  // cambi_pool_scratch_ints(n)
  int n[kPoolMax] = {};
  int k[kPoolMax] = {};
  CambiDeviceScale* terms[kPoolMax] = {};
};

constexpr int kPoolThreads = kCambiPoolThreads;
// Bits of the nonzero c-values: floats in [0.5, 2^14) (cambi.h).
constexpr uint32_t kLowestBits = 0x3f000000u;   // 0.5f
constexpr uint32_t kBeyondBits = 0x46800000u;   // 16384.0f
constexpr int kLevel1Bins = static_cast<int>((kBeyondBits - kLowestBits) >> 16);  // 1920

// What the select keeps between levels (shared memory, written by one thread).
struct Select {
  uint32_t lo;     // the level's bit range [lo, lo + bins << shift)
  long long need;  // how many of the largest values in that range are still to take
};

// One radix level: counts of the c-values whose bits lie in [s.lo, s.lo +
// (bins << shift)), by bin (bits - s.lo) >> shift; then the bin holding the
// need-th largest of them. Moves s to that bin (the next level's range).
// Lanes of a warp with the same bin add once (match_any), so banded content
// (many equal values) does not serialise on one counter; integer counts, so
// the order of the atomics does not matter.
__device__ void select_level(const float* c, int n, int bins, int shift, unsigned* count, Select& s) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarp, warp = tid / kWarp;
  for (int b = tid; b < bins; b += kPoolThreads) count[b] = 0;
  __syncthreads();
  const uint32_t lo = s.lo;
  const uint32_t span = static_cast<uint32_t>(bins) << shift;
  constexpr uint32_t kNone = 0xffffffffu;
  for (int j0 = 0; j0 < n; j0 += kPoolThreads) {  // the same trip count in every lane
    const int j = j0 + tid;
    uint32_t key = kNone;
    if (j < n) {
      const uint32_t off = __float_as_uint(c[j]) - lo;  // wraps above span below lo
      if (off < span) key = off >> shift;
    }
    const unsigned peers = __match_any_sync(0xffffffffu, key);
    if (key != kNone && lane == __ffs(static_cast<int>(peers)) - 1) atomicAdd(count + key, __popc(peers));
  }
  __syncthreads();
  // Thread t owns the bins t*per .. t*per + per - 1 counted from the top; an
  // inclusive scan over threads gives each chunk's count from the top.
  const int per = (bins + kPoolThreads - 1) / kPoolThreads;
  unsigned long long mine = 0;
  for (int q = 0; q < per; ++q) {
    const int b = bins - 1 - (tid * per + q);
    if (b >= 0) mine += count[b];
  }
  __shared__ unsigned long long warp_total[kPoolThreads / kWarp];
  unsigned long long incl = mine;
  for (int o = 1; o < kWarp; o <<= 1) {
    const unsigned long long v = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += v;
  }
  if (lane == kWarp - 1) warp_total[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    unsigned long long v = warp_total[lane];
    for (int o = 1; o < kWarp; o <<= 1) {
      const unsigned long long u = __shfl_up_sync(0xffffffffu, v, o);
      if (lane >= o) v += u;
    }
    warp_total[lane] = v;
  }
  __syncthreads();
  if (warp > 0) incl += warp_total[warp - 1];
  const unsigned long long excl = incl - mine;
  const auto need = static_cast<unsigned long long>(s.need);
  __syncthreads();  // every thread has read s before thread `found` moves it
  if (excl < need && need <= incl) {  // exactly one thread: its chunk holds the need-th
    unsigned long long acc = excl;
    for (int q = 0; q < per; ++q) {
      const int b = bins - 1 - (tid * per + q);
      if (acc + count[b] >= need) {
        s.lo = lo + (static_cast<uint32_t>(b) << shift);
        s.need = static_cast<long long>(need - acc);
        break;
      }
      acc += count[b];
    }
  }
  __syncthreads();
}

// Block i pools entry i, with the CPU's value in every case (cambi.h): the
// CPU's order-free value; else a radix select (16 + 8 + 8 bits) of V, the
// min(k, nonzero)-th largest value, then the exact total of the k largest
// and V's units shift: the value when cambi_topk_exact; else libvmaf's quick
// select and loop by the whole block (cambi_pool.cuh).
__global__ void __launch_bounds__(kPoolThreads) cambi_pool_kernel(PoolArgs a) {
  const int i = static_cast<int>(blockIdx.x);
  const int tid = static_cast<int>(threadIdx.x);
  CambiDeviceScale* t = a.terms[i];
  const auto units = static_cast<int64_t>(t->units);
  const auto nonzero = static_cast<int64_t>(t->nonzero);
  const int k = a.k[i], n = a.n[i];
  float* c = a.cval[i];
  if (cambi_order_free(nonzero, units, k)) {  // the same for every thread of the block
    if (tid == 0) t->topk_sum = cambi_units_value(units, 0);
    return;
  }
  const bool all = nonzero <= k;  // then the k largest are every nonzero value (and zeros)
  __shared__ unsigned count[kLevel1Bins];
  __shared__ Select s;
  if (tid == 0) s = Select{kLowestBits, all ? nonzero : k};
  __syncthreads();
  select_level(c, n, kLevel1Bins, 16, count, s);
  select_level(c, n, 256, 8, count, s);
  select_level(c, n, 256, 0, count, s);
  const uint32_t v_bits = s.lo;  // V
  const float v = __uint_as_float(v_bits);
  int64_t total = units;
  if (!all) {
    // The values above V and their units; k minus their count copies of V
    // complete the k largest.
    unsigned long long above = 0, above_units = 0;
    for (int j = tid; j < n; j += kPoolThreads)
      if (__float_as_uint(c[j]) > v_bits) {
        ++above;
        above_units += static_cast<unsigned long long>(cambi_c_units(c[j]));
      }
    above = block_sum(above);
    above_units = block_sum(above_units);
    total = static_cast<int64_t>(above_units) + (k - static_cast<int64_t>(above)) * cambi_c_units(v);
  }
  __shared__ bool exact;
  if (tid == 0) {
    const int shift = cambi_units_shift(v);
    exact = cambi_topk_exact(total, shift);
    if (exact) t->topk_sum = cambi_units_value(total, shift);
  }
  __syncthreads();
  if (exact) return;
  __shared__ CambiPoolShared pool;
  const double sum = cambi_topk_sum_block(c, n, k, a.scratch[i], kCambiSerialRange, pool);
  if (tid == 0) t->topk_sum = sum;
}

dim3 grid_of(int w, int h) {
  return dim3(static_cast<unsigned>((w + 31) / 32), static_cast<unsigned>((h + kThreads / 32 - 1) / (kThreads / 32)));
}

template <int N>
cudaError_t launch_cvalues(const CvalueGrid& g, int p, const BandArgs& ba, cudaStream_t stream) {
  const int side = kTile + 2 * p;
  const std::size_t shared = static_cast<std::size_t>(side) * side * (sizeof(int16_t) + sizeof(uint8_t));
  cambi_cvalue_kernel<N><<<static_cast<unsigned>(g.first[g.entries]), kThreads, shared, stream>>>(g, p, ba);
  return cudaGetLastError();
}

cudaError_t launch_cvalues(int n, const CvalueGrid& g, int p, const BandArgs& ba, cudaStream_t stream) {
  switch (n) {
    case 1:
      return launch_cvalues<1>(g, p, ba, stream);
    case 2:
      return launch_cvalues<2>(g, p, ba, stream);
    case 4:
      return launch_cvalues<4>(g, p, ba, stream);
    case 8:
      return launch_cvalues<8>(g, p, ba, stream);
    case 16:
      return launch_cvalues<16>(g, p, ba, stream);
    case 32:
      return launch_cvalues<32>(g, p, ba, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t cambi_frame(const CambiFrameArgs& a, cudaStream_t stream) {
  BandArgs ba;
  ba.base = a.band_base;
  ba.size = a.band_size;
  ba.vlt = a.vlt_luma;
  for (int d = 0; d < kCambiTwinDiffs; ++d) {
    ba.tvi[d] = a.tvi[d];
    ba.weight[d] = a.weight[d];
  }
  ba.recip = a.recip;
  PoolArgs pool;
  for (int q = 0; q < a.pictures; ++q) {
    const CambiPictureArgs& pic = a.pic[q];
    if (a.bpc > 8)
      cambi_convert_kernel<uint16_t><<<grid_of(pic.w, pic.h), kThreads, 0, stream>>>(pic, a.bpc, a.anti_dither);
    else
      cambi_convert_kernel<uint8_t><<<grid_of(pic.w, pic.h), kThreads, 0, stream>>>(pic, a.bpc, a.anti_dither);
    cambi_zero_kernel<<<grid_of(pic.w, pic.h), kThreads, 0, stream>>>(pic);
    cambi_mask_kernel<<<grid_of(pic.sw[0], pic.sh[0]), kThreads, 0, stream>>>(pic);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    for (int s = 0; s < kCambiTwinScales; ++s) {
      const bool from_input = s == 0;
      const uint16_t* src = from_input ? pic.img0 : pic.img[s - 1];
      const int src_w = from_input ? pic.w : pic.sw[s - 1];
      const int step = from_input && !pic.speedup ? 1 : 2;
      cambi_mode_kernel<<<grid_of(pic.sw[s], pic.sh[s]), kThreads, 0, stream>>>(
          src, src_w, step, pic.img[s], pic.band[s], pic.mask0, pic.sw[0], s, pic.sw[s], pic.sh[s], a.band_base,
          a.band_size);
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      const int i = q * kCambiTwinScales + s;
      pool.cval[i] = pic.cval[s];
      pool.scratch[i] = pic.pool[s];
      pool.n[i] = pic.sw[s] * pic.sh[s];
      pool.k[i] = pic.k[s];
      pool.terms[i] = pic.terms + s;
    }
  }
  // One grid for the pictures of one window radius (both, unless their
  // processed sizes differ).
  const bool one_p = a.pictures == 1 || a.pic[0].p == a.pic[1].p;
  for (int q0 = 0; q0 < a.pictures; q0 += one_p ? a.pictures : 1) {
    CvalueGrid g;
    for (int s = kCambiTwinScales - 1; s >= 0; --s)
      for (int q = q0; q < (one_p ? a.pictures : q0 + 1); ++q) {
        const CambiPictureArgs& pic = a.pic[q];
        const int e = g.entries++;
        g.tiles_x[e] = (pic.sw[s] + kTile - 1) / kTile;
        g.first[e + 1] = g.first[e] + g.tiles_x[e] * ((pic.sh[s] + kTile - 1) / kTile);
        g.w[e] = pic.sw[s];
        g.h[e] = pic.sh[s];
        g.band[e] = pic.band[s];
        g.cval[e] = pic.cval[s];
        g.terms[e] = pic.terms + s;
      }
    if (const cudaError_t e = launch_cvalues(a.num_diffs, g, a.pic[q0].p, ba, stream); e != cudaSuccess) return e;
  }
  cambi_pool_kernel<<<static_cast<unsigned>(a.pictures * kCambiTwinScales), kPoolThreads, 0, stream>>>(pool);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
