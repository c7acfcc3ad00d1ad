// vif: libvmaf anchors on the golden noise clips (generated here, see
// shared/golden/noiseclip.py), the log2 table and helpers against their
// definitions, properties of the scores, sizes, layouts, strides, threads and
// option errors.
#include "features/vif/vif.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

using test::splitmix64;

using PicPair = std::pair<std::shared_ptr<Picture>, std::shared_ptr<Picture>>;

void put(Picture& pic, int p, int x, int y, uint32_t v) {
  uint8_t* row = pic.mutable_data(p) + y * pic.stride(p);
  if (pic.format().bpc > 8)
    reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
  else
    row[x] = static_cast<uint8_t>(v);
}

// Frames of a golden noise clip (noiseclip.py): one splitmix64 stream, frame by
// frame, planes Y, Cb, Cr (stored sizes), two draws per sample.
std::vector<PicPair> noise_clip(const VideoFormat& fmt, int frames, uint64_t seed) {
  const uint32_t top = (1u << fmt.bpc) - 1;
  const uint32_t a = std::max(1u, top >> 3);
  uint64_t s = seed;
  std::vector<PicPair> out;
  for (int f = 0; f < frames; ++f) {
    auto r = std::make_shared<Picture>(fmt, host_allocator());
    auto d = std::make_shared<Picture>(fmt, host_allocator());
    for (int p = 0; p < fmt.planes(); ++p)
      for (int y = 0; y < fmt.stored_h(p); ++y)
        for (int x = 0; x < fmt.stored_w(p); ++x) {
          const uint32_t rv = static_cast<uint32_t>(splitmix64(s) >> (64 - fmt.bpc));
          const int64_t delta =
              static_cast<int64_t>((splitmix64(s) >> 32) % (2 * a + 1)) - static_cast<int64_t>(a);
          const int64_t dv = std::clamp<int64_t>(rv + delta, 0, top);
          put(*r, p, x, y, rv);
          put(*d, p, x, y, static_cast<uint32_t>(dv));
        }
    out.emplace_back(r, d);
  }
  return out;
}

OptionDict dict_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

Result<Collector> run_vif(const OptionDict& dict, const std::vector<PicPair>& frames) {
  const FeatureSpec& spec = vif_feature_spec();
  TWINMAF_ASSIGN_OR_RETURN(Options opts, Options::parse(spec.name, spec.options, dict));
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(opts));
  TWINMAF_RETURN_IF_ERROR(ex->init(frames.at(0).first->format()));
  Collector out;
  for (size_t i = 0; i < frames.size(); ++i) {
    FrameInput in;
    in.index = static_cast<unsigned>(i);
    in.ref = frames[i].first.get();
    in.dis = frames[i].second.get();
    auto terms = ex->make_terms();
    TWINMAF_RETURN_IF_ERROR(ex->compute(in, *terms));
    TWINMAF_RETURN_IF_ERROR(ex->finish(in.index, *terms, out));
  }
  TWINMAF_RETURN_IF_ERROR(ex->flush(out));
  return out;
}

double at(const Collector& c, std::string_view name, unsigned i) {
  auto v = c.get(name, i);
  EXPECT_TRUE(v.has_value()) << name << " frame " << i;
  return v.value_or(std::nan(""));
}

const char* const kScoreNames[4] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};

TEST(VifLog2, TableIsLibvmafsRoundedLog2f) {
  const VifLog2Table& t = vif_log2_table();
  EXPECT_EQ(t[32768], 15 * 2048);
  EXPECT_EQ(t[65535], 32768);  // round(15.99998 * 2048)
  for (unsigned i = 32767; i < 65536; ++i) {
    ASSERT_EQ(t[i], static_cast<uint16_t>(std::round(std::log2f(static_cast<float>(i)) * 2048)));
    ASSERT_NEAR(t[i], 2048 * std::log2(static_cast<double>(i)), 0.5 + 1e-3) << i;
    if (i > 32767) {
      ASSERT_GE(t[i], t[i - 1]) << i;
    }
  }
}

TEST(VifLog2, HelpersTakeTheTop16Bits) {
  const uint16_t* t = vif_log2_table().data();
  EXPECT_EQ(vif_log2_32(t, 1u << 18), 18 * 2048);
  EXPECT_EQ(vif_log2_64(t, uint64_t{1} << 17), 17 * 2048);
  EXPECT_EQ(vif_log2_64(t, uint64_t{1} << 45), 45 * 2048);
  uint64_t s = 7;
  for (int n = 0; n < 20000; ++n) {
    // x in [2^17, 2^46): the range vif reaches (g*g*sigma1_sq < 2^45).
    const uint64_t x = (splitmix64(s) >> (18 + splitmix64(s) % 29)) | (uint64_t{1} << 17);
    // Keeping 16 significant bits costs < 2048*log2(1 + 2^-15) < 0.1, plus the
    // table's rounding (0.5).
    ASSERT_NEAR(vif_log2_64(t, x), 2048 * std::log2(static_cast<double>(x)), 0.6) << x;
    const uint32_t x32 = static_cast<uint32_t>(splitmix64(s) >> 32) | (1u << 18);
    ASSERT_EQ(vif_log2_32(t, x32), vif_log2_64(t, x32)) << x32;
  }
}

TEST(VifPixel, DoubleToInt32IsX86Truncation) {
  EXPECT_EQ(vif_double_to_int32(2.9), 2);
  EXPECT_EQ(vif_double_to_int32(-2.9), -2);
  EXPECT_EQ(vif_double_to_int32(2147483647.9), 2147483647);
  EXPECT_EQ(vif_double_to_int32(-2147483648.9), INT32_MIN);
  EXPECT_EQ(vif_double_to_int32(2147483648.0), INT32_MIN);
  EXPECT_EQ(vif_double_to_int32(-1e300), INT32_MIN);
  EXPECT_EQ(vif_double_to_int32(std::nan("")), INT32_MIN);
}

TEST(VifPixel, BranchesFollowTheDefinition) {
  const uint16_t* t = vif_log2_table().data();
  VifScaleSums a;
  vif_accumulate_pixel(kVifSigmaNsq - 1, -5, 3, 100.0, t, a);  // non-log, sigma2 clamped
  EXPECT_EQ(a, (VifScaleSums{0, 0, 0, 1}));
  vif_accumulate_pixel(100, 777, 3, 100.0, t, a);
  EXPECT_EQ(a, (VifScaleSums{0, 0, 777, 2}));
  VifScaleSums b;
  vif_accumulate_pixel(kVifSigmaNsq, 500000, -1, 100.0, t, b);  // log branch, no numerator
  EXPECT_EQ(b.den_log, vif_log2_32(t, 2 * kVifSigmaNsq) - 17 * 2048);
  EXPECT_EQ(b.den_log, 2048);
  EXPECT_EQ(b.num_log, 0);
  // Gain clamp: dis = 4*ref-ish statistics; egl 1 bounds the numerator by the
  // denominator's argument.
  VifScaleSums g100, g1;
  vif_accumulate_pixel(1 << 20, 16 << 20, 4 << 20, 100.0, t, g100);
  vif_accumulate_pixel(1 << 20, 16 << 20, 4 << 20, 1.0, t, g1);
  EXPECT_GT(g100.num_log, g1.num_log);
  EXPECT_GT(g1.num_log, 0);
  EXPECT_EQ(g100.den_log, g1.den_log);
}

struct Anchor {
  VideoFormat fmt;
  int frames;
  uint64_t seed;
  std::array<std::array<double, 4>, 2> want;  // frames 0 and 1
};

// integer_vif_scale0..3 of shared/golden runs noise_*/vif.hp17g.json.
TEST(VifGolden, NoiseClipsEqualLibvmafBits) {
  const Anchor anchors[] = {
      {{64, 48, PixFmt::k420, 8}, 2, 1,
       {{{0.3716678023338318, 0.6955274343490601, 0.7840116620063782, 0.845355749130249},
         {0.3693096339702606, 0.6438582539558411, 0.717671811580658, 0.7845056653022766}}}},
      {{64, 48, PixFmt::k422, 10}, 2, 6,
       {{{0.3662518560886383, 0.6670467853546143, 0.7810697555541992, 0.8179160356521606},
         {0.3649336099624634, 0.6752539277076721, 0.7762689590454102, 0.8774246573448181}}}},
      {{64, 48, PixFmt::k444, 12}, 2, 11,
       {{{0.3671402037143707, 0.6525362730026245, 0.7240564823150635, 0.8194719552993774},
         {0.35955291986465454, 0.6421079039573669, 0.7421650886535645, 0.8475736379623413}}}},
      {{64, 48, PixFmt::k420, 16}, 2, 4,
       {{{0.3666379749774933, 0.7224752902984619, 0.8228603005409241, 0.8479347229003906},
         {0.3644320070743561, 0.6875437498092651, 0.8054186701774597, 0.8584679961204529}}}},
      {{357, 353, PixFmt::k444, 16}, 2, 24,
       {{{0.36334335803985596, 0.6691933870315552, 0.772429883480072, 0.8416661620140076},
         {0.36353403329849243, 0.6686639785766602, 0.7682941555976868, 0.8390976786613464}}}},
      {{357, 353, PixFmt::k422, 8}, 2, 17,
       {{{0.3675171732902527, 0.6734031438827515, 0.7773042917251587, 0.8416725397109985},
         {0.3666824996471405, 0.6721357703208923, 0.772781252861023, 0.8365136384963989}}}},
  };
  for (const Anchor& a : anchors) {
    auto out = run_vif({}, noise_clip(a.fmt, a.frames, a.seed));
    ASSERT_TRUE(out.ok()) << out.status().message();
    for (unsigned f = 0; f < 2; ++f)
      for (int s = 0; s < 4; ++s)
        EXPECT_EQ(at(*out, kScoreNames[s], f), a.want[f][s])
            << a.fmt.w << "x" << a.fmt.h << " bpc " << a.fmt.bpc << " frame " << f << " scale " << s;
  }
}

// integer_vif_scaleK_egl_1 of noise_*/vmaf_v0.6.1neg.hp17g.json, frame 0.
TEST(VifGolden, GainLimitOneEqualsLibvmafBits) {
  struct {
    VideoFormat fmt;
    uint64_t seed;
    std::array<double, 4> want;
  } const cases[] = {
      {{64, 48, PixFmt::k420, 8}, 1,
       {0.3704037368297577, 0.6880000233650208, 0.7749823331832886, 0.8252991437911987}},
      {{64, 48, PixFmt::k420, 16}, 4,
       {0.3658602833747864, 0.7101261615753174, 0.8080921769142151, 0.8254112601280212}},
  };
  for (const auto& c : cases) {
    auto out = run_vif(dict_of({{"vif_enhn_gain_limit", "1.0"}}), noise_clip(c.fmt, 1, c.seed));
    ASSERT_TRUE(out.ok()) << out.status().message();
    for (int s = 0; s < 4; ++s)
      EXPECT_EQ(at(*out, "integer_vif_scale" + std::to_string(s) + "_egl_1", 0), c.want[s])
          << "bpc " << c.fmt.bpc << " scale " << s;
  }
}

TEST(VifTerms, FullRangeNoiseIsNonTrivialAtEveryDepth) {
  for (int bpc : {8, 9, 10, 12, 14, 16}) {
    const VideoFormat fmt{67, 45, PixFmt::k420, bpc};
    auto frames = noise_clip(fmt, 1, 100 + static_cast<uint64_t>(bpc));
    VifTerms t;
    vif_terms_ref(frames[0].first->plane(0), frames[0].second->plane(0), bpc, {}, t);
    for (int s = 0; s < 4; ++s) {
      EXPECT_GT(t.scale[s].den_log, 0) << bpc << " " << s;
      EXPECT_GT(t.scale[s].num_log, 0) << bpc << " " << s;
      const VifNumDen nd = vif_num_den(t.scale[s]);
      EXPECT_GT(nd.num / nd.den, 0.2f);
      EXPECT_LT(nd.num / nd.den, 1.0f);
    }
  }
}

TEST(VifScores, IdenticalInputsScoreAboutOne) {
  for (int bpc : {8, 10, 12, 16}) {
    const VideoFormat fmt{48, 40, PixFmt::k444, bpc};
    auto frames = noise_clip(fmt, 1, 9);
    frames[0].second = frames[0].first;
    auto out = run_vif({}, frames);
    ASSERT_TRUE(out.ok()) << out.status().message();
    for (int s = 0; s < 4; ++s) {
      const double v = at(*out, kScoreNames[s], 0);
      EXPECT_LE(v, 1.0) << bpc << " " << s;
      EXPECT_GT(v, 0.99) << bpc << " " << s;
    }
  }
}

TEST(VifScores, FlatPicturesTakeTheNonLogBranch) {
  // sigma = 0 everywhere: num = den = pixel count, every score exactly 1.
  const VideoFormat fmt{40, 24, PixFmt::k420, 10};
  auto r = std::make_shared<Picture>(fmt, host_allocator());
  auto d = std::make_shared<Picture>(fmt, host_allocator());
  for (int y = 0; y < fmt.h; ++y)
    for (int x = 0; x < fmt.w; ++x) {
      put(*r, 0, x, y, 300);
      put(*d, 0, x, y, 700);
    }
  VifTerms t;
  vif_terms_ref(r->plane(0), d->plane(0), 10, {}, t);
  int w = 40, h = 24;
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(t.scale[s], (VifScaleSums{0, 0, 0, int64_t{w} * h})) << s;
    EXPECT_EQ(vif_num_den(t.scale[s]).num, vif_num_den(t.scale[s]).den);
    w /= 2;
    h /= 2;
  }
}

TEST(VifScores, LumaOnlyAndLayoutFree) {
  const PixFmt layouts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
  for (int bpc : {8, 10, 12, 16}) {
    std::vector<double> first;
    for (PixFmt lay : layouts) {
      // Same luma for every layout; chroma differs (its own noise).
      const VideoFormat fmt{37, 29, lay, bpc};
      auto frames = noise_clip({37, 29, PixFmt::k400, bpc}, 1, 55);
      auto r = std::make_shared<Picture>(fmt, host_allocator());
      auto d = std::make_shared<Picture>(fmt, host_allocator());
      uint64_t s = static_cast<uint64_t>(lay) + 1;
      for (int p = 0; p < fmt.planes(); ++p)
        for (int y = 0; y < fmt.stored_h(p); ++y)
          for (int x = 0; x < fmt.stored_w(p); ++x) {
            uint32_t a = static_cast<uint32_t>(splitmix64(s) >> (64 - bpc));
            uint32_t b = static_cast<uint32_t>(splitmix64(s) >> (64 - bpc));
            if (p == 0) {
              a = bpc > 8 ? frames[0].first->plane(0).row<uint16_t>(y)[x]
                          : frames[0].first->plane(0).row<uint8_t>(y)[x];
              b = bpc > 8 ? frames[0].second->plane(0).row<uint16_t>(y)[x]
                          : frames[0].second->plane(0).row<uint8_t>(y)[x];
            }
            put(*r, p, x, y, a);
            put(*d, p, x, y, b);
          }
      auto out = run_vif(dict_of({{"debug", "true"}}), {{r, d}});
      ASSERT_TRUE(out.ok()) << out.status().message();
      std::vector<double> got;
      for (const auto& c : out->columns()) got.push_back(c.values[0]);
      EXPECT_EQ(got.size(), 15u);
      if (first.empty())
        first = got;
      else
        EXPECT_EQ(got, first) << "bpc " << bpc << " layout " << pix_fmt_name(lay);
    }
  }
}

TEST(VifTerms, ByteStridesAreHonoured) {
  for (int bpc : {8, 16}) {
    const VideoFormat fmt{33, 21, PixFmt::k400, bpc};
    auto frames = noise_clip(fmt, 1, 77);
    const int bps = bpc > 8 ? 2 : 1;
    // Copies with a wide, odd-looking (but aligned) stride and junk padding.
    const std::ptrdiff_t stride = (fmt.w + 13) * bps;
    std::vector<uint8_t> rb(static_cast<size_t>(stride * fmt.h), 0xA5), db(rb.size(), 0x5A);
    for (int y = 0; y < fmt.h; ++y) {
      std::memcpy(rb.data() + y * stride, frames[0].first->plane(0).row<uint8_t>(y),
                  static_cast<size_t>(fmt.w * bps));
      std::memcpy(db.data() + y * stride, frames[0].second->plane(0).row<uint8_t>(y),
                  static_cast<size_t>(fmt.w * bps));
    }
    const PlaneView rv{rb.data(), stride, fmt.w, fmt.h}, dv{db.data(), stride, fmt.w, fmt.h};
    VifTerms a, b;
    vif_terms_ref(frames[0].first->plane(0), frames[0].second->plane(0), bpc, {}, a);
    vif_terms_ref(rv, dv, bpc, {}, b);
    for (int s = 0; s < 4; ++s) EXPECT_EQ(a.scale[s], b.scale[s]) << bpc << " " << s;
  }
}

TEST(VifTerms, ConcurrentFramesMatchSequential) {
  const VideoFormat big{300, 200, PixFmt::k420, 10}, small{64, 64, PixFmt::k420, 10};
  auto fb = noise_clip(big, 2, 3);
  auto fs = noise_clip(small, 2, 4);
  VifTerms want_b, want_s;
  vif_terms_ref(fb[1].first->plane(0), fb[1].second->plane(0), 10, {}, want_b);
  vif_terms_ref(fs[1].first->plane(0), fs[1].second->plane(0), 10, {}, want_s);
  VifTerms got_b[4], got_s[4];
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      vif_terms_ref(fs[1].first->plane(0), fs[1].second->plane(0), 10, {}, got_s[k]);
      vif_terms_ref(fb[1].first->plane(0), fb[1].second->plane(0), 10, {}, got_b[k]);
    });
  for (auto& t : threads) t.join();
  for (int k = 0; k < 4; ++k)
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(got_b[k].scale[s], want_b.scale[s]);
      EXPECT_EQ(got_s[k].scale[s], want_s.scale[s]);
    }
}

TEST(VifOptions, SkipScale0AndDebugOutputs) {
  const VideoFormat fmt{64, 48, PixFmt::k420, 12};
  auto frames = noise_clip(fmt, 1, 21);
  auto full = run_vif(dict_of({{"debug", "true"}}), frames);
  auto skip = run_vif(dict_of({{"debug", "true"}, {"vif_skip_scale0", "true"}}), frames);
  ASSERT_TRUE(full.ok() && skip.ok());
  // Names and order of libvmaf's outputs.
  const std::vector<std::string> want_full = {
      "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
      "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
      "integer_vif", "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0",
      "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",
      "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3",
      "integer_vif_den_scale3"};
  std::vector<std::string> got;
  for (const auto& c : full->columns()) got.push_back(c.name);
  EXPECT_EQ(got, want_full);
  got.clear();
  for (const auto& c : skip->columns()) got.push_back(c.name);
  ASSERT_EQ(got.size(), 15u);
  EXPECT_EQ(got[0], "integer_vif_scale0_ssclz");
  EXPECT_EQ(got[4], "integer_vif_ssclz");
  EXPECT_EQ(got[14], "integer_vif_den_scale3_ssclz");

  const Collector& f = *full;
  const Collector& k = *skip;
  EXPECT_EQ(at(k, "integer_vif_scale0_ssclz", 0), 0.0);
  EXPECT_EQ(at(k, "integer_vif_num_scale0_ssclz", 0), 0.0);
  EXPECT_EQ(at(k, "integer_vif_den_scale0_ssclz", 0), -1.0);
  for (int s = 1; s < 4; ++s) {
    const std::string sn = std::to_string(s);
    EXPECT_EQ(at(k, "integer_vif_scale" + sn + "_ssclz", 0), at(f, kScoreNames[s], 0));
    EXPECT_EQ(at(k, "integer_vif_num_scale" + sn + "_ssclz", 0), at(f, "integer_vif_num_scale" + sn, 0));
  }
  // Debug totals: float num/den per scale summed as doubles in scale order.
  double num = 0, den = 0;
  for (int s = 0; s < 4; ++s) {
    const std::string sn = std::to_string(s);
    const double n = at(f, "integer_vif_num_scale" + sn, 0), d = at(f, "integer_vif_den_scale" + sn, 0);
    EXPECT_EQ(static_cast<double>(static_cast<float>(n)), n);
    EXPECT_EQ(at(f, kScoreNames[s], 0), static_cast<double>(static_cast<float>(n) / static_cast<float>(d)));
    num += n;
    den += d;
  }
  EXPECT_EQ(at(f, "integer_vif_num", 0), num);
  EXPECT_EQ(at(f, "integer_vif_den", 0), den);
  EXPECT_EQ(at(f, "integer_vif", 0), num / den);
  EXPECT_EQ(at(k, "integer_vif_num_ssclz", 0),
            at(f, "integer_vif_num_scale1", 0) + at(f, "integer_vif_num_scale2", 0) +
                at(f, "integer_vif_num_scale3", 0));
}

TEST(VifOptions, GainLimitNamesAndClamp) {
  const VideoFormat fmt{64, 48, PixFmt::k420, 8};
  auto frames = noise_clip(fmt, 1, 1);
  auto out = run_vif(dict_of({{"vif_enhn_gain_limit", "1.5"}}), frames);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->columns().size(), 4u);
  EXPECT_EQ(out->columns()[0].name, "integer_vif_scale0_egl_1.5");
  EXPECT_EQ(out->columns()[3].name, "integer_vif_scale3_egl_1.5");
  auto dflt = run_vif(dict_of({{"vif_enhn_gain_limit", "100"}, {"vif_skip_scale0", "false"}}), frames);
  ASSERT_TRUE(dflt.ok());
  EXPECT_EQ(dflt->columns()[0].name, kScoreNames[0]);
  // A lower gain limit never raises a score.
  for (int s = 0; s < 4; ++s)
    EXPECT_LE(out->columns()[static_cast<size_t>(s)].values[0], dflt->columns()[static_cast<size_t>(s)].values[0]);
}

TEST(VifOptions, Errors) {
  const auto err = [](std::initializer_list<std::pair<const char*, const char*>> kv) {
    auto o = Options::parse("vif", vif_feature_spec().options, dict_of(kv));
    EXPECT_FALSE(o.ok());
    return o.ok() ? std::string() : o.status().message();
  };
  EXPECT_EQ(err({{"vif_enhn_gain_limit", "0.5"}}),
            "vif: option vif_enhn_gain_limit: 0.5 is outside [1, 100]");
  EXPECT_EQ(err({{"vif_enhn_gain_limit", "100.5"}}),
            "vif: option vif_enhn_gain_limit: 100.5 is outside [1, 100]");
  EXPECT_NE(err({{"vif_enhn_gain_limit", "abc"}}).find("not a number"), std::string::npos);
  EXPECT_NE(err({{"vif_skip_scale0", "1"}}).find("true or false"), std::string::npos);
  EXPECT_NE(err({{"debug", "yes"}}).find("true or false"), std::string::npos);
  EXPECT_NE(err({{"vif_kernelscale", "1"}}).find("unknown option"), std::string::npos);
}

TEST(VifInit, SizesBelowTheMinimumAreAClearError) {
  auto spec_opts = Options::parse("vif", vif_feature_spec().options, {});
  ASSERT_TRUE(spec_opts.ok());
  const auto init = [&](int w, int h, int bpc) {
    auto ex = vif_feature_spec().create(spec_opts.value());
    return (*ex)->init({w, h, PixFmt::k420, bpc});
  };
  const std::vector<std::pair<int, int>> too_small = {{3, 3},   {8, 8}, {17, 9},   {15, 16},
                                                      {16, 15}, {1, 1}, {4096, 15}};
  for (auto [w, h] : too_small) {
    const Status st = init(w, h, 8);
    EXPECT_FALSE(st.ok()) << w << "x" << h;
    EXPECT_EQ(st.code(), Code::kUnsupported);
    EXPECT_EQ(st.message().rfind("vif: needs a luma plane of at least 16x16 (got " +
                                     std::to_string(w) + "x" + std::to_string(h) + ")",
                                 0),
              0u)
        << st.message();
  }
  EXPECT_TRUE(init(16, 16, 8).ok());
  EXPECT_TRUE(init(16, 16, 16).ok());
  EXPECT_FALSE(init(64, 64, 17).ok());
}

TEST(VifInit, MinimumSizeRunsAtEveryDepth) {
  for (int bpc = 8; bpc <= 16; ++bpc)
    for (auto [w, h] : std::vector<std::pair<int, int>>{{16, 16}, {16, 23}, {31, 16}, {17, 17}}) {
      const VideoFormat fmt{w, h, PixFmt::k444, bpc};
      auto out = run_vif({}, noise_clip(fmt, 1, static_cast<uint64_t>(bpc * 100 + w)));
      ASSERT_TRUE(out.ok()) << out.status().message();
      for (int s = 0; s < 4; ++s) {
        const double v = at(*out, kScoreNames[s], 0);
        EXPECT_TRUE(std::isfinite(v) && v > 0) << w << "x" << h << " bpc " << bpc << " " << v;
      }
    }
}

}  // namespace
}  // namespace twinmaf
