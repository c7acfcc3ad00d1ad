// Adversarial float sequences for ordered float sums (psnr_hvs's running
// sum): binade crossings, ties against odd and even running values,
// subnormals, overflow to infinity. Shared by the unit tests of the host sum
// and the twin tests of the device reduction.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/support/noise_clip.h"

namespace twinmaf::test {

inline constexpr int kFloatSequenceKinds = 12;

inline float uniform01(SplitMix64& s) { return static_cast<float>(s.next() >> 40) * 0x1p-24f; }

// Adversarial term sequences (kinds 0-11).
inline std::vector<float> float_sequence(int kind, size_t n, uint64_t seed) {
  SplitMix64 s(seed);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = s.next();
    switch (kind) {
      case 0:  // magnitudes over 60 binades
        v[i] = std::ldexp(1.0f + uniform01(s), static_cast<int>(r % 60) - 30);
        break;
      case 1:  // small half-integers: ties at every u in [1/2, 8]
        v[i] = static_cast<float>(r % 64) * 0.5f;
        break;
      case 2:  // integers around 2^24: u = 1..4, frequent ties and crossings
        v[i] = i == 0 ? 0x1p23f : static_cast<float>(r % 16);
        break;
      case 3:  // mostly zeros with rare large terms
        v[i] = (r % 97) == 0 ? std::ldexp(1.0f + uniform01(s), static_cast<int>(r % 20)) : 0.0f;
        break;
      case 4: {  // psnr_hvs-like: (e*csf)^2, 80% zeros
        const float e = static_cast<float>(r % 3000) * (0.1f + uniform01(s));
        v[i] = (r >> 40) % 5 == 0 ? e * e : 0.0f;
        break;
      }
      case 5:  // tiny values, subnormals included (opaque leaves)
        v[i] = std::ldexp(uniform01(s), -120 - static_cast<int>(r % 30));
        break;
      case 6:  // powers of two only (exact halfway points everywhere)
        v[i] = std::ldexp(1.0f, static_cast<int>(r % 24) - 12);
        break;
      case 7:  // a sum that reaches the top of the float range (overflow to inf)
        v[i] = std::ldexp(1.0f + uniform01(s), 100 + static_cast<int>(r % 27));
        break;
      case 8:  // slow geometric growth: a crossing every few thousand terms
        v[i] = std::ldexp(1.0f + uniform01(s), static_cast<int>(i / 4096) - 40);
        break;
      case 9:  // constant terms: the sum stalls once u/2 exceeds the term
        v[i] = 1.0f;
        break;
      case 10:  // decreasing magnitudes: each term smaller than the last binade
        v[i] = std::ldexp(1.0f + uniform01(s), 30 - static_cast<int>(i / 64));
        break;
      default:  // ties against long runs: t = 1.5 * 2^k with k near ulp(r)
        v[i] = i < 4 ? 0x1p20f : std::ldexp(1.5f, static_cast<int>(r % 6) - 4);
        break;
    }
  }
  return v;
}

}  // namespace twinmaf::test
