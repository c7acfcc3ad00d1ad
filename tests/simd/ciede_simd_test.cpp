// ciede's CIEDE2000 row kernel: SIMD == reference (ciede_de00 per pair), bit
// for bit, on every target: the kernel on colour pairs from every branch of
// the hue steps and on converted sample triples, then whole frames
// (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "features/ciede/ciede.h"
#include "tests/simd/simd_harness.h"
#include "tests/support/noise_pair.h"

namespace twinmaf::test {

namespace {

float uniform(SplitMix64& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(rng.next() >> 40) * (1.0f / 16777216.0f);
}

// Colour pairs that reach every branch of ciede_de00: zero chroma on one or
// both sides (hue 0, delta h' 0), a' or b zero, hue differences beyond pi
// either way (delta h' and H-bar' wrap), equal and nearly equal colours,
// and colours converted from sample triples at every depth.
std::vector<CiedeLab> pair_colours(uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<CiedeLab> c;
  const auto add = [&c](CiedeLab a, CiedeLab b) {
    c.push_back(a);
    c.push_back(b);
  };
  for (int i = 0; i < 400; ++i) {
    const CiedeLab a{uniform(rng, 0, 100), uniform(rng, -128, 128), uniform(rng, -128, 128)};
    CiedeLab b{uniform(rng, 0, 100), uniform(rng, -128, 128), uniform(rng, -128, 128)};
    switch (i % 10) {
      case 0: add(a, b); break;
      case 1: add(a, {b.l, 0, 0}); break;                    // distorted achromatic
      case 2: add({a.l, 0, 0}, {b.l, 0, 0}); break;          // both achromatic
      case 3: add({a.l, a.a, 0}, {b.l, -b.a, 0}); break;     // b = 0: hue 0 or pi
      case 4: add({a.l, 0, a.b}, b); break;                  // a = 0
      case 5: add({a.l, 40, -3}, {b.l, 40, 3}); break;       // hues across 0: |h1 - h2| > pi
      case 6: add({a.l, 40, 3}, {b.l, 40, -3}); break;       // ... the other way
      case 7: add(a, a); break;                              // equal
      case 8: add(a, {a.l, std::nextafter(a.a, 200.0f), a.b}); break;  // one ulp apart
      default: {
        const int bpc = (i / 10) % 4 == 3 ? 16 : 8 + 2 * ((i / 10) % 4);
        const CiedeLevels k = ciede_levels(bpc);
        const auto sample = [&rng, bpc] { return static_cast<double>(rng.next() >> (64 - bpc)); };
        const CiedeLab x = ciede_lab(sample(), sample(), sample(), k);
        add(x, ciede_lab(sample(), sample(), sample(), k));
      }
    }
  }
  return c;
}

}  // namespace

void check_ciede_de00_row(const char* target, int64_t& cases) {
  const CiedeDe00Row ref = ciede_dsp_ref().de00_row, simd = ciede_dsp_simd().de00_row;
  const std::vector<CiedeLab> c = pair_colours(5);
  const size_t pairs = c.size() / 2;
  std::vector<float> col[6];
  for (auto& v : col) v.resize(pairs);
  for (size_t k = 0; k < pairs; ++k)
    for (int s = 0; s < 2; ++s) {
      col[3 * s][k] = c[2 * k + s].l;
      col[3 * s + 1][k] = c[2 * k + s].a;
      col[3 * s + 2][k] = c[2 * k + s].b;
    }
  int nonzero = 0;
  {
    // Every length around the vector sizes at a few offsets, then all pairs.
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t off : {0, 1, 3})
      for (size_t n = 0; n <= 40; ++n) runs.emplace_back(off, n);
    runs.emplace_back(0, pairs);
    for (auto [off, n] : runs) {
      const CiedeLabPairs p{{col[0].data() + off, col[3].data() + off},
                            {col[1].data() + off, col[4].data() + off},
                            {col[2].data() + off, col[5].data() + off}};
      std::vector<float> want(n + 1, -1.0f), got(n + 1, -1.0f);
      ref(p, n, want.data());
      simd(p, n, got.data());
      for (size_t k = 0; k < n; ++k) {
        nonzero += want[k] != 0;
        ASSERT_EQ(std::bit_cast<uint32_t>(got[k]), std::bit_cast<uint32_t>(want[k]))
            << "ciede_de00_row_" << target << ": offset " << off << " n " << n << " pair " << off + k << " ("
            << p.l[0][k] << ", " << p.a[0][k] << ", " << p.b[0][k] << ") (" << p.l[1][k] << ", " << p.a[1][k]
            << ", " << p.b[1][k] << ")";
      }
      ASSERT_EQ(got[n], -1.0f) << "ciede_de00_row_" << target << " wrote past n " << n;
      ++cases;
    }
  }
  EXPECT_GT(nonzero, 1000);
}

void check_ciede_sum(const char* target, int64_t& cases) {
  const CiedeDe00Row ref = ciede_dsp_ref().de00_row, simd = ciede_dsp_simd().de00_row;
  {
    uint64_t seed = 300;
    for (int bpc : {8, 10, 12, 16})
      for (PixFmt fmt : {PixFmt::k420, PixFmt::k422, PixFmt::k444})
        for (auto [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{33, 17}, std::pair{61, 40}})
          for (Noise noise : {Noise::kSmallDelta, Noise::kFull, Noise::kIdenticalLuma}) {
            const VideoFormat f{w, h, fmt, bpc};
            const Pair pic = make_pair(f, noise, ++seed);
            CiedeLabCache labs_ref(bpc, static_cast<size_t>(w) * h), labs_simd(bpc, static_cast<size_t>(w) * h);
            const double want = ciede_sum(*pic.ref, *pic.dis, labs_ref, nullptr, ref);
            const double got = ciede_sum(*pic.ref, *pic.dis, labs_simd, nullptr, simd);
            ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want))
                << "ciede_sum_" << target << ": " << w << "x" << h << " " << pix_fmt_name(fmt) << " bpc " << bpc
                << " seed " << seed;
            ++cases;
          }
  }
}

// The row kernel over w x h pairs of colours converted from 8-bit samples,
// a row at a time.
std::function<void(bool)> bench_ciede_de00_row(int w, int h) {
  struct Cols {
    std::vector<float> col[6];
    std::vector<float> out;
  };
  auto c = std::make_shared<Cols>();
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  SplitMix64 rng(9);
  const CiedeLevels k = ciede_levels(8);
  for (auto& v : c->col) v.resize(n);
  c->out.resize(static_cast<size_t>(w));
  const auto sample = [&rng] { return static_cast<double>(rng.next() >> 56); };
  for (size_t i = 0; i < n; ++i)
    for (int s = 0; s < 2; ++s) {
      const CiedeLab x = ciede_lab(sample(), sample(), sample(), k);
      c->col[3 * s][i] = x.l;
      c->col[3 * s + 1][i] = x.a;
      c->col[3 * s + 2][i] = x.b;
    }
  return [c, w, h](bool simd) {
    const CiedeDe00Row row = (simd ? ciede_dsp_simd() : ciede_dsp_ref()).de00_row;
    for (int y = 0; y < h; ++y) {
      const size_t o = static_cast<size_t>(y) * static_cast<size_t>(w);
      const CiedeLabPairs p{{c->col[0].data() + o, c->col[3].data() + o},
                            {c->col[1].data() + o, c->col[4].data() + o},
                            {c->col[2].data() + o, c->col[5].data() + o}};
      row(p, static_cast<size_t>(w), c->out.data());
    }
    keep(c->out[0]);
  };
}

}  // namespace twinmaf::test
