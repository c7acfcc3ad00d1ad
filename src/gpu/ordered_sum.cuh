// Device side of the exact ordered float sum (base/ordered_sum.h has the
// arithmetic and the argument), for any F, leaf size kLeaf and number of
// sequences kTrees of an OrderedSumForest, over terms already in f.terms.
// Passes, each over every tree of the forest at once:
//   1. totals: one thread per leaf (its info and the sum of its terms, read
//      from shared memory), then per node level, one thread per node (its
//      children's);
//   2. predictions: one thread per tree turns its top level's sums into
//      predictions, then, level by level downwards, one thread per node its
//      children's;
//   3. kept increments: one thread per leaf from its terms and prediction,
//      then per node level one warp per node, composing its children's in a
//      shuffle tree (integers, saturating; the same pairs as the host
//      model's loop, the composition being associative);
//   4. one warp per tree walks it in order: 32 children at a time, their
//      increments combined by a warp scan (the composition is associative and
//      exact), the first child that must be entered found by a ballot; leaves
//      where r changes binade are summed as floats.
// Nothing here is a float reduction in another order that reaches a result:
// the double sums of passes 1 and 2 only choose which increments are kept,
// and the only float sums of the result are ordered_sum_leaf_add's, in
// sequence. Files including this build with --fmad=false.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/ordered_sum.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

inline constexpr int kOrderedSumThreads = 128;
inline constexpr int kOrderedSumWarpNodes = kOrderedSumThreads / kWarp;  // per block, a warp per node

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

// Node g of `level` (flattened over the trees): *self, and its n children at
// level - 1.
template <typename F, int kLeaf, int kTrees>
__device__ __forceinline__ OrderedSumEntry<F>* ordered_sum_children(const OrderedSumForest<F, kLeaf, kTrees>& f,
                                                                    int level, int g, OrderedSumEntry<F>** self,
                                                                    int* n) {
  int i = 0;
  const OrderedSumTreeGeometry& tg = f.tree[ordered_sum_tree_of(f, level, g, &i)];
  const int first = i * kOrderedSumFanout;
  const int rest = tg.count[level - 1] - first;
  *n = rest < kOrderedSumFanout ? rest : kOrderedSumFanout;
  *self = f.entries + tg.node_begin[level] + i;
  return f.entries + tg.node_begin[level - 1] + first;
}

// Leaf kernels: one warp per 32 leaves, one thread per leaf running the host
// model's own leaf function on its terms. The warp first copies its leaves'
// terms, one contiguous range, to shared memory (coalesced; rows of kLeaf + 1
// so that the threads' reads fall in different banks).
template <typename F, int kLeaf>
struct OrderedSumLeafTile {
  static constexpr int kRow = kLeaf + 1;
  F terms[kWarp * kRow];
};

template <typename F, int kLeaf, int kTrees>
__device__ __forceinline__ const F* ordered_sum_stage_leaves(const OrderedSumForest<F, kLeaf, kTrees>& f,
                                                            OrderedSumLeafTile<F, kLeaf>& tile, int first, int lane) {
  const int leaves = f.leaves - first < kWarp ? f.leaves - first : kWarp;
  const F* src = f.terms + static_cast<std::size_t>(first) * kLeaf;
  for (int idx = lane; idx < leaves * kLeaf; idx += kWarp)
    tile.terms[(idx / kLeaf) * OrderedSumLeafTile<F, kLeaf>::kRow + idx % kLeaf] = src[idx];
  __syncwarp();
  return tile.terms + lane * OrderedSumLeafTile<F, kLeaf>::kRow;
}

// The per-entry passes of ordered_sum_enqueue_terms.
enum class OrderedSumPass { kTotal, kPrefix, kSteps };

// Pass kTotal or kSteps over every leaf.
template <OrderedSumPass kPass, typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kWarp) ordered_sum_leaf_kernel(OrderedSumForest<F, kLeaf, kTrees> f) {
  static_assert(kPass != OrderedSumPass::kPrefix, "leaves have no prediction pass");
  __shared__ OrderedSumLeafTile<F, kLeaf> tile;
  const int first = static_cast<int>(blockIdx.x) * kWarp, lane = static_cast<int>(threadIdx.x);
  const F* terms = ordered_sum_stage_leaves(f, tile, first, lane);
  if (first + lane >= f.leaves) return;
  if constexpr (kPass == OrderedSumPass::kTotal)
    ordered_sum_leaf_total(terms, kLeaf, f.entries[first + lane]);
  else
    ordered_sum_leaf_steps(terms, kLeaf, f.entries[first + lane]);
}

// Pass kTotal or kPrefix over the nodes of `level` (kPrefix: their
// children's predictions from theirs), one thread per node.
template <OrderedSumPass kPass, typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kOrderedSumThreads)
    ordered_sum_node_kernel(OrderedSumForest<F, kLeaf, kTrees> f, int level) {
  static_assert(kPass != OrderedSumPass::kSteps, "kSteps nodes: ordered_sum_node_steps_kernel");
  const int g = static_cast<int>(blockIdx.x) * kOrderedSumThreads + static_cast<int>(threadIdx.x);
  if (g >= f.level_total[level]) return;
  OrderedSumEntry<F>* self;
  int n;
  OrderedSumEntry<F>* child = ordered_sum_children(f, level, g, &self, &n);
  if constexpr (kPass == OrderedSumPass::kTotal)
    ordered_sum_node_total(child, n, *self);
  else
    ordered_sum_prefix(child, n, self->sum);
}

// Pass kSteps over the nodes of `level`, one warp per node: lane c takes
// child c's pair (ordered_sum_child_steps) and a shuffle tree composes them
// in order, lane i with lane i + d at distance d (ordered_sum_then is
// associative): ordered_sum_node_steps' pairs.
template <typename F, int kLeaf, int kTrees>
__global__ void __launch_bounds__(kOrderedSumThreads)
    ordered_sum_node_steps_kernel(OrderedSumForest<F, kLeaf, kTrees> f, int level) {
  static_assert(kOrderedSumFanout == kWarp);
  const int g = static_cast<int>(blockIdx.x) * kOrderedSumWarpNodes + static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  if (g >= f.level_total[level]) return;  // the whole warp
  OrderedSumEntry<F>* self;
  int n;
  const OrderedSumEntry<F>* child = ordered_sum_children(f, level, g, &self, &n);
  const uint32_t base = ordered_sum_base<F>(self->sum);
  OrderedSumSteps<F> pair[kOrderedSumKept];
#pragma unroll
  for (int k = 0; k < kOrderedSumKept; ++k) {
    OrderedSumSteps<F> p = lane < n ? ordered_sum_child_steps(child[lane], static_cast<int>(base) + k)
                                    : OrderedSumSteps<F>{};
#pragma unroll
    for (int d = 1; d < kWarp; d <<= 1) {
      OrderedSumSteps<F> q;
      q.even = __shfl_down_sync(0xffffffffu, p.even, d);
      q.odd = __shfl_down_sync(0xffffffffu, p.odd, d);
      if (lane + d < kWarp) p = ordered_sum_then(p, q);
    }
    pair[k] = p;
  }
  if (lane == 0) {
    self->base = base;
#pragma unroll
    for (int k = 0; k < kOrderedSumKept; ++k) self->steps[k] = pair[k];
  }
}

// Thread i: tree i's top level (launched with kTrees threads).
template <typename F, int kLeaf, int kTrees>
__global__ void ordered_sum_top_prefix_kernel(OrderedSumForest<F, kLeaf, kTrees> f) {
  const int i = static_cast<int>(threadIdx.x);
  if (i >= kTrees) return;
  const OrderedSumTreeGeometry& tg = f.tree[i];
  if (tg.levels == 0) return;
  ordered_sum_prefix(f.entries + tg.node_begin[tg.levels - 1], tg.count[tg.levels - 1], 0.0);
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
    const OrderedSumEntry<F>* entry = t.entry[level];
    while (c < end) {
      const int i = c + lane;
      const bool in = i < end;
      OrderedSumSteps<F> s;
      const int e = in ? ordered_sum_effect(r, entry[i], &s) : static_cast<int>(kOrderedSumSkip);
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
    tree.entry[level] = f.entries + tg.node_begin[level];
  }
  tree.terms = f.terms + static_cast<std::size_t>(tg.node_begin[0]) * kLeaf;
  OrderedSumWarpScan<F, kLeaf> scan{static_cast<int>(threadIdx.x)};
  const typename OrderedSumFormat<F>::Uint r = ordered_sum_walk(tree, scan);
  if (threadIdx.x == 0) ret[blockIdx.x] = r;
}

// The whole reduction on `stream` of terms already in f.terms (every tree's
// leaves in order, the last leaf of each padded with +0): ret[i] = the bits
// of tree i's sum (trees without leaves are left alone).
template <typename F, int kLeaf, int kTrees>
cudaError_t ordered_sum_enqueue_terms(const OrderedSumForest<F, kLeaf, kTrees>& f,
                                      typename OrderedSumFormat<F>::Uint* ret, cudaStream_t stream) {
  if (f.leaves == 0) return cudaSuccess;
  constexpr auto kTotal = OrderedSumPass::kTotal, kPrefix = OrderedSumPass::kPrefix, kSteps = OrderedSumPass::kSteps;
  const auto leaves = [&](auto kernel) { kernel<<<(f.leaves + kWarp - 1) / kWarp, kWarp, 0, stream>>>(f); };
  const auto nodes = [&](auto kernel, int level) {
    kernel<<<(f.level_total[level] + kOrderedSumThreads - 1) / kOrderedSumThreads, kOrderedSumThreads, 0, stream>>>(
        f, level);
  };
  leaves(ordered_sum_leaf_kernel<kTotal, F, kLeaf, kTrees>);
  for (int level = 1; level < f.levels; ++level) nodes(ordered_sum_node_kernel<kTotal, F, kLeaf, kTrees>, level);
  ordered_sum_top_prefix_kernel<<<1, kTrees, 0, stream>>>(f);
  for (int level = f.levels - 1; level >= 1; --level) nodes(ordered_sum_node_kernel<kPrefix, F, kLeaf, kTrees>, level);
  leaves(ordered_sum_leaf_kernel<kSteps, F, kLeaf, kTrees>);
  for (int level = 1; level < f.levels; ++level)
    ordered_sum_node_steps_kernel<F, kLeaf, kTrees>
        <<<(f.level_total[level] + kOrderedSumWarpNodes - 1) / kOrderedSumWarpNodes, kOrderedSumThreads, 0, stream>>>(
            f, level);
  ordered_sum_walk_kernel<<<kTrees, kWarp, 0, stream>>>(f, ret);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
