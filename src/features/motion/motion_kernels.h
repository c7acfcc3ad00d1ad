// motion CUDA kernel (motion.cu): launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

// Adds the SAD of blur(prev - cur) over a w x h luma pair (motion.h's
// contract; 8-bit samples if bpc == 8, else 16-bit) to *out.
cudaError_t motion_sad(const uint8_t* prev, const uint8_t* cur, std::size_t pitch, int w, int h, int bpc,
                       unsigned long long* out, cudaStream_t stream);

}  // namespace twinmaf::cuda
