// speed_chroma / speed_temporal CUDA kernels (speed.cu): stages 1-5 of
// speed.h for up to four images of one frame, and the resampler's per-axis
// tables, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

// Anti-alias taps: gaussian_filter_size(1, ks) <= 35 for every accepted ks
// (9 * 3.72 rounded up to odd); local mean: gaussian_filter_size(4, ks) <= 9.
inline constexpr int kSpeedMaxAntialiasTaps = 35;
inline constexpr int kSpeedMaxLocalMeanTaps = 9;
inline constexpr int kSpeedMaxImages = 4;

// How the w x h float image F becomes the scaled_w x scaled_h image S the
// anti-alias pass filters.
enum class SpeedSource : uint8_t {
  kDirect,    // S = F inside w x h, 0 outside (no resampling, or equal sizes)
  kNearest,   // float_resample.h's four methods but lanczos4
  kBilinear,
  kBicubic,
};

// One output coordinate's source window along one axis (float_resample.h):
// nearest idx[0]; bilinear idx[0] = i1, idx[1] = i2, w[0] = d; bicubic
// idx[i], w[i] for taps -1..2.
struct SpeedWindow {
  int idx[4];
  float w[4];
};

// One image: F = sample(a) (minus sample(b) when b is set: speed_temporal's
// frame difference), samples 8-bit when bpc == 8, else 16-bit; pitches in
// bytes.
struct SpeedImage {
  const uint8_t* a = nullptr;
  const uint8_t* b = nullptr;
  std::size_t pitch_a = 0, pitch_b = 0;
};

struct SpeedLaunch {
  int w = 0, h = 0;                // input plane
  int scaled_w = 0, scaled_h = 0;  // S
  int op_w = 0, op_h = 0;          // 1/16 image
  int trunc_w = 0, trunc_h = 0;    // band
  int bpc = 8;
  float inverse = 1;               // 1 / float_picture_scale(bpc), exact
  SpeedSource source = SpeedSource::kDirect;
  bool difference = false;         // every image has b
  int images = 0;
  SpeedImage image[kSpeedMaxImages];
  int aa_taps = 0;
  float aa[kSpeedMaxAntialiasTaps] = {};
  int lm_taps = 0;
  float lm[kSpeedMaxLocalMeanTaps] = {};
  const SpeedWindow* cols = nullptr;  // scaled_w entries (resampling only)
  const SpeedWindow* rows = nullptr;  // scaled_h entries
  float* vert = nullptr;   // scratch: images x op_h x scaled_w (vertical pass)
  float* small = nullptr;  // scratch: images x op_h x op_w (1/16 images)
};

// The resampler's windows of the dst outputs of one axis whose source has
// src samples, for `source` (not kDirect), into out (device, dst entries).
cudaError_t speed_resample_windows(SpeedSource source, int src, int dst, SpeedWindow* out, cudaStream_t stream);

// The frame's kernels on `stream`: image k's band (trunc_w x trunc_h floats,
// row-major) to bands + k * trunc_w * trunc_h, then 1 to *present.
cudaError_t speed_enqueue(const SpeedLaunch& launch, uint32_t* present, float* bands, cudaStream_t stream);

}  // namespace twinmaf::cuda
