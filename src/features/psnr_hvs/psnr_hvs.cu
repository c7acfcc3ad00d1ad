// psnr_hvs CUDA kernels: libvmaf's per-plane running float sum ret, exactly,
// in three steps (base/ordered_sum.h has the arithmetic and the argument):
//   1. one thread per 8x8 block: the shared scalar block kernel (the CPU's
//      operations in the CPU's order; --fmad=false, IEEE division and sqrt),
//      its 64 terms stored in order, then the leaf's info and 24 increment
//      pairs from those terms (integers). One kernel: a separate steps kernel
//      at higher occupancy measured slower on the H200 (0.50 vs 0.43 ms per
//      4K 4:2:0 frame, all stages);
//   2. one launch per tree level: one thread per (node, binade) composes its
//      <= 32 children's increments (integers, saturating);
//   3. one warp per plane walks the tree in libvmaf's order: 32 children at a
//      time, their increments combined by a warp scan (the composition is
//      associative and exact), the first child that must be entered found by
//      a ballot; leaves where r changes binade are summed as floats.
// Nothing here is a float reduction in another order: the only float sums
// are ordered_sum_leaf_add's, in sequence.
#include "features/psnr_hvs/psnr_hvs_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

__constant__ float c_csf[3][64];
__constant__ float c_mask[3][64];

constexpr int kLeafThreads = 128;
constexpr int kNodeThreads = 256;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kWindow = OrderedSumFormat<float>::kWindow;

// The plane of a flattened entry index of one level; *local is the index
// inside the plane. Planes without entries at that level are passed over.
__device__ __forceinline__ int plane_of(const PsnrHvsLaunch& l, int level, int g, int* local) {
  int p = 0;
  for (int q = 0; q < 3; ++q) {
    const PsnrHvsPlaneGeometry& pg = l.plane[q];
    const int n = pg.levels > level ? pg.count[level] : 0;
    if (g < n) {
      p = q;
      break;
    }
    g -= n;
  }
  *local = g;
  return p;
}

template <typename T>
__global__ void __launch_bounds__(kLeafThreads) leaf_kernel(PsnrHvsLaunch l) {
  const int g = static_cast<int>(blockIdx.x) * kLeafThreads + static_cast<int>(threadIdx.x);
  if (g >= l.leaves) return;
  int b = 0;
  const int p = plane_of(l, 0, g, &b);
  const PsnrHvsPlaneGeometry& pg = l.plane[p];
  const int x0 = (b % pg.nbx) * kPsnrHvsStep, y0 = (b / pg.nbx) * kPsnrHvsStep;
  int32_t s[64], d[64];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const T* rs = row_ptr<T>(pg.ref, pg.pitch, y0 + i) + x0;
    const T* rd = row_ptr<T>(pg.dis, pg.pitch, y0 + i) + x0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      s[8 * i + j] = rs[j];
      d[8 * i + j] = rd[j];
    }
  }
  float t[64];
  psnr_hvs_block_terms<int32_t, float>(s, d, c_csf[p], c_mask[p], t);
  float* out = l.terms + static_cast<size_t>(g) * kPsnrHvsTerms;
  float4* out4 = reinterpret_cast<float4*>(out);
#pragma unroll
  for (int k = 0; k < 16; ++k) out4[k] = make_float4(t[4 * k], t[4 * k + 1], t[4 * k + 2], t[4 * k + 3]);
  // The leaf's steps from the stored terms (this thread's own writes).
  OrderedSumSteps<float> steps[kWindow];
  const uint32_t info = ordered_sum_leaf_steps(out, kPsnrHvsTerms, steps);
  l.info[g] = info;
  OrderedSumSteps<float>* so = l.steps + static_cast<size_t>(g) * kWindow;
#pragma unroll
  for (int j = 0; j < kWindow; ++j) so[j] = steps[j];
}

// Leaf steps of terms already in l.terms (psnr_hvs_sum_terms: the reduction
// alone, for tests on arbitrary term sequences).
__global__ void __launch_bounds__(kLeafThreads) leaf_steps_kernel(PsnrHvsLaunch l) {
  const int g = static_cast<int>(blockIdx.x) * kLeafThreads + static_cast<int>(threadIdx.x);
  if (g >= l.leaves) return;
  OrderedSumSteps<float> steps[kWindow];
  l.info[g] = ordered_sum_leaf_steps(l.terms + static_cast<size_t>(g) * kPsnrHvsTerms, kPsnrHvsTerms, steps);
  OrderedSumSteps<float>* so = l.steps + static_cast<size_t>(g) * kWindow;
#pragma unroll
  for (int j = 0; j < kWindow; ++j) so[j] = steps[j];
}

__global__ void __launch_bounds__(kNodeThreads) node_kernel(PsnrHvsLaunch l, int level) {
  const int tid = static_cast<int>(blockIdx.x) * kNodeThreads + static_cast<int>(threadIdx.x);
  if (tid >= l.level_total[level] * kWindow) return;
  const int j = tid % kWindow;
  int i = 0;
  const int p = plane_of(l, level, tid / kWindow, &i);
  const PsnrHvsPlaneGeometry& pg = l.plane[p];
  const int first = i * kOrderedSumFanout;
  const int rest = pg.count[level - 1] - first;
  const int n = rest < kOrderedSumFanout ? rest : kOrderedSumFanout;
  const int child = pg.node_begin[level - 1] + first;
  const uint32_t* ci = l.info + child;
  const OrderedSumSteps<float>* cs = l.steps + static_cast<size_t>(child) * kWindow;
  const uint32_t info = ordered_sum_node_info<float>(ci, n);
  const int self = pg.node_begin[level] + i;
  l.steps[static_cast<size_t>(self) * kWindow + j] = ordered_sum_node_step(ci, cs, n, info, j);
  if (j == 0) l.info[self] = info;
}

// ordered_sum_walk's scanner for one warp: the same decisions as
// OrderedSumSequentialScan, 32 entries at a time. Lane i takes entry c + i; an
// inclusive scan of the increment pairs gives each lane the increment of
// entries c .. c+i together; the first lane that must be entered, or whose
// prefix no longer fits r's binade, stops the run; r takes the prefix before
// it. Every lane holds the same r, c and level throughout.
struct WarpScan {
  int lane;

  __device__ int advance(const OrderedSumTree<float>& t, int level, int c, int end, uint32_t& r) const {
    const uint32_t* info = t.info[level];
    const OrderedSumSteps<float>* steps = t.steps[level];
    while (c < end) {
      const int i = c + lane;
      const bool in = i < end;
      OrderedSumSteps<float> s;
      const int e = in ? ordered_sum_effect(r, info[i], steps + static_cast<size_t>(i) * kWindow, &s)
                       : static_cast<int>(kOrderedSumSkip);
      OrderedSumSteps<float> pre = s;
#pragma unroll
      for (int dist = 1; dist < kWarp; dist <<= 1) {
        OrderedSumSteps<float> q;
        q.even = __shfl_up_sync(kFull, pre.even, dist);
        q.odd = __shfl_up_sync(kFull, pre.odd, dist);
        if (lane >= dist) pre = ordered_sum_then(q, pre);
      }
      const bool stop = in && (e == kOrderedSumEnter || (e == kOrderedSumAdd && !ordered_sum_fits(r, pre)));
      const unsigned bad = __ballot_sync(kFull, stop);
      const int n = end - c < kWarp ? end - c : kWarp;
      const int k = bad ? __ffs(static_cast<int>(bad)) - 1 : n;
      if (k > 0) {
        OrderedSumSteps<float> done;
        done.even = __shfl_sync(kFull, pre.even, k - 1);
        done.odd = __shfl_sync(kFull, pre.odd, k - 1);
        r = ordered_sum_apply(r, done);
      }
      if (k < n) return c + k;
      c += kWarp;
    }
    return end;
  }

  __device__ void leaf(const OrderedSumTree<float>& t, int c, uint32_t& r) const {
    r = ordered_sum_leaf_add(r, t.terms + static_cast<size_t>(c) * kPsnrHvsTerms, kPsnrHvsTerms);
  }
};

__global__ void __launch_bounds__(kWarp) walk_kernel(PsnrHvsLaunch l, uint32_t* ret) {
  const PsnrHvsPlaneGeometry& pg = l.plane[blockIdx.x];
  if (pg.levels == 0) return;
  OrderedSumTree<float> tree;
  tree.levels = pg.levels;
  tree.leaf = kPsnrHvsTerms;
  for (int level = 0; level < pg.levels; ++level) {
    tree.count[level] = pg.count[level];
    tree.info[level] = l.info + pg.node_begin[level];
    tree.steps[level] = l.steps + static_cast<size_t>(pg.node_begin[level]) * kWindow;
  }
  tree.terms = l.terms + static_cast<size_t>(pg.node_begin[0]) * kPsnrHvsTerms;
  WarpScan scan{static_cast<int>(threadIdx.x)};
  const uint32_t r = ordered_sum_walk(tree, scan);
  if (threadIdx.x == 0) ret[blockIdx.x] = r;
}

}  // namespace

cudaError_t psnr_hvs_set_tables(const float csf[3][64], const float mask[3][64]) {
  cudaError_t e = cudaMemcpyToSymbol(c_csf, csf, sizeof(c_csf));
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(c_mask, mask, sizeof(c_mask));
  return e;
}

namespace {

// Levels >= 1 and the walks.
cudaError_t reduce(const PsnrHvsLaunch& l, uint32_t* ret, cudaStream_t stream) {
  for (int level = 1; level < l.levels; ++level) {
    const int threads = l.level_total[level] * kWindow;
    node_kernel<<<static_cast<unsigned>((threads + kNodeThreads - 1) / kNodeThreads), kNodeThreads, 0, stream>>>(
        l, level);
  }
  walk_kernel<<<3, kWarp, 0, stream>>>(l, ret);
  return cudaGetLastError();
}

unsigned leaf_grid(const PsnrHvsLaunch& l) {
  return static_cast<unsigned>((l.leaves + kLeafThreads - 1) / kLeafThreads);
}

}  // namespace

cudaError_t psnr_hvs_enqueue(const PsnrHvsLaunch& l, uint32_t* ret, cudaStream_t stream) {
  if (l.leaves == 0) return cudaSuccess;
  if (l.bpc > 8)
    leaf_kernel<uint16_t><<<leaf_grid(l), kLeafThreads, 0, stream>>>(l);
  else
    leaf_kernel<uint8_t><<<leaf_grid(l), kLeafThreads, 0, stream>>>(l);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : reduce(l, ret, stream);
}

cudaError_t psnr_hvs_sum_terms(const PsnrHvsLaunch& l, uint32_t* ret, cudaStream_t stream) {
  if (l.leaves == 0) return cudaSuccess;
  leaf_steps_kernel<<<leaf_grid(l), kLeafThreads, 0, stream>>>(l);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : reduce(l, ret, stream);
}

}  // namespace twinmaf::cuda
