// float_vif per-pixel arithmetic: libvmaf's fast log2 and the statistic of
// one pixel of one scale (libvmaf f85a8536 feature/vif_tools.c,
// vif_statistic_s with VIF_OPT_FAST_LOG2). Shared by the CPU reference and a
// future device twin, so both classify every pixel with the same operations
// (float_vif.h has the contract).
//
// CUDA-safe: only base/hd.h and base/hd_math.h. Plain IEEE operators, float
// and double as libvmaf's C types them; device code must be compiled without
// FMA contraction (--fmad=false) and with IEEE division, as the host is
// (-ffp-contract=off).
#pragma once

#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

// The statistic's per-frame constants.
struct FloatVifStatParams {
  float gain_limit = 100.0f;    // (float)vif_enhn_gain_limit
  double sigma_nsq = 2.0;       // vif_sigma_nsq
  float sigma_max_inv = 0.0f;   // (float)(powf((float)sigma_nsq, 2.0f) / (255.0 * 255.0))
};

// libvmaf's log2f replacement: for x > 0 the unbiased exponent of x's bits
// plus a degree-8 polynomial in (mantissa in [1, 2)) - 1, evaluated by Horner's
// rule in float from 0 over the coefficients below (double literals rounded
// to float, as libvmaf's float table); -inf for 0, NaN below 0. Subnormals,
// inf and NaN go through the same bit arithmetic (exponent field 0 or 255).
// Written with selects, no branches (so row loops vectorise).
TWINMAF_HD float float_vif_log2(float x) {
  constexpr float kPoly[9] = {
      static_cast<float>(-0.012671635276421), static_cast<float>(0.064841182402670),
      static_cast<float>(-0.157048836463065), static_cast<float>(0.257167726303123),
      static_cast<float>(-0.353800560300520), static_cast<float>(0.480131410397451),
      static_cast<float>(-0.721314327952201), static_cast<float>(1.442694803896991),
      0.0f,
  };
  const uint32_t u = float_bits(x);
  const auto exponent = static_cast<int32_t>((u & 0x7f800000u) >> 23);
  const float t = bits_float((u & 0x007fffffu) | 0x3f800000u) - 1.0f;
  float p = 0.0f;
  for (int i = 0; i < 9; ++i) p = p * t + kPoly[i];
  const float v = static_cast<float>(exponent - 127) + p;
  return x == 0 ? bits_float(0xff800000u) : (x < 0 ? bits_float(0x7fc00000u) : v);  // -inf, C's NAN
}

struct FloatVifPixel {
  float num = 0.0f;
  float den = 0.0f;
};

// The statistic of one pixel from its five filtered values (mu1 = filtered
// reference, mu2 = filtered distorted, xx, yy, xy = filtered products),
// libvmaf's "matching_matlab" mode, every step in libvmaf's type and order:
//   s1 = max(xx - mu1*mu1, 0), s2 = max(yy - mu2*mu2, 0), s12 = xy - mu1*mu2
//   (float; C's MAX: NaN and -0 become +0); eps = 1e-10f;
//   g = s12 / (s1 + eps), sv = s2 - g*s12; then in turn: s1 < eps: g = 0,
//   sv = s2, s1 = 0; s2 < eps: g = 0, sv = 0; g < 0: sv = s2, g = 0;
//   sv = max(sv, eps); g = min(g, gain_limit) (float);
//   num = log2((float)(1.0 + (double)(g*g*s1) / (sv + sigma_nsq))), 0 where
//   s12 < 0; den = log2((float)(1.0 + s1 / sigma_nsq)), the quotients and
//   sums in double, log2 = float_vif_log2;
//   s1 < sigma_nsq (compared in double): num = 1 - s2 * sigma_max_inv, den = 1.
// Every value is computed and the branches are selects (as libvmaf, which
// evaluates both logarithms before its overrides; nothing here has side
// effects), so row loops over it vectorise.
TWINMAF_HD FloatVifPixel float_vif_pixel(float mu1, float mu2, float xx, float yy, float xy,
                                         const FloatVifStatParams& p) {
  const float eps = 1.0e-10f;
  const float d1 = xx - mu1 * mu1;
  const float d2 = yy - mu2 * mu2;
  const float s12 = xy - mu1 * mu2;
  float s1 = d1 > 0.0f ? d1 : 0.0f;
  const float s2 = d2 > 0.0f ? d2 : 0.0f;
  float g = s12 / (s1 + eps);
  float sv = s2 - g * s12;
  const bool s1_small = s1 < eps;
  g = s1_small ? 0.0f : g;
  sv = s1_small ? s2 : sv;
  s1 = s1_small ? 0.0f : s1;
  const bool s2_small = s2 < eps;
  g = s2_small ? 0.0f : g;
  sv = s2_small ? 0.0f : sv;
  const bool negative = g < 0.0f;
  sv = negative ? s2 : sv;
  g = negative ? 0.0f : g;
  sv = sv > eps ? sv : eps;
  g = g < p.gain_limit ? g : p.gain_limit;
  const float num_log = float_vif_log2(
      static_cast<float>(1.0 + static_cast<double>(g * g * s1) / (static_cast<double>(sv) + p.sigma_nsq)));
  const float den_log = float_vif_log2(static_cast<float>(1.0 + static_cast<double>(s1) / p.sigma_nsq));
  const bool flat = static_cast<double>(s1) < p.sigma_nsq;
  FloatVifPixel r;
  r.num = flat ? 1.0f - s2 * p.sigma_max_inv : (s12 < 0.0f ? 0.0f : num_log);
  r.den = flat ? 1.0f : den_log;
  return r;
}

}  // namespace twinmaf
