// psnr_hvs: the Extractor (lane kernel + compacted terms + fast ordered sum)
// against a direct evaluation of the definition (the scalar block kernel and
// one plain running float sum over every term, zeros included), plus the
// special values and init errors. The ordered sum itself is tested in
// ordered_sum_test.cpp.
#include "features/psnr_hvs/psnr_hvs.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "tests/support/seeded_pair.h"
#include "tests/support/splitmix.h"

namespace twinmaf {
namespace {

using test::make_seeded_pair;
using test::PairNoise;
using test::SeededPair;
using test::splitmix64;


int sample(const PlaneView& v, int bpc, int x, int y) {
  return bpc > 8 ? v.row<uint16_t>(y)[x] : v.row<uint8_t>(y)[x];
}

// The definition, evaluated directly: scalar block kernel on every block in
// raster order, one running float sum over all 64 terms of every block.
double direct_plane_score(const Picture& ref, const Picture& dis, int plane) {
  const PlaneView a = ref.plane(plane), b = dis.plane(plane);
  const int bpc = ref.format().bpc;
  const PsnrHvsTables& tab = psnr_hvs_tables();
  float ret = 0;
  int pixels = 0;
  for (int y = 0; y < a.h - 7; y += 7) {
    for (int x = 0; x < a.w - 7; x += 7) {
      int32_t s[64], d[64];
      float t[64];
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          s[8 * i + j] = sample(a, bpc, x + j, y + i);
          d[8 * i + j] = sample(b, bpc, x + j, y + i);
        }
      psnr_hvs_block_terms_ref(s, d, tab.csf[plane], tab.mask[plane], t);
      for (int k = 0; k < 64; ++k) {
        ret += t[k];
        ++pixels;
      }
    }
  }
  if (pixels == 0) return std::numeric_limits<double>::quiet_NaN();
  ret /= static_cast<float>(pixels);
  const int samplemax = (1 << bpc) - 1;
  ret /= static_cast<float>(samplemax * samplemax);
  return ret;
}

double to_db(double s) { return std::isnan(s) ? s : 10 * (-std::log10(s)); }

struct HvsRun {
  Status init;
  double v[4] = {};
  PsnrHvsTerms terms;
};

HvsRun run_extractor(const SeededPair& p) {
  HvsRun out;
  const FeatureSpec& spec = psnr_hvs_feature_spec();
  auto opts = Options::parse("psnr_hvs", spec.options, OptionDict{});
  EXPECT_TRUE(opts.ok());
  auto ext = spec.create(*opts);
  EXPECT_TRUE(ext.ok());
  out.init = (*ext)->init(p.ref->format());
  if (!out.init.ok()) return out;
  auto terms = (*ext)->make_terms();
  FrameInput in;
  in.index = 0;
  in.ref = p.ref.get();
  in.dis = p.dis.get();
  EXPECT_TRUE((*ext)->compute(in, *terms).ok());
  Collector col;
  EXPECT_TRUE((*ext)->finish(0, *terms, col).ok());
  const char* names[4] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
  for (int i = 0; i < 4; ++i) {
    auto v = col.get(names[i], 0);
    EXPECT_TRUE(v.has_value()) << names[i];
    out.v[i] = v.value_or(0);
  }
  out.terms = static_cast<const PsnrHvsTerms&>(*terms);
  return out;
}

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

std::string describe(const VideoFormat& f, uint64_t seed) {
  return std::to_string(f.w) + "x" + std::to_string(f.h) + " " + std::string(pix_fmt_name(f.fmt)) + " " +
         std::to_string(f.bpc) + "b seed " + std::to_string(seed);
}

// Every value equals the direct evaluation bit for bit (NaN: both NaN).
void expect_matches_definition(const SeededPair& p, const HvsRun& r, const std::string& what) {
  double lin[3];
  for (int pl = 0; pl < 3; ++pl) lin[pl] = direct_plane_score(*p.ref, *p.dis, pl);
  const double want[4] = {to_db(lin[0]), to_db(lin[1]), to_db(lin[2]),
                          to_db(lin[0] * .8 + .1 * (lin[1] + lin[2]))};
  for (int i = 0; i < 4; ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(r.v[i])) << what << " value " << i;
      EXPECT_FALSE(std::signbit(r.v[i])) << what << " value " << i << ": libvmaf prints nan, not -nan";
    } else {
      EXPECT_EQ(bits(r.v[i]), bits(want[i])) << what << " value " << i << ": " << r.v[i] << " vs " << want[i];
    }
  }
}

TEST(PsnrHvs, NoiseMatchesDefinitionEveryLayoutAndDepth) {
  const int depths[] = {8, 9, 10, 11, 12};
  const PixFmt fmts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};
  const int sizes[][2] = {{64, 48}, {65, 63}, {29, 17}, {16, 16}};
  uint64_t seed = 1;
  for (int bpc : depths)
    for (PixFmt fmt : fmts)
      for (auto& sz : sizes)
        for (PairNoise noise : {PairNoise::kFull, PairNoise::kSmall}) {
          const VideoFormat f{sz[0], sz[1], fmt, bpc};
          const SeededPair p = make_seeded_pair(f, noise, ++seed);
          const HvsRun r = run_extractor(p);
          ASSERT_TRUE(r.init.ok()) << r.init.message();
          const std::string what = describe(f, seed);
          expect_matches_definition(p, r, what);
          // Non-trivial: luma has blocks at every size here and differs.
          EXPECT_TRUE(std::isfinite(r.v[0])) << what;
          EXPECT_GT(r.v[0], 0.0) << what;
          EXPECT_LT(r.v[0], 100.0) << what;
          EXPECT_FALSE(r.terms.plane[0].terms.empty()) << what;
        }
}

TEST(PsnrHvs, OddLargeSizeMatchesDefinition) {
  for (int bpc : {8, 12}) {
    const VideoFormat f{357, 353, PixFmt::k420, bpc};
    const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 77 + static_cast<uint64_t>(bpc));
    const HvsRun r = run_extractor(p);
    ASSERT_TRUE(r.init.ok());
    expect_matches_definition(p, r, describe(f, 77));
    // 357x353 luma: 50 x 50 blocks; 4:2:0 chroma 178x176: 25 x 25.
    EXPECT_EQ(r.terms.plane[0].blocks, 50 * 50);
    EXPECT_EQ(r.terms.plane[1].blocks, 25 * 25);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isfinite(r.v[i]));
  }
}

TEST(PsnrHvs, StoredTermsAreTheNonzeroTermsInOrder) {
  const VideoFormat f{36, 22, PixFmt::k444, 10};
  const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 5);
  const HvsRun r = run_extractor(p);
  ASSERT_TRUE(r.init.ok());
  const PsnrHvsTables& tab = psnr_hvs_tables();
  for (int pl = 0; pl < 3; ++pl) {
    std::vector<float> want;
    const PlaneView a = p.ref->plane(pl), b = p.dis->plane(pl);
    for (int y = 0; y < a.h - 7; y += 7)
      for (int x = 0; x < a.w - 7; x += 7) {
        int32_t s[64], d[64];
        float t[64];
        for (int k = 0; k < 64; ++k) {
          s[k] = sample(a, 10, x + k % 8, y + k / 8);
          d[k] = sample(b, 10, x + k % 8, y + k / 8);
        }
        psnr_hvs_block_terms_ref(s, d, tab.csf[pl], tab.mask[pl], t);
        for (float v : t)
          if (v != 0) want.push_back(v);
      }
    ASSERT_EQ(r.terms.plane[pl].terms.size(), want.size()) << "plane " << pl;
    EXPECT_EQ(std::memcmp(r.terms.plane[pl].terms.data(), want.data(), want.size() * sizeof(float)), 0);
    EXPECT_EQ(r.terms.plane[pl].blocks, 5 * 3);
    EXPECT_FALSE(want.empty());
  }
}

TEST(PsnrHvs, TermsDoNotDependOnBitDepthOnlyTheScaleDoes) {
  // The same raw samples (all < 256) declared as 8 and as 9 bit: identical
  // terms; the scores differ only through samplemax (255 vs 511).
  const VideoFormat f8{40, 40, PixFmt::k420, 8};
  const SeededPair p8 = make_seeded_pair(f8, PairNoise::kFull, 9);
  const VideoFormat f9{40, 40, PixFmt::k420, 9};
  SeededPair p9{std::make_unique<Picture>(f9, host_allocator()), std::make_unique<Picture>(f9, host_allocator())};
  for (int pl = 0; pl < 3; ++pl)
    for (int y = 0; y < f8.stored_h(pl); ++y)
      for (int x = 0; x < f8.stored_w(pl); ++x) {
        const uint16_t a = p8.ref->data(pl)[y * p8.ref->stride(pl) + x];
        const uint16_t b = p8.dis->data(pl)[y * p8.dis->stride(pl) + x];
        std::memcpy(p9.ref->mutable_data(pl) + y * p9.ref->stride(pl) + 2 * x, &a, 2);
        std::memcpy(p9.dis->mutable_data(pl) + y * p9.dis->stride(pl) + 2 * x, &b, 2);
      }
  const HvsRun r8 = run_extractor(p8);
  const HvsRun r9 = run_extractor(p9);
  for (int pl = 0; pl < 3; ++pl) EXPECT_EQ(r8.terms.plane[pl].terms, r9.terms.plane[pl].terms);
  expect_matches_definition(p9, r9, "9 bit");
  // 20*log10(511/255) ~= 6.04 dB more at 9 bit (float rounding aside).
  EXPECT_NEAR(r9.v[0] - r8.v[0], 20 * std::log10(511.0 / 255.0), 1e-4);
}

TEST(PsnrHvs, IdenticalInputsAreInfinite) {
  for (PixFmt fmt : {PixFmt::k420, PixFmt::k422, PixFmt::k444})
    for (int bpc : {8, 10, 12}) {
      const VideoFormat f{48, 40, fmt, bpc};
      const HvsRun r = run_extractor(make_seeded_pair(f, PairNoise::kSame, 3));
      ASSERT_TRUE(r.init.ok());
      for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], std::numeric_limits<double>::infinity()) << i;
      for (int pl = 0; pl < 3; ++pl) EXPECT_TRUE(r.terms.plane[pl].terms.empty());
    }
}

TEST(PsnrHvs, IdenticalLumaOnly) {
  const VideoFormat f{48, 40, PixFmt::k444, 8};
  const SeededPair p = make_seeded_pair(f, PairNoise::kSameLuma, 4);
  const HvsRun r = run_extractor(p);
  EXPECT_EQ(r.v[0], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isfinite(r.v[1]) && std::isfinite(r.v[2]) && std::isfinite(r.v[3]));
  expect_matches_definition(p, r, "identical luma");
}

TEST(PsnrHvs, PlanesWithoutBlocksAreNan) {
  // libvmaf divides 0.0f by 0 pixels: "nan" for that plane and the combined
  // score; planes of at least 8x8 still score.
  struct Case {
    int w, h;
    PixFmt fmt;
    bool luma_scores;
  };
  const Case cases[] = {{1, 1, PixFmt::k444, false}, {3, 3, PixFmt::k444, false},
                        {7, 64, PixFmt::k444, false}, {64, 7, PixFmt::k420, false},
                        {8, 8, PixFmt::k420, true},   {17, 9, PixFmt::k420, true},
                        {15, 15, PixFmt::k422, true}};
  for (const Case& c : cases) {
    const VideoFormat f{c.w, c.h, c.fmt, 8};
    const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 8);
    const HvsRun r = run_extractor(p);
    ASSERT_TRUE(r.init.ok());
    const std::string what = describe(f, 8);
    EXPECT_EQ(std::isfinite(r.v[0]), c.luma_scores) << what;
    for (int i = 1; i < 4; ++i) {
      EXPECT_TRUE(std::isnan(r.v[i])) << what << " value " << i;
      EXPECT_FALSE(std::signbit(r.v[i])) << what;
    }
    expect_matches_definition(p, r, what);
  }
  // 8x8 4:4:4: one block in every plane, all finite.
  const HvsRun r = run_extractor(make_seeded_pair({8, 8, PixFmt::k444, 8}, PairNoise::kFull, 10));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isfinite(r.v[i]));
}

TEST(PsnrHvs, InitRejectsDeepAndMonochromeInput) {
  for (int bpc : {13, 16}) {
    const HvsRun r = run_extractor(make_seeded_pair({16, 16, PixFmt::k420, bpc}, PairNoise::kSame, 1));
    EXPECT_FALSE(r.init.ok());
    EXPECT_EQ(r.init.code(), Code::kUnsupported);
    EXPECT_NE(r.init.message().find("psnr_hvs"), std::string::npos) << r.init.message();
    EXPECT_NE(r.init.message().find("12"), std::string::npos) << r.init.message();
  }
  const HvsRun r = run_extractor(make_seeded_pair({16, 16, PixFmt::k400, 8}, PairNoise::kSame, 1));
  EXPECT_FALSE(r.init.ok());
  EXPECT_NE(r.init.message().find("psnr_hvs"), std::string::npos);
  EXPECT_NE(r.init.message().find("400"), std::string::npos);
}

TEST(PsnrHvs, SpecHasNoOptionsAndLibvmafNames) {
  const FeatureSpec& spec = psnr_hvs_feature_spec();
  EXPECT_EQ(spec.name, "psnr_hvs");
  EXPECT_TRUE(spec.options.empty());
  ASSERT_EQ(spec.provided.size(), 4u);
  EXPECT_EQ(spec.provided[0], "psnr_hvs_y");
  EXPECT_EQ(spec.provided[1], "psnr_hvs_cb");
  EXPECT_EQ(spec.provided[2], "psnr_hvs_cr");
  EXPECT_EQ(spec.provided[3], "psnr_hvs");
  auto ex = spec.create(Options());
  ASSERT_TRUE(ex.ok());
  ASSERT_TRUE((*ex)->init({64, 48, PixFmt::k420, 8}).ok());
  const FeatureNeeds n = (*ex)->needs();
  EXPECT_EQ(n.ref, Planes::kAll);
  EXPECT_EQ(n.dis, Planes::kAll);
  EXPECT_EQ(n.prev_ref, 0);
  EXPECT_EQ(n.prev_dis, 0);
  EXPECT_FALSE(n.every_frame());
  EXPECT_EQ(find_feature("psnr_hvs"), &spec);
  EXPECT_EQ(find_feature_providing("psnr_hvs_cb"), &spec);
  // libvmaf's registry order: psnr, then psnr_hvs.
  const auto& reg = feature_registry();
  for (size_t i = 0; i + 1 < reg.size(); ++i) {
    if (reg[i]->name == "psnr") {
      EXPECT_EQ(reg[i + 1], &spec);
    }
  }
}

TEST(PsnrHvs, TablesAreLibvmafs) {
  const PsnrHvsTables& t = psnr_hvs_tables();
  // Spot values: the tables' corners, initialised from double constants.
  EXPECT_EQ(t.csf[0][0], static_cast<float>(1.6193873005));
  EXPECT_EQ(t.csf[0][63], static_cast<float>(0.109083846276));
  EXPECT_EQ(t.csf[1][1], static_cast<float>(2.46074210438));
  EXPECT_EQ(t.csf[2][63], static_cast<float>(0.285345396658));
  for (int p = 0; p < 3; ++p)
    for (int k = 0; k < 64; ++k) {
      const double c = static_cast<double>(t.csf[p][k]) * 0.3885746225901003;
      EXPECT_EQ(t.mask[p][k], static_cast<float>(c * c));
      EXPECT_GT(t.mask[p][k], 0.f);
      // Symmetric tables.
      EXPECT_EQ(t.csf[p][k], t.csf[p][(k % 8) * 8 + k / 8]);
    }
}

}  // namespace
}  // namespace twinmaf
