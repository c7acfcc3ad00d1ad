// The CIEDE2000 steps built on libm calls, shared by the reference
// (ciede_ref.cpp, ciede_de00) and the SIMD kernel (ciede_simd.cpp), which
// runs them per lane between its vector stages. Contract in ciede.h; every
// float/double conversion is one libvmaf makes (a value stored in a float
// variable, passed to a float parameter or returned as float is rounded to
// float there, and nowhere else).
#pragma once

#include <cmath>
#include <numbers>

namespace twinmaf::ciede {

inline constexpr double kPi = std::numbers::pi;  // M_PI

// pow(25, 7) and powf(25, 7) as libvmaf writes them (both folded by GCC; the
// double is exact, the float 6103515648).
inline double pow25_7() { return std::pow(25.0, 7.0); }
inline float pow25_7f() { return ::powf(25.0f, 7.0f); }

// Hue angle in [0, 2pi) of (a, b) = (y, x); 0 at the origin.
inline float hue_angle(float x, float y) {
  if (x == 0.0f && y == 0.0f) return 0.0f;
  float h = static_cast<float>(std::atan2(static_cast<double>(x), static_cast<double>(y)));
  if (h < 0.0f) h = static_cast<float>(h + 2. * kPi);
  return h;
}

// Delta h' (radians), 0 where either chroma (unprimed, as libvmaf) is 0.
inline float delta_hue(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0f || c2 == 0.0f) return 0.0f;
  if (std::fabs(h1 - h2) <= kPi) return h2 - h1;  // fabsf, compared in double
  if (h2 <= h1) return static_cast<float>((h2 - h1) + 2. * kPi);
  return static_cast<float>((h2 - h1) - 2. * kPi);
}

// Mean hue H-bar'.
inline float mean_hue(float h1, float h2) {
  const float s = h1 + h2;
  if (std::fabs(h1 - h2) > kPi) return static_cast<float>((s + 2.0 * kPi) / 2.0);
  return static_cast<float>(s / 2.0);
}

// T, the hue weighting of S_H.
inline float hue_weight_t(float hb) {
  const double h = hb;
  return static_cast<float>(1.0 - 0.17 * std::cos(h - kPi / 6.0) + 0.24 * std::cos(2.0 * h) +
                            0.32 * std::cos(3.0 * h + kPi / 30.0) - 0.20 * std::cos(4.0 * h - 7.0 * kPi / 20.0));
}

// The rotation term R_T = -2 root(C-bar') sin(theta) in two parts: the sine
// of the rotation angle (a function of H-bar' only) and the product.
inline double rotation_sin(float hb) {
  const float deg = static_cast<float>(hb * (180.0 / kPi));
  const float x = static_cast<float>((deg - 275.0) * (1.0 / 25.0));
  // libvmaf converts 60 exp(-x^2) (degrees) to float, then to radians as float.
  const float theta_deg = static_cast<float>(60.0 * std::exp(static_cast<double>(-(x * x))));
  const float theta = static_cast<float>(theta_deg * (kPi / 180.0));
  return std::sin(static_cast<double>(theta));
}
// c7 = powf(C-bar', 7).
inline float rotation(float c7, double sin_theta) {
  const double root = std::sqrt(static_cast<double>(c7 / (c7 + pow25_7f())));
  return static_cast<float>(-2.0 * root * sin_theta);
}

// The per-pixel libm steps between the SIMD kernel's vector stages, from a
// pixel's chromas C (ch), C' (cp), a' (ap) and b: sin(delta h' / 2), T, the
// rotation's sine and powf(C-bar', 7).
struct HueTerms {
  double sin_half_dhp;
  float t;
  double sin_theta;
  float c7;
};
inline HueTerms hue_terms(float b1, float ap1, float ch1, float b2, float ap2, float ch2, float cbp) {
  const float hp1 = hue_angle(b1, ap1);
  const float hp2 = hue_angle(b2, ap2);
  const float dhp = delta_hue(ch1, ch2, hp1, hp2);
  const float hb = mean_hue(hp1, hp2);
  return {std::sin(dhp / 2.0), hue_weight_t(hb), rotation_sin(hb), ::powf(cbp, 7.0f)};
}

}  // namespace twinmaf::ciede
