// Seeded full-range noise picture pairs for unit tests of the features
// (tests/unit), every layout and depth: ref uniform over 0..2^bpc-1 in every
// stored sample (the unscored chroma column/row included).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/picture.h"
#include "tests/support/noise_clip.h"

namespace twinmaf::test {

enum class Noise { kFull, kSmallDelta, kIdentical, kIdenticalLuma };

struct Pair {
  std::unique_ptr<Picture> ref, dis;
};

// dis: independent uniform (kFull), ref plus a delta in
// [-max/8, max/8] clamped (kSmallDelta), ref itself (kIdentical), or ref in
// luma and kSmallDelta in chroma (kIdenticalLuma).
inline Pair make_pair(const VideoFormat& f, Noise noise, uint64_t seed) {
  Pair p{std::make_unique<Picture>(f, host_allocator()), std::make_unique<Picture>(f, host_allocator())};
  const int top = (1 << f.bpc) - 1;
  const int amp = std::max(1, top >> 3);
  uint64_t s = seed;
  for (int pl = 0; pl < f.planes(); ++pl) {
    for (int y = 0; y < f.stored_h(pl); ++y) {
      uint8_t* rr = p.ref->mutable_data(pl) + y * p.ref->stride(pl);
      uint8_t* rd = p.dis->mutable_data(pl) + y * p.dis->stride(pl);
      for (int x = 0; x < f.stored_w(pl); ++x) {
        const int r = static_cast<int>(splitmix64(s) >> (64 - f.bpc));
        int d = r;
        const bool distort = noise == Noise::kFull || noise == Noise::kSmallDelta ||
                             (noise == Noise::kIdenticalLuma && pl > 0);
        if (noise == Noise::kFull) {
          d = static_cast<int>(splitmix64(s) >> (64 - f.bpc));
        } else if (distort) {
          const uint64_t span = static_cast<uint64_t>(2 * amp + 1);
          const int delta = static_cast<int>((splitmix64(s) >> 32) % span) - amp;
          d = std::clamp(r + delta, 0, top);
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
