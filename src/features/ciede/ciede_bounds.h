// What ciede's CPU computation can give, where the device cannot call glibc:
// the policy CiedeBounds runs ciede_math.h's arithmetic on closed intervals
// (IvD of doubles, IvF of floats) that hold every value the CPU's variable can
// take. Each operation is evaluated at the interval's ends in round to
// nearest, which is monotonic, so the result holds every value the CPU's one
// rounded operation gives for operands inside the intervals. Each libm result
// is an interval around the device's own value:
//   - pow, atan2, sin, cos, exp (double): the device's value +- kLibmUlps
//     ulps. glibc's results lie within 1 ulp of the exact value (pow 0.52,
//     exp 0.511, sin/cos/atan2 below 1: glibc's own bounds), CUDA's within
//     2 ulps (CUDA's math library bounds: pow, sin, cos, atan2 2, exp 1), so 3
//     ulps apart at most; kLibmUlps leaves a factor 2.5 beyond that. Where the
//     C standard fixes the value (sin(+-0), exp(+-0), atan2(+-0, x > 0)) the
//     interval is that value;
//   - pow(t, 1/3) for t in [2^-7, 2^7] (every t lab_f raises): the device's
//     cbrt(t) +- kLibmUlps ulps. The exponent is the double nearest 1/3,
//     1/3 - e with e = 2^-54 / 3, so the exact pow(t, 1/3 - e) is
//     cbrt(t) t^-e, within e |ln t| < 0.82 2^-53 relative of cbrt(t): less
//     than 0.9 ulp; with CUDA's cbrt (1 ulp) and glibc's pow (1 ulp) 3 ulps
//     apart at most. Outside that range pow itself (above);
//   - pow(c, 7) for a float c in [2^-16, 2^16]: the exact c^7 in double-double
//     (as for powf, below), rounded, +- kLibmUlps ulps (glibc's pow is within
//     1 ulp of it);
//   - powf(c, 7) (float): the exact c^7 is computed in double-double (error
//     below 2^-100 relative); glibc's powf returns its nearest float except
//     where c^7 lies within kPowfTie float ulps of a tie between two floats,
//     checked for every float c in [2^-16, 2^16] against this host's powf
//     (tests/unit/ciede_test.cpp) and at the twin's start on a sample
//     (ciede_powf_model_holds); there, and outside that range, both floats
//     around c^7.
// A branch whose comparison the intervals cannot decide is recorded
// (`unsure`). A pixel's dE00 is the device's when nothing was unsure and the
// final interval is one float (bit for bit: -0 and +0 differ); otherwise the
// host computes it (ciede_cuda.cpp). CUDA-safe.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf::ciede {

inline constexpr int kLibmUlps = 8;

// The libm calls of the policy, out of line on the device: one body of each
// in the kernel. Inlined at every call site (TWINMAF_HD), the pixel kernel's
// code outgrew the instruction cache (half its warps' cycles were fetch
// stalls on the H100).
#if defined(__CUDACC__)
#define TWINMAF_CIEDE_OUTLINE inline __host__ __device__ __noinline__
#else
#define TWINMAF_CIEDE_OUTLINE inline
#endif
namespace libm {
TWINMAF_CIEDE_OUTLINE double pow(double x, double y) { return ::pow(x, y); }
TWINMAF_CIEDE_OUTLINE double cbrt(double x) { return ::cbrt(x); }
TWINMAF_CIEDE_OUTLINE double atan2(double y, double x) { return ::atan2(y, x); }
TWINMAF_CIEDE_OUTLINE double sin(double x) { return ::sin(x); }
TWINMAF_CIEDE_OUTLINE double cos(double x) { return ::cos(x); }
TWINMAF_CIEDE_OUTLINE double exp(double x) { return ::exp(x); }
}  // namespace libm
inline constexpr double kPowfTie = 1.0 / 64;

// A comparison's possible outcomes.
struct Maybe {
  bool can_true, can_false;
};

struct IvF;

struct IvD {
  double lo, hi;
  TWINMAF_HD IvD(double x) : lo(x), hi(x) {}  // NOLINT: a known double
  TWINMAF_HD IvD(double l, double h) : lo(l), hi(h) {}
  TWINMAF_HD explicit IvD(const IvF& f);
  // One double, bit for bit.
  TWINMAF_HD bool point() const { return double_bits(lo) == double_bits(hi); }
};

struct IvF {
  float lo, hi;
  TWINMAF_HD IvF(float x) : lo(x), hi(x) {}  // NOLINT: a known float
  TWINMAF_HD IvF(float l, float h) : lo(l), hi(h) {}
  TWINMAF_HD explicit IvF(const IvD& d) : lo(hd::to_float(d.lo)), hi(hd::to_float(d.hi)) {}
  // One float, bit for bit.
  TWINMAF_HD bool point() const { return float_bits(lo) == float_bits(hi); }
};

TWINMAF_HD IvD::IvD(const IvF& f) : lo(f.lo), hi(f.hi) {}

template <class T>
TWINMAF_HD T iv_min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
TWINMAF_HD T iv_max(T a, T b) {
  return a < b ? b : a;
}

// The interval of a product or quotient from its four corner values; a NaN
// corner (0 * inf, 0 / 0) makes the whole interval NaN.
template <class T>
TWINMAF_HD void iv_corners(T c0, T c1, T c2, T c3, T& lo, T& hi) {
  if (c0 != c0 || c1 != c1 || c2 != c2 || c3 != c3) {
    lo = hi = c0 != c0 ? c0 : (c1 != c1 ? c1 : (c2 != c2 ? c2 : c3));
    return;
  }
  lo = iv_min(iv_min(c0, c1), iv_min(c2, c3));
  hi = iv_max(iv_max(c0, c1), iv_max(c2, c3));
}

// Arithmetic of intervals (T = IvD or IvF, S its scalar); a scalar operand is
// a one-point interval.
#define TWINMAF_CIEDE_IV_OPS(Iv, S)                                                              \
  TWINMAF_HD Iv operator+(const Iv& a, const Iv& b) { return {a.lo + b.lo, a.hi + b.hi}; }     \
  TWINMAF_HD Iv operator-(const Iv& a, const Iv& b) { return {a.lo - b.hi, a.hi - b.lo}; }     \
  TWINMAF_HD Iv operator-(const Iv& a) { return {-a.hi, -a.lo}; }                              \
  TWINMAF_HD Iv operator*(const Iv& a, const Iv& b) {                                          \
    if (a.point() && b.point()) return Iv(a.lo * b.lo); /* the four corners' one value */      \
    Iv r(S(0));                                                                                \
    iv_corners(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi, r.lo, r.hi);                \
    return r;                                                                                  \
  }                                                                                            \
  TWINMAF_HD Iv operator/(const Iv& a, const Iv& b) {                                          \
    Iv r(S(0));                                                                                \
    if (b.lo <= S(0) && b.hi >= S(0)) return {-INFINITY, INFINITY}; /* 0 in the divisor */     \
    if (a.point() && b.point()) return Iv(a.lo / b.lo);                                        \
    iv_corners(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi, r.lo, r.hi);                \
    return r;                                                                                  \
  }                                                                                            \
  TWINMAF_HD Iv operator+(const Iv& a, S b) { return a + Iv(b); }                              \
  TWINMAF_HD Iv operator+(S a, const Iv& b) { return Iv(a) + b; }                              \
  TWINMAF_HD Iv operator-(const Iv& a, S b) { return a - Iv(b); }                              \
  TWINMAF_HD Iv operator-(S a, const Iv& b) { return Iv(a) - b; }                              \
  TWINMAF_HD Iv operator*(const Iv& a, S b) { return a * Iv(b); }                              \
  TWINMAF_HD Iv operator*(S a, const Iv& b) { return Iv(a) * b; }                              \
  TWINMAF_HD Iv operator/(const Iv& a, S b) { return a / Iv(b); }                              \
  TWINMAF_HD Maybe operator<(const Iv& a, S b) { return {a.lo < b, !(a.hi < b)}; }             \
  TWINMAF_HD Maybe operator<=(const Iv& a, S b) { return {a.lo <= b, !(a.hi <= b)}; }          \
  TWINMAF_HD Maybe operator>(const Iv& a, S b) { return {a.hi > b, !(a.lo > b)}; }             \
  TWINMAF_HD Maybe operator==(const Iv& a, S b) { return {a.lo <= b && a.hi >= b, !(a.lo == b && a.hi == b)}; } \
  TWINMAF_HD Maybe operator<=(const Iv& a, const Iv& b) { return {a.lo <= b.hi, !(a.hi <= b.lo)}; }

TWINMAF_CIEDE_IV_OPS(IvD, double)
TWINMAF_CIEDE_IV_OPS(IvF, float)
#undef TWINMAF_CIEDE_IV_OPS

// x plus or minus n ulps of x (at least; exact unless the sum leaves the
// binade upwards, where it rounds to within one ulp of it).
TWINMAF_HD IvD widen(double x, int n) {
  const uint64_t e = (double_bits(x) >> 52) & 0x7ff;
  const double ulp = e > 52 ? bits_double((e - 52) << 52) : bits_double(e ? uint64_t{1} << (e - 1) : 1);
  return {x - n * ulp, x + n * ulp};
}

// Double-double helpers: exact products and sums (Dekker, Knuth).
struct Dd {
  double hi, lo;
};
TWINMAF_HD Dd two_prod(double a, double b) {
  const double p = a * b;
  return {p, fma(a, b, -p)};
}
TWINMAF_HD Dd fast_two_sum(double a, double b) {  // |a| >= |b|
  const double s = a + b;
  return {s, b - (s - a)};
}
// (x.hi + x.lo) * y with a relative error below 2^-104.
TWINMAF_HD Dd dd_mul(Dd x, double y) {
  const Dd p = two_prod(x.hi, y);
  return fast_two_sum(p.hi, p.lo + x.lo * y);
}

// c^7 = hi + lo to 2^-100 relative, for a float c in [2^-16, 2^16] (no
// product leaves the normal range; hi is c^7 rounded to within 1 ulp).
TWINMAF_HD Dd pow7_dd(float c) {
  const double x = c;
  const double x2 = x * x;  // exact: 48 bits
  const Dd x4 = two_prod(x2, x2);
  return dd_mul(dd_mul(x4, x2), x);
}

// The floats glibc's powf(c, 7.0f) may return for a float c >= 0 (above).
TWINMAF_HD IvF powf7_bounds(float c) {
  if (c == 0.0f) return IvF(0.0f);
  const double x = c;
  if (!(x >= 0x1p-16 && x <= 0x1p16)) {  // both floats around c^7 (or +inf)
    const double p = x * x * x * x * x * x * x;
    const float f = hd::to_float(p);
    return {bits_float(float_bits(f) - (f > 0.0f)), bits_float(float_bits(f) + (f < INFINITY))};
  }
  const Dd x7 = pow7_dd(c);
  const float f = hd::to_float(x7.hi);
  const double fd = f;
  if (fd == x7.hi && x7.lo == 0) return IvF(f);  // c^7 is a float
  // The floats below and above c^7, their midpoint and c^7's distance to it.
  const bool above = fd > x7.hi || (fd == x7.hi && x7.lo < 0);
  const float fl = above ? bits_float(float_bits(f) - 1) : f;
  const float fu = above ? f : bits_float(float_bits(f) + 1);
  const double mid = (static_cast<double>(fl) + static_cast<double>(fu)) * 0.5;  // exact
  const double ulp = static_cast<double>(fu) - static_cast<double>(fl);          // exact
  const double d = (x7.hi - mid) + x7.lo;  // x7.hi - mid is exact (Sterbenz)
  if (fabs(d) < kPowfTie * ulp) return {fl, fu};
  return IvF(d < 0 ? fl : fu);
}

// The policy (ciede_math.h). One instance per pixel.
struct CiedeBounds {
  using D = IvD;
  using F = IvF;
  bool unsure = false;

  TWINMAF_HD bool test(Maybe m) {
    if (m.can_true && m.can_false) unsure = true;
    return m.can_true;
  }
  // A libm call of one argument value: the interval needs a known argument.
  TWINMAF_HD double one(const IvD& x) {
    if (double_bits(x.lo) != double_bits(x.hi)) unsure = true;
    return x.lo;
  }
  // An increasing function's bounds on [lo, hi]: the device's fn at both ends
  // (once for a point), each widened by kLibmUlps.
  template <class Fn>
  static TWINMAF_HD IvD increasing(double lo, double hi, Fn fn) {
    const double at_lo = fn(lo);
    return {widen(at_lo, kLibmUlps).lo, widen(hi == lo ? at_lo : fn(hi), kLibmUlps).hi};
  }
  // pow(x, y) for x in an interval, increasing in x > 0 (y > 0).
  static TWINMAF_HD IvD pow_up(const IvD& x, double y) {
    return increasing(x.lo, x.hi, [y](double v) { return libm::pow(v, y); });
  }
  TWINMAF_HD IvD pow_24(const IvD& x) { return pow_up(x, 2.4); }
  TWINMAF_HD IvD pow_third(const IvD& t) {
    if (!(t.lo >= 0x1p-7 && t.hi <= 0x1p7)) return pow_up(t, 1.0 / 3.0);
    return increasing(t.lo, t.hi, [](double v) { return libm::cbrt(v); });
  }
  TWINMAF_HD IvD pow7(const IvF& c) {  // c.lo, c.hi: floats, so pow7_dd's argument is exact
    if (!(c.lo >= 0x1p-16f && c.hi <= 0x1p16f)) return pow_up(IvD(c), 7.0);
    return increasing(c.lo, c.hi, [](double v) { return pow7_dd(static_cast<float>(v)).hi; });
  }
  TWINMAF_HD IvF powf7(const IvF& c) {
    const IvF lo = powf7_bounds(c.lo);
    return c.point() ? lo : IvF(lo.lo, powf7_bounds(c.hi).hi);
  }
  TWINMAF_HD IvD atan2(const IvF& y, const IvF& x) {
    if (!y.point() || !x.point()) unsure = true;
    if (y.lo == 0.0f && x.lo > 0.0f) return IvD(static_cast<double>(y.lo));  // +-0
    return widen(libm::atan2(static_cast<double>(y.lo), static_cast<double>(x.lo)), kLibmUlps);
  }
  TWINMAF_HD IvD sin(const IvD& x) {
    const double v = one(x);
    return v == 0 ? IvD(v) : widen(libm::sin(v), kLibmUlps);
  }
  TWINMAF_HD IvD cos(const IvD& x) { return widen(libm::cos(one(x)), kLibmUlps); }
  TWINMAF_HD IvD exp(const IvD& x) {
    const double v = one(x);
    return v == 0 ? IvD(1.0) : widen(libm::exp(v), kLibmUlps);
  }
  TWINMAF_HD IvD sqrt(const IvD& x) { return {::sqrt(x.lo), ::sqrt(x.hi)}; }
  TWINMAF_HD IvF fabs(const IvF& x) {
    if (x.lo >= 0.0f) return x;
    if (x.hi <= 0.0f) return -x;
    return {0.0f, iv_max(-x.lo, x.hi)};
  }
};

}  // namespace twinmaf::ciede
