// vif: the table's SIMD entries (statistic, subsample) == its reference
// entries on every target, scale and depth, and the pyramid driven by each
// table (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "features/vif/vif.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {
std::string describe(const char* target, int scale, int bpc, int w, int h, int off, double egl, uint64_t seed) {
  return fmt::format("vif_statistic_{}: scale {} bpc {} {}x{} offset {} egl {} seed {}", target, scale, bpc, w, h,
                     off, egl, seed);
}
}  // namespace

void check_vif_statistic(const char* target, int64_t& cases) {
  const VifKernels& ref = vif_dsp_ref();
  const VifKernels& simd = vif_dsp_simd();
  // Scale s needs dimensions > kVifHalf[s] (vif.h); widths around the
  // vector lengths (4, 8, 16 lanes) and odd ones.
  const int widths[] = {2, 3, 5, 9, 15, 16, 17, 23, 31, 32, 33, 47, 65, 97};
  const int heights[] = {2, 3, 5, 9, 12, 17, 31};
  int64_t log_terms = 0, non_log_terms = 0, non_log_values = 0, n = 0;
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
          fill_pair(r, d, seed);
          const VifScaleSums want = ref.statistic(r.view, d.view, scale, bpc, egl, 0, h);
          const VifScaleSums got = simd.statistic(r.view, d.view, scale, bpc, egl, 0, h);
          // A row band: the same rows' sums.
          const int r0 = static_cast<int>(seed % 3) % h, r1 = h - static_cast<int>(seed % 2);
          if (r1 > r0) {
            ASSERT_EQ(simd.statistic(r.view, d.view, scale, bpc, egl, r0, r1),
                      ref.statistic(r.view, d.view, scale, bpc, egl, r0, r1))
                << describe(target, scale, bpc, w, h, off, egl, seed) << " rows " << r0 << ".." << r1;
          }
          ASSERT_EQ(got, want) << describe(target, scale, bpc, w, h, off, egl, seed) << " num_log " << got.num_log
                               << " vs " << want.num_log << ", den_log " << got.den_log << " vs " << want.den_log
                               << ", num_non_log " << got.num_non_log << " vs " << want.num_non_log
                               << ", den_non_log " << got.den_non_log << " vs " << want.den_non_log;
          log_terms += want.den_log != 0;
          non_log_terms += want.den_non_log != 0;
          non_log_values += want.num_non_log != 0;
          ++n;
        }
    }
  // The inputs reach both branches (two empty sums cannot agree vacuously).
  EXPECT_GT(log_terms, n / 2);
  EXPECT_GT(non_log_terms, n / 2);
  EXPECT_GT(non_log_values, n / 20);
  cases += n;
}

void check_vif_subsample(const char* target, int64_t& cases) {
  const VifKernels& ref = vif_dsp_ref();
  const VifKernels& simd = vif_dsp_simd();
  const int widths[] = {2, 3, 9, 16, 17, 31, 32, 33, 47, 65, 97, 130};
  const int heights[] = {2, 3, 5, 9, 12, 17};
  int64_t n = 0;
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
          fill_pair(r, d, seed);
          const size_t px = static_cast<size_t>(w / 2) * static_cast<size_t>(h / 2);
          std::vector<uint16_t> want[2] = {std::vector<uint16_t>(px, 1), std::vector<uint16_t>(px, 1)};
          std::vector<uint16_t> got[2] = {std::vector<uint16_t>(px, 2), std::vector<uint16_t>(px, 2)};
          ref.subsample(r.view, d.view, scale, bpc, want[0].data(), want[1].data());
          simd.subsample(r.view, d.view, scale, bpc, got[0].data(), got[1].data());
          ASSERT_EQ(got[0], want[0]) << "vif_subsample_" << target << " ref, scale " << scale << " bpc " << bpc
                                     << " " << w << "x" << h << " offset " << off;
          ASSERT_EQ(got[1], want[1]) << "vif_subsample_" << target << " dis, scale " << scale << " bpc " << bpc
                                     << " " << w << "x" << h << " offset " << off;
          ++n;
        }
    }
  EXPECT_GT(n, 100);
  cases += n;
}

// The whole pyramid through the shared driver: the SIMD table == the
// reference table.
void check_vif_terms(const char* target, int64_t& cases) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{16, 16}, {33, 17}, {177, 99}}) {
      TestPlane r(w, h, bpc, 1, 3), d(w, h, bpc, 1, 3);
      fill_pair(r, d, static_cast<uint64_t>(bpc * 1000 + w));
      for (bool skip : {false, true}) {
        VifParams p;
        p.skip_scale0 = skip;
        VifTerms want, got;
        vif_terms_with(vif_dsp_ref(), r.view, d.view, bpc, p, want);
        vif_terms_with(vif_dsp_simd(), r.view, d.view, bpc, p, got);
        ASSERT_EQ(got, want) << "vif_terms_" << target << " bpc " << bpc << " " << w << "x" << h << " skip_scale0 "
                             << skip;
        ++cases;
      }
    }
}

std::function<void(bool)> bench_vif_statistic(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  return [p](bool simd) {
    keep((simd ? vif_dsp_simd() : vif_dsp_ref()).statistic(p->a.view, p->b.view, 0, 8, 100.0, 0, p->a.view.h));
  };
}

std::function<void(bool)> bench_vif_subsample(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  auto dst = std::make_shared<std::vector<uint16_t>>(2 * static_cast<size_t>(w / 2) * static_cast<size_t>(h / 2));
  return [p, dst](bool simd) {
    (simd ? vif_dsp_simd() : vif_dsp_ref())
        .subsample(p->a.view, p->b.view, 0, 8, dst->data(), dst->data() + dst->size() / 2);
  };
}

std::function<void(bool)> bench_vif_terms(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  return [p](bool simd) {
    VifTerms t;
    vif_terms_with(simd ? vif_dsp_simd() : vif_dsp_ref(), p->a.view, p->b.view, 8, VifParams{}, t);
    keep(t);
  };
}

}  // namespace twinmaf::test
