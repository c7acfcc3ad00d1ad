// float_moment CUDA kernel (float_moment.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

struct FloatMomentLaunch {
  const uint8_t* plane[2] = {};  // reference, distorted luma, set per frame
  std::size_t pitch[2] = {};     // bytes
  int w = 0, h = 0, bpc = 8;
};

// units[0..1] += the samples of reference / distorted in units of
// 2^-(bpc-8), units[2..3] += their float squares in units of 4^-(bpc-8)
// (float_moment.h: integers; zeroed before the frame).
cudaError_t float_moment_enqueue(const FloatMomentLaunch& l, unsigned long long* units, cudaStream_t stream);

}  // namespace twinmaf::cuda
