// vif per-pixel arithmetic, shared by the CPU reference (vif_ref.cpp) and the
// CUDA twin (vif.cu): the filter taps, the rounding folds of the statistic,
// the 2048*log2 lookups and the per-pixel classification with its double
// gain step. One implementation for both backends, so the twin's VifTerms
// equal the CPU's by construction (vif.h has the numeric contract).
//
// CUDA-safe: only <cstdint>, base/hd.h and base/hd_math.h. The double steps use the
// round-to-nearest intrinsics on the device (no contraction whatever the
// flags) and plain IEEE operators on the host (-ffp-contract=off); the
// double -> int32/int64 conversions truncate identically on x86-64 and sm_90
// for every value that can occur (vif.h bounds them).
#pragma once

#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

inline constexpr int kVifScales = 4;
inline constexpr int kVifMinSize = 16;
inline constexpr int kVifHalf[kVifScales] = {8, 4, 2, 1};
inline constexpr uint16_t kVifFilter[kVifScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};
inline constexpr int32_t kVifSigmaNsq = 65536 << 1;

// Tap k (0 .. 2*kVifHalf[scale]) of a scale's filter; for constant
// evaluation in kernels (taps become immediates).
constexpr uint32_t vif_tap(int scale, int k) { return kVifFilter[scale][k]; }

// The integer sums of one scale: they decide its num/den.
struct VifScaleSums {
  int64_t num_log = 0;
  int64_t den_log = 0;
  int64_t num_non_log = 0;
  int64_t den_non_log = 0;

  TWINMAF_HD VifScaleSums& operator+=(const VifScaleSums& o) {
    num_log += o.num_log;
    den_log += o.den_log;
    num_non_log += o.num_non_log;
    den_non_log += o.den_non_log;
    return *this;
  }
  bool operator==(const VifScaleSums&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.num_log); f(s.den_log); f(s.num_non_log); f(s.den_non_log); }
};

// Horizontal-pass folds of the statistic (vif.h): a mu product
// (mu_a * mu_b + 2^31) >> 32 of two horizontal mu sums (< 2^32 each, so the
// uint64 sum cannot wrap), a moment (sum + 2^15) >> 16 (< 2^32), and the one
// modular step, the uint32 difference read as int32.
TWINMAF_HD uint32_t vif_mu_product(uint32_t mu_a, uint32_t mu_b) {
  return static_cast<uint32_t>((uint64_t{mu_a} * mu_b + 0x80000000u) >> 32);
}
TWINMAF_HD uint32_t vif_moment(uint64_t sum) { return static_cast<uint32_t>((sum + 32768) >> 16); }
TWINMAF_HD int32_t vif_sigma(uint32_t moment, uint32_t mu_product) {
  return static_cast<int32_t>(moment - mu_product);
}

TWINMAF_HD uint16_t vif_table_at(const uint16_t* table, uint32_t i) {
#if defined(__CUDA_ARCH__)
  return __ldg(table + i);
#else
  return table[i];
#endif
}

// libvmaf's 2048*log2 via its table (entries [32768, 65535] are read).
// x >= 2^16: the top 16 bits index it. For x < 2^32 this equals libvmaf's
// 64-bit form below (48 - clz64(x) == 16 - clz32(x)).
TWINMAF_HD int32_t vif_log2_32(const uint16_t* table, uint32_t x) {
  const int k = 16 - clz32(x);
  return vif_table_at(table, x >> k) + 2048 * k;
}
// x >= 2^17.
TWINMAF_HD int32_t vif_log2_64(const uint16_t* table, uint64_t x) {
  const int k = 48 - clz64(x);
  return vif_table_at(table, static_cast<uint32_t>(x >> k)) + 2048 * k;
}

// C's (int32_t)double on x86-64 (cvttsd2si): truncation, INT32_MIN when the
// value is NaN or outside the int32 range (the device's in-range truncation
// is the same; the range test makes the out-of-range result agree too).
TWINMAF_HD int32_t vif_double_to_int32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
  return static_cast<int32_t>(v);
}

// The per-pixel classification and log2 terms (vif.h's contract), in
// libvmaf's operation order: g = s12 / (s1 + eps); sv = int32(s2 - g*s12);
// g = min(g, egl); num_log += LOG2_64(int64((g*g)*s1) + sv + nsq) - LOG2_64(sv + nsq).
TWINMAF_HD void vif_accumulate_pixel(int32_t sigma1_sq, int32_t sigma2_sq, int32_t sigma12, double egl,
                                     const uint16_t* table, VifScaleSums& acc) {
  if (sigma2_sq < 0) sigma2_sq = 0;
  if (sigma1_sq >= kVifSigmaNsq) {
    acc.den_log += vif_log2_32(table, static_cast<uint32_t>(kVifSigmaNsq + sigma1_sq)) - 2048 * 17;
    if (sigma12 > 0 && sigma2_sq > 0) {
      constexpr double kEps = 65536 * 1.0e-10;
      const double s1 = static_cast<double>(sigma1_sq);
      const double s12 = static_cast<double>(sigma12);
      double g = hd::rn_div(s12, hd::rn_add(s1, kEps));
      int32_t sv_sq = vif_double_to_int32(hd::rn_sub(static_cast<double>(sigma2_sq), hd::rn_mul(g, s12)));
      if (sv_sq < 0) sv_sq = 0;
      if (!(g < egl)) g = egl;  // C's MIN(g, egl)
      const uint32_t numer1 = static_cast<uint32_t>(sv_sq + kVifSigmaNsq);
      // (g*g)*s1 <= 100^2 * 2^31 < 2^45: the truncation is in range.
      const int64_t numer1_tmp = static_cast<int64_t>(hd::rn_mul(hd::rn_mul(g, g), s1)) + numer1;
      // numer1 < 2^32: its 64-bit LOG2 is the 32-bit one.
      acc.num_log += vif_log2_64(table, static_cast<uint64_t>(numer1_tmp)) - vif_log2_32(table, numer1);
    }
  } else {
    acc.num_non_log += sigma2_sq;
    acc.den_non_log += 1;
  }
}

}  // namespace twinmaf
