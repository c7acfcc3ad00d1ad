// speed_chroma / speed_temporal: libvmaf's bits on generated golden noise
// clips (shared golden set and tests/data/oracle/speed.runs), singular and
// flat planes, identical inputs, sizes at and below the minimum, every
// layout and depth, option errors and names, terms, threads.
#include "features/speed/speed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "io/planar.h"
#include "tests/support/memory_source.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

using test::splitmix64;
using Pic = std::shared_ptr<Picture>;

struct Clip {
  std::vector<Pic> ref, dis;
};

// Pictures of packed planar frames (raw-file layout).
std::vector<Pic> unpack(const VideoFormat& fmt, std::vector<uint8_t> bytes) {
  const uint64_t frames = bytes.size() / packed_frame_bytes(fmt);
  test::MemorySource src(fmt, std::move(bytes));
  std::vector<Pic> out;
  for (uint64_t i = 0; i < frames; ++i) {
    auto p = std::make_shared<Picture>(fmt, host_allocator());
    EXPECT_TRUE(src.read(*p).value());
    out.push_back(p);
  }
  return out;
}

// A golden noise clip (shared/golden/noiseclip.py), by its run name.
Clip noise_clip(const std::string& name) {
  test::NoiseClipSpec spec;
  EXPECT_TRUE(test::parse_noise_clip_name(name, &spec)) << name;
  std::vector<uint8_t> r, d;
  test::make_noise_clip(spec, &r, &d);
  const VideoFormat fmt{spec.w, spec.h, spec.fmt, spec.bpc};
  return {unpack(fmt, std::move(r)), unpack(fmt, std::move(d))};
}

// Seeded full-range noise, `frames` frames, any format.
Clip random_clip(const VideoFormat& fmt, int frames, uint64_t seed) {
  const uint64_t bytes = packed_frame_bytes(fmt) * static_cast<uint64_t>(frames);
  std::vector<uint8_t> r(bytes), d(bytes);
  for (size_t i = 0; i < bytes; i += fmt.bytes_per_sample()) {
    const uint64_t a = splitmix64(seed) >> (64 - fmt.bpc);
    const uint64_t b = splitmix64(seed) >> (64 - fmt.bpc);
    for (int k = 0; k < fmt.bytes_per_sample(); ++k) {
      r[i + k] = static_cast<uint8_t>(a >> (8 * k));
      d[i + k] = static_cast<uint8_t>(b >> (8 * k));
    }
  }
  return {unpack(fmt, std::move(r)), unpack(fmt, std::move(d))};
}

OptionDict dict_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

Result<std::unique_ptr<Extractor>> make(const FeatureSpec& spec, const OptionDict& dict,
                                        const VideoFormat& fmt) {
  TWINMAF_ASSIGN_OR_RETURN(Options opts, Options::parse(spec.name, spec.options, dict));
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(opts));
  TWINMAF_RETURN_IF_ERROR(ex->init(fmt));
  return ex;
}

FrameInput input(const Clip& c, size_t i) {
  FrameInput in;
  in.index = static_cast<unsigned>(i);
  in.ref = c.ref[i].get();
  in.dis = c.dis[i].get();
  if (i > 0) {
    in.prev_ref[0] = c.ref[i - 1].get();
    in.prev_dis[0] = c.dis[i - 1].get();
  }
  return in;
}

Result<Collector> run(const FeatureSpec& spec, const OptionDict& dict, const Clip& c,
                      size_t frames = 0) {
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, make(spec, dict, c.ref.at(0)->format()));
  Collector out;
  const size_t n = frames ? frames : c.ref.size();
  for (size_t i = 0; i < n; ++i) {
    auto terms = ex->make_terms();
    TWINMAF_RETURN_IF_ERROR(ex->compute(input(c, i), *terms));
    TWINMAF_RETURN_IF_ERROR(settle_and_finish(*ex, static_cast<unsigned>(i), *terms, out));
  }
  return out;
}

double at(const Collector& c, std::string_view name, unsigned i) {
  auto v = c.get(name, i);
  EXPECT_TRUE(v.has_value()) << name << " frame " << i;
  return v.value_or(std::nan(""));
}

const std::string kU = "Speed_chroma_feature_speed_chroma_u_score";
const std::string kV = "Speed_chroma_feature_speed_chroma_v_score";
const std::string kUV = "Speed_chroma_feature_speed_chroma_uv_score";
const std::string kT = "Speed_temporal_feature_speed_temporal_score";
const char* const kV1016Suffix = "_mxv_45_nnf_0.1_snn_0.19_wvm_5";

OptionDict v1016() {
  return dict_of({{"speed_kernelscale", "1.0"},
                  {"speed_nn_floor", "0.1"},
                  {"speed_sigma_nn", "0.19"},
                  {"speed_weight_var_mode", "5"},
                  {"speed_max_val", "45"}});
}

// speed_chroma of shared/golden runs noise_*/speed_chroma.hp17g.json: odd
// sizes (floor chroma), every layout, 8..16 bit.
TEST(SpeedGolden, ChromaNoiseClipsEqualLibvmafBits) {
  struct Anchor {
    const char* clip;
    double f0[3], f5[3];
  };
  const Anchor anchors[] = {
      {"noise_357x353_444_8b_6f_s21",
       {12.546306610107422, 17.7088680267334, 15.12758731842041},
       {14.78427791595459, 12.006264686584473, 13.395271301269531}},
      {"noise_357x353_420_10b_6f_s14",
       {2.5621681213378906, 9.201118469238281, 5.881643295288086},
       {13.997486114501953, 20.395462036132812, 17.196474075317383}},
      {"noise_357x353_420_12b_6f_s15",
       {6.153003692626953, 15.80026626586914, 10.976634979248047},
       {15.305545806884766, 4.454498291015625, 9.880022048950195}},
      {"noise_357x353_422_16b_6f_s20",
       {17.259286880493164, 15.244415283203125, 16.251850128173828},
       {14.348068237304688, 17.878864288330078, 16.113466262817383}},
  };
  for (const Anchor& a : anchors) {
    auto out = run(speed_chroma_feature_spec(), {}, noise_clip(a.clip));
    ASSERT_TRUE(out.ok()) << out.status().message();
    const std::string* names[3] = {&kU, &kV, &kUV};
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(at(*out, *names[k], 0), a.f0[k]) << a.clip << " " << *names[k];
      EXPECT_EQ(at(*out, *names[k], 5), a.f5[k]) << a.clip << " " << *names[k];
    }
  }
}

// tests/data/oracle/speed.runs: noise_357x353_444_{12,16}b, frames 1 and 5.
TEST(SpeedGolden, TemporalAndV1016EqualLibvmafBits) {
  struct Anchor {
    const char* clip;
    double temporal[2], urd[2], opts[2], lanczos[2], v1016_uv[2];
  };
  const Anchor anchors[] = {
      {"noise_357x353_444_12b_6f_s23",
       {17.918912887573242, 11.705133438110352},
       {13.183265686035156, 9.882906913757324},
       {15.064146995544434, 12.923407554626465},
       {19.76885223388672, 8.964486122131348},
       {5.543203830718994, 5.622310638427734}},
      {"noise_357x353_444_16b_6f_s24",
       {11.734667778015137, 11.95949649810791},
       {9.72741413116455, 10.287213325500488},
       {8.770474433898926, 13.115274429321289},
       {16.78278350830078, 15.96373176574707},
       {4.7214765548706055, 6.113316535949707}},
  };
  for (const Anchor& a : anchors) {
    const Clip c = noise_clip(a.clip);
    auto t = run(speed_temporal_feature_spec(), {}, c);
    auto urd = run(speed_temporal_feature_spec(), dict_of({{"speed_use_ref_diff", "true"}}), c);
    auto opts = run(speed_temporal_feature_spec(),
                    dict_of({{"speed_kernelscale", "1.5"},
                             {"speed_sigma_nn", "0.5"},
                             {"speed_nn_floor", "0.2"},
                             {"speed_max_val", "3"}}),
                    c);
    auto lz = run(speed_temporal_feature_spec(),
                  dict_of({{"speed_prescale", "0.7"}, {"speed_prescale_method", "lanczos4"}}), c);
    auto ch = run(speed_chroma_feature_spec(), v1016(), c);
    ASSERT_TRUE(t.ok() && urd.ok() && opts.ok() && lz.ok() && ch.ok());
    EXPECT_EQ(at(*t, kT, 0), 0.0);
    for (int k = 0; k < 2; ++k) {
      const unsigned f = k == 0 ? 1 : 5;
      EXPECT_EQ(at(*t, kT, f), a.temporal[k]) << a.clip << " frame " << f;
      EXPECT_EQ(at(*urd, "speed_temporal_urd", f), a.urd[k]) << a.clip;
      // speed_max_val 3 is not applied by libvmaf's speed_temporal.
      EXPECT_EQ(at(*opts, "speed_temporal_ks_1.5_mxv_3_nnf_0.2_snn_0.5", f), a.opts[k]) << a.clip;
      EXPECT_GT(a.opts[k], 3.0);
      EXPECT_EQ(at(*lz, "speed_temporal_ps_0.7_psm_lanczos4", f), a.lanczos[k]) << a.clip;
      EXPECT_EQ(at(*ch, std::string("speed_chroma_uv") + kV1016Suffix, f), a.v1016_uv[k]) << a.clip;
    }
  }
}

// 176x176 4:4:4, three frames with flat chroma planes (libvmaf's values):
//   frame 0: U flat in both (both singular), V noise: uv = v
//   frame 1: U flat in the reference only (one singular image): u = 0, uv = v
//   frame 2: every chroma plane flat: all 0
Clip flat_clip() {
  const VideoFormat fmt{176, 176, PixFmt::k444, 8};
  const size_t plane = 176 * 176;
  auto fill = [&](std::vector<uint8_t>& out, int kind, uint64_t seed_or_value) {
    for (size_t i = 0; i < plane; ++i)
      out.push_back(kind == 0 ? static_cast<uint8_t>(seed_or_value)
                              : static_cast<uint8_t>(splitmix64(seed_or_value) >> 56));
  };
  // {kind (0 flat, 1 noise), value or seed} for Y, U, V of each frame.
  const int ref[3][3][2] = {
      {{1, 1}, {0, 100}, {1, 2}}, {{1, 3}, {0, 90}, {1, 4}}, {{1, 5}, {0, 60}, {0, 200}}};
  const int dis[3][3][2] = {
      {{1, 11}, {0, 100}, {1, 12}}, {{1, 13}, {1, 14}, {1, 15}}, {{1, 16}, {0, 61}, {0, 10}}};
  std::vector<uint8_t> r, d;
  for (int f = 0; f < 3; ++f)
    for (int p = 0; p < 3; ++p) {
      fill(r, ref[f][p][0], static_cast<uint64_t>(ref[f][p][1]));
      fill(d, dis[f][p][0], static_cast<uint64_t>(dis[f][p][1]));
    }
  return {unpack(fmt, std::move(r)), unpack(fmt, std::move(d))};
}

TEST(SpeedSingular, FlatChannelsFollowLibvmaf) {
  const Clip c = flat_clip();
  auto def = run(speed_chroma_feature_spec(), {}, c);
  auto v16 = run(speed_chroma_feature_spec(), v1016(), c);
  ASSERT_TRUE(def.ok() && v16.ok());
  const double want_v[2] = {25.940597534179688, 36.6115837097168};
  const double want_v16[2] = {10.505409240722656, 11.571025848388672};
  const std::string s = kV1016Suffix;
  for (unsigned f = 0; f < 2; ++f) {
    EXPECT_EQ(at(*def, kU, f), 0.0);
    EXPECT_EQ(at(*def, kV, f), want_v[f]);
    EXPECT_EQ(at(*def, kUV, f), want_v[f]);  // the singular channel is imputed
    EXPECT_EQ(at(*v16, "speed_chroma_u" + s, f), 0.0);
    EXPECT_EQ(at(*v16, "speed_chroma_v" + s, f), want_v16[f]);
    EXPECT_EQ(at(*v16, "speed_chroma_uv" + s, f), want_v16[f]);
  }
  for (const std::string& n : {kU, kV, kUV}) EXPECT_EQ(at(*def, n, 2), 0.0);
  auto t = run(speed_temporal_feature_spec(), {}, c);
  ASSERT_TRUE(t.ok());
  EXPECT_GT(at(*t, kT, 1), 0.0);  // luma is noise throughout
}

TEST(SpeedScores, IdenticalInputs) {
  Clip c = noise_clip("noise_357x353_444_8b_6f_s21");
  c.dis = c.ref;
  auto def = run(speed_chroma_feature_spec(), {}, c, 2);
  auto v16 = run(speed_chroma_feature_spec(), v1016(), c, 2);
  ASSERT_TRUE(def.ok() && v16.ok());
  for (unsigned f = 0; f < 2; ++f)
    for (const std::string& n : {kU, kV, kUV}) EXPECT_EQ(at(*def, n, f), 0.0) << n;
  // Mode 5 compares log2 of 1 + v rounded to float with log2 of the same sum
  // in double: libvmaf's identical inputs score a little above 0.
  const std::string s = kV1016Suffix;
  EXPECT_EQ(at(*v16, "speed_chroma_u" + s, 0), 1.2874603271484375e-05);
  EXPECT_EQ(at(*v16, "speed_chroma_v" + s, 0), 4.76837158203125e-06);
  EXPECT_EQ(at(*v16, "speed_chroma_uv" + s, 0), 8.821487426757812e-06);
  EXPECT_EQ(at(*v16, "speed_chroma_uv" + s, 1), 9.059906005859375e-06);
  auto t = run(speed_temporal_feature_spec(), {}, c, 3);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(at(*t, kT, 1), 0.0);
  EXPECT_EQ(at(*t, kT, 2), 0.0);
}

TEST(SpeedLimits, SizesAtAndBelowTheMinimum) {
  struct Case {
    VideoFormat fmt;
    const char* ps;
    bool chroma_ok, temporal_ok;
  };
  const Case cases[] = {
      {{160, 160, PixFmt::k420, 8}, "1", true, true},
      {{159, 160, PixFmt::k420, 8}, "1", false, true},  // chroma 79 wide
      {{160, 159, PixFmt::k420, 8}, "1", false, true},
      {{159, 161, PixFmt::k422, 10}, "1", false, true},
      {{161, 80, PixFmt::k422, 10}, "1", true, true},
      {{80, 80, PixFmt::k444, 12}, "1", true, true},
      {{79, 80, PixFmt::k444, 12}, "1", false, false},
      {{80, 79, PixFmt::k444, 16}, "1", false, false},
      {{40, 40, PixFmt::k444, 8}, "2", true, false},  // prescaled to 80x80; temporal overruns
      {{160, 160, PixFmt::k444, 8}, "0.5", true, true},
      {{158, 158, PixFmt::k444, 8}, "0.5", false, false},
      {{64, 48, PixFmt::k420, 8}, "1", false, false},
      {{3, 3, PixFmt::k444, 8}, "1", false, false},
      {{1, 1, PixFmt::k444, 8}, "4", false, false},
  };
  for (const Case& c : cases) {
    const OptionDict d = dict_of({{"speed_prescale", c.ps}});
    auto ch = make(speed_chroma_feature_spec(), d, c.fmt);
    auto te = make(speed_temporal_feature_spec(), d, c.fmt);
    SCOPED_TRACE(std::to_string(c.fmt.w) + "x" + std::to_string(c.fmt.h) + " ps " + c.ps);
    EXPECT_EQ(ch.ok(), c.chroma_ok) << ch.status().message();
    EXPECT_EQ(te.ok(), c.temporal_ok) << te.status().message();
    if (!ch.ok()) {
      EXPECT_EQ(ch.status().message().rfind("speed_chroma: ", 0), 0u);
      EXPECT_NE(ch.status().message().find("minimum of 80x80"), std::string::npos);
      EXPECT_EQ(ch.status().message().find('\n'), std::string::npos);
    }
    if (!te.ok()) {
      EXPECT_EQ(te.status().message().rfind("speed_temporal: ", 0), 0u);
    }
    if (c.chroma_ok) {
      const Clip clip = random_clip(c.fmt, 2, 99);
      auto out = run(speed_chroma_feature_spec(), d, clip);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(std::isfinite(
          at(*out, std::string(c.ps) == "1" ? kUV : "speed_chroma_uv_ps_" + std::string(c.ps), 1)));
    }
  }
}

TEST(SpeedLimits, LayoutsAndDepths) {
  for (PixFmt pf : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
    for (int bpc : {8, 9, 10, 11, 12, 14, 16}) {
      // Chroma at least 160x160 (10x10 at 1/16 scale): 36 samples per shifted
      // sub-image, enough for a regular 25x25 covariance.
      const VideoFormat fmt{331, 323, pf, bpc};
      const bool depth_ok = bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
      auto ch = make(speed_chroma_feature_spec(), {}, fmt);
      auto te = make(speed_temporal_feature_spec(), {}, fmt);
      SCOPED_TRACE(std::string(pix_fmt_name(pf)) + " bpc " + std::to_string(bpc));
      EXPECT_EQ(te.ok(), depth_ok) << te.status().message();
      EXPECT_EQ(ch.ok(), depth_ok && pf != PixFmt::k400) << ch.status().message();
      if (!depth_ok) {
        EXPECT_NE(te.status().message().find("bit depth"), std::string::npos);
      }
      if (pf == PixFmt::k400) {
        EXPECT_NE(ch.status().message().find("400"), std::string::npos);
      }
      if (!te.ok()) continue;
      const Clip clip =
          random_clip(fmt, 3, static_cast<uint64_t>(bpc) * 7 + static_cast<uint64_t>(pf));
      auto t = run(speed_temporal_feature_spec(), {}, clip);
      ASSERT_TRUE(t.ok());
      EXPECT_GT(at(*t, kT, 2), 0.0);
      EXPECT_TRUE(std::isfinite(at(*t, kT, 2)));
      if (!ch.ok()) continue;
      auto c = run(speed_chroma_feature_spec(), {}, clip);
      ASSERT_TRUE(c.ok());
      EXPECT_GT(at(*c, kUV, 1), 0.0);
      EXPECT_TRUE(std::isfinite(at(*c, kUV, 1)));
    }
}

TEST(SpeedLimits, PrescaleWithinAThousandthOfOne) {
  // 1023 -> 1024 (1.0009): no resampling. With the widest anti-alias filter
  // (360/97: 35 taps) the last kept column reads column 1023, which libvmaf
  // never wrote: refused. With 9 taps no kept output reaches it.
  const VideoFormat fmt{1023, 96, PixFmt::k444, 8};
  auto wide = make(speed_chroma_feature_spec(),
                   dict_of({{"speed_prescale", "1.0009"}, {"speed_kernelscale", "3.71134"}}), fmt);
  EXPECT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("never wrote"), std::string::npos);
  auto narrow = make(speed_chroma_feature_spec(), dict_of({{"speed_prescale", "1.0009"}}), fmt);
  EXPECT_TRUE(narrow.ok()) << narrow.status().message();
  // Values equal those of the unscaled input there, as libvmaf's do.
  const Clip clip = random_clip(fmt, 1, 3);
  auto a = run(speed_chroma_feature_spec(), dict_of({{"speed_prescale", "1.0009"}}), clip);
  auto b = run(speed_chroma_feature_spec(), {}, clip);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(at(*a, "speed_chroma_uv_ps_1.0009", 0), at(*b, kUV, 0));
  EXPECT_GT(at(*b, kUV, 0), 0.0);
}

TEST(SpeedOptions, TablesNamesAndErrors) {
  const FeatureSpec& ch = speed_chroma_feature_spec();
  const FeatureSpec& te = speed_temporal_feature_spec();
  EXPECT_EQ(ch.name, "speed_chroma");
  EXPECT_EQ(te.name, "speed_temporal");
  ASSERT_EQ(ch.provided.size(), 3u);
  EXPECT_EQ(ch.provided[2], kUV);
  ASSERT_EQ(te.provided.size(), 1u);
  EXPECT_EQ(te.provided[0], kT);
  const char* shared[][2] = {{"speed_kernelscale", "ks"},      {"speed_prescale", "ps"},
                             {"speed_prescale_method", "psm"}, {"speed_sigma_nn", "snn"},
                             {"speed_nn_floor", "nnf"},        {"speed_max_val", "mxv"}};
  ASSERT_EQ(ch.options.size(), 7u);
  ASSERT_EQ(te.options.size(), 7u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(ch.options[i].name, shared[i][0]);
    EXPECT_EQ(ch.options[i].alias, shared[i][1]);
    EXPECT_EQ(te.options[i].alias, shared[i][1]);
    EXPECT_TRUE(ch.options[i].feature_param && te.options[i].feature_param);
  }
  EXPECT_EQ(ch.options[6].name, "speed_weight_var_mode");
  EXPECT_EQ(ch.options[6].alias, "wvm");
  EXPECT_EQ(te.options[6].name, "speed_use_ref_diff");
  EXPECT_EQ(te.options[6].alias, "urd");

  const VideoFormat fmt{576, 324, PixFmt::k420, 8};
  // The v1.0.16 4K name (model feature name, libvmaf-map.md section 3.4).
  OptionDict d = v1016();
  d.set("speed_prescale", "0.5");
  d.set("speed_prescale_method", "bilinear");
  auto opts = Options::parse(ch.name, ch.options, d);
  ASSERT_TRUE(opts.ok());
  EXPECT_EQ(opts->feature_name(kUV),
            "speed_chroma_uv_mxv_45_nnf_0.1_ps_0.5_psm_bilinear_snn_0.19_wvm_5");
  EXPECT_EQ(Options::parse(ch.name, ch.options, {})->feature_name(kUV), kUV);

  struct Bad {
    const char* key;
    const char* value;
    const char* message;
  };
  const Bad bad[] = {
      {"speed_kernelscale", "0.3", "speed_kernelscale 0.3 is not one of"},
      {"speed_kernelscale", "2.5", "is not one of"},
      {"speed_prescale_method", "area", "speed_prescale_method 'area' is not one of"},
      {"speed_weight_var_mode", "7", ""},
      {"speed_kernelscale", "4.5", ""},
      {"speed_prescale", "0.05", ""},
      {"speed_sigma_nn", "0.05", ""},
      {"speed_nn_floor", "1.5", ""},
      {"speed_max_val", "1001", ""},
  };
  for (const Bad& b : bad) {
    auto r = make(ch, dict_of({{b.key, b.value}}), fmt);
    ASSERT_FALSE(r.ok()) << b.key << "=" << b.value;
    EXPECT_NE(r.status().message().find(b.message), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(make(te, dict_of({{"speed_weight_var_mode", "1"}}), fmt).ok());  // chroma only
  EXPECT_FALSE(make(ch, dict_of({{"speed_use_ref_diff", "true"}}), fmt).ok());  // temporal only
  auto ps2 = make(te, dict_of({{"speed_prescale", "2"}}), fmt);
  ASSERT_FALSE(ps2.ok());
  EXPECT_NE(ps2.status().message().find("overruns"), std::string::npos);
  EXPECT_TRUE(make(te, dict_of({{"speed_prescale", "0.5"}}), fmt).ok());
  EXPECT_TRUE(make(ch, dict_of({{"speed_prescale", "4"}}), fmt).ok());
}

TEST(SpeedTerms, DeclarationsAndBitwiseComparison) {
  const VideoFormat fmt{357, 353, PixFmt::k444, 10};
  auto ch = make(speed_chroma_feature_spec(), {}, fmt);
  auto te = make(speed_temporal_feature_spec(), {}, fmt);
  ASSERT_TRUE(ch.ok() && te.ok());
  const FeatureNeeds cn = (*ch)->needs();
  EXPECT_EQ(cn.ref, Planes::kAll);
  EXPECT_EQ(cn.dis, Planes::kAll);
  EXPECT_FALSE(cn.every_frame());
  const FeatureNeeds tn = (*te)->needs();
  EXPECT_TRUE(tn.temporal);
  EXPECT_EQ(tn.prev_ref, 1);
  EXPECT_EQ(tn.prev_dis, 1);
  EXPECT_EQ(tn.ref, Planes::kLuma);
  EXPECT_EQ(tn.dis, Planes::kLuma);

  const Clip c = noise_clip("noise_357x353_444_10b_6f_s22");
  auto a = (*ch)->make_terms();
  ASSERT_TRUE((*ch)->compute(input(c, 1), *a).ok());
  const auto& t = down_cast<const SpeedChromaTerms&>(*a);
  const SpeedGeometry g = speed_geometry(357, 353, SpeedParams{});
  EXPECT_EQ(g.op_w, 22);
  EXPECT_EQ(g.trunc_w, 20);
  EXPECT_EQ(g.trunc_h, 20);
  for (const SpeedImageTerms& im : t.image) {
    const SpeedBand& b = im.band;
    ASSERT_EQ(b.size(), g.band_size());
    double energy = 0;
    for (float v : b) energy += std::fabs(v);
    EXPECT_GT(energy, 0.0);
  }
  auto copy = a->clone();
  EXPECT_TRUE(copy->same_as(*a));
  auto& mod = down_cast<SpeedChromaTerms&>(*copy);
  mod.image[3].band[7] = -mod.image[3].band[7];
  EXPECT_FALSE(copy->same_as(*a));
  mod.image[3].band[7] = -mod.image[3].band[7];
  mod.image[2].sums[100] = std::nextafter(mod.image[2].sums[100], 0.0);
  EXPECT_FALSE(copy->same_as(*a));
  mod.image[2].sums[100] = t.image[2].sums[100];
  mod.image[0].factors.r[30] = std::nextafter(mod.image[0].factors.r[30], 0.0f);
  EXPECT_FALSE(copy->same_as(*a));
  mod.image[0].factors.r[30] = t.image[0].factors.r[30];
  ASSERT_EQ(mod.image[1].variance.size(), size_t(g.blocks()));
  mod.image[1].variance[5] = -mod.image[1].variance[5];
  EXPECT_FALSE(copy->same_as(*a));
  mod.image[1].variance[5] = t.image[1].variance[5];
  EXPECT_TRUE(copy->same_as(*a));
  mod.image[1].band.pop_back();
  EXPECT_FALSE(copy->same_as(*a));
  auto tt = (*te)->make_terms();
  EXPECT_FALSE(tt->same_as(*a));
  ASSERT_TRUE((*te)->compute(input(c, 0), *tt).ok());
  EXPECT_TRUE(down_cast<const SpeedTemporalTerms&>(*tt).image[0].band.empty());
  EXPECT_TRUE(down_cast<const SpeedTemporalTerms&>(*tt).image[0].variance.empty());
}

TEST(SpeedTerms, ConcurrentFramesMatchSequential) {
  const Clip c = random_clip({641, 359, PixFmt::k420, 10}, 6, 4242);
  auto ex = make(speed_chroma_feature_spec(), v1016(), c.ref[0]->format());
  ASSERT_TRUE(ex.ok());
  std::vector<std::unique_ptr<FrameTerms>> seq, par;
  for (size_t i = 0; i < c.ref.size(); ++i) {
    seq.push_back((*ex)->make_terms());
    par.push_back((*ex)->make_terms());
    ASSERT_TRUE((*ex)->compute(input(c, i), *seq.back()).ok());
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < c.ref.size(); ++i)
    threads.emplace_back([&, i] { (void)(*ex)->compute(input(c, i), *par[i]); });
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < c.ref.size(); ++i) EXPECT_TRUE(par[i]->same_as(*seq[i])) << i;
}

}  // namespace
}  // namespace twinmaf
