// The former spelling of seeded_pair.h, kept only for tests not yet moved to
// it (tests/simd/ciede_simd_test.cpp): make_pair(f, noise, seed) is
// make_seeded_pair with the same seed, so the same samples. New tests use
// seeded_pair.h.
#pragma once

#include <cstdint>

#include "tests/support/seeded_pair.h"

namespace twinmaf::test {

enum class Noise { kFull, kSmallDelta, kIdentical, kIdenticalLuma };

using Pair = SeededPair;

inline Pair make_pair(const VideoFormat& f, Noise noise, uint64_t seed) {
  constexpr PairNoise kAs[] = {PairNoise::kFull, PairNoise::kSmall, PairNoise::kSame, PairNoise::kSameLuma};
  return make_seeded_pair(f, kAs[static_cast<int>(noise)], seed);
}

}  // namespace twinmaf::test
