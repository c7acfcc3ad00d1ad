// The golden set's adversarial "noise clips" (shared/golden/noiseclip.py),
// regenerated exactly: splitmix64 seeded with the clip's seed, drawn frame by
// frame, plane Y, Cb, Cr, row-major; per sample ref = r >> (64 - bpc) and
// dis = clamp(ref + delta) with delta uniform in [-A, A], A = max(1, max >> 3).
// Chroma planes use the file's ceil sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/picture.h"

namespace twinmaf::test {

struct NoiseClipSpec {
  int w = 0, h = 0;
  PixFmt fmt = PixFmt::k420;
  int bpc = 8;
  int frames = 0;
  uint64_t seed = 0;
};

// Parses "noise_<W>x<H>_<layout>_<bpc>b_<frames>f_s<seed>"; false if malformed.
bool parse_noise_clip_name(const std::string& name, NoiseClipSpec* spec);

// Packed planar files (as raw YUV: little-endian 16-bit above 8 bits).
void make_noise_clip(const NoiseClipSpec& spec, std::vector<uint8_t>* ref, std::vector<uint8_t>* dis);

// splitmix64: advances state s and returns the next output.
inline uint64_t splitmix64(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t next() { return splitmix64(s_); }

 private:
  uint64_t s_;
};

}  // namespace twinmaf::test
