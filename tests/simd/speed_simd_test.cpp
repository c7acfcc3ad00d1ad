// speed_chroma / speed_temporal SIMD bands == the scalar reference's, bit for
// bit, on every target: 8/10/12/16 bit, widths and heights from the minimum
// (80) through odd sizes around the vector lengths, start offsets and odd
// strides, every anti-alias filter size (kernel scales 0.444444 .. 3.71134:
// 5 .. 35 taps), sides rounded within 1e-3 of 1 both ways (no resampling,
// scaled below or above the input), resampling prescales of every method
// down and up, lanczos4 (the reference runs) and a prescale keeping the
// size (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "api/feature_text.h"
#include "base/hd_math.h"
#include "features/speed/speed.h"
#include "tests/simd/simd_harness.h"
#include "tests/support/extractor_run.h"

namespace twinmaf::test {

namespace {

// The initialised extractor of a feature text, or its refusal.
Result<std::unique_ptr<Extractor>> configure(const std::string& text, const VideoFormat& f) {
  TWINMAF_ASSIGN_OR_RETURN(FeatureText req, parse_feature_text(text));
  const bool temporal = req.name == "speed_temporal";
  return make_extractor(temporal ? speed_temporal_feature_spec() : speed_chroma_feature_spec(), req.options, f);
}

// The first differing value of two bands, or "" when they are equal.
std::string difference(const SpeedBand& want, const SpeedBand& got, int trunc_w) {
  if (want.size() != got.size()) return fmt::format("sizes {} vs {}", want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (float_bits(want[i]) != float_bits(got[i]))
      return fmt::format("value {},{}: {:a} vs {:a}", i % size_t(trunc_w), i / size_t(trunc_w), want[i], got[i]);
  return "";
}

struct Case {
  int w, h;
  std::string options;  // after "feature="; may be empty
};

}  // namespace

void check_speed_band(const char* target, int64_t& n) {
  const SpeedDsp& ref = speed_dsp_ref();
  const SpeedDsp& simd = speed_dsp_simd();
  std::vector<Case> cases;
  for (int w : {80, 81, 95, 97, 113, 130, 161})
    for (int h : {80, 83, 97}) cases.push_back({w, h, ""});
  for (const char* ks : {"0.444444", "0.5", "1.5", "2", "2.4", "3", "3.71134"})
    cases.push_back({181, 167, std::string("speed_kernelscale=") + ks});
  // |ps - 1| < 1e-3: no resampling, the top-left 1199 columns, or a column
  // and a row of zeros past the input (1.0009 on 1023 x 600).
  cases.push_back({1200, 90, "speed_prescale=0.9991"});
  cases.push_back({1023, 600, "speed_prescale=1.0009"});
  // Resampling: every method the kernel runs, down and up (speed_temporal
  // refuses more rows than the input), at the narrowest and widest filter;
  // lanczos4 (the reference runs) and a prescale that keeps the size.
  for (const char* method : {"nearest", "bilinear", "bicubic"})
    for (const char* ks : {"1", "3.71134"}) {
      const std::string opts = std::string(":speed_prescale_method=") + method + ":speed_kernelscale=" + ks;
      cases.push_back({181, 167, "speed_prescale=0.5" + opts});
      cases.push_back({331, 301, "speed_prescale=0.6" + opts});
      cases.push_back({201, 167, "speed_prescale=0.93" + opts});
      cases.push_back({119, 167, "speed_prescale=1.5" + opts});
    }
  cases.push_back({331, 323, "speed_prescale=0.7:speed_prescale_method=lanczos4"});
  cases.push_back({331, 323, "speed_prescale=1.0015:speed_prescale_method=lanczos4"});
  // Wide enough for whole vectors of outputs in the horizontal pass.
  cases.push_back({1031, 83, ""});
  cases.push_back({1031, 120, "speed_prescale=0.7:speed_prescale_method=bilinear"});
  int compared = 0, refused = 0, values = 0, nonzero = 0;
  {
    uint64_t seed = 1;
    for (const Case& c : cases)
      for (int bpc : {8, 10, 12, 16})
        for (const char* feature : {"speed_chroma", "speed_temporal"}) {
          const std::string text = c.options.empty() ? feature : std::string(feature) + "=" + c.options;
          const auto ex = configure(text, {c.w, c.h, PixFmt::k444, bpc});
          if (!ex.ok()) {
            ASSERT_EQ(ex.status().code(), Code::kUnsupported) << text << ": " << ex.status().message();
            ++refused;
            continue;
          }
          const SpeedKernelParams& kp = speed_kernel_params(**ex);
          ++seed;
          const int off = static_cast<int>(seed % 7), pad = static_cast<int>(seed % 5);
          TestPlane a(c.w, c.h, bpc, off, pad), b(c.w, c.h, bpc, off, pad);
          fill_pair(a, b, seed);
          SpeedBand want, got;
          if (feature[6] == 't') {
            ref.difference_band(kp, a.view, b.view, want);
            simd.difference_band(kp, a.view, b.view, got);
          } else {
            ref.band(kp, a.view, want);
            simd.band(kp, a.view, got);
          }
          const std::string diff = difference(want, got, kp.g.trunc_w);
          ASSERT_EQ(diff, "") << "speed_band_" << target << ": " << text << " bpc " << bpc << " " << c.w << "x"
                              << c.h << " offset " << off << " seed " << seed;
          ++compared;
          values += static_cast<int>(want.size());
          for (float v : want) nonzero += v != 0;
        }
  }
  EXPECT_GT(nonzero, values * 3 / 4);  // the flat left third of fill_pair gives zeros
  // speed_temporal refuses ps 1.5 (more rows than its frame buffers): 6
  // cases at 4 depths.
  EXPECT_EQ(refused, 6 * 4);
  EXPECT_EQ(compared + refused, static_cast<int>(cases.size()) * 8);
  n += compared;
}

// speed_temporal's difference band of a 4:4:4 8-bit pair, default options.
std::function<void(bool)> bench_speed_band(int w, int h) {
  const auto ex = configure("speed_temporal", {w, h, PixFmt::k444, 8});
  if (!ex.ok()) return nullptr;
  auto kp = std::make_shared<SpeedKernelParams>(speed_kernel_params(**ex));
  auto p = std::make_shared<BenchPair>(w, h);
  return [kp, p](bool simd) {
    SpeedBand band;
    (simd ? speed_dsp_simd() : speed_dsp_ref()).difference_band(*kp, p->a.view, p->b.view, band);
    keep(band);
  };
}

}  // namespace twinmaf::test
