// float_vif: libvmaf anchors on noise clips at every depth and layout, for
// every option, identical inputs, the fast log2, thread safety and terms,
// limits (per kernel scale and resampler), option errors and names.
#include "features/float_vif/float_vif.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "base/hd_math.h"
#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "features/common/float_filter.h"
#include "tests/support/extractor_run.h"

namespace twinmaf {
namespace {

using test::dict_of;
using test::noise_pairs;
using test::PicPair;

Result<std::unique_ptr<Extractor>> make(const OptionDict& d, const VideoFormat& f, Options* o = nullptr) {
  return test::make_extractor(float_vif_feature_spec(), d, f, o);
}

// The output columns of a run, in append order.
std::vector<Collector::Column> run(const OptionDict& d, const std::vector<PicPair>& frames) {
  return test::run_extractor(float_vif_feature_spec(), d, frames);
}

// ---------------------------------------------------------------------------
// libvmaf f85a8536 (--cpumask -1), %.17g, frame 0 (tests/data/oracle/float_vif.runs):
// vif_scale0..3, then with debug vif, vif_num, vif_den, num/den per scale.

struct Anchor {
  const char* clip;
  OptionDict dict;
  std::vector<double> values;  // frame 0, libvmaf's column order
};

void expect_anchor(const Anchor& a, const std::vector<PicPair>& frames) {
  const auto cols = run(a.dict, frames);
  ASSERT_EQ(cols.size(), a.values.size());
  for (size_t k = 0; k < cols.size(); ++k) EXPECT_EQ(cols[k].values.at(0), a.values[k]) << cols[k].name;
}

TEST(FloatVifGolden, NoiseClipsEqualLibvmafAtEveryDepth) {
  const std::vector<Anchor> anchors = {
      {"noise_64x48_420_8b_6f_s1", {},
       {0.3716661848950318, 0.6955806563303942, 0.7839702454480106, 0.8444924284223329}},
      {"noise_64x48_422_10b_6f_s6", {},
       {0.3662511841988808, 0.6670246847021263, 0.7807731005774645, 0.8185152289688392}},
      {"noise_64x48_444_12b_6f_s11", {},
       {0.36713934595789316, 0.652545376433534, 0.7233597146797512, 0.8200109343768394}},
      {"noise_64x48_420_16b_6f_s4", {},
       {0.36663755373355955, 0.7225084782723002, 0.8225665851763426, 0.8474603660010908}},
      {"noise_357x353_444_16b_6f_s24", {},
       {0.36334263355249974, 0.6691877602617424, 0.7723911301272253, 0.8409074304246912}},
      // The minimum size: scale 3 is 2x2 under a 3-tap filter (and > 1 here).
      {"noise_16x16_444_10b_3f_s109", {},
       {0.3707697523086919, 0.7510569110922397, 0.8538104294445429, 0.9180991637261194}},
      {"noise_16x17_444_8b_3f_s104", {},
       {0.37421933713021327, 0.7016628533357787, 0.8915583942082488, 1.0435639777837946}},
      // 24x24 is the minimum at kernel scale 1.5 (27, 15, 9, 5 taps).
      {"noise_24x24_444_16b_3f_s110", dict_of({{"vif_kernelscale", "1.5"}, {"debug", "true"}}),
       {0.3551254165320177, 0.726044326479511, 0.8743329480870736, 1.0133915100585786, 0.4017583162230262,
        2986.6173305511475, 7433.865610122681, 2331.992431640625, 6566.6728515625, 521.44384765625,
        718.1983642578125, 111.97187805175781, 128.06549072265625, 21.20917320251465, 20.928903579711914}},
      // Prescale up from below the minimum: 8x8 -> 16x16 (nearest), 5x4 -> 20x16 (bicubic).
      {"noise_8x8_444_8b_3f_s100", dict_of({{"vif_prescale", "2"}}),
       {0.3849198760145799, 0.5397460955498917, 0.6339074926099291, 0.5137051992195948}},
      {"noise_5x4_444_10b_4f_s106", dict_of({{"vif_prescale", "4"}, {"vif_prescale_method", "bicubic"}}),
       {0.4879908169159948, 0.5944352636384906, 0.710113612985152, 0.844386351846607}},
  };
  for (const Anchor& a : anchors) {
    SCOPED_TRACE(a.clip);
    expect_anchor(a, noise_pairs(a.clip, 1));
  }
}

TEST(FloatVifGolden, EveryOptionEqualsLibvmaf) {
  // Scales of the default run; nearest-neighbour prescale near 1 (64x48 ->
  // 64x48) and a lanczos4 method without prescale give exactly these.
  const std::vector<double> plain = {0.36906861435824556, 0.6500539160793715, 0.7280549025253867,
                                     0.7380994036025161};
  const std::vector<Anchor> anchors = {
      {"", {}, plain},
      {"", dict_of({{"vif_prescale", "1.0001"}, {"vif_prescale_method", "bicubic"}}), plain},
      {"", dict_of({{"vif_prescale_method", "lanczos4"}}), plain},
      {"", dict_of({{"vif_enhn_gain_limit", "1.0"}}),
       {0.3679336131850646, 0.6424060308331786, 0.715400194180927, 0.7242381231691927}},
      {"", dict_of({{"vif_kernelscale", "0.5"}}),
       {0.37351178359089154, 0.5545056975020025, 0.669377636278813, 0.7231631032630067}},
      {"", dict_of({{"vif_kernelscale", "1.5"}, {"debug", "true"}}),
       {0.3679045464167285, 0.703643197496127, 0.7434707516734563, 0.7367137112559451, 0.40153541423794553,
        15663.749496459961, 39009.63387298584, 12940.1025390625, 35172.4453125, 2271.447509765625,
        3228.1240234375, 384.3592224121094, 516.9796142578125, 67.84022521972656, 92.08492279052734}},
      {"", dict_of({{"vif_prescale", "0.5"}}),
       {0.3662226122865853, 0.7240679694580502, 0.8131107125145862, 0.8182566924849615}},
      {"", dict_of({{"vif_prescale", "2"}, {"vif_prescale_method", "bilinear"}}),
       {0.42156382738738113, 0.5625836124581313, 0.6421859828190642, 0.7063421033258872}},
      {"", dict_of({{"vif_prescale", "0.75"}, {"vif_prescale_method", "bicubic"}}),
       {0.38624193435120396, 0.6860633337481002, 0.744199856895753, 0.7865831117970157}},
      {"", dict_of({{"vif_prescale", "1.5"}, {"vif_prescale_method", "lanczos4"}}),
       {0.3804001274740238, 0.5844988247824799, 0.6781228336046379, 0.7399329208366349}},
      {"",
       dict_of({{"vif_scale1_min_val", "0.99"}, {"vif_scale2_min_val", "0.995"}, {"vif_scale3_min_val", "0.999"}}),
       {0.36906861435824556, 0.99, 0.995, 0.999}},
      {"", dict_of({{"vif_sigma_nsq", "0.5"}, {"debug", "true"}}),
       {0.3146536859427254, 0.5216735757976987, 0.5918574810503798, 0.621672110563805, 0.3484016679419949,
        16964.541900634766, 48692.481872558594, 12991.1005859375, 41286.98046875, 3101.183837890625,
        5944.6826171875, 712.5171508789062, 1203.8660888671875, 159.74032592773438, 256.95269775390625}},
      // sigma_nsq 0: every den term is log2 of inf (128) or of 0/0 (NaN's bits).
      {"", dict_of({{"vif_sigma_nsq", "0"}, {"debug", "true"}}),
       {0.033055504163106285, 0.032466297348340355, 0.031207034985224407, 0.030049396057923634,
        0.032822241882483165, 17141.087600708008, 522240, 12997.953125, 393216, 3191.56689453125, 98304,
        766.944091796875, 24576, 184.6234893798828, 6144}},
      {"", dict_of({{"vif_sigma_nsq", "5"}}),
       {0.4159463356989443, 0.7410530137800867, 0.8087845933700284, 0.795438192863481}},
      {"", dict_of({{"vif_skip_scale0", "true"}, {"debug", "true"}}),
       {0, 0.6500539160793715, 0.7280549025253867, 0.7380994036025161, 0.6647247698894861, 3605.507713317871,
        5424.061019897461, 0, -1, 2876.7294921875, 4425.37060546875, 605.5643310546875, 831.7564086914062,
        123.2138900756836, 166.9340057373047}},
  };
  const auto frames = noise_pairs("noise_64x48_420_10b_6f_s2", 1);
  for (size_t i = 0; i < anchors.size(); ++i) {
    SCOPED_TRACE(i);
    expect_anchor(anchors[i], frames);
  }
}

// Identical inputs: libvmaf's statistic is not exactly symmetric (g slightly
// below 1, sv at its floor), so the scores are 1 only where every pixel's
// terms round alike: exactly 1 on this 8-bit clip, not on the 16-bit one.
TEST(FloatVifScores, IdenticalInputsEqualLibvmaf) {
  const auto a = noise_pairs("noise_64x48_444_8b_6f_s9", 1);
  expect_anchor({"", dict_of({{"debug", "true"}}),
                 {1, 1, 1, 1, 1, 40452.70536804199, 40452.70536804199, 35121.04296875, 35121.04296875,
                  4369.99951171875, 4369.99951171875, 799.0572509765625, 799.0572509765625, 162.6056365966797,
                  162.6056365966797}},
                {{a[0].first, a[0].first}});
  const auto b = noise_pairs("noise_357x353_444_16b_6f_s24", 1);
  expect_anchor({"", dict_of({{"debug", "true"}}),
                 {1, 1, 1, 0.9999999257506976, 0.9999999997050315, 1655367.3999023438, 1655367.400390625,
                  1435629.25, 1435629.25, 178940.203125, 178940.203125, 34221.70703125, 34221.70703125,
                  6576.23974609375, 6576.240234375}},
                {{b[0].first, b[0].first}});
}

// ---------------------------------------------------------------------------
// The fast log2 and the per-pixel statistic.

TEST(FloatVifMath, FastLog2ExactAtPowersOfTwoAndCloseElsewhere) {
  for (int e = -126; e <= 127; ++e) EXPECT_EQ(float_vif_log2(std::ldexp(1.0f, e)), static_cast<float>(e)) << e;
  EXPECT_EQ(float_vif_log2(0.0f), -INFINITY);
  EXPECT_EQ(float_vif_log2(-0.0f), -INFINITY);
  EXPECT_TRUE(std::isnan(float_vif_log2(-1.0f)));
  // inf: exponent field 255, mantissa 0.
  EXPECT_EQ(float_vif_log2(INFINITY), 128.0f);
  double worst = 0;
  for (float x = 1.0f; x < 4.0f; x = std::nextafter(x, 8.0f) + 1e-5f)
    worst = std::fmax(worst, std::fabs(float_vif_log2(x) - std::log2(static_cast<double>(x))));
  EXPECT_LT(worst, 1e-6);
  EXPECT_GT(worst, 0.0);  // an approximation, not log2f
}

TEST(FloatVifMath, PixelBranches) {
  FloatVifStatParams p;
  p.sigma_max_inv = static_cast<float>(::powf(2.0f, 2.0f) / (255.0 * 255.0));
  // Flat reference (s1 = 0 < sigma_nsq): num = 1 - s2 * sigma_max_inv, den = 1.
  const FloatVifPixel flat = float_vif_pixel(3.0f, 1.0f, 9.0f, 5.0f, 3.0f, p);
  EXPECT_EQ(flat.den, 1.0f);
  EXPECT_EQ(flat.num, 1.0f - 4.0f * p.sigma_max_inv);
  // Textured, anti-correlated: num 0, den log2(1 + s1 / 2).
  const FloatVifPixel anti = float_vif_pixel(0.0f, 0.0f, 62.0f, 40.0f, -10.0f, p);
  EXPECT_EQ(anti.num, 0.0f);
  EXPECT_EQ(anti.den, float_vif_log2(32.0f));
  EXPECT_EQ(anti.den, 5.0f);
  // Distorted = 2 x reference: g = 2 (below the gain limit), sv at eps.
  const FloatVifPixel gain = float_vif_pixel(0.0f, 0.0f, 62.0f, 248.0f, 124.0f, p);
  EXPECT_EQ(gain.den, 5.0f);
  EXPECT_GT(gain.num, gain.den);
  p.gain_limit = 1.0f;
  const FloatVifPixel limited = float_vif_pixel(0.0f, 0.0f, 62.0f, 248.0f, 124.0f, p);
  EXPECT_LT(limited.num, gain.num);
}

// ---------------------------------------------------------------------------
// Terms.

TEST(FloatVifTerms, ConcurrentFramesEqualSequentialAndAreNonTrivial) {
  const auto frames = noise_pairs("noise_357x353_444_12b_6f_s23", 4);
  auto ex = make({}, frames[0].first->format());
  ASSERT_TRUE(ex.ok());
  auto compute = [&](size_t i, FloatVifTerms& t) {
    FrameInput in;
    in.index = static_cast<unsigned>(i);
    in.ref = frames[i].first.get();
    in.dis = frames[i].second.get();
    EXPECT_TRUE((*ex)->compute(in, t).ok());
  };
  std::vector<FloatVifTerms> seq(4), par(4);
  for (size_t i = 0; i < 4; ++i) compute(i, seq[i]);
  std::vector<std::thread> th;
  for (size_t i = 0; i < 4; ++i) th.emplace_back([&, i] { compute(i, par[i]); });
  for (auto& t : th) t.join();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(seq[i] == par[i]) << "frame " << i;
    EXPECT_TRUE(seq[i].same_as(par[i]));
    for (int s = 0; s < kFloatVifScales; ++s) {
      EXPECT_EQ(seq[i].num[s].size(), static_cast<size_t>(353 >> s));
      EXPECT_EQ(seq[i].den[s].size(), static_cast<size_t>(353 >> s));
      EXPECT_GT(seq[i].den[s].at(0), 1.0f);
    }
  }
  EXPECT_FALSE(seq[0] == seq[1]);
}

TEST(FloatVifTerms, SkippedScaleZeroHasNoRows) {
  const auto frames = noise_pairs("noise_64x48_420_8b_6f_s1", 1);
  auto ex = make(dict_of({{"vif_skip_scale0", "true"}}), frames[0].first->format());
  ASSERT_TRUE(ex.ok());
  FloatVifTerms t;
  FrameInput in;
  in.ref = frames[0].first.get();
  in.dis = frames[0].second.get();
  ASSERT_TRUE((*ex)->compute(in, t).ok());
  EXPECT_TRUE(t.num[0].empty() && t.den[0].empty());
  EXPECT_EQ(t.num[1].size(), 24u);
  EXPECT_EQ(float_vif_kernel_params(**ex).first_scale, 1);
}

// ---------------------------------------------------------------------------
// Limits, options and names.

TEST(FloatVifInit, MinimumSizePerKernelScale) {
  // (kernel scale, minimum side): the largest (r_s + 1) << s.
  const std::vector<std::pair<const char*, int>> cases = {
      {"1", 16}, {"0.5", 16}, {"1.5", 24}, {"2", 32}, {"3", 40}, {"3.71134", 56}};
  for (const auto& [ks, m] : cases) {
    SCOPED_TRACE(ks);
    const OptionDict d = dict_of({{"vif_kernelscale", ks}});
    EXPECT_TRUE(make(d, {m, m, PixFmt::k444, 8}).ok());
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{m - 1, m}, {m, m - 1}}) {
      auto ex = make(d, {w, h, PixFmt::k444, 8});
      ASSERT_FALSE(ex.ok());
      EXPECT_EQ(ex.status().code(), Code::kUnsupported);
      const std::string want = "float_vif: " + std::to_string(w) + "x" + std::to_string(h) +
                               " is below the minimum size " + std::to_string(m) + "x" + std::to_string(m);
      EXPECT_EQ(ex.status().message().rfind(want, 0), 0u) << ex.status().message();
    }
  }
  // Every accepted kernel scale's minimum is at least 16 (scale 3) and at most 56.
  for (float v : valid_kernelscales()) {
    int m = 0;
    for (int s = 0; s < kFloatVifScales; ++s) m = std::max(m, (gaussian_filter_size(s, v) / 2 + 1) << s);
    EXPECT_GE(m, 16);
    EXPECT_LE(m, 56);
  }
  // Skipping scale 0 changes no minimum (scale 3 decides) ...
  EXPECT_FALSE(make(dict_of({{"vif_skip_scale0", "true"}}), {15, 16, PixFmt::k444, 8}).ok());
  // ... and prescale moves it to the scaled picture.
  EXPECT_TRUE(make(dict_of({{"vif_prescale", "2"}}), {8, 8, PixFmt::k444, 8}).ok());
  EXPECT_TRUE(make(dict_of({{"vif_prescale", "0.5"}}), {31, 40, PixFmt::k420, 8}).ok());  // 16x20
  auto small = make(dict_of({{"vif_prescale", "0.5"}}), {29, 40, PixFmt::k420, 8});
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("29x40 (15x20 after vif_prescale 0.5) is below the minimum size 16x16"),
            std::string::npos)
      << small.status().message();
}

TEST(FloatVifInit, ResamplersDepthsAndWidth) {
  // lanczos4 reads 4 samples around each source position: 6 per side.
  auto l = make(dict_of({{"vif_prescale", "4"}, {"vif_prescale_method", "lanczos4"}}), {5, 6, PixFmt::k444, 10});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("5x6 is below the minimum size 6x6 of vif_prescale_method lanczos4"),
            std::string::npos)
      << l.status().message();
  EXPECT_TRUE(make(dict_of({{"vif_prescale", "4"}, {"vif_prescale_method", "lanczos4"}}), {6, 6, PixFmt::k444, 10})
                  .ok());
  EXPECT_TRUE(make(dict_of({{"vif_prescale", "4"}, {"vif_prescale_method", "bicubic"}}), {5, 4, PixFmt::k444, 10})
                  .ok());
  // Bilinear: at most 7680 samples wide after prescale (libvmaf's stack tables).
  const OptionDict bil = dict_of({{"vif_prescale", "4"}, {"vif_prescale_method", "bilinear"}});
  EXPECT_TRUE(make(bil, {1920, 64, PixFmt::k420, 8}).ok());
  auto wide = make(bil, {1921, 64, PixFmt::k420, 8});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("wider than 7680"), std::string::npos);
  EXPECT_TRUE(make(dict_of({{"vif_prescale", "4"}}), {1921, 64, PixFmt::k420, 8}).ok());
  for (int bpc : {8, 10, 12, 16}) EXPECT_TRUE(make({}, {16, 16, PixFmt::k420, bpc}).ok()) << bpc;
  for (int bpc : {9, 11, 15}) {
    auto ex = make({}, {64, 48, PixFmt::k420, bpc});
    ASSERT_FALSE(ex.ok());
    EXPECT_NE(ex.status().message().find("float_vif: bit depth"), std::string::npos);
  }
}

TEST(FloatVifOptions, RangesErrorsAndNames) {
  const FeatureSpec& spec = float_vif_feature_spec();
  for (const auto& [k, v] : std::vector<std::pair<const char*, const char*>>{
           {"vif_enhn_gain_limit", "0.9"}, {"vif_enhn_gain_limit", "101"}, {"vif_kernelscale", "0.09"},
           {"vif_kernelscale", "4.1"}, {"vif_prescale", "0.05"}, {"vif_prescale", "4.5"},
           {"vif_scale1_min_val", "1.5"}, {"vif_scale3_min_val", "-0.1"}, {"vif_sigma_nsq", "5.5"},
           {"vif_skip_scale0", "1"}})
    EXPECT_FALSE(Options::parse(spec.name, spec.options, dict_of({{k, v}})).ok()) << k << "=" << v;
  // In range but not one of libvmaf's kernel scales / resamplers.
  auto ks = make(dict_of({{"vif_kernelscale", "0.3"}}), {64, 48, PixFmt::k420, 8});
  ASSERT_FALSE(ks.ok());
  EXPECT_EQ(ks.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ks.status().message().rfind("float_vif: vif_kernelscale 0.3 is not one of libvmaf's (1, 0.5, 1.5, ", 0),
            0u)
      << ks.status().message();
  auto pm = make(dict_of({{"vif_prescale_method", "area"}}), {64, 48, PixFmt::k420, 8});
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(pm.status().message(),
            "float_vif: vif_prescale_method 'area' is not one of nearest, bilinear, bicubic, lanczos4");
  // Names: libvmaf's suffixes, sorted by option name, aliases; debug is not a parameter.
  Options o;
  ASSERT_TRUE(make(dict_of({{"vif_prescale", "2"}, {"vif_prescale_method", "bilinear"}, {"debug", "true"}}),
                   {64, 48, PixFmt::k420, 8}, &o)
                  .ok());
  EXPECT_EQ(o.feature_name("VMAF_feature_vif_scale0_score"), "vif_scale0_ps_2_pm_bilinear");
  const auto p = noise_pairs("noise_64x48_420_8b_6f_s1", 1);
  const auto cols = run(dict_of({{"vif_skip_scale0", "true"}, {"debug", "true"}}), {p[0]});
  ASSERT_EQ(cols.size(), 15u);
  EXPECT_EQ(cols[0].name, "vif_scale0_ssclz");
  EXPECT_EQ(cols[4].name, "vif_ssclz");
  EXPECT_EQ(cols[14].name, "vif_den_scale3_ssclz");
  const auto min_cols =
      run(dict_of({{"vif_scale1_min_val", "0.99"}, {"vif_scale2_min_val", "0.995"}, {"vif_scale3_min_val", "0.999"},
                   {"vif_enhn_gain_limit", "1"}}),
          {p[0]});
  ASSERT_EQ(min_cols.size(), 4u);
  EXPECT_EQ(min_cols[3].name, "vif_scale3_egl_1_s1miv_0.99_s2miv_0.995_s3miv_0.999");
  // Defaults: un-aliased, the four scores only.
  const auto plain = run({}, {p[0]});
  ASSERT_EQ(plain.size(), 4u);
  EXPECT_EQ(plain[0].name, "VMAF_feature_vif_scale0_score");
  EXPECT_EQ(plain[3].name, "VMAF_feature_vif_scale3_score");
}

}  // namespace
}  // namespace twinmaf
