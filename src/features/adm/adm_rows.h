// adm CPU row kernels: the per-row loops of the CPU pipeline, which
// adm_ref.cpp drives row by row (see adm.h for the contract). Two sets with
// one signature: the scalar reference (adm_ref.cpp, the readable definition,
// per sample the adm_math.h functions) and a Highway set per SIMD target
// (adm_simd.cpp). The SIMD set equals the reference bit for bit on every
// input and target (tests/simd); the driver is the same for both, so the
// frame terms are too.
#pragma once

#include <cstdint>

#include "core/picture.h"
#include "features/adm/adm.h"

namespace twinmaf {

// The pointwise stage of one band row (adm::point per sample) over columns
// [j0, j1): inputs o (reference) and t (distorted) bands h, v, d; outputs
// written at the same columns.
struct AdmPointRow {
  int s = 0;  // scale (0: the int16 pipeline, 1-3: int32)
  const int32_t* o[3] = {};
  const int32_t* t[3] = {};
  uint32_t rf[3] = {};
  float cos2 = 0;
  double egl = 0;
  int32_t* x_adm[3] = {};
  int32_t* x_aim[3] = {};
  int32_t* t30_adm = nullptr;
  int32_t* t30_aim = nullptr;
  int32_t* cen_adm = nullptr;
  int32_t* cen_aim = nullptr;
};

struct AdmRowKernels {
  // Scale-0 vertical DWT: r[0..3] are input rows 2i-1 .. 2i+2 (reflected),
  // n >= 1 columns: lo[j] = adm::dwt0_vert_lo, and hi[j] when hi != nullptr.
  void (*dwt0_vert_u8)(const uint8_t* const* r, int n, int bpc, int32_t* lo, int32_t* hi);
  void (*dwt0_vert_u16)(const uint16_t* const* r, int n, int bpc, int32_t* lo, int32_t* hi);
  // Scales s = 1..3: the same over rows of the previous band a.
  void (*dwt_vert)(const int32_t* const* r, int n, int s, int32_t* lo, int32_t* hi);
  // Horizontal pass of scale s over padded vertical rows (p[2j .. 2j+3] =
  // input columns 2j-1 .. 2j+2), w >= 1 outputs: a[j] from lo, and when
  // hvd != nullptr hvd[0..2][j] = h (hi, lo), v (lo, hi), d (hi, hi).
  void (*dwt_horz)(const int32_t* lo, const int32_t* hi, int w, int s, int32_t* a,
                   int32_t* const* hvd);
  void (*point)(const AdmPointRow& row, int j0, int j1);
  // Sum (mod 2^64) over [j0, j1) of the reference cubes of band row b:
  // scale 0 adm::den_cube0, scales 1-3 adm::den_cube(., s, cube_shift).
  uint64_t (*den)(const int32_t* b, int j0, int j1, int s, int cube_shift);
  // Sum (mod 2^64) over [j0, j1) of adm::mask_cube of orientation `theta`
  // (targets x, thresholds thr) at scale s (0 or 1-3).
  uint64_t (*mask)(const int32_t* x, const int32_t* thr, int j0, int j1, int s, int theta,
                   int cube_shift);
};

// The reference set.
const AdmRowKernels& adm_row_kernels_ref();

// The Highway set of the best target simd.h allows now (meaningful when
// SIMD is enabled; on the scalar static target it is the reference set).
const AdmRowKernels& adm_row_kernels_simd();

// dav1d's dsp_init (adm_simd.cpp): the reference set, upgraded to the
// Highway set when base/simd.h allows SIMD (this CPU and --cpumask at the
// time of the fill; the Highway set is that of the best target allowed
// then). Adding a row kernel: a member here and an entry in each set.
void adm_dsp_init(AdmRowKernels& dsp);

// 2^30 / i for i in [1, 32768] (adm::recip_q30), index 0 holds 0.
const int32_t* adm_recip_q30_table();

// The frame's terms computed with the kernel set k (adm_terms_ref: the
// reference set; the extractor: the set adm_dsp_init chose).
void adm_terms_with(const AdmRowKernels& k, const PlaneView& ref, const PlaneView& dis,
                    const AdmKernelParams& p, AdmTerms& out);

}  // namespace twinmaf
