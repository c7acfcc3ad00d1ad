// float_psnr CUDA kernel (float_psnr.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

struct FloatPsnrLaunch {
  const uint8_t* ref = nullptr;  // luma planes, set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int w = 0, h = 0, bpc = 8;
};

// *units += the frame's squared differences in units of 4^-(bpc-8)
// (float_psnr.h: integers; *units zeroed before the frame).
cudaError_t float_psnr_enqueue(const FloatPsnrLaunch& l, unsigned long long* units, cudaStream_t stream);

}  // namespace twinmaf::cuda
