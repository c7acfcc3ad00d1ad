// Twin tests: every CUDA twin against the CPU path of the same binary, on the
// same inputs, compared with == (bitwise) on every output of every frame.
//
// Inputs: seeded full-range noise (tests/support/noise_clip.h) and a moving
// ramp with noise, at 8/10/12/16 bit, every layout, sizes from the minimum to
// odd to 3840x2160; motion option sets on sequences of 1-5 and 48 frames;
// --subsample 3; sequences long enough to replay captured graphs; real clips listed in $TWINMAF_TWIN_CLIPS (a file of
// "ref dis w h layout bpc frames" lines, paths relative to it); sessions of
// two sizes in sequence and four concurrent sessions on one device.
// Without a CUDA device every test is skipped with "no GPU".
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "api/feature_text.h"
#include "engine/session.h"
#include "io/planar.h"
#include "io/source.h"
#include "tests/twin/twin_harness.h"

namespace twinmaf::test {
namespace {

const PixFmt kLayouts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};
const int kDepths[] = {8, 10, 12, 16};

TEST(Twin, PsnrEveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 2}, {3, 3}, {17, 9}, {64, 48}, {357, 353}};
  for (int bpc : kDepths)
    for (PixFmt fmt : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        // Empty chroma planes (1x1 4:2:0 and 4:2:2) are refused with chroma
        // on (docs/cli.md): their luma is scored.
        const bool empty_chroma = fmt != PixFmt::k400 && (f.plane_w(1) == 0 || f.plane_h(1) == 0);
        expect_twin(noise_clip(f, 3, uint64_t(w * 131 + h + bpc)),
                    {empty_chroma ? "psnr=enable_mse=true:enable_apsnr=true:enable_chroma=false"
                                  : "psnr=enable_mse=true:enable_apsnr=true"},
                    3);
      }
}

TEST(Twin, PsnrOptions) {
  REQUIRE_GPU();
  for (int bpc : kDepths)
    for (const char* opts : {"psnr", "psnr=enable_chroma=false", "psnr=reduced_hbd_peak=true:enable_apsnr=true",
                             "psnr=min_sse=0.5:enable_mse=true"}) {
      const VideoFormat f{357, 353, PixFmt::k420, bpc};
      expect_twin(noise_clip(f, 4, 7 + uint64_t(bpc)), {opts}, 4);
      expect_twin(ramp_clip(f, 4, 8), {opts}, 4);
    }
}

TEST(Twin, MotionEveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{3, 3}, {4, 5}, {17, 9}, {64, 48}, {130, 17}, {357, 353}};
  for (int bpc : kDepths)
    for (PixFmt fmt : kLayouts)
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        expect_twin(noise_clip(f, 5, uint64_t(w * 7 + h * 3 + bpc)), {"motion", "motion_v2"}, 5);
        expect_twin(ramp_clip(f, 5, 3), {"motion=motion_five_frame_window=true:motion_moving_average=true"}, 5);
      }
}

TEST(Twin, MotionOptionSetsOnShortAndLongSequences) {
  REQUIRE_GPU();
  const char* option_sets[] = {
      "motion",
      "motion=motion_five_frame_window=true",
      "motion=motion_moving_average=true",
      "motion=motion_five_frame_window=true:motion_moving_average=true",
      "motion=motion_force_zero=true",
      "motion=motion_blend_factor=0.5:motion_blend_offset=3",
      "motion=motion_fps_weight=2.5:motion_max_val=4:debug=true",
      "motion_v2=motion_five_frame_window=true:motion_moving_average=true",
  };
  for (int frames : {1, 2, 3, 4, 5, 48})
    for (const char* opts : option_sets) {
      const VideoFormat f{64, 48, PixFmt::k420, frames == 48 ? 10 : 8};
      const std::string o = opts;
      const int first = o.find("five_frame") != std::string::npos ? 2 : 1;
      const bool nonzero = frames > first && o.find("force_zero") == std::string::npos;
      expect_twin(ramp_clip(f, frames, uint64_t(frames)), {opts}, frames, 1, nonzero);
    }
}

TEST(Twin, SubsampleThree) {
  REQUIRE_GPU();
  const VideoFormat f{357, 353, PixFmt::k420, 10};
  expect_twin(ramp_clip(f, 10, 5), {"psnr=enable_apsnr=true", "motion=motion_five_frame_window=true"}, 10, 3);
  expect_twin(noise_clip(f, 10, 6), {"psnr", "motion"}, 10, 3);
}

// Long sequences: past the first (ring slot, bank) cycles every frame replays
// a captured CUDA graph, with every twin forked on both banks; a graph bound
// to the wrong slot, bank or history would score another frame's pictures.
TEST(Twin, GraphReplayOverLongSequences) {
  REQUIRE_GPU();
  const std::vector<std::string> all = {"adm", "vif", "motion", "psnr=enable_apsnr=true", "psnr_hvs"};
  expect_twin(ramp_clip({176, 144, PixFmt::k420, 8}, 64, 21), all, 64);
  expect_twin(noise_clip({176, 144, PixFmt::k420, 10}, 40, 22), all, 40, 3);
  expect_twin(ramp_clip({97, 71, PixFmt::k444, 12}, 45, 23),
              {"motion_v2=motion_five_frame_window=true", "psnr", "vif"}, 45, 2);
}

// Above 8 bits the CUDA path range-checks the uploaded planes on the device;
// a sample over the depth must fail both backends with the CPU's message.
Status score_files(const Clip& c, const std::vector<std::string>& features, Backend backend, unsigned subsample,
                   const RunLimits& limits) {
  const std::string dir = ::testing::TempDir();
  const std::string rp = dir + "/twin_range_ref.yuv", dp = dir + "/twin_range_dis.yuv";
  std::ofstream(rp, std::ios::binary).write(reinterpret_cast<const char*>(c.ref.data()), std::streamsize(c.ref.size()));
  std::ofstream(dp, std::ios::binary).write(reinterpret_cast<const char*>(c.dis.data()), std::streamsize(c.dis.size()));
  const RawParams raw{c.f.w, c.f.h, c.f.fmt, c.f.bpc};
  TWINMAF_ASSIGN_OR_RETURN(auto ref, open_source(rp, raw));
  TWINMAF_ASSIGN_OR_RETURN(auto dis, open_source(dp, raw));
  SessionConfig cfg;
  cfg.backend = backend;
  cfg.subsample = subsample;
  Session s(cfg);
  for (const std::string& text : features) {
    TWINMAF_ASSIGN_OR_RETURN(FeatureText req, parse_feature_text(text));
    TWINMAF_RETURN_IF_ERROR(s.use_feature(req.name, req.options));
  }
  return s.run(*ref, *dis, limits, nullptr);
}

TEST(Twin, SamplesOverTheDepthFailAsOnTheCpu) {
  REQUIRE_GPU();
  const VideoFormat f{96, 64, PixFmt::k420, 10};
  const size_t frame = packed_frame_bytes(f), luma = packed_plane_bytes(f, 0);
  struct Case {
    bool in_dis;
    int frame;
    size_t offset;  // byte offset of the sample in the frame
    std::vector<std::string> features;
    unsigned subsample;
  };
  const Case cases[] = {
      {false, 7, 2 * (5 * 96 + 11), {"psnr", "motion"}, 1},     // ref luma
      {true, 3, 2 * (63 * 96 + 95), {"vif", "adm"}, 1},         // dis luma, last sample
      {true, 9, luma + 2 * 17, {"psnr"}, 1},                     // dis chroma, psnr reads it
      {false, 8, 2 * 40, {"psnr"}, 3},                           // a frame no twin runs on
      {true, 11, 2 * 7, {"psnr_hvs", "motion"}, 1},             // the last frame
  };
  for (const Case& k : cases) {
    for (const uint16_t bad : {uint16_t(1024), uint16_t(0xffff)}) {
      Clip c = ramp_clip(f, 12, 3);
      std::vector<uint8_t>& v = k.in_dis ? c.dis : c.ref;
      v[size_t(k.frame) * frame + k.offset] = uint8_t(bad & 0xff);
      v[size_t(k.frame) * frame + k.offset + 1] = uint8_t(bad >> 8);
      SCOPED_TRACE(describe(f, k.features, 12, k.subsample) + fmt::format(" bad sample {} in frame {}", bad, k.frame));
      const Status cpu = score_files(c, k.features, Backend::kCpu, k.subsample, {});
      const Status gpu = score_files(c, k.features, Backend::kCuda, k.subsample, {});
      ASSERT_FALSE(cpu.ok());
      EXPECT_NE(cpu.message().find("exceeds 10 bits"), std::string::npos) << cpu.message();
      EXPECT_EQ(cpu.message(), gpu.message());
      EXPECT_EQ(cpu.code(), gpu.code());
    }
  }
  // Skipped frames count in the message; a chroma sample no feature reads is
  // never read, on either backend.
  Clip c = ramp_clip(f, 12, 4);
  c.ref[5 * frame + luma + 2] = 0xff;
  c.ref[5 * frame + luma + 3] = 0xff;
  c.dis[6 * frame + 2] = 0xff;
  c.dis[6 * frame + 3] = 0xff;
  RunLimits skip;
  skip.skip_dis = 2;
  const Status cpu = score_files(c, {"vif", "motion"}, Backend::kCpu, 1, skip);
  const Status gpu = score_files(c, {"vif", "motion"}, Backend::kCuda, 1, skip);
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.message().find("frame 6"), std::string::npos) << cpu.message();
  EXPECT_EQ(cpu.message(), gpu.message());
}

TEST(Twin, LargeFrames) {
  REQUIRE_GPU();
  for (auto [w, h, frames] : {std::tuple{1920, 1080, 4}, std::tuple{3840, 2160, 3}})
    for (int bpc : {8, 10}) {
      const VideoFormat f{w, h, PixFmt::k420, bpc};
      expect_twin(ramp_clip(f, frames, 9), {"psnr", "motion", "motion_v2=motion_five_frame_window=true"}, frames);
    }
  expect_twin(noise_clip({3840, 2160, PixFmt::k444, 16}, 3, 10), {"psnr", "motion"}, 3);
}

TEST(Twin, SessionsOfTwoSizesInSequence) {
  REQUIRE_GPU();
  // The second session must not inherit the first one's device geometry.
  expect_twin(ramp_clip({1920, 1080, PixFmt::k420, 8}, 3, 1), {"psnr", "motion"}, 3);
  expect_twin(ramp_clip({357, 353, PixFmt::k444, 12}, 3, 2), {"psnr", "motion"}, 3);
  expect_twin(ramp_clip({1920, 1080, PixFmt::k422, 10}, 3, 3), {"psnr", "motion"}, 3);
}

TEST(Twin, FourConcurrentSessions) {
  REQUIRE_GPU();
  const VideoFormat formats[] = {{640, 360, PixFmt::k420, 8}, {357, 353, PixFmt::k422, 10},
                                 {1280, 720, PixFmt::k444, 12}, {64, 48, PixFmt::k420, 16}};
  std::vector<Outcome> cpu(4), gpu(4);
  std::vector<Clip> clips;
  for (int i = 0; i < 4; ++i) clips.push_back(ramp_clip(formats[i], 6, uint64_t(i)));
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { gpu[size_t(i)] = score(clips[size_t(i)], {"psnr", "motion"}, Backend::kCuda, 1); });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(describe(formats[i], {"psnr", "motion"}, 6, 1));
    cpu[size_t(i)] = score(clips[size_t(i)], {"psnr", "motion"}, Backend::kCpu, 1);
    ASSERT_TRUE(gpu[size_t(i)].status.ok()) << gpu[size_t(i)].status.message();
    const auto& a = cpu[size_t(i)].collector.columns();
    const auto& b = gpu[size_t(i)].collector.columns();
    ASSERT_EQ(a.size(), b.size());
    for (size_t c = 0; c < a.size(); ++c) {
      ASSERT_EQ(a[c].values.size(), b[c].values.size());
      ASSERT_EQ(0, std::memcmp(a[c].values.data(), b[c].values.data(), a[c].values.size() * sizeof(double)))
          << a[c].name;
      values_compared() += a[c].values.size();
    }
  }
}

TEST(Twin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, {"psnr=enable_mse=true:enable_apsnr=true", "motion", "motion_v2=motion_five_frame_window=true:motion_moving_average=true"}, clip_frames(c));
}

class Counter : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("twin: %zu values compared with ==, %zu frames' terms compared with same_as\n", values_compared(),
                terms_compared());
  }
};
const auto* const kCounter = ::testing::AddGlobalTestEnvironment(new Counter);

}  // namespace
}  // namespace twinmaf::test
