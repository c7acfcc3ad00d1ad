// Row bands within a frame (base/parallel.h): adm and vif terms of frames
// of at least 1080p split into bands, run by several threads, equal the
// unsplit terms (==) at every band count the split can take.
#include <gtest/gtest.h>

#include <utility>

#include "base/parallel.h"
#include "core/options.h"
#include "features/adm/adm.h"
#include "features/adm/adm_rows.h"
#include "features/vif/vif.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf {
namespace {

using test::TestPlane;

// 1080p and an odd size above it (uneven bands at every scale).
constexpr std::pair<int, int> kSizes[] = {{1920, 1080}, {1931, 1087}};

TEST(RowBands, AdmTermsEqualUnsplit) {
  auto o = Options::parse("adm", adm_feature_spec().options, OptionDict{});
  ASSERT_TRUE(o.ok());
  for (auto [w, h] : kSizes)
    for (int bpc : {8, 10}) {
      auto ex = adm_feature_spec().create(*o);
      ASSERT_TRUE(ex.ok());
      ASSERT_TRUE((*ex)->init({w, h, PixFmt::k420, bpc}).ok());
      const AdmKernelParams& kp = adm_kernel_params(**ex);
      TestPlane r(w, h, bpc, 1, 3), d(w, h, bpc, 1, 3);
      test::fill_pair(r, d, static_cast<uint64_t>(w + bpc));
      AdmRowKernels dsp;
      adm_dsp_init(dsp);  // what the extractor runs
      AdmTerms whole;
      adm_terms_with(dsp, r.view, d.view, kp, whole);
      for (int width : {2, 3, 16}) {
        const BandScope scope(width);
        AdmTerms split;
        adm_terms_with(dsp, r.view, d.view, kp, split);
        EXPECT_EQ(split, whole) << w << "x" << h << " bpc " << bpc << " band width " << width;
      }
    }
}

TEST(RowBands, VifTermsEqualUnsplit) {
  for (auto [w, h] : kSizes)
    for (int bpc : {8, 10}) {
      TestPlane r(w, h, bpc, 1, 3), d(w, h, bpc, 1, 3);
      test::fill_pair(r, d, static_cast<uint64_t>(w * bpc));
      VifParams p;
      VifKernels dsp;
      vif_dsp_init(dsp);  // what the extractor runs
      VifTerms whole;
      vif_terms_with(dsp, r.view, d.view, bpc, p, whole);
      for (int width : {2, 3, 16}) {
        const BandScope scope(width);
        VifTerms split;
        vif_terms_with(dsp, r.view, d.view, bpc, p, split);
        EXPECT_EQ(split, whole) << w << "x" << h << " bpc " << bpc << " band width " << width;
      }
    }
}

}  // namespace
}  // namespace twinmaf
