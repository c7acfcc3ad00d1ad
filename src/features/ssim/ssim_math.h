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

// One output of a filter (decimation or Gaussian pass): its taps' float
// products, each widened, summed in double from +0.0 in tap order, rounded to
// float. src[k] + x is tap k's input of output x.
TWINMAF_HD float ssim_weighted_sum(const float* const* src, const float* w, int taps, int x) {
  double acc = 0.0;
  for (int k = 0; k < taps; ++k) acc += static_cast<double>(src[k][x] * w[k]);
  return static_cast<float>(acc);
}

#include "features/ssim/ssim_pixel-inl.h"

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
