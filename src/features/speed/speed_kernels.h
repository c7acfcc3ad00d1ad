// speed_chroma / speed_temporal CUDA kernels (speed.cu): launchers callable
// from host C++; the arithmetic and the launch layout are speed_math.h's.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "features/speed/speed_math.h"

namespace twinmaf::cuda {

// speed_window(source, src, dst, x) for every x < dst into out (device).
cudaError_t speed_resample_windows(SpeedSource source, int src, int dst, SpeedWindow* out, cudaStream_t stream);

// The frame's kernels on `stream`: image k's band (speed_band_value, row-major
// trunc_w x trunc_h) to bands + k * band_size(), 1 to *present, the band's
// covariance sums (kSpeedPairs order) to sums + k * kSpeedPairs, then its
// factors q and r (SpeedFactors order) to factors + 2 k kSpeedMatrix and
// whether speed_qr's steps ran dense (1 or 0) to present[1 + k], then block
// b's speed_block_variance to variance + k * blocks + b (blocks = (trunc_w /
// 5) (trunc_h / 5); any value where !speed_solvable(r)).
cudaError_t speed_enqueue(const SpeedLaunch& launch, uint32_t* present, double* sums, float* factors, float* bands,
                          float* variance, cudaStream_t stream);

}  // namespace twinmaf::cuda
