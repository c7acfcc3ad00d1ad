// motion SAD and psnr SSE: the tables' SIMD entries == their reference
// entries on every target, depth, size and alignment (registry:
// simd_main.cpp).
#include <gtest/gtest.h>

#include <memory>

#include "features/motion/motion.h"
#include "features/psnr/psnr.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {
constexpr int kWidths[] = {3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 47, 64, 65, 130};
constexpr int kHeights[] = {3, 4, 5, 9, 17};
}  // namespace

void check_motion_sad(const char* target, int64_t& cases) {
  const auto ref = motion_dsp_ref().sad, simd = motion_dsp_simd().sad;
  int64_t nonzero = 0, seeded = 0;
  uint64_t seed = 1;
  for (int bpc : {8, 10, 12, 15, 16})
    for (int w : kWidths)
      for (int h : kHeights) {
        const int off = static_cast<int>(seed % 5), pad = static_cast<int>(seed % 3);
        TestPlane prev(w, h, bpc, off, pad), cur(w, h, bpc, off, pad);
        fill_pair(prev, cur, ++seed);
        // Rows with prev == cur too (the zero-row shortcut).
        for (int x = 0; x < w; ++x) cur.set(x, h / 2, prev.get(x, h / 2));
        const uint64_t want = ref(prev.view, cur.view, bpc);
        ASSERT_EQ(simd(prev.view, cur.view, bpc), want)
            << "motion_sad_" << target << ": bpc " << bpc << " " << w << "x" << h << " offset " << off << " seed "
            << seed;
        nonzero += want != 0;
        ++seeded;
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
      ASSERT_EQ(simd(prev.view, cur.view, bpc), ref(prev.view, cur.view, bpc))
          << "motion_sad_" << target << ": extreme bpc " << bpc << " width " << w;
      ++cases;
    }
  EXPECT_GT(nonzero, seeded * 9 / 10);
  cases += seeded;
}

void check_psnr_plane_sse(const char* target, int64_t& cases) {
  const auto ref = psnr_dsp_ref().plane_sse, simd = psnr_dsp_simd().plane_sse;
  uint64_t seed = 1;
  for (int bpc : {8, 10, 12, 16})
    for (int w : {1, 2, 3, 7, 8, 15, 16, 17, 33, 65, 130})
      for (int h : {1, 2, 5, 17}) {
        const int off = static_cast<int>(seed % 7), pad = static_cast<int>(seed % 3);
        TestPlane a(w, h, bpc, off, pad), b(w, h, bpc, off, pad);
        fill_pair(a, b, ++seed);
        b.set(0, 0, a.get(0, 0) ? 0 : (1u << bpc) - 1);  // at least one error
        const uint64_t want = ref(a.view, b.view, bpc);
        ASSERT_NE(want, 0u);
        ASSERT_EQ(simd(a.view, b.view, bpc), want) << "psnr_sse_" << target << ": bpc " << bpc << " " << w << "x"
                                                   << h << " offset " << off << " seed " << seed;
        ++cases;
      }
}

std::function<void(bool)> bench_motion_sad(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  return [p](bool simd) {
    keep((simd ? motion_dsp_simd() : motion_dsp_ref()).sad(p->a.view, p->b.view, 8));
  };
}

std::function<void(bool)> bench_psnr_plane_sse(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  return [p](bool simd) {
    keep((simd ? psnr_dsp_simd() : psnr_dsp_ref()).plane_sse(p->a.view, p->b.view, 8));
  };
}

}  // namespace twinmaf::test
