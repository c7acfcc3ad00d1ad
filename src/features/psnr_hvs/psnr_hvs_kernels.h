// psnr_hvs CUDA kernels (psnr_hvs.cu): the geometry of one frame's device
// work and its launcher, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/ordered_sum.h"
#include "features/psnr_hvs/psnr_hvs_math.h"

namespace twinmaf::cuda {

// One plane. Entries of every level live in two flat arrays (info, steps),
// level-major: level L of plane p starts at node_begin[L] and the planes'
// ranges of one level follow each other, so a level of all planes is one
// contiguous range. Level 0 (the leaves, = 8x8 blocks in raster order) of
// plane p starts at node_begin[0], which is also its first block in `terms`.
struct PsnrHvsPlaneGeometry {
  const uint8_t* ref = nullptr;  // set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;
  int nbx = 0, nby = 0;  // blocks across and down (0: the plane has none)
  int levels = 0;        // ordered_sum_tree_levels
  int count[kOrderedSumMaxLevels] = {};
  int node_begin[kOrderedSumMaxLevels] = {};
};

struct PsnrHvsLaunch {
  PsnrHvsPlaneGeometry plane[3];
  int bpc = 8;
  int leaves = 0;                                 // blocks of all planes
  int levels = 0;                                 // most levels of a plane
  int level_total[kOrderedSumMaxLevels] = {};        // entries of each level, all planes
  float* terms = nullptr;                         // [leaves][64]
  uint32_t* info = nullptr;                       // [entries]
  OrderedSumSteps<float>* steps = nullptr;        // [entries][kWindow]
};

// Fills the tree geometry of l from each plane's nbx/nby (level-major entry
// layout, above); returns the number of entries (the info/steps sizes).
inline int psnr_hvs_layout(PsnrHvsLaunch& l) {
  l.leaves = l.levels = 0;
  for (int level = 0; level < kOrderedSumMaxLevels; ++level) l.level_total[level] = 0;
  for (PsnrHvsPlaneGeometry& g : l.plane) {
    g.levels = ordered_sum_tree_levels(g.nbx * g.nby, g.count);
    l.levels = g.levels > l.levels ? g.levels : l.levels;
    l.leaves += g.levels ? g.count[0] : 0;
  }
  int entries = 0;
  for (int level = 0; level < l.levels; ++level)
    for (PsnrHvsPlaneGeometry& g : l.plane) {
      g.node_begin[level] = entries;
      if (g.levels > level) {
        entries += g.count[level];
        l.level_total[level] += g.count[level];
      }
    }
  return entries;
}

// Uploads the CSF and mask tables (PsnrHvsTables) to the device.
cudaError_t psnr_hvs_set_tables(const float csf[3][64], const float mask[3][64]);

// The frame's kernels on `stream`: block terms and leaf steps, the node levels,
// then one warp per plane walks its tree and writes ret (float bits) to
// ret[plane]. Planes without blocks are left alone.
cudaError_t psnr_hvs_enqueue(const PsnrHvsLaunch& launch, uint32_t* ret, cudaStream_t stream);

// The reduction alone, on terms already in launch.terms (every plane's
// blocks in order; ref/dis unused): for tests of arbitrary term sequences.
cudaError_t psnr_hvs_sum_terms(const PsnrHvsLaunch& launch, uint32_t* ret, cudaStream_t stream);

}  // namespace twinmaf::cuda
