// vif CUDA kernels (vif.cu): the launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace twinmaf::cuda {

// One frame of vif on the device. Scratch images hold scales 1..3 of ref
// (index 0) and dis (index 1): scale s is (w >> s) x (h >> s) uint16 samples
// with a row pitch of scratch_pitch[s] bytes (a multiple of 4).
struct VifFrameArgs {
  const uint8_t* ref = nullptr;  // luma planes, 8-bit samples if bpc == 8, else 16-bit
  const uint8_t* dis = nullptr;
  std::size_t pitch = 0;  // bytes, the same for ref and dis
  int w = 0, h = 0, bpc = 8;
  bool skip_scale0 = false;
  double egl = 100.0;
  const uint16_t* log2_table = nullptr;  // the host's VifLog2Table, 65536 entries
  uint16_t* scratch[4][2] = {};          // [scale][ref, dis], scales 1..3
  std::size_t scratch_pitch[4] = {};
  // The frame's VifTerms sums as [scale][num_log, den_log, num_non_log,
  // den_non_log], int64 in two's complement, zeroed before the frame.
  unsigned long long* sums = nullptr;
};

// Enqueues the four scales (four kernels) on `stream`.
cudaError_t vif_frame(const VifFrameArgs& a, cudaStream_t stream);

}  // namespace twinmaf::cuda
