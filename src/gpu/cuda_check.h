// Every CUDA runtime call goes through TWINMAF_CUDA_TRY: a failure becomes a
// Status naming the call, the error and the place; nothing asserts or is
// ignored. Kernel launches are followed by TWINMAF_CUDA_TRY(cudaGetLastError()).
#pragma once

#include <cuda_runtime.h>

#include "base/status.h"

namespace twinmaf::gpu {

inline Status cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  return make_error(Code::kInternal, "CUDA {} ({}) in {} at {}:{}", cudaGetErrorName(e),
                    cudaGetErrorString(e), expr, file, line);
}

}  // namespace twinmaf::gpu

#define TWINMAF_CUDA_TRY(expr)                                                        \
  do {                                                                                \
    const cudaError_t twinmaf_cuda_err_ = (expr);                                     \
    if (twinmaf_cuda_err_ != cudaSuccess)                                             \
      return ::twinmaf::gpu::cuda_error(twinmaf_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)
