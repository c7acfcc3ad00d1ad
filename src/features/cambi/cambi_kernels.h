// cambi CUDA kernels (cambi.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

inline constexpr int kCambiTwinScales = 5;
inline constexpr int kCambiTwinDiffs = 32;

// The block pooling's partition ranges shorter than this run on one thread.
inline constexpr int kCambiSerialRange = 128;
// The ints of scratch the block pooling of n c-values needs (cambi_pool.cuh).
constexpr long cambi_pool_scratch_ints(long n) { return 2 * (n / 2 + 1); }

// Raw terms of one picture's scale, zeroed before the frame: the nonzero
// c-values' count and exact total in 2^-24 units (atomics), then the pooled
// sum (CambiScaleTerms::topk_sum's bits).
struct CambiDeviceScale {
  unsigned long long units;
  unsigned long long nonzero;
  double topk_sum;
};

// One picture (the distorted one, or the reference with full_ref), with its
// device scratch, allocated once by the twin for the format.
struct CambiPictureArgs {
  const uint8_t* plane = nullptr;  // luma: 8-bit samples if bpc <= 8, else 16-bit
  std::size_t pitch = 0;           // bytes
  int in_w = 0, in_h = 0;          // input luma size
  int w = 0, h = 0;                // processed size
  const int* src_x = nullptr;      // resampling positions (w, h entries); null: same size
  const int* src_y = nullptr;
  int p = 0;                 // histogram radius W >> 1
  int speedup = 0;           // 1: scale 0 is already halved
  uint32_t mask_threshold = 0;
  int sw[kCambiTwinScales] = {}, sh[kCambiTwinScales] = {};  // scale sizes
  int k[kCambiTwinScales] = {};                              // top-k counts
  uint16_t* img0 = nullptr;                  // w x h, 10-bit (after anti-dithering)
  uint8_t* zero = nullptr;                   // w x h zero-derivative flags
  uint8_t* mask0 = nullptr;                  // sw[0] x sh[0]: the mask at scale 0's positions
  uint16_t* img[kCambiTwinScales] = {};      // mode-filtered image per scale
  int16_t* band[kCambiTwinScales] = {};      // band row per scale, kCambiNoBand outside
  float* cval[kCambiTwinScales] = {};        // c-values per scale
  int* pool[kCambiTwinScales] = {};          // the pool's scratch: img[s] and band[s] reused (cambi_pool.cuh)
  CambiDeviceScale* terms = nullptr;         // kCambiTwinScales entries in the frame's block
};

struct CambiFrameArgs {
  int bpc = 8;
  bool anti_dither = false;
  int num_diffs = 4;  // 1, 2, 4, 8, 16 or 32
  int tvi[kCambiTwinDiffs] = {};
  int weight[kCambiTwinDiffs] = {};
  int vlt_luma = 0;
  int band_base = 0;
  int band_size = 0;
  const float* recip = nullptr;  // the host's reciprocal table (kCambiReciprocals floats)
  int pictures = 1;              // 2 with full_ref: pic[1] is the reference
  CambiPictureArgs pic[2];
};

// Enqueues every picture's stages 1-5 on `stream`.
cudaError_t cambi_frame(const CambiFrameArgs& a, cudaStream_t stream);

}  // namespace twinmaf::cuda
