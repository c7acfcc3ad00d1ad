// adm twin tests: the CUDA twin against the CPU path of the same binary, every
// output (debug outputs included) of every frame compared with ==.
//
// Inputs: seeded full-range noise and a moving ramp with noise at 8-16 bit,
// every layout, sizes from the minimum 33x33 through odd sizes and tile-edge
// cases to 1920x1080 and 3840x2160; every adm option value class the CPU
// accepts (csf modes 0-3 with supported tables, Barten scales, nvd/rdh, egl,
// noise weight, skip_aim, skip_scale0, min_val, dlm weight, debug); the
// vmaf_v0.6.1 features (adm, vif, motion) in one session; --subsample 2.
// Without a CUDA device every test is skipped with "no GPU".
#include <algorithm>
#include <string>
#include <vector>

#include "features/feature.h"
#include "tests/twin/twin_harness.h"

namespace twinmaf::test {
namespace {

constexpr const char* kAdmDebug = "adm=debug=true";

void fill(std::vector<uint8_t>& v, int bpc, int value) {
  if (bpc == 8) {
    std::fill(v.begin(), v.end(), static_cast<uint8_t>(value));
    return;
  }
  for (size_t i = 0; i + 1 < v.size(); i += 2) {
    v[i] = static_cast<uint8_t>(value & 0xff);
    v[i + 1] = static_cast<uint8_t>(value >> 8);
  }
}

TEST(AdmTwin, EveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  // 33: the minimum (scale-3 band 3x3); 64/65/66 and 127/129: band sizes
  // around the 32-column, 16-row tile edges; 357x353 odd at every scale.
  const std::pair<int, int> sizes[] = {{33, 33}, {34, 37}, {64, 65}, {66, 33}, {127, 129}, {357, 353}};
  for (int bpc : {8, 9, 10, 12, 14, 16})
    for (PixFmt fmt : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        expect_twin(noise_clip(f, 2, uint64_t(w * 131 + h * 7 + bpc)), {kAdmDebug}, 2);
        expect_twin(ramp_clip(f, 2, uint64_t(w + h + bpc)), {kAdmDebug}, 2);
      }
}

TEST(AdmTwin, EveryOption) {
  REQUIRE_GPU();
  const char* option_sets[] = {
      "adm",
      "adm=debug=true:adm_skip_scale0=true",
      "adm=debug=true:adm_skip_aim=true",
      "adm=debug=true:adm_skip_aim=true:adm_skip_scale0=true",
      "adm=debug=true:adm_enhn_gain_limit=1",
      "adm=debug=true:adm_enhn_gain_limit=1.2",
      "adm=debug=true:adm_noise_weight=0",
      "adm=debug=true:adm_noise_weight=1500",
      "adm=debug=true:adm_dlm_weight=0.7:adm_min_val=0.5",
      "adm=debug=true:adm_dlm_weight=0:adm_min_val=1",
      "adm=debug=true:adm_norm_view_dist=5",
      "adm=debug=true:adm_norm_view_dist=24:adm_ref_display_height=4320",
      "adm=debug=true:adm_norm_view_dist=0.75:adm_ref_display_height=4320",
      "adm=debug=true:adm_csf_mode=1",
      "adm=debug=true:adm_csf_mode=1:adm_csf_scale=50:adm_csf_diag_scale=0.01",
      "adm=debug=true:adm_csf_mode=1:adm_csf_scale=0:adm_csf_diag_scale=0",
      "adm=debug=true:adm_csf_mode=2",
      "adm=debug=true:adm_csf_mode=2:adm_norm_view_dist=5",
      "adm=debug=true:adm_csf_mode=2:adm_ref_display_height=2160:adm_norm_view_dist=1.5",
      "adm=debug=true:adm_csf_mode=2:adm_ref_display_height=2160:adm_norm_view_dist=3",
      "adm=debug=true:adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=5",
      "adm=debug=true:adm_csf_mode=3:adm_ref_display_height=1080:adm_norm_view_dist=3",
      "adm=debug=true:adm_csf_mode=3:adm_ref_display_height=720:adm_norm_view_dist=5",
  };
  for (const char* opts : option_sets)
    for (int bpc : {8, 10, 16}) {
      for (auto [w, h] : {std::pair{357, 353}, std::pair{33, 35}}) {
        const VideoFormat f{w, h, PixFmt::k420, bpc};
        expect_twin(noise_clip(f, 2, 11 + uint64_t(bpc)), {opts}, 2);
        expect_twin(ramp_clip(f, 2, 12), {opts}, 2);
      }
    }
  // Two adm instances with different options in one session.
  expect_twin(ramp_clip({200, 120, PixFmt::k420, 12}, 3, 4),
              {"adm", "adm=adm_csf_mode=3:adm_enhn_gain_limit=1:adm_skip_aim=true"}, 3);
}

TEST(AdmTwin, IdenticalAndFlatInputs) {
  REQUIRE_GPU();
  for (int bpc : {8, 12}) {
    Clip c = noise_clip({96, 64, PixFmt::k420, bpc}, 2, 3);
    c.dis = c.ref;  // identical: adm2 = 1
    expect_twin(c, {kAdmDebug}, 2);
    Clip flat = c;
    fill(flat.ref, bpc, 1 << (bpc - 2));
    fill(flat.dis, bpc, (1 << (bpc - 2)) + 1);
    expect_twin(flat, {kAdmDebug}, 2);
    expect_twin(flat, {"adm=debug=true:adm_noise_weight=0"}, 2);
  }
}

TEST(AdmTwin, LargeFrames) {
  REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}, std::pair{1921, 1079}})
    for (int bpc : {8, 10}) {
      const VideoFormat f{w, h, PixFmt::k420, bpc};
      expect_twin(ramp_clip(f, 2, 9), {kAdmDebug}, 2);
    }
  expect_twin(noise_clip({3840, 2160, PixFmt::k444, 16}, 2, 10), {kAdmDebug}, 2);
  expect_twin(noise_clip({1920, 1080, PixFmt::k420, 8}, 2, 11), {"adm=adm_skip_scale0=true:debug=true"}, 2);
}

TEST(AdmTwin, ModelFeaturesAndSubsample) {
  REQUIRE_GPU();
  // vmaf_v0.6.1's features; vif joins only once it has a twin (the harness
  // requires every feature of the session on the GPU).
  std::vector<std::string> features = {"adm", "motion"};
  if (const FeatureSpec* vif = find_feature("vif"); vif && vif->cuda) features.push_back("vif");
  const VideoFormat f{576, 324, PixFmt::k420, 8};
  expect_twin(ramp_clip(f, 5, 2), features, 5);
  expect_twin(noise_clip({357, 353, PixFmt::k422, 10}, 6, 5), features, 6, 2);
}

}  // namespace
}  // namespace twinmaf::test
