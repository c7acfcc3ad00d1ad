// range_check.cu: launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

inline constexpr int kRangePlanes = 6;  // 3 planes of the reference and of one distorted picture

struct RangePlanes {
  const uint8_t* plane[kRangePlanes];
  std::size_t pitch[kRangePlanes];
  int w[kRangePlanes], h[kRangePlanes];  // samples (uint16) per row, rows
  int count;
};

// ORs every uint16 sample of the planes into *out (two samples per word, the
// caller folds the halves).
cudaError_t range_or(const RangePlanes& planes, uint32_t* out, cudaStream_t stream);

}  // namespace twinmaf::cuda
