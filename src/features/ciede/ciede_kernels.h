// ciede CUDA kernels (ciede.cu): one frame's geometry and launchers, callable
// from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/hd.h"
#include "base/ordered_sum.h"
#include "features/ciede/ciede_math.h"

namespace twinmaf::cuda {

// The running double sum of a frame's dE00, one term per luma position in
// raster order.
inline constexpr int kCiedeLeaf = 64;
using CiedeSums = OrderedSumForest<double, kCiedeLeaf, 1>;

// A pixel the device leaves to the host: its luma index and sample triples.
struct CiedeEntry {
  uint32_t pixel;
  uint16_t ref[3], dis[3];
};

// The CPU's Lab colour (ciede_lab) of one 8-bit sample triple; the 8-bit
// table holds one per triple, at ciede_lab_index(triple).
struct alignas(16) CiedeLabEntry {
  float l, a, b, unused;
};
inline constexpr uint32_t kCiedeLabEntries = 1u << 24;

// The table index of the 8-bit triple t (y, u, v), and sample c of the triple
// at index i: ciede_lab_sample(ciede_lab_index(t), c) == t[c].
TWINMAF_HD uint32_t ciede_lab_index(const uint16_t t[3]) {
  return uint32_t{t[0]} << 16 | uint32_t{t[1]} << 8 | t[2];
}
TWINMAF_HD uint16_t ciede_lab_sample(uint32_t i, int c) { return static_cast<uint16_t>(i >> (16 - 8 * c) & 0xff); }

// A table entry the host computed.
struct CiedeLabFix {
  uint32_t index;
  CiedeLabEntry lab;
};

struct CiedeLaunch {
  const uint8_t* ref[3] = {};  // planes, set per frame
  const uint8_t* dis[3] = {};
  std::size_t pitch[3] = {};  // bytes, both pictures
  int w = 0, h = 0, bpc = 8;
  int cw = 0, ch = 0;       // chroma plane size
  bool chroma_full = false;  // 4:4:4
  bool half_cols = false;    // 4:2:0
  ciede::Levels levels{};
  CiedeSums sums;                  // terms: w h dE00 (as doubles), then +0 to the last leaf's end
  unsigned* count = nullptr;       // device: entries this frame
  CiedeEntry* entries = nullptr;   // host-mapped, w h of them
  const float* results = nullptr;  // host-mapped: dE00 of entries[k]
  const CiedeLabEntry* lab8 = nullptr;  // 8 bit: the Lab table (ciede_lab_table)
};

// Fills the tree geometry of l.sums for w h terms; returns its entries (the
// size of sums.entries).
inline int ciede_layout(CiedeLaunch& l) {
  const int leaves[1] = {static_cast<int>((static_cast<int64_t>(l.w) * l.h + kCiedeLeaf - 1) / kCiedeLeaf)};
  return ordered_sum_forest_layout(l.sums, leaves);
}

// table[t] = the Lab colour of triple t (8 bit, `k` its levels) where
// ciede_bounds.h pins each component to one float; every other t is appended
// to `list` (kCiedeLabEntries long) and counted in *count, zeroed first.
cudaError_t ciede_enqueue_lab_table(CiedeLabEntry* table, uint32_t* list, unsigned* count, const ciede::Levels& k,
                                    cudaStream_t stream);
// table[fixes[i].index] = fixes[i].lab for i < n.
cudaError_t ciede_enqueue_lab_fixes(CiedeLabEntry* table, const CiedeLabFix* fixes, unsigned n, cudaStream_t stream);

// Every pixel's dE00 into sums.terms where the device pins it, else an entry
// (and a placeholder term); *count is zeroed first.
cudaError_t ciede_enqueue_pixels(const CiedeLaunch& l, cudaStream_t stream);
// The host's results into their terms, then ret = the bits of the running sum.
cudaError_t ciede_enqueue_sum(const CiedeLaunch& l, uint64_t* ret, cudaStream_t stream);

}  // namespace twinmaf::cuda
