// float_adm's per-sample arithmetic, shared by the CPU reference
// (float_adm_ref.cpp) and the CUDA kernels (float_adm.cu), each step in
// libvmaf's types and order (float_adm.h has the contract). CUDA-safe:
// base/hd.h and base/hd_math.h only; built without FMA contraction.
#pragma once

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

// The double constants libvmaf multiplies |csf| by (FLOAT_ONE_BY_30/15).
inline constexpr double kFloatAdmOneBy30 = 0.0333333351;
inline constexpr double kFloatAdmOneBy15 = 0.0666666701;

// db2 taps as libvmaf stores them (float).
inline constexpr float kFloatAdmDwtLo[4] = {0.482962913144690f, 0.836516303737469f, 0.224143868041857f,
                                            -0.129409522550921f};
inline constexpr float kFloatAdmDwtHi[4] = {-0.129409522550921f, -0.224143868041857f, 0.836516303737469f,
                                            -0.482962913144690f};

// fabsf: the sign bit cleared.
TWINMAF_HD float float_adm_abs(float x) { return bits_float(float_bits(x) & 0x7fffffffu); }

// A float sum from +0 of four products, in order.
TWINMAF_HD float float_adm_sum4(const float* f, float s0, float s1, float s2, float s3) {
  float acc = 0.0f;
  acc += f[0] * s0;
  acc += f[1] * s1;
  acc += f[2] * s2;
  acc += f[3] * s3;
  return acc;
}

// libvmaf's DIVS(n, d) where it divides through RCPSS: y = RCPSS(d), then
// n * (y + y * (1 - d * y)).
TWINMAF_HD float float_adm_recip_div(float n, float d, float y) { return n * (y + y * (1.0f - d * y)); }

// Decouple and CSF of one sample of R1 (adm_decouple_s, adm_csf_s): o and t
// are the reference's and the distorted picture's h, v, d coefficients,
// divs(n, d) libvmaf's division (float_adm_recip_div on RCPSS, or n / d);
// out: per orientation the CSF values of a and r and their masking terms.
struct FloatAdmCsf {
  float ca[3], fa[3], cr[3], fr[3];
};
template <class Divs>
TWINMAF_HD FloatAdmCsf float_adm_decouple(const float o[3], const float t[3], double egl, float cos_1deg_sq,
                                          const float rfactor[3], Divs divs) {
  const float eps = 1e-30f;
  float rst[3];
  for (int b = 0; b < 3; ++b) {
    float k = divs(t[b], o[b] + eps);
    k = k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
    rst[b] = k * o[b];
  }
  const float ot_dp = o[0] * t[0] + o[1] * t[1];
  const float o_mag_sq = o[0] * o[0] + o[1] * o[1];
  const float t_mag_sq = t[0] * t[0] + t[1] * t[1];
  const bool angle = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
  FloatAdmCsf out;
  for (int b = 0; b < 3; ++b) {
    // C's MIN/MAX on doubles.
    if (angle && rst[b] > 0.0) {
      const double v = rst[b] * egl;
      rst[b] = static_cast<float>(v < t[b] ? v : t[b]);
    }
    if (angle && rst[b] < 0.0) {
      const double v = rst[b] * egl;
      rst[b] = static_cast<float>(v > t[b] ? v : t[b]);
    }
    const float av = t[b] - rst[b];
    out.ca[b] = rfactor[b] * av;
    out.fa[b] = static_cast<float>(kFloatAdmOneBy30 * float_adm_abs(out.ca[b]));
    out.cr[b] = rfactor[b] * rst[b];
    out.fr[b] = static_cast<float>(kFloatAdmOneBy30 * float_adm_abs(out.cr[b]));
  }
  return out;
}

// Masking threshold at (i, j) of a bw x bh band from the masker's CSF values
// c[b] and masking terms f[b] (adm_tools.h ADM_CM_THRESH_S_*): per
// orientation a float sum from +0 of the 3x3 neighbourhood's terms, the
// centre's replaced by (float)(sum + 0.0666666701 * |c|) in double; rows and
// columns -1 and n read 1 and n-1.
TWINMAF_HD float float_adm_threshold(const float* const c[3], const float* const f[3], int bw, int bh, int i, int j) {
  const long up = static_cast<long>(i == 0 ? 1 : i - 1) * bw;
  const long mid = static_cast<long>(i) * bw;
  const long dn = static_cast<long>(i == bh - 1 ? bh - 1 : i + 1) * bw;
  const int l = j == 0 ? 1 : j - 1;
  const int r = j == bw - 1 ? bw - 1 : j + 1;
  float thr = 0;
  for (int b = 0; b < 3; ++b) {
    const float* fb = f[b];
    float sum = 0;
    sum += fb[up + l];
    sum += fb[up + j];
    sum += fb[up + r];
    sum += fb[mid + l];
    sum = static_cast<float>(sum + kFloatAdmOneBy15 * float_adm_abs(c[b][mid + j]));
    sum += fb[mid + r];
    sum += fb[dn + l];
    sum += fb[dn + j];
    sum += fb[dn + r];
    thr += sum;
  }
  return thr;
}

// The cube libvmaf pools with at adm_p_norm 3, and a masked value's.
TWINMAF_HD float float_adm_cube(float x) { return x * x * x; }
TWINMAF_HD float float_adm_masked(float c, float thr) {
  const float x = float_adm_abs(c) - thr;
  return x < 0.0f ? 0.0f : x;
}

}  // namespace twinmaf
