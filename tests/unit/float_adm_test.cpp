// float_adm: libvmaf anchors on noise clips at every depth and for every
// option family, identical and flat inputs, thread safety, limits, option
// errors and names.
#include "features/float_adm/float_adm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "tests/support/extractor_run.h"
#include "tests/support/rcpss.h"

namespace twinmaf {
namespace {

using test::dict_of;
using test::noise_pairs;
using test::PicPair;
using test::read_pairs;

Result<std::unique_ptr<Extractor>> make(const OptionDict& d, const VideoFormat& f, Options* o = nullptr) {
  return test::make_extractor(float_adm_feature_spec(), d, f, o);
}

// The output columns of a run, in append order.
std::vector<Collector::Column> run(const OptionDict& d, const std::vector<PicPair>& frames) {
  return test::run_extractor(float_adm_feature_spec(), d, frames);
}

// ---------------------------------------------------------------------------
// libvmaf f85a8536 (--cpumask -1), %.17g, frame 0 of golden noise clips:
// adm2, aim, adm3, adm_scale0..3. The values follow the processor's RCPSS
// (docs/float_adm.md), so each anchor holds libvmaf's values on two: an Intel
// CPU, and an AMD EPYC whose RCPSS has the fingerprint kZenRcpss
// (tests/support/rcpss.h). Other processors skip the comparison.

constexpr const char* kZenRcpss = "10bf236b3d269325";

struct Anchor {
  const char* clip;
  OptionDict dict;
  std::vector<double> intel, zen;  // frame 0, libvmaf's column order
};

// The anchors' values recorded on this processor; null where none were.
std::vector<double> Anchor::*values_here() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool intel = __builtin_cpu_is("intel");
#else
  static const bool intel = false;  // no RCPSS: libvmaf divides exactly
#endif
  static const bool zen = test::rcpss_fingerprint() == kZenRcpss;
  return intel ? &Anchor::intel : zen ? &Anchor::zen : nullptr;
}

constexpr const char* kNoAnchors = "no libvmaf values recorded with this processor's RCPSS";

TEST(FloatAdmGolden, NoiseClipsEqualLibvmafAtEveryDepth) {
  const auto here = values_here();
  if (!here) GTEST_SKIP() << kNoAnchors;
  const std::vector<Anchor> anchors = {
      {"noise_64x48_420_8b_6f_s1", {},
       {0.9045383610329341, 0.013798668884758699, 0.9453698460740877, 0.9142998755082739, 0.9126263321529424,
        0.9075604694768153, 0.8719856611229344},
       {0.9045383336621478, 0.013798668884758699, 0.9453698323886945, 0.9142998755082739, 0.9126263321529424,
        0.9075604694768153, 0.871985506861842}},
      {"noise_64x48_422_10b_6f_s6", {},
       {0.8914341965322561, 0.002507059927894383, 0.9444635683021809, 0.9099471357653433, 0.8953401929959454,
        0.8774537601077812, 0.8775682659332102},
       {0.8914342230722023, 0.002507059098521064, 0.9444635819868406, 0.9099471357653433, 0.8953402820901866,
        0.8774537601077812, 0.8775682659332102}},
      {"noise_64x48_444_12b_6f_s11", {},
       {0.8917631831988883, 0.006253821426713771, 0.9427546808860872, 0.9142805966785004, 0.9069993298955689,
        0.8682317517135973, 0.8641572820290699},
       {0.8917632104601083, 0.006253821213735489, 0.9427546946231864, 0.9142805966785004, 0.9069994203646429,
        0.8682317517135973, 0.8641572820290699}},
      {"noise_64x48_420_16b_6f_s4", {},
       {0.9140316959533838, 0.008018115714178311, 0.9530067901196028, 0.907680309843091, 0.9137550777811047,
        0.8983814822443461, 0.9442929364457693},
       {0.914031682261508, 0.008018115714178311, 0.9530067832736648, 0.907680309843091, 0.9137550777811047,
        0.8983814251879865, 0.9442929364457693}},
      {"noise_357x353_444_16b_6f_s24", {},
       {0.9018262114251289, 0.015678081590748186, 0.9430740649171903, 0.9106169804491107, 0.9049094146229,
        0.895151772089418, 0.8940174744990872},
       {0.9018262114251289, 0.01567808107224922, 0.9430740651764398, 0.9106169804491107, 0.9049094146229,
        0.895151772089418, 0.8940174744990872}},
      // The smallest size: bands of 2x2 at scale 3, every masking border case.
      {"noise_17x17_444_8b_3f_s103", {},
       {0.9217779600417169, 0.00142609360490684, 0.960175933218405, 0.9050547512462328, 0.9171681726961883,
        0.9446727085823764, 0.9143120939123442},
       {0.9217779600417169, 0.00142609360490684, 0.960175933218405, 0.9050547512462328, 0.9171681726961883,
        0.9446727085823764, 0.9143120939123442}},
  };
  for (const Anchor& a : anchors) {
    SCOPED_TRACE(a.clip);
    const auto cols = run(a.dict, noise_pairs(a.clip, 1));
    const std::vector<double>& want = a.*here;
    ASSERT_EQ(cols.size(), want.size());
    for (size_t k = 0; k < cols.size(); ++k) EXPECT_EQ(cols[k].values.at(0), want[k]) << cols[k].name;
  }
}

TEST(FloatAdmGolden, EveryOptionFamilyEqualsLibvmaf) {
  const auto here = values_here();
  if (!here) GTEST_SKIP() << kNoAnchors;
  const std::vector<Anchor> anchors = {
      {"", dict_of({{"adm_enhn_gain_limit", "1.0"}, {"adm_adm3_apply_hm", "true"}}),
       {0.895729059760937, 0.014024792636185538, 0.0276171720257116, 0.9062405519672118, 0.9012063770268579,
        0.9014633368457586, 0.8622708374341074},
       {0.8957290460755438, 0.014024792636185538, 0.02761717201920682, 0.9062405519672118, 0.9012063770268579,
        0.9014633368457586, 0.8622707603035612}},
      {"", dict_of({{"adm_csf_mode", "1"}, {"adm_csf_scale", "2.5"}, {"adm_csf_diag_scale", "0.7"},
                    {"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "720"}}),
       {0.873966614595046, 0.014320527688723073, 0.9298230434531615, 0.8915049220768559, 0.9002755687521422,
        0.8966971357913693, 0.8434203267098407},
       {0.8739666184386224, 0.014320527688723073, 0.9298230453749496, 0.8915049837519934, 0.9002755687521422,
        0.8966971357913693, 0.8434203267098407}},
      {"", dict_of({{"adm_csf_mode", "2"}, {"adm_p_norm", "2.5"}, {"adm_noise_weight", "0.02"}}),
       {0.8785118334155977, 0.01049629577946825, 0.9340077688180648, 0.9340200837454399, 0.8899942010516053,
        0.8873295998458904, 0.86268243154481},
       {0.8785118334155977, 0.01049629577946825, 0.9340077688180648, 0.9340200837454399, 0.8899942010516053,
        0.8873295998458904, 0.86268243154481}},
      {"", dict_of({{"adm_bypass_cm", "1"}, {"adm_skip_aim_scale", "1"}, {"adm_dlm_weight", "0.7"},
                    {"adm_min_val", "0.9"}}),
       {0.9473700013554014, 0.12799454302358432, 0.9247606380417057, 0.962543956088373, 0.9681944904951109,
        0.9406969193841062, 0.900152348254906},
       {0.9473700013554014, 0.12799454302358432, 0.9247606380417057, 0.962543956088373, 0.9681944904951109,
        0.9406969193841062, 0.900152348254906}},
      {"", dict_of({{"adm_skip_scale0", "true"}, {"adm_f1s1", "1"}, {"adm_f2s3", "0.25"}, {"debug", "true"}}),
       {0.9161393752451117, 0.048597198644142706, 0.9337710883004845, 0, 0.9155194730626147, 0.9075604694768153,
        0.9310650024188131, 0.9161393752451117, 911.9177894592285, 995.3919830323266, 0, 1.000000013351432e-10,
        824.2975463867188, 900.3604736328125, 33.21685028076172, 36.60015106201172, 54.40339279174805,
        58.431358337402344},
       {0.9161393752451117, 0.048597198644142706, 0.9337710883004845, 0, 0.9155194730626147, 0.9075604694768153,
        0.9310650024188131, 0.9161393752451117, 911.9177894592285, 995.3919830323266, 0, 1.000000013351432e-10,
        824.2975463867188, 900.3604736328125, 33.21685028076172, 36.60015106201172, 54.40339279174805,
        58.431358337402344}},
  };
  const auto frames = noise_pairs("noise_64x48_420_8b_6f_s1", 1);
  for (const Anchor& a : anchors) {
    const auto cols = run(a.dict, frames);
    const std::vector<double>& want = a.*here;
    ASSERT_EQ(cols.size(), want.size());
    for (size_t k = 0; k < cols.size(); ++k) EXPECT_EQ(cols[k].values.at(0), want[k]) << cols[k].name;
  }
}

// ---------------------------------------------------------------------------
// Identical inputs: r == t == o exactly (k clamps to 1 or the angle test
// restores t), a == 0, so num == den per row and aim's targets are 0:
// adm2 = 1, aim = 0, adm3 = 1, every scale 1.

TEST(FloatAdmScores, IdenticalInputsGiveOneAndZero) {
  for (const char* clip : {"noise_64x48_420_8b_6f_s1", "noise_64x48_422_10b_6f_s6", "noise_17x17_444_8b_3f_s103",
                           "noise_64x48_444_16b_6f_s12"}) {
    SCOPED_TRACE(clip);
    const auto p = noise_pairs(clip, 1);
    const auto cols = run(dict_of({{"debug", "true"}}), {{p[0].first, p[0].first}});
    ASSERT_EQ(cols.size(), 18u);
    EXPECT_EQ(cols[0].values[0], 1.0);  // adm2
    EXPECT_EQ(cols[1].values[0], 0.0);  // aim
    EXPECT_EQ(cols[2].values[0], 1.0);  // adm3
    for (int s = 0; s < 4; ++s) EXPECT_EQ(cols[3 + s].values[0], 1.0) << "scale " << s;
    EXPECT_GT(cols[8].values[0], 10.0);  // adm_num: non-trivial
  }
}

// A flat reference at the mid level has all-zero bands; with noise weight 0
// the denominator is 0: adm2 = 1, and aim (libvmaf: uninitialised) 0.
TEST(FloatAdmScores, FlatReferenceWithoutNoiseFloor) {
  const VideoFormat f{40, 36, PixFmt::k420, 10};
  std::vector<uint8_t> ref, dis;  // 16-bit little-endian samples, Y then Cb, Cr
  for (int p = 0; p < 3; ++p)
    for (int y = 0; y < f.stored_h(p); ++y)
      for (int x = 0; x < f.stored_w(p); ++x) {
        const int d = p == 0 ? (x * 37 + y * 91) % 1024 : 512;
        ref.insert(ref.end(), {0x00, 0x02});  // 512
        dis.insert(dis.end(), {static_cast<uint8_t>(d & 0xff), static_cast<uint8_t>(d >> 8)});
      }
  const auto cols = run(dict_of({{"adm_noise_weight", "0"}, {"debug", "true"}}), read_pairs(f, ref, dis, 1));
  ASSERT_EQ(cols.size(), 18u);
  EXPECT_EQ(cols[0].values[0], 1.0);
  EXPECT_EQ(cols[1].values[0], 0.0);
  EXPECT_EQ(cols[9].values[0], 0.0);  // adm_den
}

TEST(FloatAdmTerms, ConcurrentFramesEqualSequentialAndAreNonTrivial) {
  const auto frames = noise_pairs("noise_357x353_444_12b_6f_s23", 4);
  auto ex = make({}, frames[0].first->format());
  ASSERT_TRUE(ex.ok());
  auto compute = [&](size_t i, FloatAdmTerms& t) {
    FrameInput in;
    in.index = static_cast<unsigned>(i);
    in.ref = frames[i].first.get();
    in.dis = frames[i].second.get();
    EXPECT_TRUE((*ex)->compute(in, t).ok());
  };
  std::vector<FloatAdmTerms> seq(4), par(4);
  for (size_t i = 0; i < 4; ++i) compute(i, seq[i]);
  std::vector<std::thread> th;
  for (size_t i = 0; i < 4; ++i) th.emplace_back([&, i] { compute(i, par[i]); });
  for (auto& t : th) t.join();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(seq[i] == par[i]) << "frame " << i;
    EXPECT_TRUE(seq[i].same_as(par[i]));
    for (int s = 0; s < 4; ++s)
      for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 3; ++b) {
          ASSERT_FALSE(seq[i].rows[s][k][b].empty());
          EXPECT_EQ(seq[i].rows[s][k][b].size(),
                    static_cast<size_t>(float_adm_kernel_params(**ex).scale[s].sums.rows()));
        }
  }
  EXPECT_FALSE(seq[0] == seq[1]);
}

// ---------------------------------------------------------------------------
// Limits, options and names.

TEST(FloatAdmInit, SizesAndDepthsLibvmafCannotScore) {
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{16, 17}, {17, 16}, {8, 8}, {3, 3}, {1, 1}}) {
    auto ex = make({}, {w, h, PixFmt::k444, 8});
    ASSERT_FALSE(ex.ok()) << w << "x" << h;
    EXPECT_EQ(ex.status().code(), Code::kUnsupported);
    EXPECT_EQ(ex.status().message().rfind("float_adm: ", 0), 0u);
    EXPECT_NE(ex.status().message().find("17x17"), std::string::npos) << ex.status().message();
  }
  for (int bpc : {8, 10, 12, 16}) EXPECT_TRUE(make({}, {17, 17, PixFmt::k420, bpc}).ok()) << bpc;
  for (int bpc : {9, 11, 15}) {
    auto ex = make({}, {64, 48, PixFmt::k420, bpc});
    ASSERT_FALSE(ex.ok());
    EXPECT_NE(ex.status().message().find("bit depth"), std::string::npos);
  }
}

TEST(FloatAdmOptions, RangesDefaultsAndNames) {
  const FeatureSpec& spec = float_adm_feature_spec();
  for (const auto& [k, v] : std::vector<std::pair<const char*, const char*>>{
           {"adm_enhn_gain_limit", "0.5"}, {"adm_norm_view_dist", "0.7"}, {"adm_noise_weight", "1501"},
           {"adm_ref_display_height", "4321"}, {"adm_csf_mode", "10"}, {"adm_bypass_cm", "2"},
           {"adm_p_norm", "0.9"}, {"adm_f1s2", "-2"}, {"adm_f2s0", "10.5"}, {"adm_skip_aim_scale", "-1"},
           {"adm_skip_aim_scale", "4"}, {"adm_min_val", "1.1"}})
    EXPECT_FALSE(Options::parse(spec.name, spec.options, dict_of({{k, v}})).ok()) << k << "=" << v;
  Options o;
  ASSERT_TRUE(make(dict_of({{"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "1.5"}, {"debug", "true"}}),
                   {64, 48, PixFmt::k420, 8}, &o)
                  .ok());
  EXPECT_EQ(o.feature_name("VMAF_feature_adm2_score"), "adm2_nvd_1.5_rdf_2160");
  EXPECT_EQ(o.feature_name("adm_num"), "adm_num_nvd_1.5_rdf_2160");
  // Debug "adm" is written but not provided: its name never takes suffixes.
  const auto p = noise_pairs("noise_64x48_420_8b_6f_s1", 1);
  const auto cols = run(dict_of({{"adm_skip_aim_scale", "2"}, {"debug", "true"}}), {p[0]});
  ASSERT_EQ(cols.size(), 18u);
  EXPECT_EQ(cols[0].name, "adm2_sasc_2");
  EXPECT_EQ(cols[7].name, "adm");
  EXPECT_EQ(cols[8].name, "adm_num_sasc_2");
  EXPECT_EQ(cols[17].name, "adm_den_scale3_sasc_2");
  // The default name is un-aliased.
  EXPECT_EQ(run({}, {p[0]})[0].name, "VMAF_feature_adm2_score");
}

}  // namespace
}  // namespace twinmaf
