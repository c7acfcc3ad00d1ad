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
#include "tests/support/splitmix.h"  // SplitMix64, splitmix64 (users of this header rely on it)

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

}  // namespace twinmaf::test
