// adm CUDA kernels: the CPU's AdmTerms on the device, equal to adm_terms_ref
// (adm.h's contract; the tile decomposition and why it is exact in adm_tile.h;
// the per-sample arithmetic is adm_math.h, shared with the CPU reference).
//
// Per frame: one fused kernel per scale (DWT + decouple + CSF + masking +
// denominator over kTileW x kTileH tiles in shared memory; band a of scales
// 0-2 goes to device scratch for the next scale; per-row sums of the 9 terms
// are added across tiles with 64-bit integer atomics), then one fold kernel
// that applies the per-row rounding shifts to the complete rows, sums them
// into the terms block and re-zeroes the row sums for the next frame.
#include "features/adm/adm_kernels.h"
#include "features/adm/adm_tile.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

using adm::kHaloH;
using adm::kHaloW;
using adm::kMaskLanes;
using adm::kMaskRun;
using adm::kRowTerms;
using adm::kTileH;
using adm::kTileThreads;
using adm::kTileW;
using adm::kVertW;

static_assert(kRowTerms == kAdmRowTerms);
static_assert(kWarp % kMaskLanes == 0, "stage C: a tile row's items are aligned lanes of one warp");
// Threads per block: scale 0 (thousands of tiles at 1080p and up) uses
// kTileThreads, four blocks per SM; scales 1-3 (tens to hundreds of tiles,
// often less than one wave, where a block's latency is the kernel's time) use
// twice as many, so stage B (kHaloH x kHaloW items) takes one round instead of
// two.
constexpr int kSmallScaleThreads = 2 * kTileThreads;
static_assert(kTileThreads % kWarp == 0);
// Both sizes keep four blocks' (kTileThreads) worth of threads per SM: at most
// 51 registers at scale 0.
constexpr int blocks_per_sm(int threads) { return 4 * kTileThreads / threads; }

// Sum over the kMaskLanes aligned lanes `lanes` of one tile row.
__device__ __forceinline__ unsigned long long row_sum(unsigned lanes, unsigned long long v) {
  for (int o = kMaskLanes / 2; o > 0; o >>= 1) v += __shfl_xor_sync(lanes, v, o, kMaskLanes);
  return v;
}

template <typename Src, typename Math, int kThreads>
__global__ void __launch_bounds__(kThreads, blocks_per_sm(kThreads))
    adm_scale_kernel(adm::TileScale g, Src ref, Src dis, int32_t* a_ref, int32_t* a_dis, unsigned long long* rows) {
  __shared__ adm::TileSmem sm;
  const int x0 = static_cast<int>(blockIdx.x) * kTileW, y0 = static_cast<int>(blockIdx.y) * kTileH;
  const bool pw = adm::tile_pointwise(g, x0, y0);  // uniform over the block
  if (!pw && !g.a_out) return;
  const int tid = static_cast<int>(threadIdx.x);
  // A: vertical pass, items [pic][row run][column] (consecutive threads read
  // consecutive columns).
  for (int i = tid; i < adm::kVertItems; i += kThreads) {
    constexpr int kPerPic = adm::kVertItems / 2;
    const int pic = i / kPerPic, rem = i - pic * kPerPic;
    const int run = rem / kVertW, c = rem - run * kVertW;
    const int r0 = run * adm::kVertRows;
    adm::tile_vertical(g, pic ? dis : ref, x0, y0, c, r0, pw, sm.lo[pic], sm.hi[pic]);
  }
  __syncthreads();
  // B: horizontal pass, band a, pointwise stages.
  for (int i = tid; i < kHaloH * kHaloW; i += kThreads) {
    const int r = i / kHaloW;
    adm::tile_point<Math>(g, sm, x0, y0, r, i - r * kHaloW, pw, a_ref, a_dis);
  }
  if (!pw) return;
  __syncthreads();
  // C: masking and denominator, kMaskLanes items (aligned lanes of one warp)
  // per tile row; their sums reduced over those lanes, row sums to global.
  for (int i = tid; i < kTileH * kMaskLanes; i += kThreads) {
    const int r = i / kMaskLanes, seg = i % kMaskLanes;
    if (!adm::tile_row_active(g, x0, y0 + r)) continue;  // uniform over the row's lanes
    uint64_t v[kRowTerms];
    adm::tile_mask_run<Math::kS0>(g, sm, x0, y0, r, seg * kMaskRun, v);
    const unsigned lanes = ((1u << kMaskLanes) - 1) << (tid % kWarp - seg);
    unsigned long long* out = rows + static_cast<std::size_t>(y0 + r) * kRowTerms;
#pragma unroll
    for (int q = 0; q < kRowTerms; ++q) {
      if (q >= 6 && !g.aim) break;
      const unsigned long long s = row_sum(lanes, static_cast<unsigned long long>(v[q]));
      if (seg == 0 && s) atomicAdd(out + q, s);
    }
  }
}

struct FoldScale {
  unsigned long long* rows;
  int top, bottom;
  int den_row_shift, cm_row_shift;
};
struct FoldArgs {
  FoldScale scale[4];
};

constexpr int kFoldThreads = 256;

// Block (q, s): term q of scale s over the rows of the masking region.
__global__ void __launch_bounds__(kFoldThreads) adm_fold_kernel(FoldArgs f, unsigned long long* terms) {
  const int q = static_cast<int>(blockIdx.x), s = static_cast<int>(blockIdx.y);
  FoldScale fs = f.scale[0];
#pragma unroll
  for (int k = 1; k < 4; ++k)
    if (s == k) fs = f.scale[k];  // selects, not a dynamically indexed parameter copy
  unsigned long long acc = 0;
  for (int y = fs.top + static_cast<int>(threadIdx.x); y < fs.bottom; y += kFoldThreads) {
    unsigned long long* p = fs.rows + static_cast<std::size_t>(y) * kRowTerms + q;
    acc += adm::fold_row(*p, q, fs.den_row_shift, fs.cm_row_shift);
    *p = 0;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) terms[s * kRowTerms + q] = acc;
}

dim3 tile_grid(const adm::TileScale& g) {
  return dim3(static_cast<unsigned>((g.w + kTileW - 1) / kTileW), static_cast<unsigned>((g.h + kTileH - 1) / kTileH));
}

}  // namespace

cudaError_t adm_terms(const uint8_t* ref, std::size_t ref_pitch, const uint8_t* dis, std::size_t dis_pitch,
                      const AdmKernelParams& p, const AdmScratch& scratch, unsigned long long* terms,
                      cudaStream_t stream) {
  for (int s = 0; s < 4; ++s) {
    const adm::TileScale g = adm::tile_scale(p, s);
    int32_t* a_ref = s < 3 ? scratch.band_a[s][0] : nullptr;
    int32_t* a_dis = s < 3 ? scratch.band_a[s][1] : nullptr;
    if (s == 0) {
      if (p.bpc == 8)
        adm_scale_kernel<adm::PlaneSrc<uint8_t>, adm::Scale0Math, kTileThreads><<<tile_grid(g), kTileThreads, 0, stream>>>(
            g, {ref, ref_pitch}, {dis, dis_pitch}, a_ref, a_dis, scratch.rows[0]);
      else
        adm_scale_kernel<adm::PlaneSrc<uint16_t>, adm::Scale0Math, kTileThreads><<<tile_grid(g), kTileThreads, 0, stream>>>(
            g, {ref, ref_pitch}, {dis, dis_pitch}, a_ref, a_dis, scratch.rows[0]);
    } else {
      const int in_stride = p.scale[s - 1].w;
      adm_scale_kernel<adm::BandSrc, adm::Scale123Math, kSmallScaleThreads>
          <<<tile_grid(g), kSmallScaleThreads, 0, stream>>>(
          g, {scratch.band_a[s - 1][0], in_stride}, {scratch.band_a[s - 1][1], in_stride}, a_ref, a_dis,
          scratch.rows[s]);
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  FoldArgs f{};
  for (int s = 0; s < 4; ++s)
    f.scale[s] = FoldScale{scratch.rows[s], p.scale[s].cm.top, p.scale[s].cm.bottom, p.scale[s].den_row_shift,
                           p.scale[s].cm_row_shift};
  adm_fold_kernel<<<dim3(kRowTerms, 4), kFoldThreads, 0, stream>>>(f, terms);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
