// Host emulation of the device's warp scanner (gpu/ordered_sum.cuh
// OrderedSumWarpScan), lane arrays instead of registers: the same effects, the
// same Hillis-Steele inclusive scan, the same stop rule. Lets host tests check
// the device's walk decisions without a GPU.
#pragma once

#include <algorithm>
#include <cstddef>

#include "base/ordered_sum.h"

namespace twinmaf::test {

template <typename F>
struct EmulatedWarpScan {
  using Uint = typename OrderedSumFormat<F>::Uint;
  static constexpr int kLanes = 32;

  int advance(const OrderedSumTree<F>& t, int level, int c, int end, Uint& r) const {
    while (c < end) {
      OrderedSumSteps<F> pre[kLanes];
      int e[kLanes];
      for (int lane = 0; lane < kLanes; ++lane) {
        const int i = c + lane;
        e[lane] = kOrderedSumSkip;
        pre[lane] = {};
        if (i < end) e[lane] = ordered_sum_effect(r, t.entry[level][i], &pre[lane]);
      }
      for (int dist = 1; dist < kLanes; dist <<= 1) {
        OrderedSumSteps<F> next[kLanes];
        for (int lane = 0; lane < kLanes; ++lane)
          next[lane] = lane >= dist ? ordered_sum_then(pre[lane - dist], pre[lane]) : pre[lane];
        std::copy(next, next + kLanes, pre);
      }
      const int n = std::min(kLanes, end - c);
      int k = n;
      for (int lane = 0; lane < n; ++lane)
        if (e[lane] == kOrderedSumEnter || (e[lane] == kOrderedSumAdd && !ordered_sum_fits(r, pre[lane]))) {
          k = lane;
          break;
        }
      if (k > 0) r = ordered_sum_apply(r, pre[k - 1]);
      if (k < n) return c + k;
      c += kLanes;
    }
    return end;
  }
  void leaf(const OrderedSumTree<F>& t, int c, Uint& r) const {
    r = ordered_sum_leaf_add(r, t.terms + size_t(c) * t.leaf, t.leaf);
  }
};

// The sum of a tree's terms, walked by the emulated warp.
template <typename F>
F emulated_warp_sum(const OrderedSumTree<F>& tree) {
  EmulatedWarpScan<F> scan;
  return OrderedSumFormat<F>::value(ordered_sum_walk(tree, scan));
}

}  // namespace twinmaf::test
