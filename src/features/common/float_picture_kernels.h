// The device half of float_picture.h (float_picture.cu), callable from host
// C++: both pictures' luma as float_picture_sample values, the load stage of
// the float twins.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

struct FloatPictureLoad {
  const uint8_t* ref = nullptr;  // luma planes
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int w = 0, h = 0, bpc = 8;
  float offset = 0;           // added after the depth's scale (float_picture_sample)
  float* out_ref = nullptr;   // w x h floats, rows w apart
  float* out_dis = nullptr;
};

cudaError_t float_picture_load(const FloatPictureLoad& l, cudaStream_t stream);

}  // namespace twinmaf::cuda
