// cambi's stages compiled per target (the table's SIMD entry) == the
// reference entry: every c-value (bits) and every scale's terms, on banded
// content, every target, every depth (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/options.h"
#include "features/cambi/cambi.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {

class Capture final : public CambiCValueSink {
 public:
  Status write(int scale, unsigned, std::span<const float> c, int, int) override {
    auto& b = bits[static_cast<size_t>(scale)];
    b.clear();
    for (float f : c) b.push_back(std::bit_cast<uint32_t>(f));
    nonzero += std::count_if(c.begin(), c.end(), [](float f) { return f != 0.0f; });
    return ok_status();
  }
  std::array<std::vector<uint32_t>, kCambiScales> bits;
  int64_t nonzero = 0;
};

CambiOptions options_of(const std::map<std::string, std::string>& m) {
  OptionDict dict;
  for (const auto& [k, v] : m) dict.set(k, v);
  auto parsed = Options::parse("cambi", cambi_feature_spec().options, dict);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return cambi_options(*parsed);
}

// Diagonal plateaus one 10-bit code apart (the mask fires, neighbours differ
// by small steps), some samples one step off and some anywhere in range.
void fill_banded(TestPlane& p, uint64_t seed) {
  const int top = (1 << p.bpc) - 1;
  const int step = p.bpc > 10 ? 1 << (p.bpc - 10) : 1;
  SplitMix64 rng(seed);
  const int base = static_cast<int>(rng.next() % static_cast<uint64_t>(top / 2));
  const int band = 3 + static_cast<int>(rng.next() % 9);
  for (int y = 0; y < p.view.h; ++y)
    for (int x = 0; x < p.view.w; ++x) {
      int v = base + ((x + y / 3) / band) * step;
      const uint64_t r = rng.next() % 64;
      if (r == 0)
        v = static_cast<int>(rng.next() % static_cast<uint64_t>(top + 1));
      else if (r < 3)
        v += r == 1 ? step : -step;
      p.set(x, y, static_cast<uint32_t>(std::clamp(v, 0, top)));
    }
}

struct Case {
  int w, h, bpc;
  std::map<std::string, std::string> opts;
};

}  // namespace

void check_cambi_picture_terms(const char* target, int64_t& n) {
  const auto ref = cambi_dsp_ref().picture_terms, simd = cambi_dsp_simd().picture_terms;
  const Case cases[] = {
      {216, 16, 8, {}},
      {217, 41, 10, {{"window_size", "127"}, {"max_log_contrast", "5"}}},
      {250, 33, 9, {{"max_log_contrast", "3"}, {"topk", "0.05"}}},
      {231, 60, 11, {{"enc_bitdepth", "8"}, {"max_log_contrast", "1"}}},
      {300, 170, 12, {{"enc_width", "251"}, {"enc_height", "157"}, {"cambi_topk", "1"}}},
      {230, 200, 16, {{"eotf", "pq"}, {"cambi_vis_lum_threshold", "1"}, {"tvi_threshold", "0.001"}}},
      {333, 217, 8, {{"enc_bitdepth", "8"}}},
      {240, 230, 10, {{"full_ref", "true"}, {"enc_width", "220"}, {"enc_height", "200"}}},
      {47, 507, 10, {{"max_log_contrast", "4"}}},
      {1043, 301, 8, {{"cambi_high_res_speedup", "1080"}, {"window_size", "33"}}},
  };
  int64_t nonzero = 0;
  {
    uint64_t seed = 40;
    for (const Case& c : cases) {
      const int off = static_cast<int>(seed % 7);
      const VideoFormat fmt{c.w, c.h, PixFmt::k400, c.bpc};
      auto setup = cambi_setup(options_of(c.opts), fmt);
      ASSERT_TRUE(setup.ok()) << setup.status().message();
      TestPlane p(c.w, c.h, c.bpc, off, static_cast<int>(seed % 5));
      fill_banded(p, ++seed);
      std::vector<const CambiPicturePlan*> plans = {&setup->dis};
      if (setup->full_ref) plans.push_back(&setup->src);
      for (const CambiPicturePlan* plan : plans) {
        Capture want_c, got_c;
        std::array<CambiScaleTerms, kCambiScales> want{}, got{};
        ASSERT_TRUE(ref(p.view, c.bpc, *setup, *plan, 0, &want_c, want).ok());
        ASSERT_TRUE(simd(p.view, c.bpc, *setup, *plan, 0, &got_c, got).ok());
        for (int s = 0; s < kCambiScales; ++s) {
          const auto i = static_cast<size_t>(s);
          ASSERT_EQ(got_c.bits[i], want_c.bits[i]) << target << " " << c.w << "x" << c.h << " bpc " << c.bpc
                                                   << " offset " << off << " scale " << s;
          ASSERT_EQ(std::bit_cast<uint64_t>(got[i].topk_sum), std::bit_cast<uint64_t>(want[i].topk_sum))
              << target << " " << c.w << "x" << c.h << " scale " << s;
          ASSERT_EQ(got[i].topk_count, want[i].topk_count);
        }
        nonzero += want_c.nonzero;
        ++n;
      }
    }
  }
  // Banding was found: the c-values compared are not all zero.
  EXPECT_GT(nonzero, 1000);
}

// One picture of banded 10-bit content, default options.
std::function<void(bool)> bench_cambi_picture_terms(int w, int h) {
  const VideoFormat fmt{w, h, PixFmt::k400, 10};
  auto setup = cambi_setup(options_of({}), fmt);
  if (!setup.ok()) return nullptr;
  auto s = std::make_shared<CambiSetup>(std::move(*setup));
  auto p = std::make_shared<TestPlane>(w, h, 10, 1, 3);
  fill_banded(*p, 40);
  return [s, p](bool simd) {
    std::array<CambiScaleTerms, kCambiScales> t{};
    const Status st = (simd ? cambi_dsp_simd() : cambi_dsp_ref()).picture_terms(p->view, 10, *s, s->dis, 0, nullptr, t);
    keep(st);
    keep(t);
  };
}

}  // namespace twinmaf::test
