// adm CUDA kernels (adm.cu): launcher callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "features/adm/adm_math.h"

namespace twinmaf::cuda {

inline constexpr int kAdmRowTerms = 9;  // den h v d, num h v d, aim h v d

// Device scratch of one twin, allocated once for its format.
struct AdmScratch {
  int32_t* band_a[3][2] = {};         // band a of scales 0-2 [ref, dis], w_s x h_s
  unsigned long long* rows[4] = {};   // per-row sums of scale s, h_s x kAdmRowTerms;
                                      // all zero between frames (the fold re-zeroes them)
};

// The frame's terms of luma planes ref and dis (adm.h's contract; 8-bit
// samples if p.bpc == 8, else 16-bit) into terms[s * kAdmRowTerms + q]
// (stored, not added). Five launches on `stream`, no host synchronisation.
cudaError_t adm_terms(const uint8_t* ref, std::size_t ref_pitch, const uint8_t* dis, std::size_t dis_pitch,
                      const AdmKernelParams& p, const AdmScratch& scratch, unsigned long long* terms,
                      cudaStream_t stream);

}  // namespace twinmaf::cuda
