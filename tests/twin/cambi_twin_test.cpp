// cambi twin tests: the CUDA twin against the CPU path of the same binary,
// == on every output of every frame and on the raw CambiTerms (expect_twin).
//
// Content: natural-looking banding (a smooth field quantised to the 8-bit grid
// or to 10-bit steps, with textured columns the spatial mask leaves out) so
// that every scale has nonzero c-values; each run asserts a nonzero output. Matrix: 8/9/10/12/16 bit x 400/420/422/444;
// odd sizes from the 216-sample minimum (and the sizes both refuse, with the
// same message); 1, 2, 5 and 48 frames; --subsample 3; the v1.0.16 models'
// option set (cambi_high_res_speedup 1080, cambi_vis_lum_threshold 0.06,
// cambi_max_val 17) where the speedup acts and where it does not; every other
// option the CPU accepts; full_ref with and without source sizes; the three
// pooling routes (cambi.h): order-free, the radix select (more nonzero
// c-values than k) and libvmaf's quick select (a top-k total of 2^29 or
// more: 1080p stripes), each asserted on the CPU's c-values; the block
// version of that quick select and sum against the one-thread loop on arrays
// built to reorder and round; and, on the host, the premise of the device's
// radix-select route.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "api/feature_text.h"
#include "core/options.h"
#include "features/cambi/cambi.h"
#include "features/cambi/cambi_math.h"
#include "features/feature.h"
#include "tests/support/noise_clip.h"
#include "tests/twin/twin_harness.h"
#if TWINMAF_HAVE_CUDA
#include "features/cambi/cambi_kernels.h"
#include "tests/twin/cambi_pool_device.h"
#endif

namespace twinmaf::test {
namespace {

enum class Grid : uint8_t { k8, k10 };

// Luma code of (x, y) in frame t at f.bpc: a slowly varying field quantised
// to the 8-bit grid (one step = 4 codes at 10 bit) or to steps of one 10-bit
// code (above 8 bits); the
// columns left of noisy * w carry seeded texture (unmasked, c = 0 there).
int banded_luma(const VideoFormat& f, Grid grid, double noisy, int x, int y, int t, SplitMix64& rng) {
  const double w = f.w, h = f.h;
  double g = 60.0 + 70.0 * (x + 0.6 * y + 2.5 * t) / (w + 0.6 * h) +
             6.0 * std::sin(x / (0.37 * w) + 0.1 * t) * std::cos(y / (0.41 * h));
  if (x < noisy * w) g += static_cast<double>(rng.next() % 7) - 3.0;
  const int q8 = static_cast<int>(std::floor(g));
  const int q10 = 180 + q8;  // bands as wide, steps of one 10-bit code
  if (grid == Grid::k8 || f.bpc < 10) return f.bpc >= 8 ? q8 << (f.bpc - 8) : q8 >> (8 - f.bpc);
  return q10 << (f.bpc - 10);
}

template <typename DisLuma, typename RefLuma>
Clip make_clip(const VideoFormat& f, int frames, uint64_t seed, DisLuma dis_luma, RefLuma ref_luma) {
  Clip c{f, {}, {}};
  SplitMix64 rng(seed);
  const int mid = 1 << (f.bpc - 1);
  for (int t = 0; t < frames; ++t)
    for (int p = 0; p < f.planes(); ++p)
      for (int y = 0; y < f.stored_h(p); ++y)
        for (int x = 0; x < f.stored_w(p); ++x) {
          const int d = p == 0 ? dis_luma(f, x, y, t, rng) : mid;
          const int r = p == 0 ? ref_luma(f, x, y, t, rng) : mid;
          for (auto [v, s] : {std::pair{&c.ref, r}, std::pair{&c.dis, d}}) {
            v->push_back(static_cast<uint8_t>(s & 0xff));
            if (f.bpc > 8) v->push_back(static_cast<uint8_t>(s >> 8));
          }
        }
  return c;
}

// dis on the 8-bit grid, ref on the 10-bit grid (they differ above 8 bits, so
// full_ref's difference is not zero there). With half the picture textured,
// fewer than k = 0.6 N c-values are nonzero: the order-free route.
Clip banded_clip(const VideoFormat& f, int frames, uint64_t seed, double noisy = 0.5) {
  return make_clip(
      f, frames, seed,
      [noisy](const VideoFormat& v, int x, int y, int t, SplitMix64& r) {
        return banded_luma(v, Grid::k8, noisy, x, y, t, r);
      },
      [noisy](const VideoFormat& v, int x, int y, int t, SplitMix64& r) {
        return banded_luma(v, Grid::k10, noisy, x, y, t, r);
      });
}

// Units of the k largest of c (exact integers) and the units shift of the
// smallest nonzero one: what the twin's pooling decides by (cambi_math.h).
struct Topk {
  int64_t units = 0;
  int shift = 0;
};
Topk topk_of(std::vector<float> c, int k) {
  std::sort(c.begin(), c.end(), std::greater<>());
  Topk t;
  for (int i = 0; i < k; ++i) {
    const float v = c[static_cast<size_t>(i)];
    if (v == 0.0f) break;
    t.units += cambi_c_units(v);
    t.shift = cambi_units_shift(v);
  }
  return t;
}

// The CPU's c-values of the distorted picture of frame 0, scale 0: how many
// are nonzero, their units, k, and the k largest.
struct Route {
  int64_t nonzero = 0;
  int64_t units = 0;
  int k = 0;
  Topk topk;
};

class Scale0 final : public CambiCValueSink {
 public:
  std::vector<float> c;
  Status write(int scale, unsigned, std::span<const float> v, int, int) override {
    if (scale == 0) c.assign(v.begin(), v.end());
    return ok_status();
  }
};

Route route_of(const Clip& clip, const std::string& feature) {
  auto text = parse_feature_text(feature);
  EXPECT_TRUE(text.ok());
  auto parsed = Options::parse("cambi", cambi_feature_spec().options, text->options);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  auto setup = cambi_setup(cambi_options(*parsed), clip.f);
  EXPECT_TRUE(setup.ok()) << setup.status().message();
  Picture pic(clip.f, host_allocator());
  const int bytes = clip.f.bpc > 8 ? 2 : 1;
  for (int y = 0; y < clip.f.h; ++y)
    std::memcpy(pic.mutable_data(0) + static_cast<std::ptrdiff_t>(y) * pic.stride(0),
                clip.dis.data() + static_cast<size_t>(y) * clip.f.w * bytes, static_cast<size_t>(clip.f.w) * bytes);
  Scale0 sink;
  std::array<CambiScaleTerms, kCambiScales> terms{};
  EXPECT_TRUE(cambi_picture_terms_ref(pic.plane(0), clip.f.bpc, *setup, setup->dis, 0, &sink, terms).ok());
  Route r;
  r.k = terms[0].topk_count;
  for (float v : sink.c)
    if (v != 0.0f) {
      ++r.nonzero;
      r.units += cambi_c_units(v);
    }
  r.topk = topk_of(sink.c, r.k);
  return r;
}

const PixFmt kLayouts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};

TEST(CambiTwin, EveryDepthAndLayout) {
  REQUIRE_GPU();
  for (int bpc : {8, 9, 10, 12, 16})
    for (PixFmt layout : kLayouts) {
      const VideoFormat f{257, 219, layout, bpc};
      expect_twin(banded_clip(f, 2, uint64_t(bpc) * 7 + uint64_t(layout)), {"cambi"}, 2);
    }
}

TEST(CambiTwin, OddAndTinySizes) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{216, 16}, {217, 17}, {16, 216}, {301, 233}, {47, 507}, {999, 217}, {216, 61}};
  for (int bpc : {8, 10})
    for (auto [w, h] : sizes) {
      const VideoFormat f{w, h, PixFmt::k420, bpc};
      expect_twin(banded_clip(f, 2, uint64_t(w * 3 + h)), {"cambi"}, 2);
    }
}

TEST(CambiTwin, RefusesWhatTheCpuRefuses) {
  REQUIRE_GPU();
  // Below 216 in both dimensions (init fails on both backends), and a size
  // whose scale 4 is smaller than the window's radius.
  const VideoFormat formats[] = {{215, 215, PixFmt::k420, 8}, {64, 48, PixFmt::k444, 10}, {4000, 20, PixFmt::k400, 8}};
  for (const VideoFormat& f : formats) {
    const Clip c = banded_clip(f, 1, 3);
    const Outcome cpu = score(c, {"cambi"}, Backend::kCpu, 1);
    const Outcome gpu = score(c, {"cambi"}, Backend::kCuda, 1);
    ASSERT_FALSE(cpu.status.ok()) << describe(f, {"cambi"}, 1, 1);
    ASSERT_FALSE(gpu.status.ok());
    EXPECT_NE(gpu.status.message().find(cpu.status.message()), std::string::npos)
        << "cpu: " << cpu.status.message() << "\ncuda: " << gpu.status.message();
  }
}

TEST(CambiTwin, SequencesAndSubsample) {
  REQUIRE_GPU();
  const VideoFormat f{256, 216, PixFmt::k420, 8};
  for (int frames : {1, 2, 3, 4, 5}) expect_twin(banded_clip(f, frames, uint64_t(frames)), {"cambi"}, frames);
  expect_twin(banded_clip(f, 48, 48), {"cambi"}, 48);
  expect_twin(banded_clip(f, 48, 49), {"cambi"}, 48, 3);
  const VideoFormat g{300, 240, PixFmt::k422, 10};
  expect_twin(banded_clip(g, 5, 50), {"cambi=full_ref=true"}, 5, 3);
}

TEST(CambiTwin, ModelOptions) {
  REQUIRE_GPU();
  // models/vmaf_v1.0.16*.json's cambi; the speedup acts from 1920x1080 on.
  const std::string model = "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";
  for (int bpc : {8, 10}) {
    expect_twin(banded_clip({1920, 1080, PixFmt::k420, bpc}, 2, 60 + uint64_t(bpc)), {model}, 2);
    expect_twin(banded_clip({1280, 720, PixFmt::k420, bpc}, 2, 61 + uint64_t(bpc)), {model}, 2);
    expect_twin(banded_clip({2076, 1000, PixFmt::k400, bpc}, 2, 62 + uint64_t(bpc)), {model}, 2);
  }
  expect_twin(banded_clip({3840, 2160, PixFmt::k420, 10}, 1, 63), {model}, 1);
}

TEST(CambiTwin, EveryOption) {
  REQUIRE_GPU();
  // With the lowest depth at which the distorted or (full_ref) reference
  // picture must give a nonzero value; 0: zeros by definition at this size.
  const std::pair<const char*, int> option_sets[] = {
      {"cambi=window_size=15", 0},  // a 1-sample window at 357x271: c = 0
      {"cambi=window_size=127", 8},
      {"cambi=window_size=40:max_log_contrast=3", 8},
      {"cambi=topk=1", 8},
      {"cambi=topk=0.05", 8},
      {"cambi=cambi_topk=0.3", 8},
      {"cambi=topk=0.2:cambi_topk=0.9", 8},
      {"cambi=tvi_threshold=0.001", 8},
      {"cambi=tvi_threshold=0.03", 8},
      {"cambi=tvi_threshold=0.1", 0},  // no 4-code step is visible
      {"cambi=max_log_contrast=0:full_ref=true:tvi_threshold=0.002", 10},  // 1-code steps: the reference above 8 bits
      {"cambi=max_log_contrast=1:full_ref=true", 10},
      {"cambi=max_log_contrast=3", 8},
      {"cambi=max_log_contrast=4", 8},
      {"cambi=max_log_contrast=5", 8},
      {"cambi=enc_width=251:enc_height=157", 8},
      {"cambi=enc_width=300:enc_height=200", 8},
      {"cambi=enc_bitdepth=8", 8},
      {"cambi=enc_bitdepth=10", 8},
      {"cambi=enc_bitdepth=6", 8},
      {"cambi=eotf=pq", 8},
      {"cambi=cambi_eotf=pq:cambi_vis_lum_threshold=1", 8},
      {"cambi=cambi_vis_lum_threshold=0.5", 8},
      {"cambi=cambi_vis_lum_threshold=2", 8},
      {"cambi=cambi_max_val=0.5", 8},
      {"cambi=full_ref=true", 8},
      {"cambi=full_ref=true:src_width=320:src_height=240", 8},
      {"cambi=full_ref=true:src_width=340:src_height=250:enc_width=300:enc_height=220", 8},
      {"cambi=src_width=330:src_height=260", 8},
      {"cambi=cambi_high_res_speedup=1440", 8},
  };
  for (int bpc : {8, 10, 16})
    for (auto [opts, nontrivial_from] : option_sets) {
      const VideoFormat f{357, 271, PixFmt::k420, bpc};
      expect_twin(banded_clip(f, 2, 70 + uint64_t(bpc)), {opts}, 2, 1, nontrivial_from != 0 && bpc >= nontrivial_from);
    }
  // A window of 5 samples needs a larger picture.
  expect_twin(banded_clip({1280, 720, PixFmt::k420, 10}, 2, 79), {"cambi=window_size=15"}, 2);
  // Upscaling the reference (8 bit only: the CPU refuses it at 10 bit).
  expect_twin(banded_clip({320, 240, PixFmt::k444, 8}, 2, 80), {"cambi=full_ref=true:src_width=400:src_height=300"},
              2);
  // Two instances at once (different options, so both are kept).
  expect_twin(banded_clip({320, 240, PixFmt::k420, 10}, 3, 81), {"cambi", "cambi=topk=0.05:full_ref=true"}, 3);
}

TEST(CambiTwin, HeatmapsRunOnTheCpu) {
  REQUIRE_GPU();
  const FeatureSpec* spec = find_feature("cambi");
  ASSERT_NE(spec, nullptr);
  ASSERT_NE(spec->cuda, nullptr);
  // heatmaps_path is the twin's one refusal among the options: under
  // --backend cuda the run fails, naming it.
  const std::string dir = ::testing::TempDir() + "cambi_twin_heatmaps";
  const Outcome gpu = score(banded_clip({256, 216, PixFmt::k420, 8}, 1, 90), {"cambi=heatmaps_path=" + dir},
                            Backend::kCuda, 1);
  ASSERT_FALSE(gpu.status.ok());
  EXPECT_NE(gpu.status.message().find("heatmaps_path"), std::string::npos) << gpu.status.message();
  // Under --backend auto it runs on the CPU.
  const Outcome autob = score(banded_clip({256, 216, PixFmt::k420, 8}, 1, 90), {"cambi=heatmaps_path=" + dir},
                              Backend::kAuto, 1);
  ASSERT_TRUE(autob.status.ok()) << autob.status.message();
  ASSERT_EQ(autob.backends.size(), 1u);
  EXPECT_EQ(autob.backends[0], "cpu");
}

TEST(CambiTwin, PoolingRoutes) {
  REQUIRE_GPU();
  // Radix select (more nonzero c-values than k, top-k total below 2^53
  // units): topk 0.001, or the default with a tenth of the picture textured.
  for (const char* feature : {"cambi=topk=0.001", "cambi"})
    for (int bpc : {8, 12}) {
      const Clip c = banded_clip({640, 360, PixFmt::k420, bpc}, 3, 100 + uint64_t(bpc), 0.1);
      const Route r = route_of(c, feature);
      ASSERT_GT(r.nonzero, r.k) << feature << ": the radix select is not exercised";
      ASSERT_TRUE(cambi_topk_exact(r.topk.units, r.topk.shift));
      expect_twin(c, {feature}, 3);
    }
  // Order-free: half the picture textured (banded_clip's default).
  const Clip c = banded_clip({640, 360, PixFmt::k420, 8}, 2, 108);
  const Route r = route_of(c, "cambi");
  ASSERT_GT(r.nonzero, 0);
  ASSERT_TRUE(cambi_order_free(r.nonzero, r.units, r.k)) << "the order-free route is not exercised";
  expect_twin(c, {"cambi"}, 2);
}

TEST(CambiTwin, QuickSelectAboveTheExactBound) {
  REQUIRE_GPU();
  // 1080p 10-bit stripes (no speedup) with single samples one code below the
  // darker stripe in row 0 (the mode filter keeps the first row): their
  // c-values are below 1 (ulp 2^-24), the stripes' total is above 2^29, so
  // libvmaf's double sum rounds and its order decides the value. Every
  // nonzero c-value is summed: topk 1 (k = N, no partition), and topk 0.9
  // with a fifth of the picture textured (a partition).
  for (auto [feature, textured] : {std::pair{"cambi=topk=1", 0.0}, std::pair{"cambi=topk=0.9", 0.2}}) {
    const auto luma = [textured](const VideoFormat& f, int x, int y, int t, SplitMix64& rng) {
      if (x < textured * f.w) return static_cast<int>(150 + rng.next() % 25);
      const int stripe = (x / 32 + t) & 1;
      if (y == 0 && stripe == 0 && x % 96 == 16) return 159;
      return stripe ? 164 : 160;
    };
    const Clip c = make_clip({1920, 1080, PixFmt::k420, 10}, 2, 5, luma, luma);
    const Route r = route_of(c, feature);
    ASSERT_LE(r.nonzero, r.k);
    ASSERT_EQ(r.topk.shift, 0) << feature << ": no c-value below 1";
    ASSERT_FALSE(cambi_topk_exact(r.topk.units, r.topk.shift)) << feature << ": the total stays below 2^29";
    expect_twin(c, {feature}, 2);
  }
}

#if TWINMAF_HAVE_CUDA
// The block's quick select and ordered sum (cambi_pool.cuh) against the
// one-thread loop (cambi_topk_sum_raw): the same array after the select, bit
// for bit, and the same double. Values as c-values: zeros, values below 1
// (ulp 2^-24), and values up to 2^14 with every low bit, so the running sum
// passes 2^29 and rounds (ties included) in several binades; few distinct
// values (long runs of ties), sorted either way, all equal; sizes around the
// warp, the block and the serial tail; k from 1 to n. Partitions run on the
// block down to 2 samples, and with the production tail.
TEST(CambiTwin, BlockPoolingIsLibvmafsLoop) {
  REQUIRE_GPU();
  SplitMix64 rng(11);
  const auto value = [&rng](int kind) -> float {
    const uint64_t r = rng.next();
    switch (kind) {
      case 0:  // small and below 1: ulp 2^-24
        return r % 3 == 0 ? 0.0f : 0.5f + static_cast<float>(r % (1u << 23)) * 0x1p-24f;
      case 1:  // large, every low bit: the sum rounds
        return r % 50 == 0 ? 0.5f + static_cast<float>(r % 977) * 0x1p-24f
                           : static_cast<float>(4096 + (r >> 20) % 12000) + static_cast<float>(r % 2048) * 0x1p-11f;
      case 2:  // 5 distinct values
        return std::array{0.0f, 0.75f, 3.5f, 9000.25f, 0.5f + 0x1p-24f}[r % 5];
      default:  // 2 distinct
        return r % 2 ? 9999.0f : 0.5f;
    }
  };
  int rounded = 0, cases = 0;
  for (const int n : {1, 2, 3, 31, 33, 127, 129, 1024, 4097, 65537, 1 << 20, 1536 * 864})
    for (int kind = 0; kind < 7; ++kind)
      for (const int k : {1, n / 2 + 1, static_cast<int>(0.6 * n) + 1, n - 1, n}) {
        if (k < 1 || k > n || (n > 70000 && kind > 4 && k != n / 2 + 1)) continue;
        std::vector<float> c(static_cast<size_t>(n));
        for (size_t i = 0; i < c.size(); ++i)
          c[i] = kind < 4 ? value(kind) : kind == 4 ? value(1) : kind == 5 ? 7.25f : value(0);
        if (kind == 4) std::sort(c.begin(), c.end());  // ascending
        if (kind == 6) std::sort(c.begin(), c.end(), std::greater<>());
        std::vector<float> want = c;
        const double want_sum = cambi_topk_sum_raw(want.data(), n, k);
        rounded += want_sum != static_cast<double>(topk_of(c, k).units) * 0x1p-24;
        for (const int serial_below : {2, cuda::kCambiSerialRange}) {
          SCOPED_TRACE(testing::Message() << "n " << n << " kind " << kind << " k " << k << " serial below "
                                          << serial_below);
          std::vector<float> got = c;
          double got_sum = 0;
          const std::string err = device_cambi_topk_sum(got, k, serial_below, got_sum);
          ASSERT_TRUE(err.empty()) << err;
          ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float))) << "the select's order";
          ASSERT_EQ(std::bit_cast<uint64_t>(got_sum), std::bit_cast<uint64_t>(want_sum));
          ++cases;
          ++values_compared();
        }
      }
  // The seeded arrays give 11 such cases.
  EXPECT_GE(rounded, 8) << "too few cases where the sum rounds";
  std::printf("cambi block pooling: %d cases, %d where the order matters\n", cases, rounded);
}
#endif

// The twin's pooling premise, on the host: when cambi_topk_exact holds for
// the k largest values, libvmaf's quick select and ordered sum give their
// exact total (ties and zeros included); when it does not, they need not.
TEST(CambiTwin, TopkTotalIsLibvmafsSumWhenExact) {
  const auto& recip = cambi_reciprocal_table();
  SplitMix64 rng(7);
  int exact = 0, differs = 0;
  for (int round = 0; round < 80; ++round) {
    // Odd rounds: large values (w_d 9, H and m near 2112) with a few below 1,
    // every one summed, so the total passes 2^29 at a units shift of 0.
    const bool heavy = round % 2 == 1;
    const int n = heavy ? 100000 + static_cast<int>(rng.next() % 50000) : 1 + static_cast<int>(rng.next() % 150000);
    const int distinct = 1 + static_cast<int>(rng.next() % (round % 4 == 0 ? 16 : 4096));
    std::vector<float> pool(static_cast<size_t>(distinct));
    for (float& v : pool) {
      const int h = heavy ? 1500 + static_cast<int>(rng.next() % 612) : 1 + static_cast<int>(rng.next() % 60);
      const int m = heavy ? 1500 + static_cast<int>(rng.next() % 612) : 1 + static_cast<int>(rng.next() % 60);
      const int w = heavy ? 9 : 1 + static_cast<int>(rng.next() % 9);
      v = static_cast<float>(w * h * m) * recip[static_cast<size_t>(h + m)];
    }
    std::vector<float> c(static_cast<size_t>(n));
    for (float& v : c) {
      const uint64_t r = rng.next() % 100;
      if (r < (heavy ? 2u : 33u))
        v = 0.0f;
      else if (heavy && r < 4)  // 1 * 1 * m / (1 + m): in [0.5, 1)
        v = [&] {
          const int m = 1 + static_cast<int>(rng.next() % 4000);
          return static_cast<float>(m) * recip[static_cast<size_t>(1 + m)];
        }();
      else
        v = pool[rng.next() % pool.size()];
    }
    const int k = heavy ? n : 1 + static_cast<int>(rng.next() % static_cast<uint64_t>(n));
    const Topk t = topk_of(c, k);
    std::vector<float> a = c;
    const double sum = cambi_topk_sum_raw(a.data(), n, k);
    if (cambi_topk_exact(t.units, t.shift)) {
      ++exact;
      ASSERT_EQ(std::bit_cast<uint64_t>(sum), std::bit_cast<uint64_t>(cambi_units_value(t.units, t.shift)))
          << "n " << n << " k " << k << " round " << round;
    } else {
      differs += sum != static_cast<double>(t.units) * 0x1p-24;
    }
  }
  EXPECT_GT(exact, 30);
  EXPECT_GT(differs, 0) << "no case beyond the bound where the order matters";
}

}  // namespace
}  // namespace twinmaf::test
