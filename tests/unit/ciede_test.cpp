// ciede: values recorded from libvmaf f85a8536 (its API, cpumask -1) on
// seeded pairs; the extractor (Lab cache, equal-pixel skip) against the plain
// per-pixel definition; libvmaf's chroma reads (4:2:2 error, odd sizes, reads
// past its buffer); special values and init errors.
#include "features/ciede/ciede.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/options.h"
#include "tests/support/one_frame.h"
#include "tests/support/seeded_pair.h"

namespace twinmaf {
namespace {

using test::make_seeded_pair;
using test::PairNoise;
using test::SeededPair;

struct CiedeRun {
  Status init;
  double value = 0;
  double sum = 0;
};

CiedeRun run_ciede(const Picture& ref, const Picture& dis) {
  test::OneFrame run = test::run_one_frame(ciede_feature_spec(), ref, dis);
  CiedeRun out;
  out.init = run.init;
  if (!out.init.ok()) return out;
  out.sum = static_cast<const CiedeTerms&>(*run.terms).de00_sum;
  const std::optional<double> v = run.scores.get("ciede2000", 0);
  EXPECT_TRUE(v.has_value());
  out.value = v.value_or(0);
  return out;
}

std::string describe(const VideoFormat& f, uint64_t seed) {
  return std::to_string(f.w) + "x" + std::to_string(f.h) + " " + std::string(pix_fmt_name(f.fmt)) + " " +
         std::to_string(f.bpc) + "b seed " + std::to_string(seed);
}

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

TEST(Ciede, EqualsLibvmafOnSeededPairs) {
  // Frame 0 of scratch runs of libvmaf's API on these exact pairs.
  struct Case {
    VideoFormat f;
    PairNoise noise;
    uint64_t seed;
    double want;
  };
  const Case cases[] = {
      {{24, 10, PixFmt::k420, 8}, PairNoise::kFull, 11, 11.722774394927889},
      // 4:2:2: columns 16..31 read the row padding, 32 the next chroma row.
      {{33, 9, PixFmt::k422, 10}, PairNoise::kSmall, 12, 26.774577942942141},
      {{70, 6, PixFmt::k422, 12}, PairNoise::kSmall, 13, 27.395974569619206},
      // Odd 4:2:0 width: the last column reads the padding.
      {{17, 8, PixFmt::k420, 16}, PairNoise::kFull, 14, 11.555911317867178},
      {{9, 7, PixFmt::k444, 16}, PairNoise::kFull, 16, 11.884142258865602},
      {{3, 3, PixFmt::k444, 10}, PairNoise::kMix, 17, 15.788749407897779},
      {{64, 48, PixFmt::k420, 8}, PairNoise::kSmall, 18, 26.05129512011716},
  };
  for (const Case& c : cases) {
    const SeededPair p = make_seeded_pair(c.f, c.noise, c.seed);
    const CiedeRun r = run_ciede(*p.ref, *p.dis);
    ASSERT_TRUE(r.init.ok()) << r.init.message();
    EXPECT_EQ(bits(r.value), bits(c.want)) << describe(c.f, c.seed) << ": " << r.value << " vs " << c.want;
  }
}

// The definition, pixel by pixel: both Lab colours computed, every dE00
// added (zeros included), no cache.
double direct_sum(const Picture& ref, const Picture& dis) {
  const VideoFormat& f = ref.format();
  const CiedeLevels k = ciede_levels(f.bpc);
  std::vector<uint16_t> cr[3], cd[3];
  for (auto* v : {cr, cd})
    for (int p = 0; p < 3; ++p) v[p].resize(static_cast<size_t>(f.w));
  const auto sample = [&](const Picture& pic, int p, int y, int x) -> uint16_t {
    const PlaneView v = pic.plane(p);
    return f.bpc > 8 ? v.row<uint16_t>(y)[x] : v.row<uint8_t>(y)[x];
  };
  double sum = 0;
  for (int i = 0; i < f.h; ++i) {
    for (int p = 1; p < 3; ++p) {
      if (f.fmt == PixFmt::k444) {
        for (int j = 0; j < f.w; ++j) {
          cr[p][static_cast<size_t>(j)] = sample(ref, p, i, j);
          cd[p][static_cast<size_t>(j)] = sample(dis, p, i, j);
        }
      } else {
        ciede_chroma_row(ref, p, i, cr[p].data());
        ciede_chroma_row(dis, p, i, cd[p].data());
      }
    }
    for (int j = 0; j < f.w; ++j) {
      const size_t x = static_cast<size_t>(j);
      const CiedeLab a = ciede_lab(sample(ref, 0, i, j), cr[1][x], cr[2][x], k);
      const CiedeLab b = ciede_lab(sample(dis, 0, i, j), cd[1][x], cd[2][x], k);
      sum += ciede_de00(a, b);
    }
  }
  return sum;
}

TEST(Ciede, ExtractorEqualsTheDefinitionEveryLayoutAndDepth) {
  const int sizes[][2] = {{1, 1}, {2, 3}, {3, 1}, {17, 9}, {33, 1}, {65, 4}, {70, 6}, {40, 33}};
  uint64_t seed = 100;
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt fmt : {PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto& sz : sizes)
        for (PairNoise noise : {PairNoise::kFull, PairNoise::kSmall, PairNoise::kMix}) {
          const VideoFormat f{sz[0], sz[1], fmt, bpc};
          const SeededPair p = make_seeded_pair(f, noise, ++seed);
          const CiedeRun r = run_ciede(*p.ref, *p.dis);
          ASSERT_TRUE(r.init.ok()) << r.init.message();
          const double want = direct_sum(*p.ref, *p.dis);
          EXPECT_EQ(bits(r.sum), bits(want)) << describe(f, seed);
          EXPECT_EQ(bits(r.value), bits(ciede_score(want, f.w, f.h))) << describe(f, seed);
          if (f.w * f.h > 1) {  // a single pixel may be equal in both (kMix)
            EXPECT_TRUE(std::isfinite(r.value)) << describe(f, seed);
            EXPECT_GT(r.sum, 0.0) << describe(f, seed);
          }
        }
}

TEST(Ciede, RepeatedTriplesAndEqualPixels) {
  // A few distinct triples repeated over a large frame (the caches' hits and
  // collisions: Lab colours, and at 8 bit the pairs' dE00), half the pixels
  // equal in both pictures (the skip).
  for (int bpc : {8, 10}) {
    const VideoFormat f{300, 200, PixFmt::k444, bpc};
    Picture ref(f, host_allocator()), dis(f, host_allocator());
    test::SplitMix64 rng(7);
    const int step = bpc == 8 ? 9 : 37;
    const auto set = [](Picture& pic, int p, int x, int y, uint16_t v) {
      uint8_t* row = pic.mutable_data(p) + y * pic.stride(p);
      if (pic.format().bpc == 8)
        row[x] = static_cast<uint8_t>(v);
      else
        std::memcpy(row + 2 * x, &v, 2);
    };
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < f.h; ++y)
        for (int x = 0; x < f.w; ++x) {
          const uint16_t a = static_cast<uint16_t>(16 + step * ((x / 3 + y / 5 + p) % 23));
          const uint16_t b = (rng.next() & 1) ? a : static_cast<uint16_t>(a + (rng.next() % 9) - 4);
          set(ref, p, x, y, a);
          set(dis, p, x, y, b);
        }
    const CiedeRun r = run_ciede(ref, dis);
    ASSERT_TRUE(r.init.ok());
    EXPECT_EQ(bits(r.sum), bits(direct_sum(ref, dis))) << "bpc " << bpc;
    EXPECT_GT(r.sum, 0.0);
  }
}

TEST(Ciede, FramesOnSeveralThreadsShareLabCaches) {
  // One extractor, frames computed concurrently and in turn: each borrows
  // caches that earlier frames (of other content) filled.
  for (int bpc : {8, 10}) {
    const VideoFormat f{96, 40, PixFmt::k420, bpc};
    const FeatureSpec& spec = ciede_feature_spec();
    auto opts = Options::parse("ciede", spec.options, OptionDict{});
    ASSERT_TRUE(opts.ok());
    auto ext = spec.create(*opts);
    ASSERT_TRUE(ext.ok());
    ASSERT_TRUE((*ext)->init(f).ok());
    constexpr int kFrames = 12;
    std::vector<SeededPair> pairs;
    // Frames 8..11 repeat 0..3: pairs met in an earlier frame.
    for (int i = 0; i < kFrames; ++i)
      pairs.push_back(
          make_seeded_pair(f, i % 2 ? PairNoise::kSmall : PairNoise::kMix, 40 + static_cast<uint64_t>(i % 8)));
    std::vector<double> sums(kFrames);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        for (int i = t; i < kFrames; i += 3) {
          auto terms = (*ext)->make_terms();
          FrameInput in;
          in.index = static_cast<unsigned>(i);
          in.ref = pairs[static_cast<size_t>(i)].ref.get();
          in.dis = pairs[static_cast<size_t>(i)].dis.get();
          EXPECT_TRUE((*ext)->compute(in, *terms).ok());
          sums[static_cast<size_t>(i)] = static_cast<const CiedeTerms&>(*terms).de00_sum;
        }
      });
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < kFrames; ++i) {
      const SeededPair& p = pairs[static_cast<size_t>(i)];
      EXPECT_EQ(bits(sums[static_cast<size_t>(i)]), bits(direct_sum(*p.ref, *p.dis)))
          << "bpc " << bpc << " frame " << i;
    }
  }
}

// Chroma row of a 4:2:0/4:2:2 picture whose sample (p, y, x) is
// 1000 * p + 100 * y + x (all distinct, none 0).
std::vector<uint16_t> chroma_of(const VideoFormat& f, int p, int i) {
  Picture pic(f, host_allocator());
  for (int pl = 0; pl < 3; ++pl)
    for (int y = 0; y < f.stored_h(pl); ++y)
      for (int x = 0; x < f.stored_w(pl); ++x) {
        const uint16_t v = static_cast<uint16_t>(1000 * pl + 100 * y + x);
        std::memcpy(pic.mutable_data(pl) + y * pic.stride(pl) + 2 * x, &v, 2);
      }
  std::vector<uint16_t> out(static_cast<size_t>(f.w));
  ciede_chroma_row(pic, p, i, out.data());
  return out;
}

TEST(Ciede, ChromaReadsAsLibvmaf) {
  {
    // 4:2:2, 70 wide: chroma rows of 35 samples, 64 apart. Row i reads chroma
    // row i/2; column j reads column j (not j/2): 0..34 the row, 35..63 the
    // zero padding, 64..69 the next chroma row's columns 0..5.
    const VideoFormat f{70, 6, PixFmt::k422, 10};
    const std::vector<uint16_t> row = chroma_of(f, 1, 3);
    for (int j = 0; j < 70; ++j) {
      const int want = j < 35 ? 1000 + 100 * 1 + j : j < 64 ? 0 : 1000 + 100 * 2 + (j - 64);
      EXPECT_EQ(row[static_cast<size_t>(j)], want) << "column " << j;
    }
    // The last V row of a 4:2:2 picture of height 1 reads past libvmaf's
    // buffer there: zeros.
    const VideoFormat one{70, 1, PixFmt::k422, 10};
    const std::vector<uint16_t> u = chroma_of(one, 1, 0), v = chroma_of(one, 2, 0);
    for (int j = 64; j < 70; ++j) {
      EXPECT_EQ(u[static_cast<size_t>(j)], 2000 + (j - 64)) << "U reads V's row 0";
      EXPECT_EQ(v[static_cast<size_t>(j)], 0);
    }
  }
  {
    // 4:2:0, 17x9: chroma 8x4 stored 9x5; column j reads j/2 (16 -> 8: the
    // padding), the last luma row reads chroma row 4: for U the first row of
    // V, for V past the buffer.
    const VideoFormat f{17, 9, PixFmt::k420, 8};
    Picture pic(f, host_allocator());
    for (int pl = 0; pl < 3; ++pl)
      for (int y = 0; y < f.stored_h(pl); ++y)
        for (int x = 0; x < f.stored_w(pl); ++x)
          pic.mutable_data(pl)[y * pic.stride(pl) + x] = static_cast<uint8_t>(1 + 40 * pl + 9 * y + x);
    std::vector<uint16_t> out(17);
    ciede_chroma_row(pic, 1, 5, out.data());
    for (int j = 0; j < 17; ++j) EXPECT_EQ(out[static_cast<size_t>(j)], j < 16 ? 41 + 9 * 2 + j / 2 : 0);
    ciede_chroma_row(pic, 1, 8, out.data());
    for (int j = 0; j < 17; ++j) EXPECT_EQ(out[static_cast<size_t>(j)], j < 16 ? 81 + j / 2 : 0);
    ciede_chroma_row(pic, 2, 8, out.data());
    for (int j = 0; j < 17; ++j) EXPECT_EQ(out[static_cast<size_t>(j)], 0);
  }
}

TEST(Ciede, IdenticalPicturesAreInfinite) {
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt fmt : {PixFmt::k420, PixFmt::k422, PixFmt::k444}) {
      const VideoFormat f{37, 11, fmt, bpc};
      const SeededPair p = make_seeded_pair(f, PairNoise::kSame, 5);
      const CiedeRun r = run_ciede(*p.ref, *p.dis);
      ASSERT_TRUE(r.init.ok());
      EXPECT_EQ(bits(r.sum), bits(0.0));
      EXPECT_EQ(r.value, std::numeric_limits<double>::infinity()) << describe(f, 5);
    }
}

TEST(Ciede, InitRefusesMonochromeAndOtherDepths) {
  {
    const VideoFormat f{16, 16, PixFmt::k400, 8};
    const Picture a(f, host_allocator()), b(f, host_allocator());
    const CiedeRun r = run_ciede(a, b);
    EXPECT_EQ(r.init.code(), Code::kUnsupported);
    EXPECT_EQ(r.init.message(), "ciede: pixel format 400 is not supported (needs chroma)");
  }
  for (int bpc : {9, 11, 13, 14, 15})
    for (PixFmt fmt : {PixFmt::k420, PixFmt::k444}) {
      const VideoFormat f{16, 16, fmt, bpc};
      const Picture a(f, host_allocator()), b(f, host_allocator());
      const CiedeRun r = run_ciede(a, b);
      EXPECT_EQ(r.init.code(), Code::kUnsupported);
      EXPECT_EQ(r.init.message(),
                "ciede: bit depth " + std::to_string(bpc) + " is not supported (8, 10, 12 or 16)");
    }
}

}  // namespace
}  // namespace twinmaf
