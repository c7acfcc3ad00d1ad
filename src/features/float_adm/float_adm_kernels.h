// float_adm CUDA kernels (float_adm.cu): one frame's device work and its
// launcher, callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

inline constexpr int kFloatAdmTwinScales = 4;

struct FloatAdmRegionArgs {
  int top = 0, bottom = 0, left = 0, right = 0;
};

struct FloatAdmScaleArgs {
  int in_w = 0, in_h = 0;  // DWT input (rows in_w apart)
  int w = 0, h = 0;        // bands
  FloatAdmRegionArgs decouple, sums;
  float rfactor[3] = {};
  int rows_at = 0;  // where its 9 x sums.rows row sums go (den h v d, num h v d, aim h v d)
};

struct FloatAdmLaunch {
  const uint8_t* ref = nullptr;  // luma planes, set per frame
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, both planes
  int bpc = 8;
  bool skip_scale0 = false, bypass_cm = false;
  double enhn_gain_limit = 100.0;
  float cos_1deg_sq = 0;
  const uint32_t* rcpss = nullptr;  // the host's RCPSS table (base/rcpss.h); null: exact division
  FloatAdmScaleArgs scale[kFloatAdmTwinScales];
  float* pic[2] = {};   // the pictures as floats (scale 0's input)
  float* a[2][2] = {};  // band a, alternating between scales: [scale & 1][ref, dis]
  float* hvd[2][3] = {};  // [ref, dis][h, v, d]
  float* csf[4][3] = {};  // ca, fa, cr, fr per orientation (R1)
  float* terms[9] = {};   // per R2 sample: den, num, aim per orientation
};

// The frame's kernels on `stream`; the row sums into `rows` (the terms block).
cudaError_t float_adm_enqueue(const FloatAdmLaunch& l, float* rows, cudaStream_t stream);

}  // namespace twinmaf::cuda
