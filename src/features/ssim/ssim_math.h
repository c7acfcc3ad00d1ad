// SSIM per-pixel arithmetic and filter taps, shared by the CPU reference
// (ssim_ref.cpp) and any device twin: the Gaussian window, the two
// decimation kernels, the stabilising constants, the decimated sizes and the
// per-pixel luminance/contrast/structure terms. ssim.h has the contract.
//
// CUDA-safe: only base/hd.h and <cmath>. The per-pixel step uses IEEE float
// and double operators in libvmaf's operand order with no contraction
// (-ffp-contract=off on the host, --fmad=false on a device); sqrt is the
// correctly rounded double square root on both.
#pragma once

#include <cmath>

#include "base/hd.h"

namespace twinmaf {

inline constexpr int kSsimWindow = 11;  // Gaussian window taps (each direction)
inline constexpr int kSsimHalf = 5;     // taps each side of the centre
inline constexpr int kMsSsimScales = 5;
inline constexpr int kMsSsimLpfTaps = 9;  // 9/7 low-pass, each direction
inline constexpr int kSsimMaxScale = 10;  // float_ssim's largest decimation factor

// The 11-tap Gaussian (sigma 1.5) as libvmaf's float table
// (iqa/ssim_tools.h, g_gaussian_window_h/_v); symmetric.
inline constexpr float kSsimGauss[kSsimWindow] = {0.001028f, 0.007599f, 0.036001f, 0.109361f,
                                                  0.213006f, 0.266012f, 0.213006f, 0.109361f,
                                                  0.036001f, 0.007599f, 0.001028f};

// The 9/7 biorthogonal low-pass, libvmaf's 2-D float table (ms_ssim.c,
// g_lpf): entry [|dy|][|dx|] for offsets from the centre; the 9x9 table is
// this quadrant mirrored in both axes. Data, not a formula: libvmaf's entries
// are the exact 2-D filter rounded to 6 decimals, which differs from the
// rounded 1-D taps' products in 12 of the 81 places.
inline constexpr float kMsSsimLpfQuadrant[5][5] = {
    {0.363505f, 0.160885f, -0.047149f, -0.010146f, 0.016114f},
    {0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f},
    {-0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f},
    {-0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f},
    {0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f},
};

// Stabilising constants in float, as libvmaf forms them from L = 255,
// K1 = 0.01f, K2 = 0.03f: C1 = (K1*L)^2, C2 = (K2*L)^2, C3 = C2/2.
inline constexpr float kSsimK1L = 0.01f * 255;
inline constexpr float kSsimK2L = 0.03f * 255;
inline constexpr float kSsimC1 = kSsimK1L * kSsimK1L;
inline constexpr float kSsimC2 = kSsimK2L * kSsimK2L;
inline constexpr float kSsimC3 = kSsimC2 / 2.0f;

// Size of a dimension of n samples decimated by f (libvmaf's _iqa_decimate:
// n/f, plus one whenever n is odd, whatever f).
TWINMAF_HD int ssim_decimated_size(int n, int f) { return n / f + (n & 1); }

// libvmaf's symmetric border (KBND_SYMMETRIC): -1-i left of 0, 2n-1-i from n
// on. One reflection: callers keep -n <= i < 2n.
TWINMAF_HD int ssim_reflect(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }

// One pixel's terms, over "lanes" L: L::F holds floats and L::D doubles, one
// pixel each (SsimScalarLanes, here; the CPU reference also runs it on GCC
// vectors of 4 pixels, element-wise the same operations). Inputs are the
// five Gaussian-filtered maps at the pixel: means mu1 (reference) and mu2
// (distorted), the filtered squares xx, yy and product xy. l and c are
// double quotients, s a float quotient widened; the SSIM term is l * c * s
// in double, in that order.
template <class L>
TWINMAF_HD void ssim_pixel(const typename L::F& mu1, const typename L::F& mu2, const typename L::F& xx,
                           const typename L::F& yy, const typename L::F& xy, typename L::D& l, typename L::D& c,
                           typename L::D& s) {
  using F = typename L::F;
  const F s1 = L::max0(xx - mu1 * mu1);
  const F s2 = L::max0(yy - mu2 * mu2);
  const F s12 = xy - mu1 * mu2;
  const F sd = L::sqrt_of(s1 * s2);
  l = (2.0 * L::widen(mu1) * L::widen(mu2) + static_cast<double>(kSsimC1)) /
      L::widen(mu1 * mu1 + mu2 * mu2 + kSsimC1);
  c = (2.0 * L::widen(sd) + static_cast<double>(kSsimC2)) / L::widen(s1 + s2 + kSsimC2);
  s = L::widen((L::clamp_cov(s12, sd) + kSsimC3) / (sd + kSsimC3));
}

struct SsimScalarLanes {
  using F = float;
  using D = double;
  static TWINMAF_HD D widen(F x) { return static_cast<double>(x); }
  // libvmaf's (float)sqrt((double)x): the correctly rounded float root.
  static TWINMAF_HD F sqrt_of(F x) { return static_cast<float>(sqrt(static_cast<double>(x))); }
  // libvmaf's MAX(0.0, v): the comparison is false for -0 and NaN, which stay.
  static TWINMAF_HD F max0(F x) { return 0.0f > x ? 0.0f : x; }
  // A flat window of identical pictures can leave the covariance slightly
  // negative while sd is 0; libvmaf clamps it so that s is exactly 1 there.
  static TWINMAF_HD F clamp_cov(F s12, F sd) { return (s12 < 0.0f && sd <= 0.0f) ? 0.0f : s12; }
};

}  // namespace twinmaf
