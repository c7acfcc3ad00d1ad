// libvmaf's top-k pooling (cambi_topk_sum_raw: its quick select, then the
// double sum of the k largest in the order the select leaves them) computed
// by one block of kCambiPoolThreads threads, with the same array and the same
// double as the one-thread loop, whatever the values. The pool kernel takes
// this route only where the sum's order matters (cambi.h, stage 5).
//
// Partition (one do-while of cambi_quick_select on a[lo..hi], pivot p = a[k],
// k in [lo, hi]). Let A_1 < A_2 < ... be the positions with a <= p (where
// the ascending scan stops) and B_1 > B_2 > ... those with a >= p (where the
// descending scan stops), both taken before the level's swaps. Round m of the
// loop swaps a[A_m] and a[B_m] while A_m < B_m: until then each scan has only
// read samples no swap has touched. A_1 <= k <= B_1. Let m0 be the number of
// swaps, the largest m with A_m < B_m, which is max over x of
// min(#A <= x, #B > x) (monotone: A_m - B_m grows with m). Then:
//   - if A_{m0+1} == B_{m0+1} (a sample equal to p, swapped with itself):
//     i = A_{m0+1} + 1, j = A_{m0+1} - 1;
//   - else (m0 >= 1): the ascending scan stops at A_{m0+1} or at B_{m0}, which
//     now holds a sample <= p, whichever comes first, and the descending one
//     likewise: i = min(A_{m0+1}, B_{m0}), j = max(B_{m0+1}, A_{m0}) (a missing
//     stop does not count). This also covers the loop's exit right after
//     swap m0 (B_{m0} = A_{m0} + 1).
// The block counts A and B per warp, then in one pass finds m0 and writes the
// positions of ranks up to len / 2 + 1 (2 m0 <= len) into scratch, swaps the
// m0 pairs (disjoint positions) and moves lo, hi as the loop does. Ranges
// below `serial_below` samples finish on one thread (cambi_quick_select).
//
// Sum. Every value is 0 or a float in [0.5, 2^14), an integer number of
// u = 2^-24 units below 2^38; the k values total below 2^63 units (k < 2^25).
// The running double sum s is kept as an integer of units: below 2^53 units
// every addition is exact (phase g = 0); once s + x reaches 2^(52 + g) units
// (g >= 1) the sum's doubles are the multiples of G = 2^g units, and while
// s + x < 2^(53 + g) the addition rounds to one: with x = qG + r (0 <= r < G)
// it adds qG, or (q + 1)G if 2r > G, or if 2r == G and s / G + q is odd
// (ties to even). So within a phase each value acts on s as a map of the
// parity of s / G alone: a pair of increments, one per parity, which compose
// associatively. The block scans those pairs over the remaining values,
// finds the first value with s + x >= 2^(53 + g), rounds that addition to a
// multiple of 2G (s + x < 2^(54 + g)) and starts phase g + 1 after it. The
// result s u is a double exactly.
#pragma once

#include <cstdint>

#include "features/cambi/cambi_kernels.h"
#include "features/cambi/cambi_math.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

inline constexpr int kCambiPoolThreads = 1024;
inline constexpr int kCambiPoolWarps = kCambiPoolThreads / kWarp;

// What the block shares (one instance in shared memory, per block).
struct CambiPoolShared {
  int count_a[kCambiPoolWarps], count_b[kCambiPoolWarps];    // per warp's chunk
  int before_a[kCambiPoolWarps], before_b[kCambiPoolWarps];  // in the chunks before it
  int total_a, total_b, swaps, lo, hi;
  long long inc[2][kCambiPoolThreads];  // per thread's values: the increments for parity 0, 1
  long long s;                          // the running sum in units
  int g, next;                          // phase; index of its first value
  int cross;                            // the phase's first value with s + x >= 2^(53 + g)
  long long cross_s;                    // s before it
};

namespace cambi_pool_detail {

// One quick-select partition of a[lo..hi] (file comment); moves sh.lo, sh.hi.
__device__ inline void partition(float* a, int k, int* scratch, int cap, CambiPoolShared& sh) {
  const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarp, warp = tid / kWarp;
  const int lo = sh.lo, hi = sh.hi;
  const float p = a[k];
  const int len = hi - lo + 1;
  const int chunk = ((len + kCambiPoolWarps - 1) / kCambiPoolWarps + kWarp - 1) / kWarp * kWarp;
  const int begin = lo + warp * chunk;
  const int end = min(begin + chunk, hi + 1);
  int ca = 0, cb = 0;
  for (int x0 = begin; x0 < end; x0 += kWarp) {  // the same trip count in every lane
    const int x = x0 + lane;
    const bool in = x < end;
    const float v = in ? a[x] : 0.0f;
    ca += __popc(__ballot_sync(0xffffffffu, in && v <= p));
    cb += __popc(__ballot_sync(0xffffffffu, in && v >= p));
  }
  if (lane == 0) {
    sh.count_a[warp] = ca;
    sh.count_b[warp] = cb;
  }
  __syncthreads();
  if (tid == 0) {
    int ra = 0, rb = 0;
    for (int w = 0; w < kCambiPoolWarps; ++w) {
      sh.before_a[w] = ra;
      sh.before_b[w] = rb;
      ra += sh.count_a[w];
      rb += sh.count_b[w];
    }
    sh.total_a = ra;
    sh.total_b = rb;
    sh.swaps = 0;
  }
  __syncthreads();
  // Ranks up to len / 2 + 1: A_m at scratch[m - 1], B_m at scratch[cap + m - 1].
  const int keep = len / 2 + 1;
  int* pos_a = scratch;
  int* pos_b = scratch + cap;
  const int tb = sh.total_b;
  int ra = sh.before_a[warp], rb = sh.before_b[warp];
  int best = 0;
  const unsigned upto = (2u << lane) - 1u;  // this lane and the ones below it
  for (int x0 = begin; x0 < end; x0 += kWarp) {
    const int x = x0 + lane;
    const bool in = x < end;
    const float v = in ? a[x] : 0.0f;
    const bool is_a = in && v <= p, is_b = in && v >= p;
    const unsigned ma = __ballot_sync(0xffffffffu, is_a), mb = __ballot_sync(0xffffffffu, is_b);
    const int a_upto = ra + __popc(ma & upto);  // #A <= x: x's rank if it is an A
    const int b_upto = rb + __popc(mb & upto);  // #B <= x; x's rank from the top is tb - b_upto + 1
    if (in) best = max(best, min(a_upto, tb - b_upto));
    if (is_a && a_upto <= keep) pos_a[a_upto - 1] = x;
    if (is_b && tb - b_upto < keep) pos_b[tb - b_upto] = x;
    ra += __popc(ma);
    rb += __popc(mb);
  }
  for (int o = kWarp / 2; o > 0; o >>= 1) best = max(best, __shfl_down_sync(0xffffffffu, best, o));
  if (lane == 0) atomicMax(&sh.swaps, best);
  __syncthreads();
  const int m0 = sh.swaps;
  for (int r = tid; r < m0; r += kCambiPoolThreads) {
    const int x = pos_a[r], y = pos_b[r];
    const float t = a[x];
    a[x] = a[y];
    a[y] = t;
  }
  if (tid == 0) {
    const bool more_a = sh.total_a > m0, more_b = tb > m0;
    int i, j;
    if (more_a && more_b && pos_a[m0] == pos_b[m0]) {
      i = pos_a[m0] + 1;
      j = pos_a[m0] - 1;
    } else {
      i = more_a ? min(pos_a[m0], pos_b[m0 - 1]) : pos_b[m0 - 1];
      j = more_b ? max(pos_b[m0], pos_a[m0 - 1]) : pos_a[m0 - 1];
    }
    if (j < k) sh.lo = i;
    if (k < i) sh.hi = j;
  }
  __syncthreads();
}

// The increment (in units of G = 2^g) that x units add to s when s / G has
// parity `odd` (phase g, file comment).
__device__ __forceinline__ long long step(long long x, int g, long long odd) {
  const long long q = x >> g, r2 = (x & ((1ll << g) - 1)) << 1, G = 1ll << g;
  return q + ((r2 > G) | ((r2 == G) & ((odd + q) & 1)));
}

// a[0..k) summed from 0 in order as libvmaf's double loop (file comment).
__device__ inline double ordered_sum(const float* a, int k, CambiPoolShared& sh) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    sh.s = 0;
    sh.g = 0;
    sh.next = 0;
  }
  __syncthreads();
  while (sh.next < k) {
    const int g = sh.g, first = sh.next;
    // g <= 10 (the total is below 2^63 units): phase 10 has no end.
    const long long s = sh.s, limit = g < 10 ? 1ll << (53 + g) : 0x7fffffffffffffffll;
    const int per = (k - first + kCambiPoolThreads - 1) / kCambiPoolThreads;
    const int b = min(first + tid * per, k), e = min(b + per, k);
    long long inc0 = 0, inc1 = 0;
    for (int x = b; x < e; ++x) {
      const long long u = cambi_c_units(a[x]);
      inc0 += step(u, g, inc0 & 1);
      inc1 += step(u, g, (1 + inc1) & 1);
    }
    // Inclusive scan of the threads' maps in thread order: (F then H)(p) =
    // F(p) + H((p + F(p)) & 1).
    sh.inc[0][tid] = inc0;
    sh.inc[1][tid] = inc1;
    if (tid == 0) sh.cross = k;
    __syncthreads();
    for (int o = 1; o < kCambiPoolThreads; o <<= 1) {
      long long n0 = 0, n1 = 0;
      if (tid >= o) {
        const long long f0 = sh.inc[0][tid - o], f1 = sh.inc[1][tid - o];
        n0 = f0 + sh.inc[f0 & 1][tid];
        n1 = f1 + sh.inc[(1 + f1) & 1][tid];
      }
      __syncthreads();
      if (tid >= o) {
        sh.inc[0][tid] = n0;
        sh.inc[1][tid] = n1;
      }
      __syncthreads();
    }
    const long long odd = (s >> g) & 1;
    long long cur = s;
    if (tid > 0) cur += sh.inc[odd][tid - 1] << g;
    int found = k;
    for (int x = b; x < e; ++x) {
      const long long u = cambi_c_units(a[x]);
      if (cur + u >= limit) {
        found = x;
        break;
      }
      cur += step(u, g, (cur >> g) & 1) << g;
    }
    if (found < k) atomicMin(&sh.cross, found);
    __syncthreads();
    const int cross = sh.cross;
    if (found == cross && found < k) sh.cross_s = cur;
    __syncthreads();
    if (tid == 0) {
      if (cross < k) {
        const long long v = sh.cross_s + cambi_c_units(a[cross]);  // < 2^(54 + g): spacing 2G
        const int g2 = g + 1;
        const long long q = v >> g2, r2 = (v & ((1ll << g2) - 1)) << 1, G2 = 1ll << g2;
        sh.s = (q + ((r2 > G2) | ((r2 == G2) & (q & 1)))) << g2;
        sh.g = g2;
        sh.next = cross + 1;
      } else {
        sh.s = s + (sh.inc[odd][kCambiPoolThreads - 1] << g);
        sh.next = k;
      }
    }
    __syncthreads();
  }
  return static_cast<double>(sh.s) * 0x1p-24;
}

}  // namespace cambi_pool_detail

// cambi_topk_sum_raw(a, n, k) by the whole block (every thread calls it with
// the same arguments; the value is returned to every thread): reorders a as
// it does. scratch: cambi_pool_scratch_ints(n) ints.
__device__ inline double cambi_topk_sum_block(float* a, int n, int k, int* scratch, int serial_below,
                                              CambiPoolShared& sh) {
  const int tid = static_cast<int>(threadIdx.x);
  if (k != n) {
    if (tid == 0) {
      sh.lo = 0;
      sh.hi = n - 1;
    }
    __syncthreads();
    const int cap = static_cast<int>(cambi_pool_scratch_ints(n) / 2);
    for (;;) {
      const int lo = sh.lo, hi = sh.hi;
      if (lo >= hi) break;
      if (hi - lo + 1 < serial_below) {
        if (tid == 0) cambi_quick_select(a, lo, hi, k);
        break;
      }
      cambi_pool_detail::partition(a, k, scratch, cap, sh);
    }
    __syncthreads();
  }
  return cambi_pool_detail::ordered_sum(a, k, sh);
}

}  // namespace twinmaf::cuda
