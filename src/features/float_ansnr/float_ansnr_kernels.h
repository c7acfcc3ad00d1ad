// float_ansnr CUDA kernels (float_ansnr.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

struct FloatAnsnrLaunch {
  const uint8_t* ref = nullptr;  // luma planes, set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int w = 0, h = 0, bpc = 8;
  float* a = nullptr;  // w x h: the samples as floats, then the filtered
  float* b = nullptr;  // reference (in fa) and distorted (in fb) pictures
  float* fa = nullptr;
  float* fb = nullptr;
  float* rows = nullptr;  // 2 h: the row sums of sig, then of noise
};

// Uploads the two filters (float_ansnr_filters()).
cudaError_t float_ansnr_set_filters(const float ref[9], const float dis[25]);

// The frame's kernels on `stream`; sums[0] = sig, sums[1] = noise (float
// bits): libvmaf's running sums over the rows of its per-row running sums.
cudaError_t float_ansnr_enqueue(const FloatAnsnrLaunch& l, uint32_t* sums, cudaStream_t stream);

}  // namespace twinmaf::cuda
