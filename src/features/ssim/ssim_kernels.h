// float_ssim / float_ms_ssim CUDA kernels (ssim.cu): one frame's device work
// and its launcher, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/ordered_sum.h"
#include "features/ssim/ssim_math.h"

namespace twinmaf::cuda {

// Terms per leaf of the sums' trees (base/ordered_sum.h).
inline constexpr int kSsimLeaf = 64;
inline constexpr int kSsimMaxLevels = kMsSsimScales;
// Four running sums per scale: lcs, l, c, s (SsimSums' order); tree 4 i + q
// is sum q of the i-th scale SSIM runs on.
inline constexpr int kSsimSums = 4;
using SsimForest = OrderedSumForest<double, kSsimLeaf, kSsimSums * kMsSsimScales>;

// One image of the pyramid: level 0 is the loaded luma; level i + 1 the
// decimation of level i (float_ssim's box at its factor, float_ms_ssim's
// low-pass at 2).
struct SsimLevel {
  int w = 0, h = 0;
  float* ref = nullptr;
  float* dis = nullptr;
};

struct SsimLaunch {
  const uint8_t* ref = nullptr;  // the luma planes, set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int bpc = 8;
  int levels = 1;
  SsimLevel level[kSsimMaxLevels];
  // Decimation: factor, the kw x kh kernel (row-major, on the device).
  int factor = 1, kw = 0, kh = 0;
  const float* kernel = nullptr;
  // The levels SSIM runs on (first_ssim .. levels - 1; level first_ssim + i
  // feeds trees 4 i .. 4 i + 3), and the horizontal pass's five maps (sized
  // for the largest of them).
  int first_ssim = 0;
  float* hmaps = nullptr;
  SsimForest sums;
};

// Fills the trees' geometry from the SSIM levels' valid areas; returns the
// number of entries (sums.entries' size).
inline int ssim_layout(SsimLaunch& l) {
  int leaves[kSsimSums * kMsSsimScales] = {};
  for (int i = 0; l.first_ssim + i < l.levels; ++i) {
    const SsimLevel& v = l.level[l.first_ssim + i];
    const int dw = v.w - (kSsimWindow - 1), dh = v.h - (kSsimWindow - 1);
    const long n = dw > 0 && dh > 0 ? static_cast<long>(dw) * dh : 0;
    for (int q = 0; q < kSsimSums; ++q) leaves[kSsimSums * i + q] = static_cast<int>((n + kSsimLeaf - 1) / kSsimLeaf);
  }
  return ordered_sum_forest_layout(l.sums, leaves);
}

// The frame's kernels on `stream`; ret[4 i + q] = the bits of sum q of SSIM
// level i. Nothing for levels with an empty valid area (ret stays +0).
cudaError_t ssim_enqueue(const SsimLaunch& l, uint64_t* ret, cudaStream_t stream);

}  // namespace twinmaf::cuda
