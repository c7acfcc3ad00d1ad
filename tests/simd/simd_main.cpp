// tests/simd's one loop (dav1d's checkasm): every registry entry's check runs
// on every SIMD target this machine runs (a gtest case per entry; each
// prints its cases per target and must compare some), plus the cpumask
// test of the tables' fills.
//
//   twinmaf_simd [gtest flags]      the checks (what ctest runs)
//   twinmaf_simd --bench [filter]   times each entry (names containing
//                                   filter) on a 1080p and a 2160p plane: the
//                                   reference entry, then the SIMD entry per
//                                   target, ns/call and the speedup over ref
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/simd.h"
#include "features/adm/adm_rows.h"
#include "features/cambi/cambi.h"
#include "features/ciede/ciede.h"
#include "features/motion/motion.h"
#include "features/psnr/psnr.h"
#include "features/speed/speed.h"
#include "features/ssim/ssim.h"
#include "features/vif/vif.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

// Defined in tests/simd/<feat>_simd_test.cpp.
void check_motion_sad(const char*, int64_t&);
void check_psnr_plane_sse(const char*, int64_t&);
void check_vif_statistic(const char*, int64_t&);
void check_vif_subsample(const char*, int64_t&);
void check_vif_terms(const char*, int64_t&);
void check_adm_dwt0_vert(const char*, int64_t&);
void check_adm_dwt_vert(const char*, int64_t&);
void check_adm_dwt_horz(const char*, int64_t&);
void check_adm_point(const char*, int64_t&);
void check_adm_den_mask(const char*, int64_t&);
void check_adm_terms(const char*, int64_t&);
void check_cambi_picture_terms(const char*, int64_t&);
void check_ciede_de00_row(const char*, int64_t&);
void check_ciede_sum(const char*, int64_t&);
void check_speed_band(const char*, int64_t&);
void check_speed_est_params_sums(const char*, int64_t&);
void check_ssim_weighted_sum_row(const char*, int64_t&);
void check_ssim_pixel_terms_row(const char*, int64_t&);
void check_ssim_frames(const char*, int64_t&);
std::function<void(bool)> bench_motion_sad(int, int);
std::function<void(bool)> bench_psnr_plane_sse(int, int);
std::function<void(bool)> bench_vif_statistic(int, int);
std::function<void(bool)> bench_vif_subsample(int, int);
std::function<void(bool)> bench_vif_terms(int, int);
std::function<void(bool)> bench_adm_terms(int, int);
std::function<void(bool)> bench_cambi_picture_terms(int, int);
std::function<void(bool)> bench_ciede_de00_row(int, int);
std::function<void(bool)> bench_speed_band(int, int);
std::function<void(bool)> bench_speed_est_params_sums(int, int);
std::function<void(bool)> bench_ssim_frames(int, int);

const std::vector<SimdEntry>& simd_registry() {
  static const std::vector<SimdEntry> entries = {
      {"motion_sad", check_motion_sad, bench_motion_sad},
      {"psnr_plane_sse", check_psnr_plane_sse, bench_psnr_plane_sse},
      {"vif_statistic", check_vif_statistic, bench_vif_statistic},
      {"vif_subsample", check_vif_subsample, bench_vif_subsample},
      {"vif_terms", check_vif_terms, bench_vif_terms},
      {"adm_dwt0_vert", check_adm_dwt0_vert, nullptr},
      {"adm_dwt_vert", check_adm_dwt_vert, nullptr},
      {"adm_dwt_horz", check_adm_dwt_horz, nullptr},
      {"adm_point", check_adm_point, nullptr},
      {"adm_den_mask", check_adm_den_mask, nullptr},
      {"adm_terms", check_adm_terms, bench_adm_terms},
      {"cambi_picture_terms", check_cambi_picture_terms, bench_cambi_picture_terms},
      {"ciede_de00_row", check_ciede_de00_row, bench_ciede_de00_row},
      {"ciede_sum", check_ciede_sum, nullptr},
      {"speed_band", check_speed_band, bench_speed_band},
      {"speed_est_params_sums", check_speed_est_params_sums, bench_speed_est_params_sums},
      {"ssim_weighted_sum_row", check_ssim_weighted_sum_row, nullptr},
      {"ssim_pixel_terms_row", check_ssim_pixel_terms_row, nullptr},
      {"ssim_frames", check_ssim_frames, bench_ssim_frames},
  };
  return entries;
}

namespace {

class SimdKernel : public testing::TestWithParam<size_t> {};

TEST_P(SimdKernel, EqualsReferenceOnEveryTarget) {
  ASSERT_FALSE(simd_targets().empty()) << "no SIMD target to test on this machine";
  const SimdEntry& e = simd_registry()[GetParam()];
  for_each_target([&](const char* target) {
    int64_t cases = 0;
    e.check(target, cases);
    std::printf("%-22s %-8s %6lld cases\n", e.name, target, static_cast<long long>(cases));
    EXPECT_GT(cases, 0) << e.name << " on " << target << " compared nothing";
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, SimdKernel, testing::Range(size_t{0}, simd_registry().size()),
                         [](const testing::TestParamInfo<size_t>& i) {
                           return std::string(simd_registry()[i.param].name);
                         });

// --cpumask: all SIMD off selects the reference, and every table filled then
// holds the reference entries; mask 0 gives the SIMD entries back.
TEST(SimdDsp, CpumaskSelectsReference) {
  const auto fill_all = [](bool simd) {
    MotionDsp motion;
    motion_dsp_init(motion);
    EXPECT_EQ(motion.sad, (simd ? motion_dsp_simd() : motion_dsp_ref()).sad);
    PsnrDsp psnr;
    psnr_dsp_init(psnr);
    EXPECT_EQ(psnr.plane_sse, (simd ? psnr_dsp_simd() : psnr_dsp_ref()).plane_sse);
    VifKernels vif;
    vif_dsp_init(vif);
    EXPECT_EQ(vif.statistic, (simd ? vif_dsp_simd() : vif_dsp_ref()).statistic);
    EXPECT_EQ(vif.subsample, (simd ? vif_dsp_simd() : vif_dsp_ref()).subsample);
    AdmRowKernels adm;
    adm_dsp_init(adm);
    EXPECT_EQ(adm.point, (simd ? adm_row_kernels_simd() : adm_row_kernels_ref()).point);
    EXPECT_EQ(adm.mask, (simd ? adm_row_kernels_simd() : adm_row_kernels_ref()).mask);
    SsimRowKernels ssim;
    ssim_dsp_init(ssim);
    EXPECT_EQ(ssim.weighted_sum_row, (simd ? ssim_row_kernels_simd() : ssim_row_kernels_ref()).weighted_sum_row);
    CambiDsp cambi;
    cambi_dsp_init(cambi);
    EXPECT_EQ(cambi.picture_terms, (simd ? cambi_dsp_simd() : cambi_dsp_ref()).picture_terms);
    CiedeDsp ciede;
    ciede_dsp_init(ciede);
    EXPECT_EQ(ciede.de00_row, (simd ? ciede_dsp_simd() : ciede_dsp_ref()).de00_row);
    SpeedDsp speed;
    speed_dsp_init(speed);
    EXPECT_EQ(speed.band, (simd ? speed_dsp_simd() : speed_dsp_ref()).band);
    EXPECT_EQ(speed.covariance_sums, (simd ? speed_dsp_simd() : speed_dsp_ref()).covariance_sums);
  };
  simd_set_cpumask(~uint64_t{0});
  EXPECT_FALSE(simd_enabled());
  EXPECT_EQ(simd_target_name(), "scalar");
  fill_all(false);
  simd_set_cpumask(0);
  EXPECT_EQ(simd_enabled(), !simd_targets().empty());
  fill_all(simd_enabled());
}

// Mean seconds per call of fn, calling it for at least kMinSeconds (and at
// least twice) after one warm-up call.
double seconds_per_call(const std::function<void(bool)>& fn, bool simd) {
  constexpr double kMinSeconds = 0.3;
  using Clock = std::chrono::steady_clock;
  fn(simd);
  int64_t calls = 0;
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    fn(simd);
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < kMinSeconds || calls < 2);
  return elapsed / static_cast<double>(calls);
}

int run_bench(const char* filter) {
  const std::pair<int, int> sizes[] = {{1920, 1080}, {3840, 2160}};
  std::printf("%-32s %-8s %14s %9s\n", "kernel", "target", "us/call", "speedup");
  for (const SimdEntry& e : simd_registry()) {
    if (!e.bench || (filter && !std::strstr(e.name, filter))) continue;
    for (auto [w, h] : sizes) {
      const std::function<void(bool)> fn = e.bench(w, h);
      const std::string name = fmt::format("{}_{}x{}", e.name, w, h);
      if (!fn) {
        std::printf("%-32s (not runnable at this size)\n", name.c_str());
        continue;
      }
      const double ref = seconds_per_call(fn, false);
      std::printf("%-32s %-8s %14.1f %9s\n", name.c_str(), "ref", ref * 1e6, "1.00x");
      for_each_target([&](const char* target) {
        const double t = seconds_per_call(fn, true);
        std::printf("%-32s %-8s %14.1f %8.2fx\n", name.c_str(), target, t * 1e6, ref / t);
      });
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace twinmaf::test

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--bench") == 0) return twinmaf::test::run_bench(i + 1 < argc ? argv[i + 1] : nullptr);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
