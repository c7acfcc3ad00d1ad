// Twin tests of ciede: the CUDA twin (device dE00 where ciede_bounds.h pins
// it, the host's for the rest, one ordered double sum) against the CPU path
// of the same binary, == on every output of every frame and on the raw terms.
// Full-range noise, a moving ramp, saturated colours near the blue hues where
// the rotation term (powf) weighs most, identical pictures; 8/10/12/16 bit x
// 4:2:0/4:2:2/4:4:4; sizes from 1x1 to 4K, the odd and thin sizes whose
// chroma reads go through libvmaf's padding, the next row or past its buffer;
// 1-5 and 48 frames, --subsample 3; a frame of one colour pair the device
// leaves to the host everywhere; the real clips; the 8-bit Lab table against
// ciede_lab for every triple.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "base/hd_math.h"
#include "features/ciede/ciede.h"
#include "features/ciede/ciede_bounds.h"
#include "features/ciede/ciede_kernels.h"
#include "gpu/device.h"
#include "tests/twin/twin_harness.h"

namespace twinmaf::test {
namespace {

const std::vector<std::string> kCiede = {"ciede"};
const PixFmt kLayouts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};

void put(std::vector<uint8_t>& v, uint32_t s, int bpc) {
  v.push_back(static_cast<uint8_t>(s & 0xff));
  if (bpc > 8) v.push_back(static_cast<uint8_t>(s >> 8));
}

// Every pixel (y, u, v) around a centre colour (8-bit levels, scaled to the
// depth) within +-spread; dis = ref plus seeded noise of +-dn; `one` makes the
// whole clip the single pair (centre, centre + dn) instead.
Clip colour_clip(const VideoFormat& f, int frames, uint64_t seed, const int centre[3], int spread, int dn,
                 bool one = false) {
  Clip c{f, {}, {}};
  std::mt19937_64 rng(seed);
  const int k = 1 << (f.bpc - 8), max = (1 << f.bpc) - 1;
  std::uniform_int_distribution<int> s(-spread * k, spread * k), n(-dn * k, dn * k);
  const auto clamp = [max](int x) { return static_cast<uint32_t>(std::clamp(x, 0, max)); };
  for (int t = 0; t < frames; ++t)
    for (int p = 0; p < f.planes(); ++p)
      for (int y = 0; y < f.stored_h(p); ++y)
        for (int x = 0; x < f.stored_w(p); ++x) {
          const int r = centre[p] * k + (one ? 0 : s(rng));
          put(c.ref, clamp(r), f.bpc);
          put(c.dis, clamp(r + (one ? dn : n(rng))), f.bpc);
        }
  return c;
}

// Saturated blue-violet (hue near 275 degrees) and a sky blue.
const int kBlue[3] = {60, 200, 120};
const int kSky[3] = {150, 170, 100};

TEST(CiedeTwin, EveryDepthAndLayout) {
  REQUIRE_GPU();
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{301, 233, layout, bpc};
      const uint64_t seed = uint64_t(bpc) * 5 + uint64_t(layout);
      expect_twin(noise_clip(f, 2, seed), kCiede, 2);
      expect_twin(ramp_clip(f, 2, seed), kCiede, 2);
      expect_twin(colour_clip(f, 2, seed, kBlue, 40, 6), kCiede, 2);
      expect_twin(colour_clip(f, 2, seed + 1, kSky, 20, 3), kCiede, 2);
      Clip same = ramp_clip(f, 1, seed);
      same.dis = same.ref;
      expect_twin(same, kCiede, 1, 1, false);
    }
}

TEST(CiedeTwin, Sizes) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{1, 1},  {2, 3},   {17, 9},  {33, 1},    {64, 1},     {65, 1},
                                       {65, 3}, {129, 5}, {357, 353}, {1920, 1080}, {3840, 2160}};
  for (PixFmt layout : kLayouts)
    for (int bpc : {8, 16})
      for (auto [w, h] : sizes) {
        if (w * h > 1000000 && (layout != PixFmt::k420 || bpc != 8)) continue;
        const VideoFormat f{w, h, layout, bpc};
        expect_twin(noise_clip(f, 1, uint64_t(w + h + bpc)), kCiede, 1);
        expect_twin(colour_clip(f, 1, uint64_t(w * h), kBlue, 30, 5), kCiede, 1);
      }
}

TEST(CiedeTwin, SequencesAndSubsample) {
  REQUIRE_GPU();
  const VideoFormat f{176, 144, PixFmt::k420, 10};
  for (int frames : {1, 2, 3, 4, 5}) expect_twin(ramp_clip(f, frames, uint64_t(frames)), kCiede, frames);
  expect_twin(noise_clip(f, 48, 48), kCiede, 48);
  expect_twin(colour_clip(f, 48, 49, kBlue, 40, 4), kCiede, 48, 3);
}

// A colour pair whose dE00 the bounds leave open (found here with glibc
// standing in for the device's libm), filling whole frames: every pixel may
// go to the host.
TEST(CiedeTwin, FramesOfOnePairLeftToTheHost) {
  REQUIRE_GPU();
  for (int bpc : {8, 10}) {
    const CiedeLevels k = ciede_levels(bpc);
    std::mt19937_64 rng{static_cast<uint64_t>(bpc)};
    std::uniform_int_distribution<int> level(16, 235), step(-6, 6);
    int centre[3] = {}, dn = 0, tries = 0;
    for (bool found = false; !found; ++tries) {
      ASSERT_LT(tries, 10000000);
      for (int& c : centre) c = level(rng);
      dn = step(rng);
      if (dn == 0) continue;
      const int s = 1 << (bpc - 8);
      ciede::CiedeBounds m;
      // At 8 bit the kernel takes the CPU's colours from its table: points.
      const auto colour = [&](int d) {
        if (bpc == 8) {
          const CiedeLab c = ciede_lab(centre[0] + d, centre[1] + d, centre[2] + d, k);
          return ciede::Lab<ciede::CiedeBounds>{c.l, c.a, c.b};
        }
        return ciede::lab(m, (centre[0] + d) * s, (centre[1] + d) * s, (centre[2] + d) * s, k);
      };
      const auto a = colour(0);
      const auto b = colour(dn);
      const ciede::IvF e = ciede::de00(m, a, b);
      found = m.unsure || !e.point();
    }
    expect_twin(colour_clip({640, 360, PixFmt::k420, bpc}, 2, 1, centre, 0, dn, true), kCiede, 2);
  }
}

// The 8-bit pixel kernel takes its colours from the table alone, so the
// table is checked whole: every one of the 2^24 entries == ciede_lab.
TEST(CiedeTwin, LabTableIsTheCpusForEveryTriple) {
  REQUIRE_GPU();
  auto ctx = gpu::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  auto table = ciede_lab_table(**ctx);
  ASSERT_TRUE(table.ok()) << table.status().message();
  std::vector<cuda::CiedeLabEntry> got(cuda::kCiedeLabEntries);
  ASSERT_EQ(cudaSuccess, cudaMemcpy(got.data(), (*table)->get(), got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost));
  const CiedeLevels k = ciede_levels(8);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> wrong{0};
  std::atomic<int64_t> first{-1};
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (uint32_t t = w; t < cuda::kCiedeLabEntries; t += threads) {
        const CiedeLab c =
            ciede_lab(cuda::ciede_lab_sample(t, 0), cuda::ciede_lab_sample(t, 1), cuda::ciede_lab_sample(t, 2), k);
        const cuda::CiedeLabEntry& e = got[t];
        if (float_bits(c.l) != float_bits(e.l) || float_bits(c.a) != float_bits(e.a) ||
            float_bits(c.b) != float_bits(e.b)) {
          ++wrong;
          int64_t none = -1;
          first.compare_exchange_strong(none, t);
        }
      }
    });
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(wrong.load(), 0u) << "one wrong triple: " << first.load();
}

TEST(CiedeTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, kCiede, clip_frames(c));
}

}  // namespace
}  // namespace twinmaf::test
