// psnr_hvs CUDA kernels (psnr_hvs.cu): the geometry of one frame's device
// work and its launcher, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/ordered_sum.h"
#include "features/psnr_hvs/psnr_hvs_math.h"

namespace twinmaf::cuda {

struct PsnrHvsPlaneGeometry {
  const uint8_t* ref = nullptr;  // set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;
  int nbx = 0, nby = 0;  // blocks across and down (0: the plane has none)
};

// One ordered sum per plane, one leaf per 8x8 block: plane p's blocks, in
// raster order, are the leaves from sums.tree[p].node_begin[0] on.
using PsnrHvsSums = OrderedSumForest<float, kPsnrHvsTerms, 3>;

struct PsnrHvsLaunch {
  PsnrHvsPlaneGeometry plane[3];
  int bpc = 8;
  PsnrHvsSums sums;
};

// Fills the trees' geometry of l from each plane's nbx/nby; returns the
// number of entries (sums.entries' size).
inline int psnr_hvs_layout(PsnrHvsLaunch& l) {
  int leaves[3];
  for (int p = 0; p < 3; ++p) leaves[p] = l.plane[p].nbx * l.plane[p].nby;
  return ordered_sum_forest_layout(l.sums, leaves);
}

// Uploads the CSF and mask tables (PsnrHvsTables) to the device.
cudaError_t psnr_hvs_set_tables(const float csf[3][64], const float mask[3][64]);

// The frame's kernels on `stream`: block terms, then their ordered sums
// (gpu/ordered_sum.cuh; ret[plane] = float bits). Planes without blocks are
// left alone.
cudaError_t psnr_hvs_enqueue(const PsnrHvsLaunch& launch, uint32_t* ret, cudaStream_t stream);

// The reduction alone, on terms already in launch.sums.terms (every plane's
// blocks in order; ref/dis unused): for tests of arbitrary term sequences.
cudaError_t psnr_hvs_sum_terms(const PsnrHvsLaunch& launch, uint32_t* ret, cudaStream_t stream);

}  // namespace twinmaf::cuda
