#include "features/adm/adm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

// splitmix64 of shared/golden/noiseclip.py.
using SplitMix = test::SplitMix64;

void put(Picture& p, int plane, int x, int y, int v) {
  if (p.format().bpc == 8)
    p.mutable_data(plane)[y * p.stride(plane) + x] = static_cast<uint8_t>(v);
  else
    reinterpret_cast<uint16_t*>(p.mutable_data(plane) + y * p.stride(plane))[x] =
        static_cast<uint16_t>(v);
}

// Frame 0 luma of a golden noise clip (chroma is never read by adm).
std::pair<std::unique_ptr<Picture>, std::unique_ptr<Picture>> noise_frame0(const VideoFormat& f,
                                                                           uint64_t seed) {
  auto r = std::make_unique<Picture>(f, host_allocator());
  auto d = std::make_unique<Picture>(f, host_allocator());
  SplitMix g{seed};
  const int top = (1 << f.bpc) - 1;
  const int a = std::max(1, top >> 3);
  for (int y = 0; y < f.h; ++y) {
    for (int x = 0; x < f.w; ++x) {
      const int rv = static_cast<int>(g.next() >> (64 - f.bpc));
      const int delta = static_cast<int>((g.next() >> 32) % static_cast<uint64_t>(2 * a + 1)) - a;
      put(*r, 0, x, y, rv);
      put(*d, 0, x, y, std::min(std::max(rv + delta, 0), top));
    }
  }
  return {std::move(r), std::move(d)};
}

// Fills luma with `fn(x, y)` (chroma with mid-grey).
template <typename Fn>
std::unique_ptr<Picture> make_picture(const VideoFormat& f, Fn fn) {
  auto p = std::make_unique<Picture>(f, host_allocator());
  for (int pl = 0; pl < f.planes(); ++pl)
    for (int y = 0; y < f.stored_h(pl); ++y)
      for (int x = 0; x < f.stored_w(pl); ++x)
        put(*p, pl, x, y, pl == 0 ? fn(x, y) : 1 << (f.bpc - 1));
  return p;
}

Result<std::unique_ptr<Extractor>> make_adm(const OptionDict& dict, Options* opts_out = nullptr) {
  const FeatureSpec& spec = adm_feature_spec();
  TWINMAF_ASSIGN_OR_RETURN(Options o, Options::parse("adm", spec.options, dict));
  if (opts_out) *opts_out = o;
  return spec.create(o);
}

struct Scores {
  std::vector<std::string> names;
  Collector col;
  // Value of the output libvmaf calls `provided`, under this run's name.
  double at(std::string_view provided, unsigned i = 0) const {
    const auto& p = adm_feature_spec().provided;
    for (size_t k = 0; k < p.size() && k < names.size(); ++k) {
      if (p[k] != provided) continue;
      if (auto v = col.get(names[k], i)) return *v;
    }
    ADD_FAILURE() << "no value for " << provided;
    return NAN;
  }
};

// Runs adm on pairs; fails the test on any error.
Scores run(const VideoFormat& f, const OptionDict& dict,
           const std::vector<std::pair<const Picture*, const Picture*>>& frames,
           AdmTerms* terms0 = nullptr) {
  Scores out;
  Options o;
  auto ex = make_adm(dict, &o);
  EXPECT_TRUE(ex.ok()) << ex.status().message();
  if (!ex.ok()) return out;
  for (auto p : adm_feature_spec().provided) out.names.push_back(o.feature_name(p));
  Status st = (*ex)->init(f);
  EXPECT_TRUE(st.ok()) << st.message();
  for (unsigned i = 0; i < frames.size(); ++i) {
    auto t = (*ex)->make_terms();
    FrameInput in;
    in.index = i;
    in.ref = frames[i].first;
    in.dis = frames[i].second;
    EXPECT_TRUE((*ex)->compute(in, *t).ok());
    if (i == 0 && terms0) *terms0 = static_cast<AdmTerms&>(*t);
    EXPECT_TRUE((*ex)->finish(i, *t, out.col).ok());
  }
  return out;
}

const char* const kMain[7] = {"VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
                              "VMAF_integer_feature_adm3_score", "integer_adm_scale0",
                              "integer_adm_scale1",              "integer_adm_scale2",
                              "integer_adm_scale3"};

struct GoldenCase {
  VideoFormat fmt;
  uint64_t seed;
  double v[7];  // adm2, aim, adm3, scale0..3 of frame 0 (golden .hp17g)
};

// libvmaf f85a8536 (--cpumask -1) on frame 0 of shared/golden noise clips.
TEST(Adm, MatchesGoldenNoiseClipsFrame0) {
  const GoldenCase cases[] = {
      {{64, 48, PixFmt::k420, 8}, 1,
       {0.90453145883219499, 0.01379852698787996, 0.94536646592215745, 0.91432418165606477,
        0.91261755834626146, 0.90754124091699284, 0.87195506438082027}},
      {{64, 48, PixFmt::k422, 10}, 6,
       {0.89142912609223457, 0.0025087089602174456, 0.94446020856600854, 0.90997089452931668,
        0.89532654743078599, 0.87744036288677152, 0.87754933684745695}},
      {{64, 48, PixFmt::k444, 12}, 11,
       {0.89176280015974019, 0.0062535584972860216, 0.94275462083122707, 0.91430639733790664,
        0.90699454303332083, 0.86821544501204551, 0.86415067546668956}},
      {{64, 48, PixFmt::k420, 16}, 4,
       {0.91403161258465404, 0.0080160547000497073, 0.95300777894230215, 0.90770718985529442,
        0.91374789405240175, 0.89836238776240507, 0.94428889320927323}},
      {{357, 353, PixFmt::k444, 16}, 24,
       {0.90182792910662612, 0.015690276879095185, 0.94306882611376541, 0.91063968116830074,
        0.9049034339104165, 0.89514669967922278, 0.89401205044210952}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.fmt.w << "x" << c.fmt.h << " b" << c.fmt.bpc << " s"
                                      << c.seed);
    auto [r, d] = noise_frame0(c.fmt, c.seed);
    const Scores s = run(c.fmt, {}, {{r.get(), d.get()}});
    for (int k = 0; k < 7; ++k) EXPECT_EQ(s.at(kMain[k]), c.v[k]) << kMain[k];
  }
}

// Option sets the goldens lack, against libvmaf f85a8536 (scalar) on frame 0
// of noise_64x48_420_8b_6f_s1.
TEST(Adm, MatchesLibvmafWithBlendAndBartenOptions) {
  const VideoFormat f{64, 48, PixFmt::k420, 8};
  auto [r, d] = noise_frame0(f, 1);
  {
    OptionDict o;
    o.set("adm_csf_mode", "2");
    o.set("adm_enhn_gain_limit", "1");
    o.set("adm_noise_weight", "0.02");
    o.set("adm_dlm_weight", "0.7");
    o.set("adm_min_val", "0.5");
    const Scores s = run(f, o, {{r.get(), d.get()}});
    const double want[7] = {0.89264217446175675, 0.012373752325261764, 0.92113739642565118,
                            0.91095348032680523, 0.90230715614868628, 0.90022165349298844,
                            0.85674124946213415};
    for (int k = 0; k < 7; ++k) EXPECT_EQ(s.at(kMain[k]), want[k]) << kMain[k];
    EXPECT_TRUE(s.col.has("integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02"));
  }
  {
    // Barten overflows libvmaf's fixed-point factors (see docs/adm.md): the
    // values are libvmaf's x86-64 results, reproduced bit for bit.
    OptionDict o;
    o.set("adm_csf_mode", "1");
    o.set("adm_skip_scale0", "true");
    o.set("debug", "true");
    const Scores s = run(f, o, {{r.get(), d.get()}});
    EXPECT_EQ(s.at("VMAF_integer_feature_adm2_score"), 0.029764650665238646);
    EXPECT_EQ(s.at("VMAF_integer_feature_aim_score"), 0.00018107095387981815);
    EXPECT_EQ(s.at("VMAF_integer_feature_adm3_score"), 0.51479178985567942);
    EXPECT_EQ(s.col.get("integer_adm_scale0_csf_1_ssz", 0), 0.0);
    EXPECT_EQ(s.col.get("integer_adm_num_csf_1_ssz", 0), 1032.8641891479492);
    EXPECT_EQ(s.col.get("integer_adm_den_csf_1_ssz", 0), 34701.035156250102);
    EXPECT_EQ(s.col.get("integer_adm_den_scale0_csf_1_ssz", 0), 1.000000013351432e-10);
    EXPECT_EQ(s.col.get("integer_adm_num_scale3_csf_1_ssz", 0), 462.71771240234375);
  }
}

// bpc b samples equal to 8-bit samples << (b - 8) give identical DWT rows
// ((4x + 2^(b-1)) >> b == (x + 128) >> 8 with the matching centre), hence
// identical scores at every depth.
TEST(Adm, HighBitDepthOfShiftedContentEqualsEightBit) {
  SplitMix g{77};
  const int w = 71, h = 45;
  std::vector<int> ref(static_cast<size_t>(w) * h), dis(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = static_cast<int>(g.next() >> 56);
    dis[i] = static_cast<int>(g.next() >> 56);  // independent: large a, wide thresholds
  }
  auto at = [&](const std::vector<int>& v, int shift) {
    return [&v, shift, w](int x, int y) { return v[static_cast<size_t>(y) * w + x] << shift; };
  };
  const VideoFormat f8{w, h, PixFmt::k420, 8};
  auto r8 = make_picture(f8, at(ref, 0));
  auto d8 = make_picture(f8, at(dis, 0));
  const Scores s8 = run(f8, {}, {{r8.get(), d8.get()}});
  for (int b = 9; b <= 16; ++b) {
    SCOPED_TRACE(b);
    const VideoFormat fb{w, h, PixFmt::k420, b};
    auto rb = make_picture(fb, at(ref, b - 8));
    auto db = make_picture(fb, at(dis, b - 8));
    const Scores sb = run(fb, {}, {{rb.get(), db.get()}});
    for (const char* n : kMain) EXPECT_EQ(sb.at(n), s8.at(n)) << n;
  }
}

TEST(Adm, LumaOnlyLayoutIndependent) {
  SplitMix g{5};
  const int w = 50, h = 41;
  std::vector<int> ref(static_cast<size_t>(w) * h), dis(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = static_cast<int>(g.next() >> 54);
    dis[i] = std::min(1023, ref[i] + static_cast<int>(g.next() % 40));
  }
  auto fn = [w](const std::vector<int>& v) {
    return [&v, w](int x, int y) { return v[static_cast<size_t>(y) * w + x]; };
  };
  std::vector<double> first;
  for (PixFmt pf : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444}) {
    const VideoFormat f{w, h, pf, 10};
    auto r = make_picture(f, fn(ref));
    auto d = make_picture(f, fn(dis));
    const Scores s = run(f, {}, {{r.get(), d.get()}});
    std::vector<double> v;
    for (const char* n : kMain) v.push_back(s.at(n));
    if (first.empty()) first = v;
    EXPECT_EQ(v, first) << pix_fmt_name(pf);
  }
}

// Identical inputs: r = t exactly (gain clamp), a = 0, so every aim term is 0.
TEST(Adm, IdenticalInputsHaveZeroAim) {
  for (int bpc : {8, 10, 12, 16}) {
    SCOPED_TRACE(bpc);
    const VideoFormat f{97, 61, PixFmt::k420, bpc};
    SplitMix g{static_cast<uint64_t>(bpc)};
    auto p = make_picture(f, [&](int, int) { return static_cast<int>(g.next() >> (64 - bpc)); });
    AdmTerms t;
    const Scores s = run(f, {}, {{p.get(), p.get()}}, &t);
    for (const auto& sc : t.scale)
      for (int b = 0; b < 3; ++b) {
        EXPECT_EQ(sc.aim[b], 0);
        EXPECT_GT(sc.den[b], 0u);
        EXPECT_GT(sc.num[b], 0);
      }
    EXPECT_EQ(s.at("VMAF_integer_feature_aim_score"), 0.0);
    const double adm2 = s.at("VMAF_integer_feature_adm2_score");
    EXPECT_GT(adm2, 0.9);
    EXPECT_LT(adm2, 1.1);
    EXPECT_EQ(s.at("VMAF_integer_feature_adm3_score"), adm2 * 0.5 + 0.5);
  }
}

// Adversarial full-range independent noise, every depth and layout: finite,
// non-trivial scores; terms reproducible.
TEST(Adm, FullRangeNoiseEveryDepthAndLayout) {
  for (int bpc : {8, 10, 12, 16}) {
    for (PixFmt pf : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444}) {
      SCOPED_TRACE(::testing::Message() << bpc << " " << pix_fmt_name(pf));
      const VideoFormat f{67, 37, pf, bpc};
      SplitMix g{static_cast<uint64_t>(bpc * 10 + static_cast<int>(pf))};
      auto r = make_picture(f, [&](int, int) { return static_cast<int>(g.next() >> (64 - bpc)); });
      auto d = make_picture(f, [&](int, int) { return static_cast<int>(g.next() >> (64 - bpc)); });
      AdmTerms t1, t2;
      const Scores s = run(f, {}, {{r.get(), d.get()}}, &t1);
      (void)run(f, {}, {{r.get(), d.get()}}, &t2);
      for (int sc = 0; sc < 4; ++sc)
        for (int b = 0; b < 3; ++b) {
          EXPECT_EQ(t1.scale[sc].den[b], t2.scale[sc].den[b]);
          EXPECT_EQ(t1.scale[sc].num[b], t2.scale[sc].num[b]);
          EXPECT_EQ(t1.scale[sc].aim[b], t2.scale[sc].aim[b]);
          EXPECT_GT(t1.scale[sc].den[b], 0u);
        }
      for (const char* n : kMain) EXPECT_TRUE(std::isfinite(s.at(n))) << n;
      EXPECT_GT(s.at("VMAF_integer_feature_aim_score"), 0.0);
      EXPECT_GT(s.at("VMAF_integer_feature_adm2_score"), 0.0);
    }
  }
}

TEST(Adm, SkipAimAndSkipScale0) {
  const VideoFormat f{64, 48, PixFmt::k420, 8};
  auto [r, d] = noise_frame0(f, 1);
  OptionDict o;
  o.set("adm_skip_aim", "true");
  const Scores s = run(f, o, {{r.get(), d.get()}});
  // adm_skip_aim is not a feature param: default names.
  EXPECT_EQ(s.col.get("VMAF_integer_feature_aim_score", 0), 0.0);
  EXPECT_EQ(s.col.get("VMAF_integer_feature_adm2_score", 0), 0.90453145883219499);
  EXPECT_EQ(s.col.get("VMAF_integer_feature_adm3_score", 0), 0.90453145883219499 * 0.5 + 0.5);
  OptionDict o2;
  o2.set("adm_skip_scale0", "true");
  const Scores s2 = run(f, o2, {{r.get(), d.get()}});
  EXPECT_EQ(s2.col.get("integer_adm_scale0_ssz", 0), 0.0);
  EXPECT_GT(*s2.col.get("integer_adm_scale1_ssz", 0), 0.5);
}

TEST(Adm, DebugOutputsAreConsistent) {
  const VideoFormat f{80, 60, PixFmt::k444, 12};
  auto [r, d] = noise_frame0(f, 3);
  OptionDict o;
  o.set("debug", "true");
  const Scores s = run(f, o, {{r.get(), d.get()}});
  ASSERT_EQ(s.col.columns().size(), 18u);
  const double adm2 = *s.col.get("VMAF_integer_feature_adm2_score", 0);
  EXPECT_EQ(*s.col.get("integer_adm", 0), adm2);
  EXPECT_EQ(*s.col.get("integer_adm_num", 0) / *s.col.get("integer_adm_den", 0), adm2);
  double num = 0, den = 0;
  for (int k = 0; k < 4; ++k) {
    const std::string ks = std::to_string(k);
    const double n = *s.col.get("integer_adm_num_scale" + ks, 0);
    const double dd = *s.col.get("integer_adm_den_scale" + ks, 0);
    EXPECT_EQ(*s.col.get("integer_adm_scale" + ks, 0), n / dd);
    num += n;
    den += dd;
  }
  EXPECT_EQ(num, *s.col.get("integer_adm_num", 0));
  EXPECT_EQ(den, *s.col.get("integer_adm_den", 0));
}

TEST(Adm, ComputeIsThreadSafe) {
  const VideoFormat f{120, 70, PixFmt::k420, 10};
  auto [r0, d0] = noise_frame0(f, 9);
  auto [r1, d1] = noise_frame0(f, 10);
  auto ex = make_adm({});
  ASSERT_TRUE(ex.ok());
  ASSERT_TRUE((*ex)->init(f).ok());
  AdmTerms serial[2], par[2];
  const Picture* rp[2] = {r0.get(), r1.get()};
  const Picture* dp[2] = {d0.get(), d1.get()};
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE((*ex)->compute(FrameInput{static_cast<unsigned>(i), rp[i], dp[i]}, serial[i]).ok());
  std::thread t([&] { (void)(*ex)->compute(FrameInput{1, rp[1], dp[1]}, par[1]); });
  ASSERT_TRUE((*ex)->compute(FrameInput{0, rp[0], dp[0]}, par[0]).ok());
  t.join();
  for (int i = 0; i < 2; ++i)
    for (int s = 0; s < 4; ++s)
      for (int b = 0; b < 3; ++b) {
        EXPECT_EQ(serial[i].scale[s].num[b], par[i].scale[s].num[b]);
        EXPECT_EQ(serial[i].scale[s].aim[b], par[i].scale[s].aim[b]);
        EXPECT_EQ(serial[i].scale[s].den[b], par[i].scale[s].den[b]);
      }
}

TEST(Adm, MinimumSize) {
  auto ex = make_adm({});
  ASSERT_TRUE(ex.ok());
  EXPECT_TRUE((*ex)->init({33, 33, PixFmt::k420, 8}).ok());
  const std::vector<std::pair<int, int>> small = {{32, 33}, {33, 32}, {3, 3}, {8, 8}, {17, 9}, {1, 1000}};
  for (auto [w, h] : small) {
    auto e = make_adm({});
    const Status st = (*e)->init({w, h, PixFmt::k444, 8});
    EXPECT_FALSE(st.ok()) << w << "x" << h;
    EXPECT_EQ(st.code(), Code::kUnsupported);
    EXPECT_NE(st.message().find("adm"), std::string::npos);
    EXPECT_NE(st.message().find("33x33"), std::string::npos) << st.message();
  }
  // The minimum size computes finite scores.
  const VideoFormat f{33, 33, PixFmt::k420, 8};
  auto [r, d] = noise_frame0(f, 2);
  const Scores s = run(f, {}, {{r.get(), d.get()}});
  for (const char* n : kMain) EXPECT_TRUE(std::isfinite(s.at(n))) << n;
}

TEST(Adm, OptionValidation) {
  {
    OptionDict o;
    o.set("adm_ref_display_height", "720");
    auto e = make_adm(o);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.status().message().find("adm_norm_view_dist * adm_ref_display_height"),
              std::string::npos)
        << e.status().message();
  }
  {
    OptionDict o;  // exactly 3240 is accepted
    o.set("adm_ref_display_height", "2160");
    o.set("adm_norm_view_dist", "1.5");
    EXPECT_TRUE(make_adm(o).ok());
  }
  {
    OptionDict o;
    o.set("adm_csf_mode", "3");
    o.set("adm_ref_display_height", "1440");
    auto e = make_adm(o);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.status().message().find("adm_csf_mode=3"), std::string::npos)
        << e.status().message();
  }
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"adm_csf_mode", "4"},        {"adm_enhn_gain_limit", "0.5"}, {"adm_norm_view_dist", "25"},
      {"adm_ref_display_height", "4321"}, {"adm_noise_weight", "1501"}, {"adm_min_val", "1.5"},
      {"adm_csf_scale", "51"},      {"adm_skip_aim", "1"}};
  for (auto [k, v] : bad) {
    OptionDict o;
    o.set(k, v);
    EXPECT_FALSE(make_adm(o).ok()) << k << "=" << v;
  }
}

TEST(Adm, FeatureNames) {
  Options o;
  ASSERT_TRUE(make_adm({}, &o).ok());
  EXPECT_EQ(o.feature_name("VMAF_integer_feature_adm2_score"), "VMAF_integer_feature_adm2_score");
  OptionDict d;
  d.set("adm_dlm_weight", "0.7");
  d.set("adm_enhn_gain_limit", "1.0");
  d.set("adm_noise_weight", "0.02");
  d.set("adm_norm_view_dist", "3.0");
  d.set("adm_ref_display_height", "2160");
  d.set("adm_min_val", "0.5");
  d.set("adm_csf_mode", "2");
  d.set("debug", "true");
  d.set("adm_skip_aim", "true");
  ASSERT_TRUE(make_adm(d, &o).ok());
  EXPECT_EQ(o.feature_name("VMAF_integer_feature_adm3_score"),
            "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160");
  EXPECT_EQ(o.feature_name("integer_adm_scale2"),
            "integer_adm_scale2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160");
  EXPECT_EQ(adm_feature_spec().provided.size(), 18u);
}

}  // namespace
}  // namespace twinmaf
