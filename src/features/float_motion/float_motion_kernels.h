// float_motion CUDA kernels (float_motion.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

inline constexpr int kFloatMotionMaxTaps = 5;

// One plane of the previous and the current reference.
struct FloatMotionPlane {
  const uint8_t* pic[2] = {};  // [0] frame i-1, [1] frame i; set per frame
  std::size_t pitch[2] = {};   // bytes
  int w = 0, h = 0;            // scored size
  int w1 = 0, h1 = 0;          // half size (add_scale1)
  float ratio_x = 0, ratio_y = 0;  // w / w1, h / h1 as floats
  int rows_at = 0, rows1_at = 0;   // where its row sums go (floats from the terms' rows)
};

struct FloatMotionLaunch {
  int bpc = 8;
  int planes = 1;
  bool add_scale1 = false;
  float taps[kFloatMotionMaxTaps] = {};
  int ntaps = 5;
  FloatMotionPlane plane[3];
  float* tmp[2] = {};   // vertical passes, the largest plane's size each
  float* blur[2] = {};  // blurred pictures
  float* half[2] = {};  // their half-size scalings
};

// The frame's kernels on `stream`: terms[0] = 1 (rows written), then from
// terms + 1: [p.rows_at ..] the SAD row sums of each plane, [p.rows1_at ..]
// those at half size.
cudaError_t float_motion_enqueue(const FloatMotionLaunch& l, float* terms, cudaStream_t stream);

}  // namespace twinmaf::cuda
