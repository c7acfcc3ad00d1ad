// io/nvdec_unpack.cu: the device move of one plane of a decoder's surface
// into a planar picture, launchable from host C++ (io/nvdec_cuda.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

// One plane of a surface as the decoder wrote it: sample x of row y is the
// `first`-th of `step` interleaved samples (NV12/P010 chroma: step 2, U
// first) of `bytes` each, holding the value in its top bits (<< shift).
struct SurfacePlane {
  const uint8_t* data;
  std::size_t pitch;
  int step, first, shift, bytes;
};

// dst[y][x] = sample (x, y) of `src` >> src.shift, for x < w, y < h.
cudaError_t unpack_plane(const SurfacePlane& src, uint8_t* dst, std::size_t dst_pitch, int w, int h,
                         cudaStream_t stream);

}  // namespace twinmaf::cuda
