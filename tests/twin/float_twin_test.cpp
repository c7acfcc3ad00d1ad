// Twin tests of the float family's twins: float_psnr and float_moment
// (integer sums), float_ansnr, float_vif, float_motion and float_adm
// (filters and running float sums):
// the CUDA twin against the CPU path of the same binary, == on
// every output of every frame and on the raw terms (expect_twin). Full-range
// noise (the largest squares), a moving ramp, identical pictures (float_psnr's
// ceiling); 8/10/12/16 bit x every layout; sizes from 1x1 to 4K; 1-5 and 48
// frames, --subsample 3; the real clips; and the sizes where an integer sum could pass 2^53
// units (16 bit from 2^21 samples): the twins refuse them, naming the reason,
// and --backend auto runs them on the CPU.
#include "tests/twin/twin_harness.h"

namespace twinmaf::test {
namespace {

const PixFmt kLayouts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
const std::vector<std::string> kSums = {"float_psnr", "float_moment"};
const std::vector<std::string> kFeatures = {"float_psnr", "float_moment", "float_ansnr"};

TEST(FloatTwin, EveryDepthAndLayout) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      const uint64_t seed = uint64_t(bpc) * 5 + uint64_t(layout);
      expect_twin(noise_clip(f, 2, seed), kFeatures, 2);
      expect_twin(ramp_clip(f, 2, seed), kFeatures, 2);
      Clip same = ramp_clip(f, 1, seed);
      same.dis = same.ref;
      expect_twin(same, kFeatures, 1);
    }
}

TEST(FloatTwin, Sizes) {
  REQUIRE_GPU();
  // float_ansnr from its 3x3 minimum (below, both backends refuse it).
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {257, 1}, {1, 300}, {3, 3}, {4, 3}, {31, 7}, {1920, 1080},
                                       {3840, 2160}};
  for (int bpc : {8, 12})
    for (auto [w, h] : sizes)
      expect_twin(noise_clip({w, h, PixFmt::k420, bpc}, 1, uint64_t(w + h + bpc)), w >= 3 && h >= 3 ? kFeatures : kSums,
                  1);
  // The largest 16-bit frame the sums' twins take: 2^21 - 1 samples.
  expect_twin(noise_clip({2047, 1024, PixFmt::k400, 16}, 1, 9), kFeatures, 1);
  const Clip tiny = noise_clip({2, 5, PixFmt::k444, 8}, 1, 4);
  const Outcome cpu = score(tiny, {"float_ansnr"}, Backend::kCpu, 1);
  const Outcome gpu = score(tiny, {"float_ansnr"}, Backend::kCuda, 1);
  ASSERT_FALSE(cpu.status.ok());
  ASSERT_FALSE(gpu.status.ok());
  EXPECT_NE(gpu.status.message().find(cpu.status.message()), std::string::npos) << gpu.status.message();
}

TEST(FloatTwin, SequencesAndSubsample) {
  REQUIRE_GPU();
  const VideoFormat f{176, 144, PixFmt::k420, 10};
  for (int frames : {1, 2, 3, 4, 5}) expect_twin(ramp_clip(f, frames, uint64_t(frames)), kFeatures, frames);
  expect_twin(noise_clip(f, 48, 48), kFeatures, 48);
  expect_twin(ramp_clip(f, 48, 49), kFeatures, 48, 3);
}

TEST(FloatTwin, LargeSixteenBitRunsOnTheCpu) {
  REQUIRE_GPU();
  const Clip c = noise_clip({2048, 1024, PixFmt::k400, 16}, 1, 10);
  for (const std::string& feature : kSums) {
    const Outcome gpu = score(c, {feature}, Backend::kCuda, 1);
    ASSERT_FALSE(gpu.status.ok()) << feature;
    EXPECT_NE(gpu.status.message().find("2^53"), std::string::npos) << gpu.status.message();
    const Outcome autob = score(c, {feature}, Backend::kAuto, 1);
    ASSERT_TRUE(autob.status.ok()) << autob.status.message();
    ASSERT_EQ(autob.backends.size(), 1u);
    EXPECT_EQ(autob.backends[0], "cpu");
  }
}

// float_vif: every depth and layout, sizes from its minimum (16x16 at the
// default kernel scale, 56 at 360/97), odd sizes where the scales halve with
// a remainder, every kernel scale, every statistic option, skip_scale0 and
// debug; vif_prescale with a size change stays on the CPU under auto.
TEST(FloatTwin, FloatVif) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      expect_twin(noise_clip(f, 2, uint64_t(bpc) * 3 + uint64_t(layout)), {"float_vif"}, 2);
      expect_twin(ramp_clip(f, 2, uint64_t(bpc) * 3 + uint64_t(layout)), {"float_vif=debug=true"}, 2);
    }
  const std::pair<int, int> sizes[] = {{16, 16}, {17, 31}, {63, 16}, {1920, 1080}, {3840, 2160}};
  for (auto [w, h] : sizes) expect_twin(ramp_clip({w, h, PixFmt::k420, 8}, 1, uint64_t(w + h)), {"float_vif"}, 1);
  for (const char* ks : {"0.5", "1.5", "2", "2.4", "3", "3.7113402", "0.4444444"}) {
    const std::string feature = std::string("float_vif=vif_kernelscale=") + ks + ":debug=true";
    expect_twin(ramp_clip({320, 240, PixFmt::k420, 10}, 2, 5), {feature}, 2);
  }
  for (const char* opts : {"vif_enhn_gain_limit=1.2", "vif_sigma_nsq=0", "vif_sigma_nsq=4.5", "vif_skip_scale0=true",
                           "vif_skip_scale0=true:debug=true", "vif_prescale=1.0001"})
    expect_twin(noise_clip({257, 199, PixFmt::k444, 8}, 2, 6), {std::string("float_vif=") + opts}, 2);
  const Clip c = ramp_clip({320, 240, PixFmt::k420, 8}, 1, 7);
  const Outcome gpu = score(c, {"float_vif=vif_prescale=1.5"}, Backend::kCuda, 1);
  ASSERT_FALSE(gpu.status.ok());
  EXPECT_NE(gpu.status.message().find("vif_prescale"), std::string::npos) << gpu.status.message();
  const Outcome autob = score(c, {"float_vif=vif_prescale=1.5"}, Backend::kAuto, 1);
  ASSERT_TRUE(autob.status.ok()) << autob.status.message();
  EXPECT_EQ(autob.backends[0], "cpu");
  expect_twin(noise_clip({352, 288, PixFmt::k420, 8}, 48, 8), {"float_vif"}, 48, 3);
}

// float_motion: every depth and layout, every option (filter sizes 1, 3 and
// 5, motion_add_uv, motion_add_scale1, both, motion_force_zero, the score
// options), sizes from the blur's minimum, 1-5 and 48 frames, --subsample 3.
TEST(FloatTwin, FloatMotion) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      expect_twin(ramp_clip(f, 3, uint64_t(bpc) * 7 + uint64_t(layout)), {"float_motion"}, 3);
      if (layout != PixFmt::k400)
        expect_twin(noise_clip(f, 3, uint64_t(bpc) * 7 + uint64_t(layout)), {"float_motion=motion_add_uv=true"}, 3);
    }
  for (const char* opts : {"motion_filter_size=1", "motion_filter_size=3", "motion_add_scale1=true",
                           "motion_add_scale1=true:motion_add_uv=true", "motion_force_zero=true",
                           "motion_fps_weight=0.5:motion_blend_factor=0.7:debug=false"})
    expect_twin(noise_clip({257, 199, PixFmt::k444, 10}, 4, 11), {std::string("float_motion=") + opts}, 4,
                1, std::string(opts) != "motion_force_zero=true");
  const std::pair<int, int> sizes[] = {{3, 3}, {2, 2}, {5, 17}, {1920, 1080}};
  for (auto [w, h] : sizes) {
    const std::string feature = w == 2 ? "float_motion=motion_filter_size=3" : "float_motion";
    expect_twin(ramp_clip({w, h, PixFmt::k444, 8}, 2, uint64_t(w * h)), {feature}, 2);
  }
  const VideoFormat f{176, 144, PixFmt::k420, 8};
  for (int frames : {1, 2, 3, 4, 5}) expect_twin(ramp_clip(f, frames, uint64_t(frames)), {"float_motion"}, frames, 1, frames > 1);
  expect_twin(ramp_clip(f, 48, 12), {"float_motion", "float_vif", "float_psnr"}, 48, 3);
}

// float_adm: every depth and layout, sizes from its 17x17 minimum, every
// option (the CSF modes, the statistic and pooling options, bypass_cm,
// skip_scale0, debug); adm_p_norm other than 3 stays on the CPU under auto.
// The division goes through this processor's RCPSS table (base/rcpss.h).
TEST(FloatTwin, FloatAdm) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      expect_twin(noise_clip(f, 2, uint64_t(bpc) * 11 + uint64_t(layout)), {"float_adm"}, 2);
      expect_twin(ramp_clip(f, 2, uint64_t(bpc) * 11 + uint64_t(layout)), {"float_adm=debug=true"}, 2);
    }
  const std::pair<int, int> sizes[] = {{17, 17}, {18, 33}, {35, 17}, {97, 61}, {1920, 1080}, {3840, 2160}};
  for (auto [w, h] : sizes) expect_twin(ramp_clip({w, h, PixFmt::k420, 8}, 1, uint64_t(w + h)), {"float_adm"}, 1);
  for (int mode = 0; mode <= 9; ++mode)
    expect_twin(ramp_clip({320, 240, PixFmt::k420, 10}, 1, 13),
                {"float_adm=debug=true:adm_csf_mode=" + std::to_string(mode)}, 1);
  for (const char* opts :
       {"adm_enhn_gain_limit=1.2", "adm_norm_view_dist=1.5:adm_ref_display_height=2160", "adm_bypass_cm=1",
        "adm_skip_scale0=true:debug=true", "adm_csf_scale=2:adm_csf_diag_scale=0.5:adm_noise_weight=3",
        "adm_min_val=0.9:adm_dlm_weight=0.8:adm_skip_aim_scale=2", "adm_adm3_apply_hm=true"})
    expect_twin(noise_clip({257, 199, PixFmt::k444, 8}, 2, 14), {std::string("float_adm=") + opts}, 2);
  const Clip c = ramp_clip({320, 240, PixFmt::k420, 8}, 1, 15);
  const Outcome gpu = score(c, {"float_adm=adm_p_norm=2"}, Backend::kCuda, 1);
  ASSERT_FALSE(gpu.status.ok());
  EXPECT_NE(gpu.status.message().find("adm_p_norm"), std::string::npos) << gpu.status.message();
  const Outcome autob = score(c, {"float_adm=adm_p_norm=2"}, Backend::kAuto, 1);
  ASSERT_TRUE(autob.status.ok()) << autob.status.message();
  EXPECT_EQ(autob.backends[0], "cpu");
  expect_twin(noise_clip({352, 288, PixFmt::k420, 8}, 48, 16), {"float_adm", "float_vif", "float_motion"}, 48, 3);
}

TEST(FloatTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, {"float_psnr", "float_moment", "float_ansnr", "float_vif", "float_motion", "float_adm"},
                                         clip_frames(c));
}

}  // namespace
}  // namespace twinmaf::test
