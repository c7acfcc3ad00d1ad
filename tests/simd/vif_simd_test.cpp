// vif SIMD statistic == scalar reference, every target, every scale and depth.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "base/simd.h"
#include "features/vif/vif.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf {
namespace {

using test::TestPlane;

std::string describe(const char* target, int scale, int bpc, int w, int h, int off, double egl,
                     uint64_t seed) {
  return fmt::format("vif_statistic_{}: scale {} bpc {} {}x{} offset {} egl {} seed {}", target, scale,
                     bpc, w, h, off, egl, seed);
}

TEST(VifSimd, StatisticEqualsReference) {
  ASSERT_FALSE(test::simd_targets().empty()) << "no SIMD target to test on this machine";
  // Scale s needs dimensions > kVifHalf[s] (vif.h); widths around the
  // vector lengths (4, 8, 16 lanes) and odd ones.
  const int widths[] = {2, 3, 5, 9, 15, 16, 17, 23, 31, 32, 33, 47, 65, 97};
  const int heights[] = {2, 3, 5, 9, 12, 17, 31};
  int64_t log_terms = 0, non_log_terms = 0, non_log_values = 0;
  int cases = 0;
  test::for_each_target([&](const char* target) {
    std::printf("vif_statistic: target %s\n", target);
    uint64_t seed = 1;
    for (int scale = 0; scale < kVifScales; ++scale)
      for (int bpc : {8, 10, 12, 16}) {
        // Scales >= 1 read uint16 pyramid images of any value (bpc unused).
        if (scale > 0 && bpc != 16) continue;
        for (int w : widths)
          for (int h : heights) {
            if (w <= kVifHalf[scale] || h <= kVifHalf[scale]) continue;
            const int off = static_cast<int>(seed % 7);
            const double egl = (seed % 3 == 0) ? 1.0 : 100.0;
            ++seed;
            const int pic_bpc = scale == 0 ? bpc : 16;
            TestPlane r(w, h, pic_bpc, off, static_cast<int>(seed % 5)), d(w, h, pic_bpc, off, static_cast<int>(seed % 5));
            test::fill_pair(r, d, seed);
            const VifScaleSums want = vif_statistic_ref(r.view, d.view, scale, bpc, egl, 0, h);
            const VifScaleSums got = vif_statistic_simd(r.view, d.view, scale, bpc, egl, 0, h);
            // A row band: the same rows' sums.
            const int r0 = static_cast<int>(seed % 3) % h, r1 = h - static_cast<int>(seed % 2);
            if (r1 > r0) {
              ASSERT_EQ(vif_statistic_simd(r.view, d.view, scale, bpc, egl, r0, r1),
                        vif_statistic_ref(r.view, d.view, scale, bpc, egl, r0, r1))
                  << describe(target, scale, bpc, w, h, off, egl, seed) << " rows " << r0 << ".." << r1;
            }
            ASSERT_EQ(got, want) << describe(target, scale, bpc, w, h, off, egl, seed)
                                 << " num_log " << got.num_log << " vs " << want.num_log << ", den_log "
                                 << got.den_log << " vs " << want.den_log << ", num_non_log "
                                 << got.num_non_log << " vs " << want.num_non_log << ", den_non_log "
                                 << got.den_non_log << " vs " << want.den_non_log;
            log_terms += want.den_log != 0;
            non_log_terms += want.den_non_log != 0;
            non_log_values += want.num_non_log != 0;
            ++cases;
          }
      }
  });
  // The inputs reach both branches (two empty sums cannot agree vacuously).
  EXPECT_GT(log_terms, cases / 2);
  EXPECT_GT(non_log_terms, cases / 2);
  EXPECT_GT(non_log_values, cases / 20);
}

TEST(VifSimd, SubsampleEqualsReference) {
  const int widths[] = {2, 3, 9, 16, 17, 31, 32, 33, 47, 65, 97, 130};
  const int heights[] = {2, 3, 5, 9, 12, 17};
  int cases = 0;
  test::for_each_target([&](const char* target) {
    uint64_t seed = 7;
    for (int scale = 0; scale < kVifScales - 1; ++scale)
      for (int bpc : {8, 10, 12, 16}) {
        if (scale > 0 && bpc != 16) continue;
        for (int w : widths)
          for (int h : heights) {
            // The next scale's filter reflects once: sizes > its half width.
            if (w <= kVifHalf[scale + 1] || h <= kVifHalf[scale + 1]) continue;
            const int off = static_cast<int>(seed % 7);
            ++seed;
            TestPlane r(w, h, bpc, off, static_cast<int>(seed % 5)), d(w, h, bpc, off, static_cast<int>(seed % 5));
            test::fill_pair(r, d, seed);
            const size_t n = static_cast<size_t>(w / 2) * static_cast<size_t>(h / 2);
            std::vector<uint16_t> want[2] = {std::vector<uint16_t>(n, 1), std::vector<uint16_t>(n, 1)};
            std::vector<uint16_t> got[2] = {std::vector<uint16_t>(n, 2), std::vector<uint16_t>(n, 2)};
            vif_subsample_ref(r.view, d.view, scale, bpc, want[0].data(), want[1].data());
            vif_subsample_simd(r.view, d.view, scale, bpc, got[0].data(), got[1].data());
            ASSERT_EQ(got[0], want[0]) << "vif_subsample_" << target << " ref, scale " << scale << " bpc " << bpc << " "
                                       << w << "x" << h << " offset " << off;
            ASSERT_EQ(got[1], want[1]) << "vif_subsample_" << target << " dis, scale " << scale << " bpc " << bpc << " "
                                       << w << "x" << h << " offset " << off;
            ++cases;
          }
      }
  });
  EXPECT_GT(cases, 100);
}

TEST(VifSimd, PyramidEqualsReference) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{16, 16}, {33, 17}, {177, 99}}) {
      TestPlane r(w, h, bpc, 1, 3), d(w, h, bpc, 1, 3);
      test::fill_pair(r, d, static_cast<uint64_t>(bpc * 1000 + w));
      for (bool skip : {false, true}) {
        VifParams p;
        p.skip_scale0 = skip;
        VifTerms want, got;
        vif_terms_ref(r.view, d.view, bpc, p, want);
        test::for_each_target([&](const char* target) {
          vif_terms(r.view, d.view, bpc, p, got);
          ASSERT_EQ(got, want) << "vif_terms_" << target << " bpc " << bpc << " " << w << "x" << h;
        });
      }
    }
}

TEST(VifSimd, CpumaskSelectsReference) {
  simd_set_cpumask(~uint64_t{0});
  EXPECT_FALSE(simd_enabled());
  EXPECT_EQ(simd_target_name(), "scalar");
  simd_set_cpumask(0);
  EXPECT_EQ(simd_enabled(), !test::simd_targets().empty());
}

}  // namespace
}  // namespace twinmaf
