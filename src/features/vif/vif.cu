// vif CUDA kernels: the four scales' VifTerms sums, equal to vif_terms_ref.
//
// One kernel per scale, four launches per frame (scale s+1 reads the image
// the scale-s kernel wrote). A block of 256 threads owns kTileW x kTileH =
// 224 x 8 outputs of its scale (h = kVifHalf[scale]):
//   1. loads the (8 + 2h) x (224 + 2h) input tile of ref and dis into shared
//      memory, reflect-101 at the edges (8- or 4-byte units where aligned,
//      sample by sample where a unit overhangs the plane),
//   2. vertical pass: a thread owns one tile column and its 8 output rows and
//      keeps their five sums (mu1, mu2, xx, yy, xy) and, at even rows, the
//      next scale's subsample sums in registers; after a barrier the rounded
//      results go to shared memory over the dead input tile,
//   3. horizontal pass: a warp owns an output row, a thread 7 adjacent
//      outputs: the mu sums and their products, then one moment at a time
//      folded into its sigma, then vif_accumulate_pixel (vif_math.h) per
//      output; the block's four int64 sums go to the frame's terms with one
//      atomicAdd each,
//   4. the subsample's horizontal pass at even columns writes the next
//      scale's uint16 image (scales 0..2).
//
// Exactness. Every filter sum is an integer, so only its width matters, not
// its order. The mu sums and, for 8-bit samples, the vertical moment sums use
// the CPU's integer widths (vif.h). The other moment sums s = sum f*m (f <
// 2^16; m = x*x, y*y or x*y < 2^32 vertically, a vertical moment < 2^32
// horizontally; the taps sum to 2^16) lie below 2^48. They are formed as
// doubles starting from the rounding constant r (2^15, or the hbd scale-0
// vertical 2^(2(bpc-8)-1)): every product and partial sum is an integer below
// 2^53, so every multiply and fma is exact, and (s + r) >> k is one fma by
// 2^-k plus 2^52 rounded down: the integer grid of [2^52, 2^53) has step 1,
// so the result is 2^52 + floor((s + r) / 2^k) and its low word the moment
// (< 2^32). uint32 -> double is exact through the same 2^52 offset. The
// per-pixel step is vif_math.h's, with the host's log2 table. The terms are
// integer sums: exact under atomics in any order.
//
// Cost: the kernels are bound by their arithmetic (17-tap sums of five
// quantities per output and the per-pixel double division), not by memory.
// The wide moment sums are doubles, not uint64, so they run on the FP64 pipe
// beside the integer work (docs/benchmarks.md, "vif kernels", has the
// measurements behind both statements).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "features/vif/vif_kernels.h"
#include "features/vif/vif_math.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kTileW = 224;     // output columns per block
constexpr int kTileH = 8;       // output rows per block
constexpr int kTileCols = 256;  // >= kTileW + 2 * 8: one vertical-pass thread per tile column
constexpr int kSegs = 32;       // horizontal pass: one warp per output row ...
constexpr int kOut = kTileW / kSegs;  // ... kOut adjacent outputs per thread (odd: conflict-free banks)
constexpr int kSubRows = kTileH / 2, kSubCols = kTileW / 2;
static_assert(kTileCols == kThreads && kSegs * kTileH == kThreads && kOut * kSegs == kTileW);
static_assert(kTileW % 2 == 0 && kTileH % 2 == 0 && kOut % 2 == 1);

struct ScaleArgs {
  const uint8_t* ref;
  const uint8_t* dis;
  std::size_t pitch;
  int w, h;
  // Vertical-pass roundings (vif.h): mu and the subsample, then the moments.
  uint32_t mu_round;
  int mu_shift;
  uint32_t sq_round;
  int sq_shift;
  double sq_scale;  // 2^-sq_shift
  int align;  // a power of two (<= 8) dividing the planes' addresses and the pitch
  uint16_t* next_ref;
  uint16_t* next_dis;
  std::size_t next_pitch;
  const uint16_t* table;
  double egl;
  unsigned long long* sums;
};

template <typename T, int kHalf>
struct Smem {
  union {
    T tile[2][kTileH + 2 * kHalf][kTileCols];
    struct {
      uint32_t mu[kTileH][kTileCols];      // mu1 | mu2 << 16 (each <= 65535)
      uint32_t mom[3][kTileH][kTileCols];  // xx, yy, xy
      uint16_t sub[2][kSubRows][kTileCols];
    } v;
  };
  long long red[kThreads / kWarp][4];
};

template <int B, int E, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (B < E) {
    f(std::integral_constant<int, B>{});
    static_for<B + 1, E>(f);
  }
}

// Reflect-101 (exact for overhangs <= n - 1, all that valid outputs read),
// clamped into the plane for the rows and columns no valid output reads.
__device__ __forceinline__ int reflect_clamp(int i, int n) { return min(max(reflect101(i, n), 0), n - 1); }

__device__ __forceinline__ double u32_to_double(uint32_t v) {
  return __dsub_rn(__hiloint2double(0x43300000, static_cast<int>(v)), 0x1p52);
}

template <int kBytes>
using LoadUnit = std::conditional_t<
    kBytes == 8, uint2,
    std::conditional_t<kBytes == 4, uint32_t, std::conditional_t<kBytes == 2, uint16_t, uint8_t>>>;

// The (kRows x kCols) input tile at (tx0, ty0) of ref and dis, in units of
// kBytes (the planes, the pitch and tx0's byte offset are kBytes-aligned):
// a unit inside the plane is one load; one that overhangs the left or right
// edge is loaded sample by sample, reflect-101. Rows reflect as a whole.
template <typename T, int kBytes, int kRows, int kCols, int kTileRows>
__device__ __forceinline__ void load_tile(const ScaleArgs& a, int tx0, int ty0, T (&tile)[2][kTileRows][kTileCols]) {
  constexpr int kPer = kBytes / static_cast<int>(sizeof(T));  // samples per unit
  constexpr int kUnits = (kCols + kPer - 1) / kPer;
  using U = LoadUnit<kBytes>;
  static_assert(sizeof(U) == kBytes && kPer >= 1);
  for (int e = threadIdx.x; e < kRows * kUnits; e += kThreads) {
    const int r = e / kUnits, q = e - r * kUnits;
    const int c = q * kPer, x = tx0 + c;
    const std::size_t row = static_cast<std::size_t>(reflect_clamp(ty0 + r, a.h)) * a.pitch;
    if (x >= 0 && x + kPer <= a.w && c + kPer <= kCols) {
      const std::size_t off = row + static_cast<std::size_t>(x) * sizeof(T);
      *reinterpret_cast<U*>(&tile[0][r][c]) = __ldg(reinterpret_cast<const U*>(a.ref + off));
      *reinterpret_cast<U*>(&tile[1][r][c]) = __ldg(reinterpret_cast<const U*>(a.dis + off));
    } else {
      for (int k = 0; k < kPer && c + k < kCols; ++k) {
        const std::size_t off = row + static_cast<std::size_t>(reflect_clamp(x + k, a.w)) * sizeof(T);
        tile[0][r][c + k] = __ldg(reinterpret_cast<const T*>(a.ref + off));
        tile[1][r][c + k] = __ldg(reinterpret_cast<const T*>(a.dis + off));
      }
    }
  }
}

// A vertical moment's sample product and tap step. 8-bit samples (uint32):
// x*y <= 255^2 and the sums < 2^32 (vif.h). 16-bit samples (double): x*y <
// 2^32 and f*x*y < 2^48, every product and sum an integer below 2^53, so the
// multiply and the fma are exact.
template <typename VAcc>
__device__ __forceinline__ VAcc moment_product(uint32_t x, uint32_t y) {
  if constexpr (std::is_same_v<VAcc, double>) return __dmul_rn(u32_to_double(x), u32_to_double(y));
  else return x * y;
}
__device__ __forceinline__ uint32_t tap_add(uint32_t acc, uint32_t f, uint32_t v) { return acc + f * v; }
__device__ __forceinline__ double tap_add(double acc, uint32_t f, double v) { return __fma_rn(double(f), v, acc); }

// floor(t * scale) of an exact double accumulator t = s + round, scale =
// 2^-shift, i.e. (s + round) >> shift (< 2^32; see the top).
__device__ __forceinline__ uint32_t moment_of(double t, double scale) {
  return static_cast<uint32_t>(__double2loint(__fma_rd(t, scale, 0x1p52)));
}

// One moment of a thread's kOut outputs: the horizontal sums over the row m
// (m[j] is the tile column of output o's tap j - o) as exact doubles, folded
// with the mu products into sigmas.
template <int S, int kHalf>
__device__ __forceinline__ void moment_row(const uint32_t* m, const uint32_t (&prod)[kOut], int32_t (&out)[kOut]) {
  double acc[kOut];
  for (int o = 0; o < kOut; ++o) acc[o] = 32768.0;
  static_for<0, kOut + 2 * kHalf>([&](auto jc) {
    constexpr int j = decltype(jc)::value;
    const double v = u32_to_double(m[j]);
    static_for<0, kOut>([&](auto oc) {
      constexpr int o = decltype(oc)::value;
      constexpr int k = j - o;
      if constexpr (k >= 0 && k <= 2 * kHalf) acc[o] = __fma_rn(double(vif_tap(S, k)), v, acc[o]);
    });
  });
  for (int o = 0; o < kOut; ++o) out[o] = vif_sigma(moment_of(acc[o], 0x1p-16), prod[o]);
}

// The block's four sums -> one atomicAdd each (int64 as two's complement).
// A thread's sums over its kOut outputs are non-negative and small: num_log <
// kOut * 2^16, den_log < kOut * 2^15, den_non_log <= kOut, num_non_log <
// kOut * 2^31 (vif_accumulate_pixel's terms: a log2 difference in
// [0, 2048 * 29], a log2 excess in [2048, 2048 * 15], a sigma2_sq < 2^31).
// So the warp's sums of the first three, and of num_non_log's low 24 and
// high bits, are below 2^32: one exact 32-bit warp reduction each.
__device__ __forceinline__ void add_block_sums(const VifScaleSums& s, long long (&red)[kThreads / kWarp][4],
                                               unsigned long long* out) {
  static_assert(kOut * kWarp <= 256, "the warp sums stay below 2^32");
  constexpr unsigned kAll = 0xffffffffu;
  const auto nn = static_cast<uint64_t>(s.num_non_log);
  const unsigned nl = __reduce_add_sync(kAll, static_cast<unsigned>(s.num_log));
  const unsigned dl = __reduce_add_sync(kAll, static_cast<unsigned>(s.den_log));
  const unsigned nn_lo = __reduce_add_sync(kAll, static_cast<unsigned>(nn & 0xffffffu));
  const unsigned nn_hi = __reduce_add_sync(kAll, static_cast<unsigned>(nn >> 24));
  const unsigned dn = __reduce_add_sync(kAll, static_cast<unsigned>(s.den_non_log));
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) {
    red[warp][0] = nl;
    red[warp][1] = dl;
    red[warp][2] = static_cast<long long>((uint64_t{nn_hi} << 24) + nn_lo);
    red[warp][3] = dn;
  }
  __syncthreads();
  if (threadIdx.x < 4) {
    long long t = 0;
    for (int i = 0; i < kThreads / kWarp; ++i) t += red[i][threadIdx.x];
    if (t != 0) atomicAdd(out + threadIdx.x, static_cast<unsigned long long>(t));
  }
}

// Scale S of a frame: its statistic's sums (kStats) and, for S < 3, the next
// scale's image. T is the sample type of this scale's image. One kernel, and
// so one long function: the tile's staging, both filter passes, the
// statistic and the next scale's decimation share the shared-memory tile
// they were loaded into, which split kernels would reload from global memory.
template <typename T, int S, bool kStats, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks) vif_scale_kernel(const ScaleArgs a) {
  constexpr bool kSub = S < kVifScales - 1;
  constexpr int kHalf = kVifHalf[S];
  constexpr int kNext = kSub ? kVifHalf[kSub ? S + 1 : S] : 0;
  constexpr int kCols = kTileW + 2 * kHalf;
  constexpr int kRows = kTileH + 2 * kHalf;
  // Vertical moment sums: uint32 for 8-bit samples (< 2^32, vif.h), else
  // exact doubles like the horizontal ones (< 2^48 + 2^15).
  constexpr bool kFp64V = sizeof(T) == 2;
  using VAcc = std::conditional_t<kFp64V, double, uint32_t>;
  static_assert(kCols <= kTileCols);
  __shared__ Smem<T, kHalf> sm;

  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int tx0 = x0 - kHalf, ty0 = y0 - kHalf;

  // 1. Input tile.
  if (a.align % 8 == 0 && (tx0 * sizeof(T)) % 8 == 0)
    load_tile<T, 8, kRows, kCols>(a, tx0, ty0, sm.tile);
  else if (a.align % 4 == 0 && (tx0 * sizeof(T)) % 4 == 0)
    load_tile<T, 4, kRows, kCols>(a, tx0, ty0, sm.tile);
  else
    load_tile<T, sizeof(T), kRows, kCols>(a, tx0, ty0, sm.tile);
  __syncthreads();

  // 2. Vertical pass: tile column c, output rows i (tile input rows j, tap j - i).
  const int c = tid;
  uint32_t m1[kTileH], m2[kTileH];
  VAcc vxx[kTileH], vyy[kTileH], vxy[kTileH];
  uint32_t u1[kSubRows], u2[kSubRows];
  for (int i = 0; i < kTileH; ++i) {
    m1[i] = m2[i] = 0;
    if constexpr (kFp64V)
      vxx[i] = vyy[i] = vxy[i] = double(a.sq_round);
    else
      vxx[i] = vyy[i] = vxy[i] = 0;
  }
  for (int i = 0; i < kSubRows; ++i) u1[i] = u2[i] = 0;
  if (c < kCols) {
    const T* p0 = &sm.tile[0][0][c];
    const T* q0 = &sm.tile[1][0][c];
    static_for<0, kRows>([&](auto jc) {
      constexpr int j = decltype(jc)::value;
      const uint32_t p = p0[j * kTileCols], q = q0[j * kTileCols];
      if constexpr (kStats) {
        const VAcc pp = moment_product<VAcc>(p, p), qq = moment_product<VAcc>(q, q), pq = moment_product<VAcc>(p, q);
        static_for<0, kTileH>([&](auto ic) {
          constexpr int i = decltype(ic)::value;
          constexpr int k = j - i;
          if constexpr (k >= 0 && k <= 2 * kHalf) {
            constexpr uint32_t f = vif_tap(S, k);
            m1[i] += f * p;
            m2[i] += f * q;
            vxx[i] = tap_add(vxx[i], f, pp);
            vyy[i] = tap_add(vyy[i], f, qq);
            vxy[i] = tap_add(vxy[i], f, pq);
          }
        });
      }
      if constexpr (kSub) {
        static_for<0, kSubRows>([&](auto ic) {
          constexpr int i = decltype(ic)::value;
          constexpr int k = j - 2 * i - (kHalf - kNext);
          if constexpr (k >= 0 && k <= 2 * kNext) {
            constexpr uint32_t f = vif_tap(kSub ? S + 1 : S, k);
            u1[i] += f * p;
            u2[i] += f * q;
          }
        });
      }
    });
  }
  __syncthreads();  // the tile is dead: its space takes the vertical results
  if (c < kCols) {
    if constexpr (kStats)
      for (int r = 0; r < kTileH; ++r) {
        const int i = r;
        const uint32_t mu1 = (m1[i] + a.mu_round) >> a.mu_shift, mu2 = (m2[i] + a.mu_round) >> a.mu_shift;
        sm.v.mu[r][c] = mu1 | (mu2 << 16);
        if constexpr (kFp64V) {  // the accumulators started at sq_round
          sm.v.mom[0][r][c] = moment_of(vxx[i], a.sq_scale);
          sm.v.mom[1][r][c] = moment_of(vyy[i], a.sq_scale);
          sm.v.mom[2][r][c] = moment_of(vxy[i], a.sq_scale);
        } else {
          // 8-bit samples: sq_shift is 0, the sums are the moments.
          sm.v.mom[0][r][c] = vxx[i];
          sm.v.mom[1][r][c] = vyy[i];
          sm.v.mom[2][r][c] = vxy[i];
        }
      }
    if constexpr (kSub)
      for (int r = 0; r < kSubRows; ++r) {
        const int i = r;
        sm.v.sub[0][r][c] = static_cast<uint16_t>((u1[i] + a.mu_round) >> a.mu_shift);
        sm.v.sub[1][r][c] = static_cast<uint16_t>((u2[i] + a.mu_round) >> a.mu_shift);
      }
  }
  __syncthreads();

  // 3. Horizontal pass and the per-pixel step: row `row`, outputs at tile
  // columns xb + o (their taps start at tile column xb + o).
  if constexpr (kStats) {
    const int row = tid / kSegs, xb = (tid % kSegs) * kOut;
    uint32_t h1[kOut], h2[kOut];
    for (int o = 0; o < kOut; ++o) h1[o] = h2[o] = 0;
    const uint32_t* mu = &sm.v.mu[row][xb];
    static_for<0, kOut + 2 * kHalf>([&](auto jc) {
      constexpr int j = decltype(jc)::value;
      const uint32_t v = mu[j];
      const uint32_t v1 = v & 0xffffu, v2 = v >> 16;
      static_for<0, kOut>([&](auto oc) {
        constexpr int o = decltype(oc)::value;
        constexpr int k = j - o;
        if constexpr (k >= 0 && k <= 2 * kHalf) {
          h1[o] += vif_tap(S, k) * v1;
          h2[o] += vif_tap(S, k) * v2;
        }
      });
    });
    uint32_t p11[kOut], p22[kOut], p12[kOut];
    for (int o = 0; o < kOut; ++o) {
      p11[o] = vif_mu_product(h1[o], h1[o]);
      p22[o] = vif_mu_product(h2[o], h2[o]);
      p12[o] = vif_mu_product(h1[o], h2[o]);
    }
    int32_t s1[kOut], s2[kOut], s12[kOut];
    moment_row<S, kHalf>(&sm.v.mom[0][row][xb], p11, s1);
    moment_row<S, kHalf>(&sm.v.mom[1][row][xb], p22, s2);
    moment_row<S, kHalf>(&sm.v.mom[2][row][xb], p12, s12);
    VifScaleSums acc;
    const int y = y0 + row;
    for (int o = 0; o < kOut; ++o)
      if (y < a.h && x0 + xb + o < a.w) vif_accumulate_pixel(s1[o], s2[o], s12[o], a.egl, a.table, acc);
    add_block_sums(acc, sm.red, a.sums);
  }

  // 4. The next scale's samples: sub row r at even row 2r, column j at even
  // column 2j (tile column 2j + kHalf).
  if constexpr (kSub) {
    const int w2 = a.w / 2, h2 = a.h / 2;
    constexpr int kPer = kSubRows * kSubCols;
    for (int e = tid; e < 2 * kPer; e += kThreads) {
      const int p = e / kPer, rem = e - p * kPer;
      const int r = rem / kSubCols, j = rem - r * kSubCols;
      const int oy = y0 / 2 + r, ox = x0 / 2 + j;
      if (oy >= h2 || ox >= w2) continue;
      const uint16_t* src = &sm.v.sub[p][r][2 * j + kHalf - kNext];
      uint32_t acc = 0;
      static_for<0, 2 * kNext + 1>([&](auto kc) {
        constexpr int k = decltype(kc)::value;
        acc += vif_tap(kSub ? S + 1 : S, k) * src[k];
      });
      uint16_t* dst = p ? a.next_dis : a.next_ref;
      reinterpret_cast<uint16_t*>(reinterpret_cast<uint8_t*>(dst) + static_cast<std::size_t>(oy) * a.next_pitch)[ox] =
          static_cast<uint16_t>((acc + 32768) >> 16);
    }
  }
}

// Three blocks per SM for the statistic kernels (at most 85 registers: a
// few bytes of spills, 5-20% faster per frame on the H200 than the 96-134
// registers the compiler picks on its own); the subsample-only kernel of
// vif_skip_scale0 needs 52.
template <typename T, int S, bool kStats>
cudaError_t enqueue(const ScaleArgs& sa, cudaStream_t st) {
  constexpr int kMinBlocks = kStats ? 3 : 1;
  const dim3 grid(static_cast<unsigned>((sa.w + kTileW - 1) / kTileW), static_cast<unsigned>((sa.h + kTileH - 1) / kTileH));
  vif_scale_kernel<T, S, kStats, kMinBlocks><<<grid, kThreads, 0, st>>>(sa);
  return cudaGetLastError();
}

cudaError_t enqueue_scale(int s, bool bytes, bool stats, const ScaleArgs& sa, cudaStream_t st) {
  switch (s) {
    case 0:
      if (bytes) return stats ? enqueue<uint8_t, 0, true>(sa, st) : enqueue<uint8_t, 0, false>(sa, st);
      return stats ? enqueue<uint16_t, 0, true>(sa, st) : enqueue<uint16_t, 0, false>(sa, st);
    case 1: return enqueue<uint16_t, 1, true>(sa, st);
    case 2: return enqueue<uint16_t, 2, true>(sa, st);
    default: return enqueue<uint16_t, 3, true>(sa, st);
  }
}

}  // namespace

cudaError_t vif_frame(const VifFrameArgs& a, cudaStream_t stream) {
  const auto alignment = [](std::uintptr_t bits) { return bits % 8 == 0 ? 8 : bits % 4 == 0 ? 4 : bits % 2 == 0 ? 2 : 1; };
  for (int s = 0; s < kVifScales; ++s) {
    ScaleArgs sa{};
    if (s == 0) {
      sa.ref = a.ref;
      sa.dis = a.dis;
      sa.pitch = a.pitch;
      sa.mu_round = 1u << (a.bpc - 1);
      sa.mu_shift = a.bpc;
      sa.sq_shift = 2 * (a.bpc - 8);
      sa.sq_round = sa.sq_shift ? 1u << (sa.sq_shift - 1) : 0u;
    } else {
      sa.ref = reinterpret_cast<const uint8_t*>(a.scratch[s][0]);
      sa.dis = reinterpret_cast<const uint8_t*>(a.scratch[s][1]);
      sa.pitch = a.scratch_pitch[s];
      sa.mu_round = 32768;
      sa.mu_shift = 16;
      sa.sq_round = 32768;
      sa.sq_shift = 16;
    }
    sa.sq_scale = 1.0 / double(1u << sa.sq_shift);  // exact: a power of two
    sa.w = a.w >> s;
    sa.h = a.h >> s;
    sa.align = alignment(reinterpret_cast<std::uintptr_t>(sa.ref) | reinterpret_cast<std::uintptr_t>(sa.dis) | sa.pitch);
    if (s + 1 < kVifScales) {
      sa.next_ref = a.scratch[s + 1][0];
      sa.next_dis = a.scratch[s + 1][1];
      sa.next_pitch = a.scratch_pitch[s + 1];
    }
    sa.table = a.log2_table;
    sa.egl = a.egl;
    sa.sums = a.sums + 4 * s;
    const bool stats = !(s == 0 && a.skip_scale0);
    const cudaError_t e = enqueue_scale(s, a.bpc == 8, stats, sa, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace twinmaf::cuda
