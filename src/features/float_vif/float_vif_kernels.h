// float_vif CUDA kernels (float_vif.cu): one frame's device work and its
// launcher, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "features/float_vif/float_vif_math.h"

namespace twinmaf::cuda {

inline constexpr int kFloatVifTwinScales = 4;

struct FloatVifLaunch {
  const uint8_t* ref = nullptr;  // luma planes, set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int bpc = 8;
  int first_scale = 0;
  int w[kFloatVifTwinScales] = {}, h[kFloatVifTwinScales] = {};  // per scale
  const float* taps[kFloatVifTwinScales] = {};                   // device copies of the host's taps
  int ntaps[kFloatVifTwinScales] = {};
  FloatVifStatParams stat;
  float* img[2][2] = {};  // [buffer][ref, dis], scale 0's size each: the scales' images, alternating
  float* vert = nullptr;  // 5 planes: the vertical passes of mu1, mu2, xx, yy, xy
  float* num = nullptr;   // per-pixel statistic
  float* den = nullptr;
  // Where scale s's row sums go in the frame's terms block (floats from its
  // start): num rows at rows_at[s], den rows right after (h[s] each).
  int rows_at[kFloatVifTwinScales] = {};
};

// The frame's kernels on `stream`, row sums into `rows` (the terms block).
cudaError_t float_vif_enqueue(const FloatVifLaunch& l, float* rows, cudaStream_t stream);

}  // namespace twinmaf::cuda
