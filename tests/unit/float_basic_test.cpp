// float_psnr, float_ansnr, float_moment: values recorded from libvmaf
// f85a8536 (its API, cpumask -1) on seeded pairs, including a 16-bit frame
// whose double sums pass 2^53 units (where only libvmaf's running order gives
// its bits); identical pictures; size and depth limits.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "features/float_ansnr/float_ansnr.h"
#include "features/float_moment/float_moment.h"
#include "features/float_psnr/float_psnr.h"
#include "tests/support/one_frame.h"
#include "tests/support/seeded_pair.h"

namespace twinmaf {
namespace {

using test::make_seeded_pair;
using test::PairNoise;
using test::SeededPair;

struct FeatureRun {
  Status init;
  std::map<std::string, double> values;
};

FeatureRun run_feature(const FeatureSpec& spec, const Picture& ref, const Picture& dis) {
  test::OneFrame run = test::run_one_frame(spec, ref, dis);
  FeatureRun out;
  out.init = run.init;
  for (const char* name : {"float_psnr", "float_ansnr", "float_anpsnr", "float_moment_ref1st",
                           "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"}) {
    const std::optional<double> v = run.scores.get(name, 0);
    if (v) out.values[name] = *v;
  }
  return out;
}

std::string describe(const VideoFormat& f, uint64_t seed) {
  return std::to_string(f.w) + "x" + std::to_string(f.h) + " " + std::string(pix_fmt_name(f.fmt)) + " " +
         std::to_string(f.bpc) + "b seed " + std::to_string(seed);
}

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

struct Case {
  VideoFormat f;
  PairNoise noise;
  uint64_t seed;
  std::map<std::string, double> want;  // frame 0 of libvmaf's run
};

// Every value libvmaf printed, and no other, bit for bit.
void expect_libvmaf(const Case& c) {
  const SeededPair p = make_seeded_pair(c.f, c.noise, c.seed);
  std::map<std::string, double> got;
  for (const FeatureSpec* spec : {&float_psnr_feature_spec(), &float_ansnr_feature_spec(), &float_moment_feature_spec()}) {
    const FeatureRun r = run_feature(*spec, *p.ref, *p.dis);
    if (!r.init.ok()) continue;  // checked by the limit tests
    got.insert(r.values.begin(), r.values.end());
  }
  ASSERT_EQ(got.size(), c.want.size()) << describe(c.f, c.seed);
  for (const auto& [name, want] : c.want) {
    ASSERT_TRUE(got.count(name)) << describe(c.f, c.seed) << " " << name;
    EXPECT_EQ(bits(got[name]), bits(want)) << describe(c.f, c.seed) << " " << name << ": " << got[name] << " vs "
                                          << want;
  }
}

TEST(FloatBasic, EqualsLibvmafOnSeededPairs) {
  const Case cases[] = {
      {{24, 10, PixFmt::k420, 8}, PairNoise::kFull, 21,
       {{"float_psnr", 8.062486383471029}, {"float_ansnr", -1.8381416986929398},
        {"float_anpsnr", 17.003615785851615}, {"float_moment_ref1st", 121.63333333333334},
        {"float_moment_dis1st", 129.46666666666667}, {"float_moment_ref2nd", 20463.575000000001},
        {"float_moment_dis2nd", 22259.900000000001}}},
      {{33, 9, PixFmt::k422, 10}, PairNoise::kSmall, 22,
       {{"float_psnr", 22.945884573234068}, {"float_ansnr", 10.011770227782865},
        {"float_anpsnr", 28.785708042950212}, {"float_moment_ref1st", 123.73148148148148},
        {"float_moment_dis1st", 123.33249158249158}, {"float_moment_ref2nd", 20973.861742424244},
        {"float_moment_dis2nd", 21289.91771885522}}},
      {{17, 8, PixFmt::k420, 12}, PairNoise::kMix, 23,
       {{"float_psnr", 10.374817333483735}, {"float_ansnr", 0.068923459769433801},
        {"float_anpsnr", 18.72280021951137}, {"float_moment_ref1st", 127.00459558823529},
        {"float_moment_dis1st", 127.08318014705883}, {"float_moment_ref2nd", 21246.840935202206},
        {"float_moment_dis2nd", 21458.601821001837}}},
      {{9, 7, PixFmt::k444, 16}, PairNoise::kFull, 24,
       {{"float_psnr", 7.5396636020678232}, {"float_ansnr", -3.1787935162600567},
        {"float_anpsnr", 16.738967454511744}, {"float_moment_ref1st", 120.70349702380952},
        {"float_moment_dis1st", 130.69041418650792}, {"float_moment_ref2nd", 20003.352135067893},
        {"float_moment_dis2nd", 22300.797785925486}}},
      // float_ansnr's smallest size; 4:0:0.
      {{3, 3, PixFmt::k400, 8}, PairNoise::kFull, 25,
       {{"float_psnr", 7.542833030847035}, {"float_ansnr", -4.5216962120283295},
        {"float_anpsnr", 16.37816191943725}, {"float_moment_ref1st", 139.88888888888889},
        {"float_moment_dis1st", 101.66666666666667}, {"float_moment_ref2nd", 24508.777777777777},
        {"float_moment_dis2nd", 14952.555555555555}}},
      // 1x1: float_ansnr refuses it, the others score it.
      {{1, 1, PixFmt::k420, 16}, PairNoise::kFull, 26,
       {{"float_psnr", 10.144530172048354}, {"float_moment_ref1st", 195.71484375},
        {"float_moment_dis1st", 116.09765625}, {"float_moment_ref2nd", 38304.30078125},
        {"float_moment_dis2nd", 13478.666015625}}},
  };
  for (const Case& c : cases) expect_libvmaf(c);
}

TEST(FloatBasic, SixteenBitSumsPastTwoToThe53Units) {
  // 4096x2160 at 16 bit, samples near black or white: the squared terms are
  // close to 2^32 units of 2^-16, so the running double sums of float_psnr
  // and of the second moments pass 2^53 units and round at every addition
  // from there on; an integer sum of the units gives other values.
  const VideoFormat f{4096, 2160, PixFmt::k400, 16};
  const SeededPair p = make_seeded_pair(f, PairNoise::kLow, 27);
  const FeatureRun psnr = run_feature(float_psnr_feature_spec(), *p.ref, *p.dis);
  const FeatureRun moment = run_feature(float_moment_feature_spec(), *p.ref, *p.dis);
  ASSERT_TRUE(psnr.init.ok() && moment.init.ok());
  EXPECT_EQ(bits(psnr.values.at("float_psnr")), bits(3.0124824633864282));
  EXPECT_EQ(bits(moment.values.at("float_moment_ref1st")), bits(127.96087398573205));
  EXPECT_EQ(bits(moment.values.at("float_moment_dis1st")), bits(128.00606425735685));
  EXPECT_EQ(bits(moment.values.at("float_moment_ref2nd")), bits(32753.985669343077));
  EXPECT_EQ(bits(moment.values.at("float_moment_dis2nd")), bits(32765.551482501309));
  // The integer sum of the reference's squared units is not what libvmaf's
  // order gives: the test would catch a reordered sum.
  uint64_t units = 0;
  const PlaneView v = p.ref->plane(0);
  for (int y = 0; y < f.h; ++y)
    for (int x = 0; x < f.w; ++x) {
      const float a = static_cast<float>(v.row<uint16_t>(y)[x]) / 256.0f;
      units += static_cast<uint64_t>(static_cast<double>(a * a) * 65536.0);
    }
  EXPECT_GT(units, uint64_t{1} << 53);
  const double reordered = (static_cast<double>(units) / 65536.0) / (f.w * f.h);
  EXPECT_NE(bits(reordered), bits(32753.985669343077));
}

TEST(FloatBasic, IdenticalPicturesGiveTheCeiling) {
  for (int bpc : {8, 10, 12, 16}) {
    const VideoFormat f{19, 7, PixFmt::k420, bpc};
    const SeededPair p = make_seeded_pair(f, PairNoise::kSame, 3);
    const double ceiling = 6.0 * bpc + 12.0;
    EXPECT_EQ(run_feature(float_psnr_feature_spec(), *p.ref, *p.dis).values.at("float_psnr"), ceiling);
    // The two pictures go through different filters: identical inputs still
    // leave noise.
    const FeatureRun ansnr = run_feature(float_ansnr_feature_spec(), *p.ref, *p.dis);
    EXPECT_LT(ansnr.values.at("float_ansnr"), ceiling);
    EXPECT_LT(ansnr.values.at("float_anpsnr"), ceiling);
    const FeatureRun moment = run_feature(float_moment_feature_spec(), *p.ref, *p.dis);
    EXPECT_EQ(moment.values.at("float_moment_ref1st"), moment.values.at("float_moment_dis1st"));
    EXPECT_EQ(moment.values.at("float_moment_ref2nd"), moment.values.at("float_moment_dis2nd"));
    EXPECT_GT(moment.values.at("float_moment_ref2nd"), 0.0);
    // Flat mid-grey (the -128 offset makes it 0): both filtered pictures are
    // 0, noise == 0, and float_ansnr takes the ceiling.
    Picture grey(f, host_allocator());
    for (int y = 0; y < f.h; ++y)
      for (int x = 0; x < f.w; ++x) {
        const uint16_t mid = static_cast<uint16_t>(128 << (bpc - 8));
        if (bpc > 8)
          std::memcpy(grey.mutable_data(0) + y * grey.stride(0) + 2 * x, &mid, 2);
        else
          grey.mutable_data(0)[y * grey.stride(0) + x] = static_cast<uint8_t>(mid);
      }
    const FeatureRun flat = run_feature(float_ansnr_feature_spec(), grey, grey);
    EXPECT_EQ(flat.values.at("float_ansnr"), ceiling);
    EXPECT_EQ(flat.values.at("float_anpsnr"), ceiling);
  }
}

TEST(FloatBasic, SizeAndDepthLimits) {
  const auto init_of = [](const FeatureSpec& spec, const VideoFormat& f) {
    const Picture a(f, host_allocator()), b(f, host_allocator());
    return run_feature(spec, a, b).init;
  };
  for (int bpc : {9, 11, 13, 14, 15}) {
    const VideoFormat f{8, 8, PixFmt::k420, bpc};
    const std::string depth = "bit depth " + std::to_string(bpc) + " is not supported";
    for (const FeatureSpec* spec :
         {&float_psnr_feature_spec(), &float_ansnr_feature_spec(), &float_moment_feature_spec()}) {
      const Status s = init_of(*spec, f);
      EXPECT_EQ(s.code(), Code::kUnsupported) << spec->name;
      EXPECT_EQ(s.message().rfind(std::string(spec->name) + ": " + depth, 0), 0u) << s.message();
    }
  }
  for (auto [w, h] : {std::pair{2, 2}, {2, 9}, {9, 2}, {1, 1}}) {
    const Status s = init_of(float_ansnr_feature_spec(), {w, h, PixFmt::k444, 8});
    EXPECT_EQ(s.code(), Code::kUnsupported);
    EXPECT_EQ(s.message(), "float_ansnr: needs a luma plane of at least 3x3 (got " + std::to_string(w) + "x" +
                               std::to_string(h) + ")");
  }
  // Every layout (4:0:0 included) and the smallest sizes score.
  for (PixFmt fmt : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444}) {
    const SeededPair p = make_seeded_pair({3, 3, fmt, 10}, PairNoise::kSmall, 9);
    for (const FeatureSpec* spec :
         {&float_psnr_feature_spec(), &float_ansnr_feature_spec(), &float_moment_feature_spec()}) {
      const FeatureRun r = run_feature(*spec, *p.ref, *p.dis);
      ASSERT_TRUE(r.init.ok()) << r.init.message();
      for (const auto& [name, v] : r.values) EXPECT_TRUE(std::isfinite(v)) << name;
    }
  }
}

}  // namespace
}  // namespace twinmaf
