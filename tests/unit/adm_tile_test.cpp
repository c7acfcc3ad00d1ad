// The adm CUDA twin's tile decomposition (adm_tile.h) run on the host, block
// by block and stage by stage as adm.cu runs it, against adm_terms_ref: the
// index logic (halos, reflections, region edges, band-a hand-over between
// scales, per-row folds) is checked without a device. Shared memory is filled
// with seeded garbage before each block, so any read of an entry the stages
// did not write shows up as a mismatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/options.h"
#include "features/adm/adm.h"
#include "features/adm/adm_tile.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

using namespace adm;

// splitmix64 of shared/golden/noiseclip.py.
using SplitMix = test::SplitMix64;

template <typename Src, typename Math>
void run_scale(const TileScale& g, const Src& ref, const Src& dis, int32_t* a_ref, int32_t* a_dis,
               std::vector<uint64_t>& rows, SplitMix& garbage) {
  auto sm = std::make_unique<TileSmem>();
  for (int y0 = 0; y0 < g.h; y0 += kTileH)
    for (int x0 = 0; x0 < g.w; x0 += kTileW) {
      auto* raw = reinterpret_cast<uint32_t*>(sm.get());
      for (size_t i = 0; i < sizeof(TileSmem) / 4; ++i) raw[i] = static_cast<uint32_t>(garbage.next());
      const bool pw = tile_pointwise(g, x0, y0);
      if (!pw && !g.a_out) continue;
      for (int r0 = 0; r0 < kHaloH; r0 += kVertRows)
        for (int c = 0; c < kVertW; ++c) {
          tile_vertical(g, ref, x0, y0, c, r0, pw, sm->lo[0], sm->hi[0]);
          tile_vertical(g, dis, x0, y0, c, r0, pw, sm->lo[1], sm->hi[1]);
        }
      for (int r = 0; r < kHaloH; ++r)
        for (int c = 0; c < kHaloW; ++c) tile_point<Math>(g, *sm, x0, y0, r, c, pw, a_ref, a_dis);
      if (!pw) continue;
      for (int r = 0; r < kTileH; ++r) {
        if (!tile_row_active(g, x0, y0 + r)) continue;
        for (int c0 = 0; c0 < kTileW; c0 += kMaskRun) {
          uint64_t v[kRowTerms];
          tile_mask_run<Math::kS0>(g, *sm, x0, y0, r, c0, v);
          for (int q = 0; q < kRowTerms; ++q) rows[size_t(y0 + r) * kRowTerms + q] += v[q];
        }
      }
    }
}

AdmTerms tiled_terms(const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& p, uint64_t seed) {
  SplitMix garbage{seed};
  std::vector<int32_t> a[3][2];
  AdmTerms out;
  for (int s = 0; s < 4; ++s) {
    const TileScale g = tile_scale(p, s);
    std::vector<uint64_t> rows(size_t(g.h) * kRowTerms, 0);
    if (s < 3)
      for (auto& v : a[s]) v.assign(size_t(g.w) * size_t(g.h), 0x7f7f7f7f);
    int32_t* ar = s < 3 ? a[s][0].data() : nullptr;
    int32_t* ad = s < 3 ? a[s][1].data() : nullptr;
    if (s == 0 && p.bpc == 8)
      run_scale<PlaneSrc<uint8_t>, Scale0Math>(g, {ref.data, size_t(ref.stride)}, {dis.data, size_t(dis.stride)},
                                               ar, ad, rows, garbage);
    else if (s == 0)
      run_scale<PlaneSrc<uint16_t>, Scale0Math>(g, {ref.data, size_t(ref.stride)}, {dis.data, size_t(dis.stride)},
                                                ar, ad, rows, garbage);
    else
      run_scale<BandSrc, Scale123Math>(g, {a[s - 1][0].data(), p.scale[s - 1].w},
                                       {a[s - 1][1].data(), p.scale[s - 1].w}, ar, ad, rows, garbage);
    const AdmScaleParams& sp = p.scale[s];
    uint64_t t[kRowTerms] = {};
    for (int y = sp.cm.top; y < sp.cm.bottom; ++y)
      for (int q = 0; q < kRowTerms; ++q)
        t[q] += fold_row(rows[size_t(y) * kRowTerms + q], q, sp.den_row_shift, sp.cm_row_shift);
    for (int b = 0; b < 3; ++b) {
      out.scale[s].den[b] = t[b];
      out.scale[s].num[b] = static_cast<int64_t>(t[3 + b]);
      out.scale[s].aim[b] = static_cast<int64_t>(t[6 + b]);
    }
  }
  return out;
}

struct Plane {
  std::vector<uint8_t> buf;
  PlaneView view;
};

// mode 0: independent full-range noise; 1: ramp, dis = ref + small noise;
// 2: 0/max checkerboard, dis partly inverted. Rows padded by `pad` samples.
Plane make_plane(int w, int h, int bpc, int pad, int mode, SplitMix& g, const Plane* base) {
  Plane p;
  const int bytes = bpc > 8 ? 2 : 1;
  const std::ptrdiff_t stride = std::ptrdiff_t(w + pad) * bytes;
  p.buf.assign(size_t(stride) * size_t(h), 0xAB);
  const int top = (1 << bpc) - 1;
  const auto get = [&](const Plane& q, int x, int y) {
    return bytes == 1 ? int(q.buf[size_t(y * stride + x)])
                      : int(reinterpret_cast<const uint16_t*>(q.buf.data() + y * stride)[x]);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v = 0;
      if (mode == 0) {
        v = int(g.next() >> (64 - bpc));
      } else if (mode == 1) {
        v = base ? std::clamp(get(*base, x, y) + int(g.next() % 9) - 4, 0, top)
                 : ((x * 7 + y * 3) * (top + 1) / (w * 7 + h * 3)) & top;
      } else {
        v = ((x + y) & 1) ? top : 0;
        if (base && (g.next() & 3) == 0) v = top - v;
      }
      if (bytes == 1) p.buf[size_t(y * stride + x)] = uint8_t(v);
      else reinterpret_cast<uint16_t*>(p.buf.data() + y * stride)[x] = uint16_t(v);
    }
  p.view = PlaneView{p.buf.data(), stride, w, h};
  return p;
}

TEST(AdmTile, HostRunOfTheTwinTilingEqualsTheReference) {
  const std::vector<std::vector<std::pair<std::string, std::string>>> option_sets = {
      {},
      {{"adm_skip_scale0", "true"}},
      {{"adm_skip_aim", "true"}, {"adm_enhn_gain_limit", "1"}},
      {{"adm_csf_mode", "1"}, {"adm_csf_scale", "50"}},
      {{"adm_csf_mode", "3"}, {"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "1.5"}},
  };
  // 33: minimum; 64/65/66 tile edges; 97x61 odd at every scale.
  const std::pair<int, int> sizes[] = {{33, 33}, {34, 35}, {65, 66}, {97, 61}, {130, 40}};
  SplitMix rng{2024};
  int configs = 0;
  for (auto [w, h] : sizes)
    for (int bpc : {8, 10, 12, 16})
      for (int mode = 0; mode < 3; ++mode) {
        const auto& kv = option_sets[size_t(configs) % option_sets.size()];
        OptionDict d;
        for (const auto& [k, v] : kv) d.set(k, v);
        auto o = Options::parse("adm", adm_feature_spec().options, d);
        ASSERT_TRUE(o.ok()) << o.status().message();
        auto ex = adm_feature_spec().create(*o);
        ASSERT_TRUE(ex.ok()) << ex.status().message();
        ASSERT_TRUE((*ex)->init({w, h, PixFmt::k420, bpc}).ok());
        const AdmKernelParams& kp = adm_kernel_params(**ex);
        SplitMix g{rng.next()};
        const int pad = configs % 3;
        const Plane r = make_plane(w, h, bpc, pad, mode, g, nullptr);
        const Plane ds = make_plane(w, h, bpc, pad, mode, g, &r);
        AdmTerms want;
        adm_terms_ref(r.view, ds.view, kp, want);
        const AdmTerms got = tiled_terms(r.view, ds.view, kp, rng.next());
        bool nontrivial = false;
        for (int s = 0; s < 4; ++s)
          for (int b = 0; b < 3; ++b) {
            SCOPED_TRACE(testing::Message() << w << "x" << h << " bpc " << bpc << " mode " << mode << " scale " << s
                                            << " band " << b << " options " << configs % option_sets.size());
            EXPECT_EQ(want.scale[s].den[b], got.scale[s].den[b]);
            EXPECT_EQ(want.scale[s].num[b], got.scale[s].num[b]);
            EXPECT_EQ(want.scale[s].aim[b], got.scale[s].aim[b]);
            nontrivial = nontrivial || want.scale[s].den[b] != 0;
          }
        EXPECT_TRUE(nontrivial);
        ++configs;
      }
}

}  // namespace
}  // namespace twinmaf
