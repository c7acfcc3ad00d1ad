// ciede's arithmetic, written once for two kinds of evaluation (contract in
// ciede.h; every float/double conversion is one libvmaf makes: a value stored
// in a float variable, passed to a float parameter or returned as float is
// rounded to float there, and nowhere else):
//   - the CPU's: M = GlibcMath, D = double, F = float and the libm calls
//     themselves (ciede_lab, ciede_de00 and the SIMD kernel's per-lane steps);
//   - the CUDA twin's: M = ciede_bounds.h's CiedeBounds, D and F closed
//     intervals of doubles and floats that hold every value the CPU's
//     computation can take, given what is known of its libm results.
// A policy M provides the types D and F (constructible from each other, from
// double and float; the operators the code below uses), the libm calls it
// stands for (pow_24 = pow(x, 2.4), pow_third = pow(t, 1.0 / 3.0), pow7 =
// pow((double)c, 7.0), powf7 = powf(c, 7.0f), atan2 of two floats as
// doubles, sin, cos, exp), sqrt and fabs, and test(), which takes a
// comparison's outcome and returns the branch the CPU takes (a policy that
// cannot tell records that it could not). CUDA-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include "base/hd.h"

namespace twinmaf::ciede {

inline constexpr double kPi = std::numbers::pi;  // M_PI

// pow(25, 7) and powf(25, 7) as libvmaf writes them: GCC folds both (the
// double is exact, the float 6103515648; tests/unit/ciede_test.cpp).
TWINMAF_HD constexpr double pow25_7() { return 6103515625.0; }
TWINMAF_HD constexpr float pow25_7f() { return 6103515648.0f; }

template <class M>
struct Lab {
  typename M::F l, a, b;
};

// The limited-range levels of a bit depth (ciede.h's CiedeLevels, as plain
// numbers so that device code can take them).
struct Levels {
  double black, mid, luma_gain, chroma_gain;
};

// sRGB-style linearisation of one R'G'B' component.
template <class M>
TWINMAF_HD typename M::D linearize(M& m, const typename M::D& c) {
  if (m.test(c > 10. / 255.)) return m.pow_24((c + 0.055) * (1.0 / 1.055));
  return c * (1.0 / 12.92);
}

// CIE f(t), rounded to float (libvmaf returns it as float).
template <class M>
TWINMAF_HD typename M::F lab_f(M& m, const typename M::D& t) {
  using F = typename M::F;
  if (m.test(t > 216.0 / 24389.0)) return F(m.pow_third(t));
  return F(((24389.0 / 27.0) * t + 16.0) * (1.0 / 116.0));
}

// One Y'CbCr sample triple to CIE Lab (libvmaf's get_lab_color). The steps
// before the first libm call are exact functions of the samples.
template <class M>
TWINMAF_HD Lab<M> lab(M& m, double y, double u, double v, const Levels& k) {
  using D = typename M::D;
  using F = typename M::F;
  y = (y - k.black) * k.luma_gain;
  u = (u - k.mid) * k.chroma_gain;
  v = (v - k.mid) * k.chroma_gain;
  const D r = linearize(m, D(y + 1.28033 * v));
  const D g = linearize(m, D(y - 0.21482 * u - 0.38059 * v));
  const D b = linearize(m, D(y + 2.12798 * u));
  const F fx = lab_f(m, (r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894) * (1.0 / 0.95047));
  const F fy = lab_f(m, r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958);
  const F fz =
      lab_f(m, (r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677) * (1.0 / 1.08883));
  return {F(116.0 * D(fy) - 16.0), F(500.0 * (D(fx) - D(fy))), F(200.0 * (D(fy) - D(fz)))};
}

// pow(x, 2) of a float promoted to double: exact, as GCC folds it.
template <class D>
TWINMAF_HD D sq(const D& x) {
  return x * x;
}

// Hue angle in [0, 2pi) of (a, b) = (y, x); 0 at the origin.
template <class M>
TWINMAF_HD typename M::F hue_angle(M& m, const typename M::F& x, const typename M::F& y) {
  using D = typename M::D;
  using F = typename M::F;
  if (m.test(x == 0.0f) && m.test(y == 0.0f)) return F(0.0f);
  F h = F(m.atan2(x, y));
  if (m.test(h < 0.0f)) h = F(D(h) + 2. * kPi);
  return h;
}

// Delta h' (radians), 0 where either chroma (unprimed, as libvmaf) is 0.
template <class M>
TWINMAF_HD typename M::F delta_hue(M& m, const typename M::F& c1, const typename M::F& c2, const typename M::F& h1,
                                   const typename M::F& h2) {
  using D = typename M::D;
  using F = typename M::F;
  if (m.test(c1 == 0.0f) || m.test(c2 == 0.0f)) return F(0.0f);
  if (m.test(D(m.fabs(h1 - h2)) <= kPi)) return h2 - h1;  // fabsf, compared in double
  if (m.test(h2 <= h1)) return F(D(h2 - h1) + 2. * kPi);
  return F(D(h2 - h1) - 2. * kPi);
}

// Mean hue H-bar'.
template <class M>
TWINMAF_HD typename M::F mean_hue(M& m, const typename M::F& h1, const typename M::F& h2) {
  using D = typename M::D;
  using F = typename M::F;
  const F s = h1 + h2;
  if (m.test(D(m.fabs(h1 - h2)) > kPi)) return F((D(s) + 2.0 * kPi) / 2.0);
  return F(D(s) / 2.0);
}

// T, the hue weighting of S_H.
template <class M>
TWINMAF_HD typename M::F hue_weight_t(M& m, const typename M::F& hb) {
  using D = typename M::D;
  using F = typename M::F;
  const D h = D(hb);
  return F(1.0 - 0.17 * m.cos(h - kPi / 6.0) + 0.24 * m.cos(2.0 * h) + 0.32 * m.cos(3.0 * h + kPi / 30.0) -
           0.20 * m.cos(4.0 * h - 7.0 * kPi / 20.0));
}

// The rotation term R_T = -2 root(C-bar') sin(theta) in two parts: the sine
// of the rotation angle (a function of H-bar' only) and the product.
template <class M>
TWINMAF_HD typename M::D rotation_sin(M& m, const typename M::F& hb) {
  using D = typename M::D;
  using F = typename M::F;
  const F deg = F(D(hb) * (180.0 / kPi));
  const F x = F((D(deg) - 275.0) * (1.0 / 25.0));
  // libvmaf converts 60 exp(-x^2) (degrees) to float, then to radians as float.
  const F theta_deg = F(60.0 * m.exp(D(-(x * x))));
  const F theta = F(D(theta_deg) * (kPi / 180.0));
  return m.sin(D(theta));
}
// c7 = powf(C-bar', 7).
template <class M>
TWINMAF_HD typename M::F rotation(M& m, const typename M::F& c7, const typename M::D& sin_theta) {
  using D = typename M::D;
  using F = typename M::F;
  const D root = m.sqrt(D(c7 / (c7 + F(pow25_7f()))));
  return F(-2.0 * root * sin_theta);
}

// The per-pixel libm steps between the SIMD kernel's vector stages, from a
// pixel's chromas C (ch), C' (cp), a' (ap) and b: sin(delta h' / 2), T, the
// rotation's sine and powf(C-bar', 7).
template <class M>
struct HueTerms {
  typename M::D sin_half_dhp;
  typename M::F t;
  typename M::D sin_theta;
  typename M::F c7;
};
template <class M>
TWINMAF_HD HueTerms<M> hue_terms(M& m, const typename M::F& b1, const typename M::F& ap1, const typename M::F& ch1,
                                 const typename M::F& b2, const typename M::F& ap2, const typename M::F& ch2,
                                 const typename M::F& cbp) {
  using D = typename M::D;
  using F = typename M::F;
  const F hp1 = hue_angle(m, b1, ap1);
  const F hp2 = hue_angle(m, b2, ap2);
  const F dhp = delta_hue(m, ch1, ch2, hp1, hp2);
  const F hb = mean_hue(m, hp1, hp2);
  return {m.sin(D(dhp) / 2.0), hue_weight_t(m, hb), rotation_sin(m, hb), m.powf7(cbp)};
}

// CIEDE2000 of two Lab colours (kL 0.65, kC 1, kH 4), libvmaf's arithmetic.
template <class M>
TWINMAF_HD typename M::F de00(M& m, const Lab<M>& c1, const Lab<M>& c2) {
  using D = typename M::D;
  using F = typename M::F;
  // libvmaf's weights are float fields initialised from these doubles.
  const F k_l = F(static_cast<float>(0.65)), k_c = F(static_cast<float>(1.0)), k_h = F(static_cast<float>(4.0));
  const F dl = c2.l - c1.l;
  const F l_bar = (c1.l + c2.l) / F(2.0f);
  const F ch1 = F(m.sqrt(sq(D(c1.a)) + sq(D(c1.b))));
  const F ch2 = F(m.sqrt(sq(D(c2.a)) + sq(D(c2.b))));
  const F c_bar = (ch1 + ch2) / F(2.0f);
  // libvmaf calls pow(c_bar, 7) four times; one call gives the same value.
  const D c_bar7 = m.pow7(c_bar);
  const D g = 1.0 - m.sqrt(c_bar7 / (c_bar7 + pow25_7()));
  const F ap1 = F(D(c1.a) + D(c1.a / F(2.0f)) * g);
  const F ap2 = F(D(c2.a) + D(c2.a / F(2.0f)) * g);
  const F cp1 = F(m.sqrt(sq(D(ap1)) + sq(D(c1.b))));
  const F cp2 = F(m.sqrt(sq(D(ap2)) + sq(D(c2.b))));
  const F cbp = (cp1 + cp2) / F(2.0f);
  const F dcp = cp2 - cp1;
  const F lm = l_bar - F(50.0f);
  const F s_l = F(1. + ((0.015 * sq(D(lm))) / m.sqrt(20.0 + sq(D(lm)))));
  const F s_c = F(1. + 0.045 * D(cbp));
  const HueTerms<M> ht = hue_terms(m, c1.b, ap1, ch1, c2.b, ap2, ch2, cbp);
  const F d_hue = F(2.0 * m.sqrt(D(cp1 * cp2)) * ht.sin_half_dhp);
  const F s_h = F(1.0 + 0.015 * D(cbp) * D(ht.t));
  const F r_t = rotation(m, ht.c7, ht.sin_theta);
  const F lightness = dl / (k_l * s_l);
  const F chroma = dcp / (k_c * s_c);
  const F hue = d_hue / (k_h * s_h);
  return F(m.sqrt(sq(D(lightness)) + sq(D(chroma)) + sq(D(hue)) + D(r_t * chroma * hue)));
}

// The CPU's policy: glibc's libm (host only).
struct GlibcMath {
  using D = double;
  using F = float;
  static bool test(bool b) { return b; }
  static double pow_24(double x) { return std::pow(x, 2.4); }
  static double pow_third(double t) { return std::pow(t, 1.0 / 3.0); }
  static double pow7(float c) { return std::pow(static_cast<double>(c), 7.0); }
  static float powf7(float c) { return ::powf(c, 7.0f); }
  static double atan2(float y, float x) { return std::atan2(static_cast<double>(y), static_cast<double>(x)); }
  static double sin(double x) { return std::sin(x); }
  static double cos(double x) { return std::cos(x); }
  static double exp(double x) { return std::exp(x); }
  static double sqrt(double x) { return std::sqrt(x); }
  static float fabs(float x) { return std::fabs(x); }
};

// libvmaf's chroma memory of one picture (ciede.h): U then V, each of ch rows
// of `stride` = align32(cw) samples (cw of them written, the rest zero),
// contiguous. Where the sample `off` samples from U's first lies: its plane
// (1 or 2), row and column, or plane 0 for a zero (row padding, or past V's
// end).
struct ChromaPlace {
  int plane, row, col;
};
TWINMAF_HD int chroma_stride(int cw) { return (cw + 31) & ~31; }
TWINMAF_HD ChromaPlace chroma_place(int64_t off, int cw, int ch) {
  const int stride = chroma_stride(cw);
  const int64_t plane = static_cast<int64_t>(stride) * ch;
  if (off >= 2 * plane) return {0, 0, 0};
  const int p = off >= plane ? 2 : 1;
  const int64_t rem = off - (p - 1) * plane;
  const int row = static_cast<int>(rem / stride), col = static_cast<int>(rem % stride);
  if (col >= cw) return {0, 0, 0};
  return {p, row, col};
}
// Where luma position (i, j) reads plane p (1 or 2) of a 4:2:0 (half_cols)
// or 4:2:2 picture: libvmaf halves columns on the vertical subsampling flag
// (4:2:0 only) and steps rows on the horizontal one (4:2:0 and 4:2:2).
TWINMAF_HD ChromaPlace chroma_read(int p, int i, int j, bool half_cols, int cw, int ch) {
  const int row = i >> 1, col = half_cols ? j >> 1 : j;
  if (row < ch && col < cw) return {p, row, col};
  const int stride = chroma_stride(cw);
  const int64_t start = (p == 2 ? static_cast<int64_t>(stride) * ch : 0) + static_cast<int64_t>(row) * stride;
  return chroma_place(start + col, cw, ch);
}

}  // namespace twinmaf::ciede
