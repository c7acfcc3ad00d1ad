// Seeded picture pairs, every layout and depth, for the tests of the
// features (tests/unit, tests/simd), including those whose expected values
// were recorded from libvmaf: the samples are drawn exactly as the scratch
// generator that fed libvmaf drew them (splitmix64 from the seed, planes Y,
// Cb, Cr in file order with the stored (ceil) chroma sizes, the unscored
// chroma column/row included, one reference and one distorted sample per
// draw), so a test rebuilds libvmaf's input bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/picture.h"
#include "tests/support/splitmix.h"

namespace twinmaf::test {

enum class PairNoise {
  kFull,      // dis independent of ref, both uniform over 0 .. 2^bpc - 1
  kSmall,     // dis = clamp(ref + delta), delta uniform in [-A, A], A = max(1, max >> 3)
  kMix,       // per sample: dis = ref, or (half the time) an independent uniform sample
  kLow,       // both within 7 of black or of white, independently
  kSame,      // dis = ref
  kSameLuma,  // dis = ref in luma, kSmall in chroma
};

struct SeededPair {
  std::unique_ptr<Picture> ref, dis;
};

inline SeededPair make_seeded_pair(const VideoFormat& f, PairNoise noise, uint64_t seed) {
  SeededPair p{std::make_unique<Picture>(f, host_allocator()), std::make_unique<Picture>(f, host_allocator())};
  SplitMix64 rng(seed);
  const int top = (1 << f.bpc) - 1;
  const int amp = std::max(1, top >> 3);
  const auto uniform = [&] { return static_cast<int>(rng.next() >> (64 - f.bpc)); };
  const auto small = [&](int r) {
    return std::clamp(r + static_cast<int>((rng.next() >> 32) % static_cast<uint64_t>(2 * amp + 1)) - amp, 0, top);
  };
  const auto extreme = [&] {
    const int k = static_cast<int>(rng.next() & 7);
    return (rng.next() & 1) ? k : top - k;
  };
  for (int pl = 0; pl < f.planes(); ++pl) {
    for (int y = 0; y < f.stored_h(pl); ++y) {
      uint8_t* rr = p.ref->mutable_data(pl) + y * p.ref->stride(pl);
      uint8_t* rd = p.dis->mutable_data(pl) + y * p.dis->stride(pl);
      for (int x = 0; x < f.stored_w(pl); ++x) {
        int r = uniform();
        int d = r;
        switch (noise) {
          case PairNoise::kFull: d = uniform(); break;
          case PairNoise::kSmall: d = small(r); break;
          case PairNoise::kMix:
            if (rng.next() & 1) d = uniform();
            break;
          case PairNoise::kLow:
            r = extreme();
            d = extreme();
            break;
          case PairNoise::kSame: break;
          case PairNoise::kSameLuma:
            if (pl > 0) d = small(r);
            break;
        }
        if (f.bpc > 8) {
          const uint16_t a = static_cast<uint16_t>(r), b = static_cast<uint16_t>(d);
          std::memcpy(rr + 2 * x, &a, 2);
          std::memcpy(rd + 2 * x, &b, 2);
        } else {
          rr[x] = static_cast<uint8_t>(r);
          rd[x] = static_cast<uint8_t>(d);
        }
      }
    }
  }
  return p;
}

}  // namespace twinmaf::test
