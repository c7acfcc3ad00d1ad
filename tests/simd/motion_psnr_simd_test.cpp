// motion SAD and psnr SSE: SIMD == scalar reference on every target, depth,
// size and alignment.
#include <gtest/gtest.h>

#include <cstdio>

#include "features/motion/motion.h"
#include "features/psnr/psnr.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf {
namespace {

using test::TestPlane;

constexpr int kWidths[] = {3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 47, 64, 65, 130};
constexpr int kHeights[] = {3, 4, 5, 9, 17};

TEST(MotionSimd, SadEqualsReference) {
  ASSERT_FALSE(test::simd_targets().empty()) << "no SIMD target to test on this machine";
  int nonzero = 0, cases = 0;
  test::for_each_target([&](const char* target) {
    std::printf("motion_sad: target %s\n", target);
    uint64_t seed = 1;
    for (int bpc : {8, 10, 12, 15, 16})
      for (int w : kWidths)
        for (int h : kHeights) {
          const int off = static_cast<int>(seed % 5), pad = static_cast<int>(seed % 3);
          TestPlane prev(w, h, bpc, off, pad), cur(w, h, bpc, off, pad);
          test::fill_pair(prev, cur, ++seed);
          // Rows with prev == cur too (the zero-row shortcut).
          for (int x = 0; x < w; ++x) cur.set(x, h / 2, prev.get(x, h / 2));
          const uint64_t want = motion_sad_ref(prev.view, cur.view, bpc);
          const uint64_t got = motion_sad_simd(prev.view, cur.view, bpc);
          ASSERT_EQ(got, want) << "motion_sad_" << target << ": bpc " << bpc << " " << w << "x" << h
                               << " offset " << off << " seed " << seed;
          nonzero += want != 0;
          ++cases;
        }
    // Extremes: full-scale differences (the widest sums) both ways.
    for (int bpc : {8, 16})
      for (int w : {16, 33, 64}) {
        TestPlane prev(w, 9, bpc, 1, 1), cur(w, 9, bpc, 1, 1);
        const uint32_t top = (1u << bpc) - 1;
        for (int y = 0; y < 9; ++y)
          for (int x = 0; x < w; ++x) {
            prev.set(x, y, (x / 5 + y) % 2 ? top : 0);
            cur.set(x, y, (x / 5 + y) % 2 ? 0 : top);
          }
        ASSERT_EQ(motion_sad_simd(prev.view, cur.view, bpc), motion_sad_ref(prev.view, cur.view, bpc))
            << "motion_sad_" << target << ": extreme bpc " << bpc << " width " << w;
      }
  });
  EXPECT_GT(nonzero, cases * 9 / 10);
}

TEST(PsnrSimd, SseEqualsReference) {
  ASSERT_FALSE(test::simd_targets().empty()) << "no SIMD target to test on this machine";
  test::for_each_target([&](const char* target) {
    uint64_t seed = 1;
    for (int bpc : {8, 10, 12, 16})
      for (int w : {1, 2, 3, 7, 8, 15, 16, 17, 33, 65, 130})
        for (int h : {1, 2, 5, 17}) {
          const int off = static_cast<int>(seed % 7), pad = static_cast<int>(seed % 3);
          TestPlane a(w, h, bpc, off, pad), b(w, h, bpc, off, pad);
          test::fill_pair(a, b, ++seed);
          b.set(0, 0, a.get(0, 0) ? 0 : (1u << bpc) - 1);  // at least one error
          const uint64_t want = psnr_plane_sse_ref(a.view, b.view, bpc);
          ASSERT_NE(want, 0u);
          ASSERT_EQ(psnr_plane_sse_simd(a.view, b.view, bpc), want)
              << "psnr_sse_" << target << ": bpc " << bpc << " " << w << "x" << h << " offset " << off
              << " seed " << seed;
        }
  });
}

}  // namespace
}  // namespace twinmaf
