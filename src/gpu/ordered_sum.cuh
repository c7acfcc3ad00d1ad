// Device side of the exact ordered float sum (base/ordered_sum.h has the
// arithmetic and the argument), for any F, leaf size kLeaf and number of
// sequences kTrees of an OrderedSumForest. Included by .cu files only:
//   1. leaf steps: one thread per leaf computes its info and kWindow
//      increment pairs from its kLeaf terms (integers). A twin that produces
//      its terms in a kernel of its own calls ordered_sum_store_leaf there
//      (one kernel, no second pass over the terms); ordered_sum_enqueue_terms
//      runs it over terms already in memory;
//   2. one launch per tree level: one thread per (node, binade) composes its
//      <= 32 children's increments (integers, saturating);
//   3. one warp per tree walks it in order: 32 children at a time, their
//      increments combined by a warp scan (the composition is associative and
//      exact), the first child that must be entered found by a ballot; leaves
//      where r changes binade are summed as floats.
// Nothing here is a float reduction in another order: the only float sums are
// ordered_sum_leaf_add's, in sequence. Files including this build with
// --fmad=false.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/ordered_sum.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

inline constexpr int kOrderedSumLeafThreads = 128;
inline constexpr int kOrderedSumNodeThreads = 256;

// The tree of a flattened entry index of one level; *local is the index
// inside the tree. Trees without entries at that level are passed over.
template <typename F, int kLeaf, int kTrees>
__device__ __forceinline__ int ordered_sum_tree_of(const OrderedSumForest<F, kLeaf, kTrees>& f, int level, int g,
                                                   int* local) {
  int tree = 0;
  for (int q = 0; q < kTrees; ++q) {
    const OrderedSumTreeGeometry& tg = f.tree[q];
    const int n = tg.levels > level ? tg.count[level] : 0;
    if (g < n) {
      tree = q;
      break;
    }
    g -= n;
  }
  *local = g;
  return tree;
}

// Info and increments of leaf g (all trees' leaves numbered in order) from
// its kLeaf terms at `terms`.
template <typename F, int kLeaf, int kTrees>
__device__ __forceinline__ void ordered_sum_store_leaf(const OrderedSumForest<F, kLeaf, kTrees>& f, int g,
                                                       const F* terms) {
  constexpr int kWindow = OrderedSumFormat<F>::kWindow;
  OrderedSumSteps<F> steps[kWindow];
  f.info[g] = ordered_sum_leaf_steps(terms, kLeaf, steps);
  OrderedSumSteps<F>* so = f.steps + static_cast<std::size_t>(g) * kWindow;
#pragma unroll
  for (int j = 0; j < kWindow; ++j) so[j] = steps[j];
}

template <typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kOrderedSumLeafThreads)
    ordered_sum_leaf_kernel(OrderedSumForest<F, kLeaf, kTrees> f) {
  const int g = static_cast<int>(blockIdx.x) * kOrderedSumLeafThreads + static_cast<int>(threadIdx.x);
  if (g >= f.leaves) return;
  ordered_sum_store_leaf(f, g, f.terms + static_cast<std::size_t>(g) * kLeaf);
}

template <typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kOrderedSumNodeThreads)
    ordered_sum_node_kernel(OrderedSumForest<F, kLeaf, kTrees> f, int level) {
  constexpr int kWindow = OrderedSumFormat<F>::kWindow;
  const int tid = static_cast<int>(blockIdx.x) * kOrderedSumNodeThreads + static_cast<int>(threadIdx.x);
  if (tid >= f.level_total[level] * kWindow) return;
  const int j = tid % kWindow;
  int i = 0;
  const OrderedSumTreeGeometry& tg = f.tree[ordered_sum_tree_of(f, level, tid / kWindow, &i)];
  const int first = i * kOrderedSumFanout;
  const int rest = tg.count[level - 1] - first;
  const int n = rest < kOrderedSumFanout ? rest : kOrderedSumFanout;
  const int child = tg.node_begin[level - 1] + first;
  const uint32_t* ci = f.info + child;
  const OrderedSumSteps<F>* cs = f.steps + static_cast<std::size_t>(child) * kWindow;
  const uint32_t info = ordered_sum_node_info<F>(ci, n);
  const int self = tg.node_begin[level] + i;
  f.steps[static_cast<std::size_t>(self) * kWindow + j] = ordered_sum_node_step(ci, cs, n, info, j);
  if (j == 0) f.info[self] = info;
}

// ordered_sum_walk's scanner for one warp: the same decisions as
// OrderedSumSequentialScan, 32 entries at a time. Lane i takes entry c + i;
// an inclusive scan of the increment pairs gives each lane the increment of
// entries c .. c+i together; the first lane that must be entered, or whose
// prefix no longer fits r's binade, stops the run; r takes the prefix before
// it. Every lane holds the same r, c and level throughout. Leaves are kLeaf
// terms (the tree's `leaf`, fixed at compile time).
template <typename F, int kLeaf>
struct OrderedSumWarpScan {
  using Uint = typename OrderedSumFormat<F>::Uint;
  static constexpr unsigned kFull = 0xffffffffu;
  int lane;

  __device__ int advance(const OrderedSumTree<F>& t, int level, int c, int end, Uint& r) const {
    constexpr int kWindow = OrderedSumFormat<F>::kWindow;
    const uint32_t* info = t.info[level];
    const OrderedSumSteps<F>* steps = t.steps[level];
    while (c < end) {
      const int i = c + lane;
      const bool in = i < end;
      OrderedSumSteps<F> s;
      const int e = in ? ordered_sum_effect(r, info[i], steps + static_cast<std::size_t>(i) * kWindow, &s)
                       : static_cast<int>(kOrderedSumSkip);
      OrderedSumSteps<F> pre = s;
#pragma unroll
      for (int dist = 1; dist < kWarp; dist <<= 1) {
        OrderedSumSteps<F> q;
        q.even = __shfl_up_sync(kFull, pre.even, dist);
        q.odd = __shfl_up_sync(kFull, pre.odd, dist);
        if (lane >= dist) pre = ordered_sum_then(q, pre);
      }
      const bool stop = in && (e == kOrderedSumEnter || (e == kOrderedSumAdd && !ordered_sum_fits(r, pre)));
      const unsigned bad = __ballot_sync(kFull, stop);
      const int n = end - c < kWarp ? end - c : kWarp;
      const int k = bad ? __ffs(static_cast<int>(bad)) - 1 : n;
      if (k > 0) {
        OrderedSumSteps<F> done;
        done.even = __shfl_sync(kFull, pre.even, k - 1);
        done.odd = __shfl_sync(kFull, pre.odd, k - 1);
        r = ordered_sum_apply(r, done);
      }
      if (k < n) return c + k;
      c += kWarp;
    }
    return end;
  }

  __device__ void leaf(const OrderedSumTree<F>& t, int c, Uint& r) const {
    r = ordered_sum_leaf_add(r, t.terms + static_cast<std::size_t>(c) * kLeaf, kLeaf);
  }
};

// One warp per tree (block i walks tree i): ret[i] = the bits of its sum.
template <typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kWarp)
    ordered_sum_walk_kernel(OrderedSumForest<F, kLeaf, kTrees> f, typename OrderedSumFormat<F>::Uint* ret) {
  const OrderedSumTreeGeometry& tg = f.tree[blockIdx.x];
  if (tg.levels == 0) return;
  OrderedSumTree<F> tree;
  tree.levels = tg.levels;
  tree.leaf = kLeaf;
  for (int level = 0; level < tg.levels; ++level) {
    tree.count[level] = tg.count[level];
    tree.info[level] = f.info + tg.node_begin[level];
    tree.steps[level] = f.steps + static_cast<std::size_t>(tg.node_begin[level]) * OrderedSumFormat<F>::kWindow;
  }
  tree.terms = f.terms + static_cast<std::size_t>(tg.node_begin[0]) * kLeaf;
  OrderedSumWarpScan<F, kLeaf> scan{static_cast<int>(threadIdx.x)};
  const typename OrderedSumFormat<F>::Uint r = ordered_sum_walk(tree, scan);
  if (threadIdx.x == 0) ret[blockIdx.x] = r;
}

// Steps 2 and 3 on `stream`, once every leaf's info and steps are stored:
// the node levels, then ret[i] = the bits of tree i's sum (trees without
// leaves are left alone).
template <typename F, int kLeaf, int kTrees>
cudaError_t ordered_sum_reduce(const OrderedSumForest<F, kLeaf, kTrees>& f, typename OrderedSumFormat<F>::Uint* ret,
                               cudaStream_t stream) {
  for (int level = 1; level < f.levels; ++level) {
    const int threads = f.level_total[level] * OrderedSumFormat<F>::kWindow;
    ordered_sum_node_kernel<<<static_cast<unsigned>((threads + kOrderedSumNodeThreads - 1) / kOrderedSumNodeThreads),
                              kOrderedSumNodeThreads, 0, stream>>>(f, level);
  }
  ordered_sum_walk_kernel<<<kTrees, kWarp, 0, stream>>>(f, ret);
  return cudaGetLastError();
}

// The whole reduction of terms already in f.terms (every tree's leaves in
// order, the last leaf of each padded with +0).
template <typename F, int kLeaf, int kTrees>
cudaError_t ordered_sum_enqueue_terms(const OrderedSumForest<F, kLeaf, kTrees>& f,
                                      typename OrderedSumFormat<F>::Uint* ret, cudaStream_t stream) {
  if (f.leaves == 0) return cudaSuccess;
  ordered_sum_leaf_kernel<<<static_cast<unsigned>((f.leaves + kOrderedSumLeafThreads - 1) / kOrderedSumLeafThreads),
                            kOrderedSumLeafThreads, 0, stream>>>(f);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : ordered_sum_reduce(f, ret, stream);
}

}  // namespace twinmaf::cuda
