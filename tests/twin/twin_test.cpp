// Twin tests: every CUDA twin against the CPU path of the same binary, on the
// same inputs, compared with == (bitwise) on every output of every frame.
//
// Inputs: seeded full-range noise (tests/support/noise_clip.h) and a moving
// ramp with noise, at 8/10/12/16 bit, every layout, sizes from the minimum to
// odd to 3840x2160; motion option sets on sequences of 1-5 and 48 frames;
// --subsample 3; real clips listed in $TWINMAF_TWIN_CLIPS (a file of
// "ref dis w h layout bpc frames" lines, paths relative to it); sessions of
// two sizes in sequence and four concurrent sessions on one device.
// Without a CUDA device every test is skipped with "no GPU".
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/job.h"
#include "engine/session.h"
#include "io/planar.h"
#include "tests/support/memory_source.h"
#include "tests/support/noise_clip.h"
#if TWINMAF_HAVE_CUDA
#include "gpu/device.h"
#endif

namespace twinmaf {
namespace {

bool have_gpu() {
#if TWINMAF_HAVE_CUDA
  return !gpu::list_devices().empty();
#else
  return false;
#endif
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "skipped: no GPU"

struct Clip {
  VideoFormat f;
  std::vector<uint8_t> ref, dis;
};

Clip noise_clip(const VideoFormat& f, int frames, uint64_t seed) {
  test::NoiseClipSpec spec{f.w, f.h, f.fmt == PixFmt::k400 ? PixFmt::k444 : f.fmt, f.bpc, frames, seed};
  Clip c{f, {}, {}};
  test::make_noise_clip(spec, &c.ref, &c.dis);
  if (f.fmt == PixFmt::k400) {  // keep the luma planes only
    const size_t luma = packed_plane_bytes(f, 0), frame444 = luma * 3;
    std::vector<uint8_t> r, d;
    for (int i = 0; i < frames; ++i) {
      r.insert(r.end(), c.ref.begin() + i * frame444, c.ref.begin() + i * frame444 + luma);
      d.insert(d.end(), c.dis.begin() + i * frame444, c.dis.begin() + i * frame444 + luma);
    }
    c.ref.swap(r);
    c.dis.swap(d);
  }
  return c;
}

// A ramp moving by 3 samples per frame plus small seeded noise in dis: smooth
// content with real motion, unlike independent noise frames.
Clip ramp_clip(const VideoFormat& f, int frames, uint64_t seed) {
  Clip c{f, {}, {}};
  test::SplitMix64 rng(seed);
  const uint32_t max = (1u << f.bpc) - 1;
  for (int t = 0; t < frames; ++t)
    for (int p = 0; p < f.planes(); ++p)
      for (int y = 0; y < f.stored_h(p); ++y)
        for (int x = 0; x < f.stored_w(p); ++x) {
          const uint32_t r = static_cast<uint32_t>(((x + 3 * t) * 7 + y * 5 + p * 31) << (f.bpc - 8)) & max;
          const int64_t d = std::clamp<int64_t>(int64_t(r) + int64_t(rng.next() % 9) - 4, 0, max);
          for (auto [v, s] : {std::pair{&c.ref, int64_t(r)}, std::pair{&c.dis, d}}) {
            v->push_back(static_cast<uint8_t>(s & 0xff));
            if (f.bpc > 8) v->push_back(static_cast<uint8_t>(s >> 8));
          }
        }
  return c;
}

struct Outcome {
  Collector collector;
  std::vector<std::string> backends;
  Status status;
};

Outcome score(const Clip& clip, const std::vector<std::string>& features, Backend backend, unsigned subsample) {
  Outcome o;
  SessionConfig cfg;
  cfg.backend = backend;
  cfg.subsample = subsample;
  Session s(cfg);
  for (const std::string& text : features) {
    auto req = parse_feature_request(text);
    if (!req.ok()) {
      o.status = req.status();
      return o;
    }
    o.status = s.use_feature(req->name, req->options);
    if (!o.status.ok()) return o;
  }
  test::MemorySource ref(clip.f, clip.ref, "ref"), dis(clip.f, clip.dis, "dis");
  o.status = s.run(ref, dis, {}, nullptr);
  for (const auto& r : s.features()) o.backends.push_back(r.backend);
  o.collector = std::move(s.collector());
  return o;
}

std::string describe(const VideoFormat& f, const std::vector<std::string>& features, int frames, unsigned subsample) {
  std::string s = fmt::format("{}x{} {} {}-bit, {} frames, subsample {}:", f.w, f.h, pix_fmt_name(f.fmt), f.bpc,
                              frames, subsample);
  for (const auto& x : features) s += " --feature " + x;
  return s;
}

size_t g_values = 0;

// CPU and CUDA runs of the same binary; every column, frame and aggregate ==.
// `nontrivial`: the case must produce some finite non-zero value (false only
// where the definition gives zeros, e.g. motion_force_zero or one frame).
void expect_twin(const Clip& clip, const std::vector<std::string>& features, int frames, unsigned subsample = 1,
                 bool nontrivial_expected = true) {
  const std::string what = describe(clip.f, features, frames, subsample);
  SCOPED_TRACE(what);
  const Outcome cpu = score(clip, features, Backend::kCpu, subsample);
  const Outcome gpu = score(clip, features, Backend::kCuda, subsample);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.message();
  ASSERT_TRUE(gpu.status.ok()) << gpu.status.message();
  for (const auto& b : gpu.backends) ASSERT_EQ(b, "cuda") << "a feature did not run on its twin";
  const auto& a = cpu.collector.columns();
  const auto& b = gpu.collector.columns();
  ASSERT_EQ(a.size(), b.size());
  bool nontrivial = false;
  for (size_t c = 0; c < a.size(); ++c) {
    ASSERT_EQ(a[c].name, b[c].name);
    ASSERT_EQ(a[c].written, b[c].written) << a[c].name;
    for (size_t i = 0; i < a[c].values.size(); ++i) {
      if (!a[c].written[i]) continue;
      const double x = a[c].values[i], y = b[c].values[i];
      ASSERT_EQ(0, std::memcmp(&x, &y, sizeof x))
          << a[c].name << " frame " << i << ": cpu " << fmt::format("{:.17g}", x) << " cuda "
          << fmt::format("{:.17g}", y);
      nontrivial = nontrivial || (x != 0 && std::isfinite(x));
      ++g_values;
    }
  }
  ASSERT_EQ(cpu.collector.aggregates().size(), gpu.collector.aggregates().size());
  for (size_t i = 0; i < cpu.collector.aggregates().size(); ++i) {
    const double x = cpu.collector.aggregates()[i].second, y = gpu.collector.aggregates()[i].second;
    ASSERT_EQ(0, std::memcmp(&x, &y, sizeof x)) << cpu.collector.aggregates()[i].first;
  }
  if (nontrivial_expected) EXPECT_TRUE(nontrivial) << "every compared value is zero or non-finite";
}

const PixFmt kLayouts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};
const int kDepths[] = {8, 10, 12, 16};

TEST(Twin, PsnrEveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 2}, {3, 3}, {17, 9}, {64, 48}, {357, 353}};
  for (int bpc : kDepths)
    for (PixFmt fmt : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        expect_twin(noise_clip(f, 3, uint64_t(w * 131 + h + bpc)), {"psnr=enable_mse=true:enable_apsnr=true"}, 3);
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
      g_values += a[c].values.size();
    }
  }
}

TEST(Twin, RealClips) {
  REQUIRE_GPU();
  const char* list = std::getenv("TWINMAF_TWIN_CLIPS");
  if (!list) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  std::ifstream in(list);
  ASSERT_TRUE(in) << list;
  const std::string dir = std::string(list).substr(0, std::string(list).rfind('/') + 1);
  std::string line;
  int clips = 0;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string r, d, layout;
    int w, h, bpc, frames;
    if (!(ss >> r >> d >> w >> h >> layout >> bpc >> frames)) continue;
    const PixFmt fmt = layout == "420" ? PixFmt::k420 : layout == "422" ? PixFmt::k422 : PixFmt::k444;
    Clip c{{w, h, fmt, bpc}, {}, {}};
    for (auto [path, v] : {std::pair{dir + r, &c.ref}, std::pair{dir + d, &c.dis}}) {
      std::ifstream f(path, std::ios::binary);
      ASSERT_TRUE(f) << path;
      v->assign(std::istreambuf_iterator<char>(f), {});
      v->resize(std::min<size_t>(v->size(), packed_frame_bytes(c.f) * size_t(frames)));
    }
    expect_twin(c, {"psnr=enable_mse=true:enable_apsnr=true", "motion", "motion_v2=motion_five_frame_window=true:motion_moving_average=true"}, frames);
    ++clips;
  }
  EXPECT_GT(clips, 0);
}

class Counter : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("twin: %zu values compared with ==\n", g_values); }
};
const auto* const kCounter = ::testing::AddGlobalTestEnvironment(new Counter);

}  // namespace
}  // namespace twinmaf
