// float_ssim / float_ms_ssim twin tests: the CUDA twin against the CPU path of
// the same binary, == on every output of every frame and on the raw SsimSums
// (expect_twin). Content: full-range noise (structure terms of both signs, so
// the sums' trees walk leaves with negative terms) and a moving ramp with
// small noise (mostly positive terms); 8/10/12/16 bit x 4:0:0/4:2:0/4:2:2/
// 4:4:4; float_ssim at every decimation factor 1..10 and the automatic one
// (576x324: 1, 1920x1080: 4, 3840x2160: 8), sizes from 1x1 (no valid area:
// +0 sums, NaN or signed-zero means) through odd sizes to 4K; float_ms_ssim
// from its 176x176 minimum and the size both refuse; every option (enable_lcs,
// enable_db, clip_db); 1-5 and 48 frames, --subsample 3; the CTC presets'
// neighbours in one run; the real clips; which twin computes for which.
#include "features/ssim/ssim.h"
#include "gpu/device.h"
#include "tests/twin/twin_harness.h"

namespace twinmaf::test {
namespace {

const PixFmt kLayouts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};

TEST(SsimTwin, EveryDepthAndLayout) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      const uint64_t seed = uint64_t(bpc) * 5 + uint64_t(layout);
      expect_twin(noise_clip(f, 2, seed), {"float_ssim", "float_ms_ssim"}, 2);
      expect_twin(ramp_clip(f, 2, seed), {"float_ssim=scale=1", "float_ms_ssim"}, 2);
    }
}

TEST(SsimTwin, EveryFactorAndSize) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{1, 1}, {5, 5}, {10, 10}, {11, 11}, {12, 20}, {37, 29},
                                       {64, 11}, {119, 131}, {222, 109}, {576, 324}};
  for (auto [w, h] : sizes)
    for (int scale = 0; scale <= 10; ++scale) {
      const VideoFormat f{w, h, PixFmt::k420, 8};
      const std::string feature = "float_ssim=scale=" + std::to_string(scale) + ":enable_lcs=true";
      // Without a valid area the means are +0, -0 or NaN: zeros by definition.
      const int side = scale > 1 ? std::min(w / scale + (w & 1), h / scale + (h & 1)) : std::min(w, h);
      expect_twin(noise_clip(f, 1, uint64_t(w * 31 + h + scale)), {feature}, 1, 1, side >= 11);
    }
}

TEST(SsimTwin, LargeFrames) {
  REQUIRE_GPU();
  for (int bpc : {8, 10}) {
    expect_twin(ramp_clip({1920, 1080, PixFmt::k420, bpc}, 2, 70), {"float_ssim", "float_ms_ssim"}, 2);
    expect_twin(noise_clip({1920, 1080, PixFmt::k420, bpc}, 1, 71), {"float_ssim", "float_ms_ssim"}, 1);
  }
  expect_twin(ramp_clip({3840, 2160, PixFmt::k420, 8}, 1, 72), {"float_ssim", "float_ms_ssim=enable_lcs=true"}, 1);
  expect_twin(noise_clip({3840, 2160, PixFmt::k420, 10}, 1, 73), {"float_ssim", "float_ms_ssim"}, 1);
}

TEST(SsimTwin, MultiScaleSizes) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{176, 176}, {177, 199}, {200, 176}, {511, 177}};
  for (auto [w, h] : sizes)
    expect_twin(noise_clip({w, h, PixFmt::k444, 12}, 2, uint64_t(w + h)),
                {"float_ms_ssim=enable_lcs=true", "float_ssim=scale=2"}, 2);
}

TEST(SsimTwin, RefusesWhatTheCpuRefuses) {
  REQUIRE_GPU();
  const std::pair<VideoFormat, std::string> cases[] = {
      {{175, 400, PixFmt::k420, 8}, "float_ms_ssim"}, {{64, 64, PixFmt::k420, 9}, "float_ssim"}};
  for (const auto& [f, feature] : cases) {
    const Clip c = noise_clip(f, 1, 3);
    const Outcome cpu = score(c, {feature}, Backend::kCpu, 1);
    const Outcome gpu = score(c, {feature}, Backend::kCuda, 1);
    ASSERT_FALSE(cpu.status.ok()) << describe(f, {feature}, 1, 1);
    ASSERT_FALSE(gpu.status.ok());
    EXPECT_NE(gpu.status.message().find(cpu.status.message()), std::string::npos)
        << "cpu: " << cpu.status.message() << "\ncuda: " << gpu.status.message();
  }
}

TEST(SsimTwin, EveryOption) {
  REQUIRE_GPU();
  const VideoFormat f{640, 360, PixFmt::k420, 10};
  for (const char* opts : {"enable_lcs=true", "enable_db=true", "enable_db=true:clip_db=true",
                           "enable_lcs=true:enable_db=true:clip_db=true"}) {
    expect_twin(ramp_clip(f, 2, 80), {std::string("float_ssim=") + opts, std::string("float_ms_ssim=") + opts}, 2);
    // Identical pictures: score 1, dB +inf (every value non-finite: nothing
    // nontrivial to require) or the clip.
    Clip same = ramp_clip(f, 1, 81);
    same.dis = same.ref;
    expect_twin(same, {std::string("float_ssim=") + opts, std::string("float_ms_ssim=") + opts}, 1, 1, false);
  }
}

TEST(SsimTwin, SequencesSubsampleAndPresetNeighbours) {
  REQUIRE_GPU();
  const VideoFormat f{352, 288, PixFmt::k420, 8};
  for (int frames : {1, 2, 3, 4, 5}) expect_twin(ramp_clip(f, frames, uint64_t(frames)), {"float_ssim"}, frames);
  expect_twin(ramp_clip(f, 48, 48), {"float_ssim", "float_ms_ssim"}, 48);
  expect_twin(noise_clip(f, 48, 49), {"float_ms_ssim", "float_ssim"}, 48, 3);
  expect_twin(ramp_clip(f, 5, 50), {"float_ssim", "float_ms_ssim", "psnr", "psnr_hvs", "cambi", "vif", "adm", "motion"},
              5);
}

// float_ms_ssim's twin computes float_ssim's terms where float_ssim does not
// decimate (the session then runs one of the two), and only there.
TEST(SsimTwin, MultiScaleComputesFloatSsimWithoutDecimation) {
  REQUIRE_GPU();
  auto ctx = gpu::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  const VideoFormat f{1920, 1080, PixFmt::k420, 8};
  const auto twin = [&](const FeatureSpec& spec, int scale) {
    OptionDict dict;
    if (scale >= 0) dict.set("scale", std::to_string(scale));
    auto opts = Options::parse(spec.name, spec.options, dict);
    EXPECT_TRUE(opts.ok());
    auto ex = spec.create(*opts);
    EXPECT_TRUE(ex.ok() && (*ex)->init(f).ok());
    auto t = spec.cuda(**ex, f, **ctx);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return std::move(*t);
  };
  const auto ms = twin(float_ms_ssim_feature_spec(), -1);
  const auto one = twin(float_ssim_feature_spec(), 1);
  const auto four = twin(float_ssim_feature_spec(), 0);  // 1080 lines: factor 4
  EXPECT_TRUE(ms->computes_for(*one));
  EXPECT_FALSE(one->computes_for(*ms));
  EXPECT_FALSE(ms->computes_for(*four));
  EXPECT_FALSE(ms->computes_for(*ms));
  EXPECT_FALSE(one->computes_for(*one));
  expect_twin(ramp_clip(f, 3, 90), {"float_ssim=scale=1:enable_lcs=true", "float_ms_ssim=enable_lcs=true"}, 3);
  expect_twin(noise_clip({3840, 2160, PixFmt::k420, 8}, 1, 91), {"float_ms_ssim", "float_ssim=scale=1"}, 1);
}

TEST(SsimTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, {"float_ssim", "float_ms_ssim=enable_lcs=true"}, clip_frames(c));
}

}  // namespace
}  // namespace twinmaf::test
