// psnr CUDA kernels (psnr.cu): launchers callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

// Adds the SSE of a w x h plane pair (8-bit samples if bpc == 8, else 16-bit)
// to *out with at most `blocks` thread blocks.
cudaError_t psnr_sse(const uint8_t* a, const uint8_t* b, std::size_t pitch, int w, int h, int bpc,
                     unsigned long long* out, int blocks, cudaStream_t stream);

}  // namespace twinmaf::cuda
