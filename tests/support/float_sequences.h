// Adversarial float sequences for ordered float sums (base/ordered_sum.h):
// binade crossings, ties against odd and even running values, subnormals,
// overflow to infinity. Shared by the unit tests of the host sums and the
// twin tests of the device reduction. F = float or double: the kinds whose
// effect depends on the significand width p or the exponent range (2, 5, 6,
// 7, 11) place their values relative to F's.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/support/noise_clip.h"

namespace twinmaf::test {

inline constexpr int kFloatSequenceKinds = 12;

// Uniform in [0, 1) on the grid of F's significand.
template <typename F = float>
F uniform01(SplitMix64& s) {
  constexpr int kDigits = std::numeric_limits<F>::digits;
  return static_cast<F>(s.next() >> (64 - kDigits)) * std::ldexp(F(1), -kDigits);
}

// Adversarial term sequences (kinds 0-11).
template <typename F = float>
std::vector<F> float_sequence(int kind, size_t n, uint64_t seed) {
  constexpr int kDigits = std::numeric_limits<F>::digits;                // 24 / 53
  constexpr int kMinExponent = std::numeric_limits<F>::min_exponent - 1;  // -126 / -1022
  constexpr int kMaxExponent = std::numeric_limits<F>::max_exponent - 1;  // 127 / 1023
  SplitMix64 s(seed);
  std::vector<F> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = s.next();
    switch (kind) {
      case 0:  // magnitudes over 60 binades
        v[i] = std::ldexp(F(1) + uniform01<F>(s), static_cast<int>(r % 60) - 30);
        break;
      case 1:  // small half-integers
        v[i] = static_cast<F>(r % 64) * F(0.5);
        break;
      case 2:  // integers from 2^(p-1): u = 1..4, frequent ties and crossings
        v[i] = i == 0 ? std::ldexp(F(1), kDigits - 1) : static_cast<F>(r % 16);
        break;
      case 3:  // mostly zeros with rare large terms
        v[i] = (r % 97) == 0 ? std::ldexp(F(1) + uniform01<F>(s), static_cast<int>(r % 20)) : F(0);
        break;
      case 4: {  // psnr_hvs-like: (e*csf)^2, 80% zeros
        const F e = static_cast<F>(r % 3000) * (F(0.1f) + uniform01<F>(s));
        v[i] = (r >> 40) % 5 == 0 ? e * e : F(0);
        break;
      }
      case 5:  // tiny values, subnormals included (opaque leaves)
        v[i] = std::ldexp(uniform01<F>(s), kMinExponent + 6 - static_cast<int>(r % 30));
        break;
      case 6:  // powers of two over p binades (exact halfway points everywhere)
        v[i] = std::ldexp(F(1), static_cast<int>(r % kDigits) - kDigits / 2);
        break;
      case 7:  // a sum that reaches the top of the range (overflow to inf)
        v[i] = std::ldexp(F(1) + uniform01<F>(s), kMaxExponent - 27 + static_cast<int>(r % 27));
        break;
      case 8:  // slow geometric growth: a crossing every few thousand terms
        v[i] = std::ldexp(F(1) + uniform01<F>(s), static_cast<int>(i / 4096) - 40);
        break;
      case 9:  // constant terms: the sum stalls once u/2 exceeds the term
        v[i] = F(1);
        break;
      case 10:  // decreasing magnitudes: each term smaller than the last binade
        v[i] = std::ldexp(F(1) + uniform01<F>(s), 30 - static_cast<int>(i / 64));
        break;
      default:  // ties against long runs: r = 2^(p-2), t = 1.5 * 2^k with k near ulp(r)
        v[i] = i < 4 ? std::ldexp(F(1), kDigits - 4) : std::ldexp(F(1.5), static_cast<int>(r % 6) - 4);
        break;
    }
  }
  return v;
}

}  // namespace twinmaf::test
