// float_psnr's per-pixel term, shared by the CPU reference and the CUDA
// kernel. CUDA-safe: base/hd.h only.
#pragma once

#include "base/hd.h"

namespace twinmaf {

// The float difference of two samples (exact) squared in float.
TWINMAF_HD float float_psnr_term(float a, float b) {
  const float d = a - b;
  return d * d;
}

}  // namespace twinmaf
