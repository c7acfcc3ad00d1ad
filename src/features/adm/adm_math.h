// adm per-sample arithmetic, shared by the CPU reference (adm_ref.cpp) and the
// CUDA twin (adm.cu): the DWT taps, decouple, CSF, masking and denominator
// steps of one sample, and the per-row rounding folds. One implementation for
// both backends, so the twin's terms equal the CPU's by construction (adm.h
// has the numeric contract; docs/adm.md the reference mapping).
//
// CUDA-safe: only <cstdint>, base/hd.h and base/hd_math.h. Integer steps that libvmaf lets
// wrap are written with explicit two's-complement helpers (no UB on either
// side). The two float steps (the 1-degree angle test and the gain clamp) are
// IEEE double/float operations in libvmaf's order; the device build uses
// --fmad=false, the host -ffp-contract=off, and the int64 -> float,
// int32 -> double and double -> int32 conversions round (to nearest / towards
// zero) identically on x86-64 and sm_90. Where libvmaf holds a value in int64
// that provably fits int32 (k, rst, the clamp result) it is held in int32
// here (same values, cheaper on the device); the comments give the bounds.
#pragma once

#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

// [top, bottom) x [left, right) within a band.
struct AdmRegion {
  int top = 0;
  int bottom = 0;
  int left = 0;
  int right = 0;
  TWINMAF_HD int64_t area() const { return int64_t{bottom - top} * (right - left); }
};

// Geometry and fixed-point constants of one scale (host-computed, read-only
// for kernels of every backend).
struct AdmScaleParams {
  int in_w = 0, in_h = 0;  // DWT input size
  int w = 0, h = 0;        // band size: ceil(in/2)
  // Masking + denominator region: margins (int)(0.1*n - 0.5). The pointwise
  // stages are needed on it plus a one-sample halo (the masking neighbours),
  // which lies inside libvmaf's decouple/CSF region ((int)(0.1*n - 1.5) and
  // n - that + 2, clamped), so computing them there only is exact.
  AdmRegion cm;
  uint32_t rfactor[3] = {};   // fixed-point CSF factor (scale 0: uint16 range)
  int cm_cube_shift[3] = {};  // per-pixel shift after cubing (>= 1)
  int cm_row_shift = 0;       // per-row shift of the masking sums (>= 1)
  int den_cube_shift = 0;     // scales 1-3: per-pixel shift after cubing (>= 1)
  int den_row_shift = 0;      // per-row shift of the denominator sums (scale 0: may be 0)
};

struct AdmKernelParams {
  int bpc = 8;
  bool skip_scale0 = false;  // scale 0: low-pass DWT only, no terms
  bool skip_aim = false;     // aim terms left zero
  double enhn_gain_limit = 100.0;
  float cos_1deg_sq = 0;     // (float)(cos(pi/180)^2), libvmaf's constant
  AdmScaleParams scale[4];
};

namespace adm {

// ---- two's-complement helpers: libvmaf's int32/int64 arithmetic where it can wrap

TWINMAF_HD int32_t wrap32(int64_t v) { return static_cast<int32_t>(v); }
TWINMAF_HD int32_t add32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
TWINMAF_HD int32_t sub32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
TWINMAF_HD int32_t shl32(int32_t a, int s) { return static_cast<int32_t>(static_cast<uint32_t>(a) << s); }
// abs(INT32_MIN) stays INT32_MIN, as gcc's code computes.
TWINMAF_HD int32_t abs32(int32_t a) { return a < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(a)) : a; }
TWINMAF_HD int64_t add64(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// Source index of the DWT and of the masking neighbours: -1 -> 1 at the
// start, n + k -> n - 1 - k at the end.
TWINMAF_HD int reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - 1 - i : i); }

// 2^30 / i for i in [1, 32768] (libvmaf's div_lookup, positive half).
TWINMAF_HD int32_t recip_q30(int i) { return static_cast<int32_t>((1u << 30) / static_cast<uint32_t>(i)); }

// ---- DWT (db2, Q15 taps lo {15826, 27411, 7345, -4240}, hi {-4240, -7345, 27411, -15826})

// Scale 0, vertical, samples u0..u3 of rows 2i-1..2i+2 at bpc b: the lo sum
// is centred by 46342 * 2^(b-1) (46342 = sum of the lo taps). Sums mod 2^32:
// the exact results fit int32 for b <= 16, so this is libvmaf's int32 value.
TWINMAF_HD int32_t dwt0_vert_lo(uint32_t u0, uint32_t u1, uint32_t u2, uint32_t u3, int bpc) {
  const uint32_t rnd = 1u << (bpc - 1);
  const uint32_t s = 15826u * u0 + 27411u * u1 + 7345u * u2 - 4240u * u3 - 46342u * rnd;
  return static_cast<int16_t>(static_cast<int32_t>(s + rnd) >> bpc);
}
TWINMAF_HD int32_t dwt0_vert_hi(uint32_t u0, uint32_t u1, uint32_t u2, uint32_t u3, int bpc) {
  const uint32_t rnd = 1u << (bpc - 1);
  const uint32_t s = 0u - 4240u * u0 - 7345u * u1 + 27411u * u2 - 15826u * u3;
  return static_cast<int16_t>(static_cast<int32_t>(s + rnd) >> bpc);
}
// Scale 0, horizontal over int16 vertical outputs: |sum| <= 54822 * 2^15 < 2^31.
TWINMAF_HD int32_t dwt0_horz_lo(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
  const int32_t acc = 15826 * p0 + 27411 * p1 + 7345 * p2 + -4240 * p3;
  return static_cast<int16_t>((acc + 32768) >> 16);
}
TWINMAF_HD int32_t dwt0_horz_hi(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
  const int32_t acc = -4240 * p0 + -7345 * p1 + 27411 * p2 + -15826 * p3;
  return static_cast<int16_t>((acc + 32768) >> 16);
}

// Scales s = 1..3 over the previous int32 band a: int64 sums (|sum| < 2^48),
// vertical shift {0, 16, 16} round {0, 2^15, 2^15}, horizontal shift
// {15, 16, 15} round {2^14, 2^15, 2^14}, narrowed mod 2^32 like libvmaf's
// (int32_t) casts.
TWINMAF_HD int32_t dwt_vert_round(int64_t sum, int s) {
  return s == 1 ? wrap32(sum) : wrap32((sum + 32768) >> 16);
}
TWINMAF_HD int32_t dwt_vert_lo(int64_t u0, int64_t u1, int64_t u2, int64_t u3, int s) {
  return dwt_vert_round(15826 * u0 + 27411 * u1 + 7345 * u2 + -4240 * u3, s);
}
TWINMAF_HD int32_t dwt_vert_hi(int64_t u0, int64_t u1, int64_t u2, int64_t u3, int s) {
  return dwt_vert_round(-4240 * u0 + -7345 * u1 + 27411 * u2 + -15826 * u3, s);
}
TWINMAF_HD int32_t dwt_horz_round(int64_t sum, int s) {
  return s == 2 ? wrap32((sum + 32768) >> 16) : wrap32((sum + 16384) >> 15);
}
TWINMAF_HD int32_t dwt_horz_lo(int64_t p0, int64_t p1, int64_t p2, int64_t p3, int s) {
  return dwt_horz_round(15826 * p0 + 27411 * p1 + 7345 * p2 + -4240 * p3, s);
}
TWINMAF_HD int32_t dwt_horz_hi(int64_t p0, int64_t p1, int64_t p2, int64_t p3, int s) {
  return dwt_horz_round(-4240 * p0 + -7345 * p1 + 27411 * p2 + -15826 * p3, s);
}

// ---- decouple, CSF, masking terms of one sample ----------------------------

// Angle between (oh, ov) and (th, tv) below 1 degree, in libvmaf's mixed
// precision: int64 -> float -> double, / 4096, products in double. The
// division by 4096 is written as the exact multiplication by 2^-12 (the
// operand is 0 or an integer-valued double >= 1: no rounding either way).
TWINMAF_HD bool angle_below_1deg(int64_t dot, int64_t omag, int64_t tmag, float cos2) {
  const double d = static_cast<double>(static_cast<float>(dot)) * 0x1p-12;
  if (!(d >= 0.0)) return false;
  const double o = static_cast<double>(static_cast<float>(omag)) * 0x1p-12;
  const double t = static_cast<double>(static_cast<float>(tmag)) * 0x1p-12;
  return d * d >= static_cast<double>(cos2) * o * t;
}

// libvmaf's gain clamp: rst * egl (double) limited by t, truncated. Applies
// when the angle test holds and libvmaf's float product (k/2^15)*(o/64) is
// non-zero, i.e. k > 0 and o != 0 (exact: no under/overflow in that product);
// its sign is the sign of o, which is also the sign of rst (rst >= 0 for
// o > 0, <= 0 for o < 0). The selected value lies between 0 and t (int32),
// so truncating it to int32 gives libvmaf's int64 truncation.
TWINMAF_HD int32_t enhance(int32_t rst, int32_t t, int32_t k, int32_t o, double egl) {
  if (k <= 0 || o == 0) return rst;
  const double m = static_cast<double>(rst) * egl;
  const double td = static_cast<double>(t);
  if (o > 0) return static_cast<int32_t>(m < td ? m : td);
  return static_cast<int32_t>(m > td ? m : td);
}

// Scale 0: the int16 pipeline. `recip(i)` must return recip_q30(i).
struct Scale0Math {
  static constexpr bool kS0 = true;
  // k = clamp(t / o, 0, 1) in Q15 (|recip * t| <= 2^45: the int64 product).
  template <typename Recip>
  static TWINMAF_HD int32_t gain(int32_t o, int32_t t, const Recip& recip) {
    if (o == 0) return 32768;
    const int32_t r0 = recip(o > 0 ? o : -o);  // one reciprocal, whatever the sign
    const int32_t r = o > 0 ? r0 : -r0;
    const int64_t k = (int64_t{r} * t + 16384) >> 15;
    return k < 0 ? 0 : (k > 32768 ? 32768 : static_cast<int32_t>(k));
  }
  static TWINMAF_HD int32_t narrow(int64_t v) { return static_cast<int16_t>(v); }
  // CSF-scaled value: (rf * x + {2^14, 2^14, 2^16 - 1}) >> {15, 15, 17}, int16.
  static TWINMAF_HD int32_t csf(int32_t x, uint32_t rf, int theta) {
    // |p| <= 65535 * 2^15 < 2^31; p + 65535 can pass 2^31 - 1 (rf >= 65534):
    // libvmaf's int32 add wraps there.
    const int32_t p = static_cast<int32_t>(rf) * x;
    return theta < 2 ? static_cast<int16_t>((p + 16384) >> 15) : static_cast<int16_t>(add32(p, 65535) >> 17);
  }
  // |x|/30 and |x|/15 masking terms, int16 (wrap as libvmaf's casts); |v| <= 2^15.
  static TWINMAF_HD int32_t by30(int32_t v) { return static_cast<int16_t>((4369 * (v < 0 ? -v : v) + 2048) >> 12); }
  static TWINMAF_HD int32_t by15(int32_t v) { return static_cast<int16_t>((8738 * (v < 0 ? -v : v) + 2048) >> 12); }
  // The masked value before thresholding: the unshifted CSF product.
  static TWINMAF_HD int32_t target(int32_t x, uint32_t rf, int) { return static_cast<int32_t>(rf) * x; }
};

// Scales 1-3: the int32 pipeline.
struct Scale123Math {
  static constexpr bool kS0 = false;
  // libvmaf reduces |o| >= 2^15 to 15 bits with a rounded shift first.
  template <typename Recip>
  static TWINMAF_HD int32_t gain(int32_t o, int32_t t, const Recip& recip) {
    if (o == 0) return 32768;
    const uint32_t ao = static_cast<uint32_t>(abs32(o));
    uint32_t msb = ao;
    int sh = 0;
    if (ao >= 32768) {
      sh = 17 - clz32(ao);
      msb = (ao + (1u << (sh - 1))) >> sh;
    }
    // (1 << (14 + sh)) is an int in libvmaf: for sh = 17 it wraps to -2^31.
    const int64_t rnd = static_cast<int32_t>(1u << (14 + sh));
    // libvmaf multiplies by the sign of o; |recip * t| < 2^61, so negating
    // instead is exact.
    const int64_t p = int64_t{recip(static_cast<int>(msb))} * t;
    const int64_t k = ((o < 0 ? -p : p) + rnd) >> (15 + sh);
    return k < 0 ? 0 : (k > 32768 ? 32768 : static_cast<int32_t>(k));
  }
  static TWINMAF_HD int32_t narrow(int64_t v) { return static_cast<int32_t>(v); }
  static TWINMAF_HD int32_t csf(int32_t x, uint32_t rf, int) {
    return wrap32((int64_t{x} * rf + (int64_t{1} << 27)) >> 28);
  }
  // libvmaf adds (int32_t)(1u << 31) = -2^31 before the shift.
  static TWINMAF_HD int32_t by30(int32_t v) {
    return wrap32((int64_t{143165577} * abs32(v) - (int64_t{1} << 31)) >> 32);
  }
  static TWINMAF_HD int32_t by15(int32_t v) {
    return wrap32((int64_t{286331153} * abs32(v) - (int64_t{1} << 31)) >> 32);
  }
  // Scales 1-3 mask the CSF-scaled value itself.
  static TWINMAF_HD int32_t target(int32_t x, uint32_t rf, int theta) { return csf(x, rf, theta); }
};

// Pointwise stages of one band sample: what the masking stage reads.
// Orientation order 0 = h, 1 = v, 2 = d.
struct AdmPoint {
  int32_t x_adm[3];  // adm pass target: CSF target of the restored part r
  int32_t x_aim[3];  // aim pass target: CSF target of the additive part a
  // Threshold terms: t30 = sum over orientations of |csf|/30 of the masker
  // (adm: CSF(a), aim: CSF(r)); cen = sum of |csf|/15 - |csf|/30 (all int32
  // sums mod 2^32, as libvmaf's).
  int32_t t30_adm, t30_aim;
  int32_t cen_adm, cen_aim;
};

// Decouple + CSF of one sample: o = reference bands, t = distorted bands.
template <typename Math, typename Recip>
TWINMAF_HD void point(const int32_t o[3], const int32_t t[3], const uint32_t rf[3], float cos2, double egl,
                      const Recip& recip, AdmPoint& out) {
  // Dot product and magnitudes: int64 in libvmaf; mod 2^64 here, which only
  // differs from exact for |values| near 2^31.
  const int64_t dot = add64(int64_t{o[0]} * t[0], int64_t{o[1]} * t[1]);
  const int64_t om = add64(int64_t{o[0]} * o[0], int64_t{o[1]} * o[1]);
  const int64_t tm = add64(int64_t{t[0]} * t[0], int64_t{t[1]} * t[1]);
  const bool angle = angle_below_1deg(dot, om, tm, cos2);
  int32_t sum30_a = 0, sum30_r = 0, cen_a = 0, cen_r = 0;
  for (int b = 0; b < 3; ++b) {
    const int32_t k = Math::gain(o[b], t[b], recip);
    // libvmaf's int64 rst: for 0 <= k <= 2^15, (k*o + 2^14) >> 15 lies in
    // [-2^31, 2^31 - 1], so it is held in int32.
    int32_t rst = static_cast<int32_t>((int64_t{k} * o[b] + 16384) >> 15);
    if (angle) rst = enhance(rst, t[b], k, o[b], egl);
    const int32_t r = Math::narrow(rst);
    const int32_t a = Math::narrow(int64_t{t[b]} - r);
    // adm pass: masker = CSF(a), target = r; aim pass: masker = CSF(r), target = a.
    const int32_t csf_a = Math::csf(a, rf[b], b);
    const int32_t csf_r = Math::csf(r, rf[b], b);
    out.x_adm[b] = Math::kS0 ? Math::target(r, rf[b], b) : csf_r;
    out.x_aim[b] = Math::kS0 ? Math::target(a, rf[b], b) : csf_a;
    const int32_t fa = Math::by30(csf_a);
    const int32_t fr = Math::by30(csf_r);
    sum30_a = add32(sum30_a, fa);
    sum30_r = add32(sum30_r, fr);
    cen_a = add32(cen_a, sub32(Math::by15(csf_a), fa));
    cen_r = add32(cen_r, sub32(Math::by15(csf_r), fr));
  }
  out.t30_adm = sum30_a;
  out.t30_aim = sum30_r;
  out.cen_adm = cen_a;
  out.cen_aim = cen_r;
}

// ---- masking and denominator of one sample ---------------------------------

// Cube of the masked target x of orientation b against the threshold thr
// (the int32 sum of the 3x3 t30 neighbourhood plus the centre's cen): scale 0
// subtracts thr << {10, 10, 12}, squares with (v^2 + 2^(q-1)) >> q,
// q = {29, 29, 30}, narrowed to int32; scales 1-3 subtract thr, q = 30. The
// cube is shifted by cube_shift (>= 1) with rounding. Added to the row sum
// mod 2^64.
template <bool kS0>
TWINMAF_HD int64_t mask_cube(int32_t x, int32_t thr, int b, int cube_shift) {
  const int sq = kS0 ? (b < 2 ? 29 : 30) : 30;
  int32_t v = sub32(abs32(x), kS0 ? shl32(thr, b < 2 ? 10 : 12) : thr);
  if (v < 0) v = 0;
  const int32_t v2 = wrap32((int64_t{v} * v + (int64_t{1} << (sq - 1))) >> sq);
  return (int64_t{v2} * v + (int64_t{1} << (cube_shift - 1))) >> cube_shift;
}

// Reference cube of the denominator: scale 0 |b|^3 (b int16); scales s = 1-3
// ((b^2 + 2^q) >> q) * |b| with q = {31, 30, 31} (libvmaf adds the whole
// divisor), shifted by cube_shift (>= 1) with rounding.
TWINMAF_HD uint64_t den_cube0(int32_t v) {
  const uint64_t a = static_cast<uint16_t>(v < 0 ? -v : v);
  return a * a * a;
}
TWINMAF_HD uint64_t den_cube(int32_t b, int s, int cube_shift) {
  const uint64_t v = static_cast<uint32_t>(abs32(b));
  const int q = s == 2 ? 30 : 31;
  return ((((v * v) + (uint64_t{1} << q)) >> q) * v + (uint64_t{1} << (cube_shift - 1))) >> cube_shift;
}

// Per-row folds: a row's sum (mod 2^64) rounded by the row shift, as libvmaf
// shifts each row before accumulating the frame total.
TWINMAF_HD uint64_t fold_den(uint64_t row, int sh) {
  const uint64_t rnd = sh > 0 ? uint64_t{1} << (sh - 1) : 0;
  return (row + rnd) >> sh;
}
TWINMAF_HD int64_t fold_mask(uint64_t row, int sh) {  // sh >= 1
  return add64(static_cast<int64_t>(row), int64_t{1} << (sh - 1)) >> sh;
}

}  // namespace adm
}  // namespace twinmaf
