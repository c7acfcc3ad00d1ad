// motion / motion_v2: kernel against its definition, libvmaf anchors on the
// golden noise clips, the window/flush end cases, every option, tiny sizes and
// option errors.
#include "features/motion/motion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

using SampleFn = std::function<uint32_t(int plane, int x, int y)>;

PicturePtr make_picture(const VideoFormat& fmt, const SampleFn& f) {
  auto pic = std::make_shared<Picture>(fmt, host_allocator());
  for (int p = 0; p < fmt.planes(); ++p) {
    for (int y = 0; y < fmt.stored_h(p); ++y) {
      uint8_t* row = pic->mutable_data(p) + y * pic->stride(p);
      for (int x = 0; x < fmt.stored_w(p); ++x) {
        const uint32_t v = f(p, x, y);
        if (fmt.bpc > 8)
          reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
        else
          row[x] = static_cast<uint8_t>(v);
      }
    }
  }
  return pic;
}

PicturePtr flat_picture(const VideoFormat& fmt, uint32_t luma) {
  return make_picture(fmt, [&](int p, int, int) { return p == 0 ? luma : 128u; });
}

OptionDict dict_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

// Runs a feature over `frames` the way the engine does: compute + finish per
// frame in order (history from the previous references), then flush.
Result<Collector> run_feature(const FeatureSpec& spec, const OptionDict& dict,
                              const std::vector<PicturePtr>& frames) {
  TWINMAF_ASSIGN_OR_RETURN(Options opts, Options::parse(spec.name, spec.options, dict));
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(opts));
  TWINMAF_RETURN_IF_ERROR(ex->init(frames.at(0)->format()));
  Collector out;
  for (size_t i = 0; i < frames.size(); ++i) {
    FrameInput in;
    in.index = static_cast<unsigned>(i);
    in.ref = frames[i].get();
    in.dis = frames[i].get();
    in.prev_ref[0] = i >= 1 ? frames[i - 1].get() : nullptr;
    in.prev_ref[1] = i >= 2 ? frames[i - 2].get() : nullptr;
    auto terms = ex->make_terms();
    TWINMAF_RETURN_IF_ERROR(ex->compute(in, *terms));
    TWINMAF_RETURN_IF_ERROR(ex->finish(in.index, *terms, out));
  }
  TWINMAF_RETURN_IF_ERROR(ex->flush(out));
  return out;
}

std::vector<double> column(const Collector& c, std::string_view name, size_t n) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    auto x = c.get(name, static_cast<unsigned>(i));
    EXPECT_TRUE(x.has_value()) << name << " frame " << i;
    v.push_back(x.value_or(-1.0));
  }
  return v;
}

// ---------------------------------------------------------------------------
// The kernel against its definition.

int reflect_def(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); }

// Straight from the definition: Y(i,j) = floor((sum_k f_k * D(refl(i-2+k), j)
// + 2^(bpc-1)) / 2^bpc) with D = prev - cur, V(i,j) = floor((sum_k f_k *
// Y(i, refl(j-2+k)) + 2^15) / 2^16), SAD = sum |V| (row sums fit 32 bits).
uint64_t sad_definition(const std::vector<int32_t>& prev, const std::vector<int32_t>& cur, int w,
                        int h, int bpc) {
  auto yv = [&](int i, int j) {
    int64_t acc = 0;
    for (int k = 0; k < 5; ++k) {
      const int r = reflect_def(i - 2 + k, h);
      acc += kMotionFilter[k] * int64_t{prev[r * w + j] - cur[r * w + j]};
    }
    return (acc + (int64_t{1} << (bpc - 1))) >> bpc;
  };
  uint64_t sad = 0;
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) {
      int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += kMotionFilter[k] * yv(i, reflect_def(j - 2 + k, w));
      sad += static_cast<uint64_t>(std::llabs((acc + 32768) >> 16));
    }
  }
  return sad;
}

PicturePtr luma_picture(const VideoFormat& fmt, const std::vector<int32_t>& y, uint32_t chroma) {
  return make_picture(fmt, [&](int p, int x, int yy) {
    return p == 0 ? static_cast<uint32_t>(y[yy * fmt.w + x]) : chroma;
  });
}

TEST(MotionKernel, FullRangeNoiseEqualsDefinitionAtEveryDepthLayoutAndSize) {
  const int sizes[][2] = {{3, 3}, {3, 8}, {8, 3}, {4, 7}, {17, 9}, {64, 48}, {65, 63}};
  const PixFmt fmts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
  for (int bpc : {8, 9, 10, 12, 14, 16}) {
    for (PixFmt pf : fmts) {
      for (const auto& s : sizes) {
        const uint32_t seed = static_cast<uint32_t>(bpc * 1000 + static_cast<int>(pf) * 100 + s[0]);
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int32_t> u(0, (1 << bpc) - 1);
        const int w = s[0], h = s[1];
        std::vector<int32_t> a(static_cast<size_t>(w * h)), b(a.size());
        for (auto& v : a) v = u(rng);
        for (auto& v : b) v = u(rng);
        const VideoFormat fmt{w, h, pf, bpc};
        auto pa = luma_picture(fmt, a, 1);
        auto pb = luma_picture(fmt, b, 2);
        const uint64_t expect = sad_definition(a, b, w, h, bpc);
        ASSERT_GT(expect, 0u) << "trivial input, seed " << seed;
        EXPECT_EQ(motion_sad_ref(pa->plane(0), pb->plane(0), bpc), expect)
            << "seed " << seed << " " << w << "x" << h << " bpc " << bpc << " fmt "
            << pix_fmt_name(pf);
      }
    }
  }
}

// Extremes: alternating 0 / peak against its complement maximises every
// intermediate; a constant difference c gives |v| = |c| * 2^(16-bpc) exactly
// (the taps sum to 2^16 and both roundings add less than one unit), so
// SAD = w*h*|c|*2^(16-bpc); at 32768 wide and 16 bit a row sums to
// 32768 * 65535 < 2^31, libvmaf's uint32 row sum does not wrap.
TEST(MotionKernel, ExtremesAndConstantDifference) {
  for (int bpc : {8, 10, 12, 16}) {
    const int32_t peak = (1 << bpc) - 1;
    const int w = 19, h = 11;
    std::vector<int32_t> a(w * h), b(w * h);
    for (int i = 0; i < w * h; ++i) {
      a[i] = ((i / w + i % w) & 1) ? peak : 0;
      b[i] = peak - a[i];
    }
    const VideoFormat fmt{w, h, PixFmt::k444, bpc};
    const uint64_t expect = sad_definition(a, b, w, h, bpc);
    ASSERT_GT(expect, 0u);
    EXPECT_EQ(motion_sad_ref(luma_picture(fmt, a, 0)->plane(0), luma_picture(fmt, b, 0)->plane(0), bpc),
              expect) << "bpc " << bpc;
  }
  const VideoFormat wide{32768, 3, PixFmt::k400, 16};
  auto hi = flat_picture(wide, 65535);
  auto lo = flat_picture(wide, 0);
  EXPECT_EQ(motion_sad_ref(hi->plane(0), lo->plane(0), 16), uint64_t{32768} * 3 * 65535);
  EXPECT_EQ(motion_sad_ref(lo->plane(0), hi->plane(0), 16), uint64_t{32768} * 3 * 65535);
  for (int bpc : {8, 10, 12, 16}) {
    const VideoFormat fmt{7, 5, PixFmt::k420, bpc};
    const uint32_t c = 3;
    EXPECT_EQ(motion_sad_ref(flat_picture(fmt, 10 + c)->plane(0), flat_picture(fmt, 10)->plane(0), bpc),
              uint64_t{7} * 5 * c << (16 - bpc));
  }
}

// Shifting 8-bit content left by (bpc - 8) leaves the SAD unchanged: the
// vertical pass divides by 2^bpc instead of 2^8, so
// floor((acc8 * 2^(bpc-8) + 2^(bpc-1)) / 2^bpc) = floor((acc8 + 2^7) / 2^8).
TEST(MotionKernel, DepthScaledContentGivesTheSameSad) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> u(0, 255);
  const int w = 33, h = 21;
  std::vector<int32_t> a(w * h), b(w * h);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  const uint64_t sad8 =
      motion_sad_ref(luma_picture({w, h, PixFmt::k444, 8}, a, 0)->plane(0),
                     luma_picture({w, h, PixFmt::k444, 8}, b, 0)->plane(0), 8);
  ASSERT_GT(sad8, 0u);
  for (int bpc : {9, 10, 12, 16}) {
    std::vector<int32_t> as(a), bs(b);
    for (auto& v : as) v <<= bpc - 8;
    for (auto& v : bs) v <<= bpc - 8;
    const VideoFormat fmt{w, h, PixFmt::k444, bpc};
    EXPECT_EQ(motion_sad_ref(luma_picture(fmt, as, 0)->plane(0), luma_picture(fmt, bs, 0)->plane(0), bpc),
              sad8) << "bpc " << bpc;
  }
}

// ---------------------------------------------------------------------------
// libvmaf anchors: the golden noise clips (shared/golden/noiseclip.py), values
// printed by libvmaf f85a8536 with %.17g (runs motion and motion_ffw_mma).

// splitmix64 of shared/golden/noiseclip.py.
using SplitMix64 = test::SplitMix64;

// Reference frames of a noise clip (the distorted draws are consumed too).
std::vector<PicturePtr> noise_clip(const VideoFormat& fmt, int frames, uint64_t seed) {
  SplitMix64 g{seed};
  std::vector<PicturePtr> out;
  for (int f = 0; f < frames; ++f) {
    auto pic = std::make_shared<Picture>(fmt, host_allocator());
    for (int p = 0; p < 3; ++p) {
      for (int y = 0; y < fmt.stored_h(p); ++y) {
        uint8_t* row = pic->mutable_data(p) + y * pic->stride(p);
        for (int x = 0; x < fmt.stored_w(p); ++x) {
          const auto r = static_cast<uint32_t>(g.next() >> (64 - fmt.bpc));
          (void)g.next();  // delta of the distorted clip
          if (fmt.bpc > 8)
            reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(r);
          else
            row[x] = static_cast<uint8_t>(r);
        }
      }
    }
    out.push_back(pic);
  }
  return out;
}

struct Anchor {
  const char* clip;
  VideoFormat fmt;
  int frames;
  uint64_t seed;
  bool ffw_mma;
  std::vector<std::array<double, 3>> sad_m2_m3;
};

TEST(MotionGoldenAnchors, NoiseClipsMatchLibvmaf) {
  const std::vector<Anchor> anchors = {
      {"noise_3x3_444_8b_3f_s102", {3, 3, PixFmt::k444, 8}, 3, 102, false,
       {{0, 0, 87.469618055555557},
        {87.469618055555557, 87.469618055555557, 87.469618055555557},
        {88.580295138888886, 88.580295138888886, 88.580295138888886}}},
      {"noise_3x3_444_8b_3f_s102", {3, 3, PixFmt::k444, 8}, 3, 102, true,
       {{0, 0, 3.28515625}, {0, 0, 3.28515625}, {3.28515625, 3.28515625, 3.28515625}}},
      {"noise_17x9_420_8b_5f_s101", {17, 9, PixFmt::k420, 8}, 5, 101, false,
       {{0, 0, 29.866676879084967},
        {29.866676879084967, 24.833690767973856, 24.833690767973856},
        {24.833690767973856, 23.124336192810457, 23.124336192810457},
        {23.124336192810457, 23.124336192810457, 23.124336192810457},
        {28.668836805555557, 28.668836805555557, 28.668836805555557}}},
      {"noise_17x9_420_8b_5f_s101", {17, 9, PixFmt::k420, 8}, 5, 101, true,
       {{0, 0, 30.274918300653596},
        {0, 0, 30.274918300653596},
        {30.274918300653596, 24.743693831699346, 27.509306066176471},
        {24.743693831699346, 24.012867647058822, 24.378280739379086},
        {24.012867647058822, 24.012867647058822, 24.012867647058822}}},
      {"noise_64x48_420_10b_6f_s2", {64, 48, PixFmt::k420, 10}, 6, 2, false,
       {{0, 0, 25.277992248535156},
        {25.277992248535156, 25.277992248535156, 25.277992248535156},
        {26.919853210449219, 26.543666839599609, 26.543666839599609},
        {26.543666839599609, 25.368289947509766, 25.368289947509766},
        {25.368289947509766, 25.368289947509766, 25.368289947509766},
        {25.625134785970051, 25.625134785970051, 25.625134785970051}}},
      {"noise_64x48_420_10b_6f_s2", {64, 48, PixFmt::k420, 10}, 6, 2, true,
       {{0, 0, 25.634334564208984},
        {0, 0, 25.634334564208984},
        {25.634334564208984, 23.902329762776692, 24.768332163492836},
        {23.902329762776692, 25.634334564208984, 24.768332163492836},
        {26.732157389322918, 23.902329762776692, 24.768332163492836},
        {25.23380406697591, 25.23380406697591, 24.568066914876301}}},
      {"noise_64x48_444_12b_6f_s11", {64, 48, PixFmt::k444, 12}, 6, 11, false,
       {{0, 0, 24.437939961751301},
        {24.437939961751301, 24.437939961751301, 24.437939961751301},
        {24.639197031656902, 24.639197031656902, 24.639197031656902},
        {25.123321533203125, 25.043488820393879, 25.043488820393879},
        {25.043488820393879, 25.043488820393879, 25.043488820393879},
        {25.409075419108074, 25.409075419108074, 25.409075419108074}}},
      {"noise_64x48_422_16b_6f_s8", {64, 48, PixFmt::k422, 16}, 6, 8, true,
       {{0, 0, 23.797252655029297},
        {0, 0, 23.797252655029297},
        {23.797252655029297, 24.763871510823567, 24.28056208292643},
        {24.763871510823567, 23.797252655029297, 24.28056208292643},
        {24.486971537272137, 24.763871510823567, 24.28056208292643},
        {25.030979156494141, 25.030979156494141, 24.897425333658852}}},
  };
  for (const Anchor& a : anchors) {
    const auto frames = noise_clip(a.fmt, a.frames, a.seed);
    const OptionDict d = a.ffw_mma ? dict_of({{"motion_five_frame_window", "true"},
                                              {"motion_moving_average", "true"}})
                                   : OptionDict{};
    for (const FeatureSpec* spec : {&motion_feature_spec(), &motion_v2_feature_spec()}) {
      auto r = run_feature(*spec, d, frames);
      ASSERT_TRUE(r.ok()) << r.status().message();
      const bool v2 = spec == &motion_v2_feature_spec();
      const std::string suffix = a.ffw_mma ? "_mffw_mma" : "";
      const std::string sad = v2 ? "VMAF_integer_feature_motion_v2_sad_score" + suffix
                                 : "VMAF_integer_feature_motion_sad_score" + suffix;
      const std::string m2 = v2 ? "VMAF_integer_feature_motion2_v2_score" + suffix
                                : (a.ffw_mma ? "integer_motion2" + suffix
                                             : "VMAF_integer_feature_motion2_score");
      const std::string m3 = v2 ? "VMAF_integer_feature_motion3_v2_score" + suffix
                                : (a.ffw_mma ? "integer_motion3" + suffix
                                             : "VMAF_integer_feature_motion3_score");
      for (int i = 0; i < a.frames; ++i) {
        const auto u = static_cast<unsigned>(i);
        EXPECT_EQ(r->get(sad, u), a.sad_m2_m3[i][0]) << a.clip << " " << spec->name << " " << i;
        EXPECT_EQ(r->get(m2, u), a.sad_m2_m3[i][1]) << a.clip << " " << spec->name << " " << i;
        EXPECT_EQ(r->get(m3, u), a.sad_m2_m3[i][2]) << a.clip << " " << spec->name << " " << i;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Window/flush math from its definition (motion.h), m = min_index():
//   motion2[i] = 0 (i < m); s[i] (last frame); min(s[i-m+1], s[i+1]) if
//   i-m+1 >= m; else s[i+1].  motion3[i] = stamp (i < m) with stamp =
//   clip(blend(s[m])) if n > m else 0; else clip(blend(motion2[i])),
//   averaged with the previous frame's clip(blend(.)) (stamp before frame m)
//   under moving_average.

TEST(MotionWindow, EndCasesThreeFrameWindow) {
  MotionParams p;  // blend factor 1: blend(m) = m*1 + 0*min(40, m) = m
  const double a = 3, b = 7, c = 2, d = 9;
  EXPECT_TRUE(motion_window_scores({}, p).motion2.empty());
  auto w1 = motion_window_scores(std::vector<double>{0}, p);
  EXPECT_EQ(w1.motion2, (std::vector<double>{0}));
  EXPECT_EQ(w1.motion3, (std::vector<double>{0}));  // n <= m: stamp 0
  auto w2 = motion_window_scores(std::vector<double>{0, a}, p);
  EXPECT_EQ(w2.motion2, (std::vector<double>{0, a}));
  EXPECT_EQ(w2.motion3, (std::vector<double>{a, a}));
  auto w5 = motion_window_scores(std::vector<double>{0, a, b, c, d}, p);
  EXPECT_EQ(w5.motion2, (std::vector<double>{0, a, c, c, d}));  // min(a,b), min(b,c), min(c,d), last
  EXPECT_EQ(w5.motion3, (std::vector<double>{a, a, c, c, d}));
  p.moving_average = true;
  auto m5 = motion_window_scores(std::vector<double>{0, a, b, c, d}, p);
  // p_0 = stamp = a; p_1 = a, p_2 = c, p_3 = c, p_4 = d.
  EXPECT_EQ(m5.motion3, (std::vector<double>{a, (a + a) / 2, (c + a) / 2, (c + c) / 2, (d + c) / 2}));
}

TEST(MotionWindow, EndCasesFiveFrameWindow) {
  MotionParams p;
  p.five_frame_window = true;
  const double a = 3, b = 7, c = 2, d = 9;
  for (size_t n = 1; n <= 2; ++n) {
    auto w = motion_window_scores(std::vector<double>(n, 0.0), p);
    EXPECT_EQ(w.motion2, std::vector<double>(n, 0.0));
    EXPECT_EQ(w.motion3, std::vector<double>(n, 0.0));
  }
  auto w3 = motion_window_scores(std::vector<double>{0, 0, a}, p);
  EXPECT_EQ(w3.motion2, (std::vector<double>{0, 0, a}));  // last frame: s[2]
  EXPECT_EQ(w3.motion3, (std::vector<double>{a, a, a}));
  auto w4 = motion_window_scores(std::vector<double>{0, 0, a, b}, p);
  EXPECT_EQ(w4.motion2, (std::vector<double>{0, 0, b, b}));  // i=2: lo=1 < m, so s[3]
  auto w6 = motion_window_scores(std::vector<double>{0, 0, a, b, c, d}, p);
  // i=3: min(s[2], s[4]) = min(a, c); i=4: min(s[3], s[5]) = min(b, d); i=5: s[5].
  EXPECT_EQ(w6.motion2, (std::vector<double>{0, 0, b, c, b, d}));
  EXPECT_EQ(w6.motion3, (std::vector<double>{a, a, b, c, b, d}));
  p.moving_average = true;
  auto m6 = motion_window_scores(std::vector<double>{0, 0, a, b, c, d}, p);
  EXPECT_EQ(m6.motion3,
            (std::vector<double>{a, a, (b + a) / 2, (c + b) / 2, (b + c) / 2, (d + b) / 2}));
}

// ---------------------------------------------------------------------------
// Options the goldens lack, on flat frames: a constant luma step c between
// compared frames gives SAD = w*h*|c|*2^(16-bpc), so motion_sad =
// min(|c| * 2^(8-bpc) * fps_weight, max_val) exactly.

// Levels of a 48-frame flat clip (8 bit); steps range over 0..230.
std::vector<uint32_t> levels48() {
  std::vector<uint32_t> l;
  for (uint32_t k = 0; k < 48; ++k) l.push_back((k * 37u + (k * k) % 11u) % 251u);
  return l;
}

struct Expected {
  std::vector<double> sad, motion2, motion3;
};

// The definitions (motion.h), restated per frame for flat clips.
Expected expected_for(const std::vector<uint32_t>& lv, const MotionParams& p) {
  const size_t n = lv.size();
  const size_t m = p.five_frame_window ? 2 : 1;
  auto clip = [&](double x) { return x < p.max_val ? x : p.max_val; };
  auto blend = [&](double x) {
    const double lo = p.blend_offset < x ? p.blend_offset : x;
    return x * p.blend_factor + (1 - p.blend_factor) * lo;
  };
  Expected e;
  for (size_t i = 0; i < n; ++i) {
    if (p.force_zero || i < m) {
      e.sad.push_back(0);
      continue;
    }
    const double step = std::abs(static_cast<double>(lv[i]) - static_cast<double>(lv[i - m]));
    // The clip holds level << (bpc - 8): SAD/256/(w*h) = step exactly.
    e.sad.push_back(clip(step * p.fps_weight));
  }
  const double stamp = n > m ? clip(blend(e.sad[m])) : 0;
  double prev = stamp;
  for (size_t i = 0; i < n; ++i) {
    double m2 = 0;
    if (i >= m) m2 = i == n - 1 ? e.sad[i] : (i + 1 >= 2 * m ? std::min(e.sad[i + 1 - m], e.sad[i + 1]) : e.sad[i + 1]);
    e.motion2.push_back(m2);
    if (i < m) {
      e.motion3.push_back(stamp);
    } else {
      const double q = clip(blend(m2));
      e.motion3.push_back(p.moving_average ? (q + prev) / 2.0 : q);
      prev = q;
    }
  }
  return e;
}

struct OptionCase {
  const char* label;
  std::vector<std::pair<const char*, const char*>> opts;
  MotionParams params;
  const char* suffix;  // feature-name suffix (libvmaf: sorted by option name, aliases)
};

std::vector<OptionCase> option_cases() {
  std::vector<OptionCase> c;
  MotionParams p;
  p.blend_factor = 0.25;
  c.push_back({"blend_factor", {{"motion_blend_factor", "0.25"}}, p, "_mbf_0.25"});
  p = {};
  p.blend_factor = 0.5;
  p.blend_offset = 12.5;
  c.push_back({"blend_factor_offset",
               {{"motion_blend_offset", "12.5"}, {"motion_blend_factor", "0.5"}}, p,
               "_mbf_0.5_mbo_12.5"});
  p = {};
  p.fps_weight = 2.5;
  c.push_back({"fps_weight", {{"motion_fps_weight", "2.5"}}, p, "_mfw_2.5"});
  p = {};
  p.fps_weight = 0.3;  // "0.3" -> strtof -> "%g" -> "0.3" -> strtod
  p.five_frame_window = true;
  c.push_back({"fps_weight_ffw", {{"motion_fps_weight", "0.3"}, {"motion_five_frame_window", "true"}},
               p, "_mffw_mfw_0.3"});
  p = {};
  p.max_val = 30;
  c.push_back({"max_val", {{"motion_max_val", "30"}}, p, "_mmxv_30"});
  p = {};
  p.max_val = 18;
  p.five_frame_window = true;
  p.moving_average = true;
  p.blend_factor = 0.75;
  p.blend_offset = 5;
  c.push_back({"all",
               {{"motion_max_val", "18"},
                {"motion_five_frame_window", "true"},
                {"motion_moving_average", "true"},
                {"motion_blend_factor", "0.75"},
                {"motion_blend_offset", "5"}},
               p, "_mbf_0.75_mbo_5_mffw_mmxv_18_mma"});
  p = {};
  p.force_zero = true;
  c.push_back({"force_zero", {{"motion_force_zero", "true"}}, p, "_force_0"});
  p = {};
  p.force_zero = true;
  p.five_frame_window = true;
  p.fps_weight = 4;
  c.push_back({"force_zero_ffw",
               {{"motion_force_zero", "true"}, {"motion_five_frame_window", "true"},
                {"motion_fps_weight", "4"}},
               p, "_mffw_force_0_mfw_4"});
  return c;
}

TEST(MotionOptions, ShortAndLongFlatClipsMatchTheDefinitions) {
  const std::vector<uint32_t> all = levels48();
  for (const OptionCase& oc : option_cases()) {
    for (int bpc : {8, 10}) {
      for (size_t n : {1u, 2u, 3u, 4u, 5u, 48u}) {
        const std::vector<uint32_t> lv(all.begin(), all.begin() + static_cast<long>(n));
        const VideoFormat fmt{9, 6, PixFmt::k420, bpc};
        std::vector<PicturePtr> frames;
        for (uint32_t l : lv) frames.push_back(flat_picture(fmt, l << (bpc - 8)));
        const Expected e = expected_for(lv, oc.params);
        OptionDict d;
        for (const auto& [k, v] : oc.opts) d.set(k, v);
        d.set("debug", "true");
        auto r = run_feature(motion_feature_spec(), d, frames);
        ASSERT_TRUE(r.ok()) << r.status().message();
        const std::string s = oc.suffix;
        const std::string ctx = std::string(oc.label) + " bpc " + std::to_string(bpc) + " n " +
                                std::to_string(n);
        EXPECT_EQ(column(*r, "VMAF_integer_feature_motion_sad_score" + s, n), e.sad) << ctx;
        EXPECT_EQ(column(*r, "integer_motion" + s, n), e.sad) << ctx;  // debug copy
        EXPECT_EQ(column(*r, "integer_motion2" + s, n), e.motion2) << ctx;
        EXPECT_EQ(column(*r, "integer_motion3" + s, n), e.motion3) << ctx;
        EXPECT_EQ(r->columns().size(), 4u) << ctx;
        if (!oc.params.force_zero && n == 48) {
          ASSERT_GT(e.sad[20], 0.0);  // non-trivial
        }
        // motion_v2: same numbers, its own names.
        OptionDict d2;
        for (const auto& [k, v] : oc.opts) d2.set(k, v);
        auto r2 = run_feature(motion_v2_feature_spec(), d2, frames);
        ASSERT_TRUE(r2.ok()) << r2.status().message();
        EXPECT_EQ(column(*r2, "VMAF_integer_feature_motion_v2_sad_score" + s, n), e.sad) << ctx;
        EXPECT_EQ(column(*r2, "VMAF_integer_feature_motion2_v2_score" + s, n), e.motion2) << ctx;
        EXPECT_EQ(column(*r2, "VMAF_integer_feature_motion3_v2_score" + s, n), e.motion3) << ctx;
        EXPECT_EQ(r2->columns().size(), 3u) << ctx;
      }
    }
  }
}

// Hand-derived: levels 100, 140, 135, 200, 190 -> steps s = 0, 40, 5, 65, 10.
TEST(MotionOptions, HandDerivedFiveFrames) {
  const VideoFormat fmt{5, 4, PixFmt::k444, 8};
  std::vector<PicturePtr> frames;
  for (uint32_t l : {100u, 140u, 135u, 200u, 190u}) frames.push_back(flat_picture(fmt, l));
  {
    // blend(x) = 0.25x + 0.75*min(20, x): blend(40) = 25, blend(5) = 5, blend(10) = 10.
    auto r = run_feature(motion_feature_spec(),
                         dict_of({{"motion_blend_factor", "0.25"}, {"motion_blend_offset", "20"}}),
                         frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(column(*r, "VMAF_integer_feature_motion_sad_score_mbf_0.25_mbo_20", 5),
              (std::vector<double>{0, 40, 5, 65, 10}));
    EXPECT_EQ(column(*r, "integer_motion2_mbf_0.25_mbo_20", 5), (std::vector<double>{0, 5, 5, 10, 10}));
    EXPECT_EQ(column(*r, "integer_motion3_mbf_0.25_mbo_20", 5), (std::vector<double>{25, 5, 5, 10, 10}));
  }
  {
    // fps 1.5 then clip at 60: s = 0, 60, 7.5, 60 (97.5 clipped), 15.
    auto r = run_feature(motion_feature_spec(),
                         dict_of({{"motion_fps_weight", "1.5"}, {"motion_max_val", "60"}}), frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(column(*r, "VMAF_integer_feature_motion_sad_score_mfw_1.5_mmxv_60", 5),
              (std::vector<double>{0, 60, 7.5, 60, 15}));
    EXPECT_EQ(column(*r, "integer_motion2_mfw_1.5_mmxv_60", 5),
              (std::vector<double>{0, 7.5, 7.5, 15, 15}));
    EXPECT_EQ(column(*r, "integer_motion3_mfw_1.5_mmxv_60", 5),
              (std::vector<double>{60, 7.5, 7.5, 15, 15}));
  }
  {
    // five-frame window: s[k] = |L_k - L_{k-2}| = 0, 0, 35, 60, 55;
    // motion2 = 0, 0, s3, min(s2, s4), s4 = 0, 0, 60, 35, 55; mma averages
    // with the previous p (stamp = s2 = 35 before frame 2).
    auto r = run_feature(motion_feature_spec(),
                         dict_of({{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}}),
                         frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(column(*r, "VMAF_integer_feature_motion_sad_score_mffw_mma", 5),
              (std::vector<double>{0, 0, 35, 60, 55}));
    EXPECT_EQ(column(*r, "integer_motion2_mffw_mma", 5), (std::vector<double>{0, 0, 60, 35, 55}));
    EXPECT_EQ(column(*r, "integer_motion3_mffw_mma", 5),
              (std::vector<double>{35, 35, 47.5, 47.5, 45}));
  }
  {
    // force_zero: every score 0 and the names carry _force_0.
    auto r = run_feature(motion_feature_spec(), dict_of({{"motion_force_zero", "true"}}), frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const std::vector<double> zeros(5, 0.0);
    EXPECT_EQ(column(*r, "VMAF_integer_feature_motion_sad_score_force_0", 5), zeros);
    EXPECT_EQ(column(*r, "integer_motion2_force_0", 5), zeros);
    EXPECT_EQ(column(*r, "integer_motion3_force_0", 5), zeros);
  }
}

TEST(MotionOptions, DefaultNamesStayUnaliasedAndDebugIsNotAParam) {
  const VideoFormat fmt{4, 4, PixFmt::k444, 8};
  std::vector<PicturePtr> frames = {flat_picture(fmt, 1), flat_picture(fmt, 4)};
  auto r = run_feature(motion_feature_spec(), dict_of({{"debug", "true"}}), frames);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->columns().size(), 4u);
  // Per-frame columns first (in append order), flush columns after.
  EXPECT_EQ(r->columns()[0].name, "VMAF_integer_feature_motion_sad_score");
  EXPECT_EQ(r->columns()[1].name, "VMAF_integer_feature_motion_score");
  EXPECT_EQ(r->columns()[2].name, "VMAF_integer_feature_motion2_score");
  EXPECT_EQ(r->columns()[3].name, "VMAF_integer_feature_motion3_score");
  EXPECT_EQ(r->get("VMAF_integer_feature_motion_score", 1), 3.0);
  auto plain = run_feature(motion_feature_spec(), {}, frames);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->columns().size(), 3u);
  EXPECT_FALSE(plain->has("VMAF_integer_feature_motion_score"));
}

// ---------------------------------------------------------------------------
// Engine-facing behaviour.

TEST(MotionEngine, IdenticalFramesGiveZeroEverywhere) {
  const VideoFormat fmt{23, 17, PixFmt::k420, 12};
  std::mt19937 rng(5);
  std::vector<int32_t> y(23 * 17);
  for (auto& v : y) v = static_cast<int32_t>(rng() % 4096);
  auto pic = luma_picture(fmt, y, 7);
  std::vector<PicturePtr> frames(48, pic);
  auto r = run_feature(motion_feature_spec(), {}, frames);
  ASSERT_TRUE(r.ok());
  for (const auto& c : r->columns())
    for (size_t i = 0; i < 48; ++i) EXPECT_EQ(c.values[i], 0.0) << c.name << " " << i;
}

TEST(MotionEngine, ChromaAndLayoutDoNotMatter) {
  std::mt19937 rng(11);
  const int w = 21, h = 13;
  std::vector<std::vector<int32_t>> lumas(4, std::vector<int32_t>(w * h));
  for (auto& l : lumas)
    for (auto& v : l) v = static_cast<int32_t>(rng() % 1024);
  std::vector<double> first;
  for (PixFmt pf : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444}) {
    std::vector<PicturePtr> frames;
    for (size_t i = 0; i < lumas.size(); ++i)
      frames.push_back(luma_picture({w, h, pf, 10}, lumas[i], static_cast<uint32_t>(rng() % 1024)));
    auto r = run_feature(motion_feature_spec(), {}, frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::vector<double> all;
    for (const auto& c : r->columns()) all.insert(all.end(), c.values.begin(), c.values.end());
    if (first.empty()) {
      first = all;
      ASSERT_GT(first[1], 0.0);
    }
    EXPECT_EQ(all, first) << pix_fmt_name(pf);
  }
}

TEST(MotionEngine, FiveFrameWindowReadsTheFrameTwoBack) {
  const VideoFormat fmt{6, 5, PixFmt::k444, 8};
  // Frames 0 and 2 equal, frame 1 differs: SAD(2 vs 0) = 0, SAD(2 vs 1) = 50.
  std::vector<PicturePtr> frames = {flat_picture(fmt, 10), flat_picture(fmt, 60), flat_picture(fmt, 10)};
  auto ffw = run_feature(motion_feature_spec(), dict_of({{"motion_five_frame_window", "true"}}), frames);
  ASSERT_TRUE(ffw.ok());
  EXPECT_EQ(ffw->get("VMAF_integer_feature_motion_sad_score_mffw", 2), 0.0);
  auto three = run_feature(motion_feature_spec(), {}, frames);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->get("VMAF_integer_feature_motion_sad_score", 2), 50.0);
}

TEST(MotionEngine, SpecDeclaresHistoryAndEveryFrame) {
  for (const FeatureSpec* s : {&motion_feature_spec(), &motion_v2_feature_spec()})
    for (const bool ffw : {false, true}) {
      OptionDict d;
      d.set("motion_five_frame_window", ffw ? "true" : "false");
      auto o = Options::parse(s->name, s->options, d);
      ASSERT_TRUE(o.ok());
      auto ex = s->create(*o);
      ASSERT_TRUE(ex.ok());
      ASSERT_TRUE((*ex)->init({64, 48, PixFmt::k420, 8}).ok());
      const FeatureNeeds n = (*ex)->needs();
      EXPECT_EQ(n.prev_ref, ffw ? 2 : 1) << s->name;
      EXPECT_EQ(n.prev_dis, 0) << s->name;
      EXPECT_TRUE(n.every_frame()) << s->name;
      EXPECT_TRUE(n.reference_only()) << s->name;
      EXPECT_FALSE(n.temporal) << s->name;
    }
  EXPECT_EQ(motion_feature_spec().provided.size(), 4u);
  EXPECT_EQ(motion_v2_feature_spec().provided.size(), 3u);
}

TEST(MotionEngine, MissingPreviousReferenceIsAnInternalError) {
  auto o = Options::parse("motion", motion_feature_spec().options, {});
  ASSERT_TRUE(o.ok());
  auto ex = motion_feature_spec().create(*o);
  ASSERT_TRUE(ex.ok());
  const VideoFormat fmt{4, 4, PixFmt::k420, 8};
  ASSERT_TRUE((*ex)->init(fmt).ok());
  auto pic = flat_picture(fmt, 3);
  FrameInput in;
  in.index = 1;
  in.ref = pic.get();
  in.dis = pic.get();
  auto t = (*ex)->make_terms();
  const Status st = (*ex)->compute(in, *t);
  EXPECT_EQ(st.code(), Code::kInternal);
  EXPECT_NE(st.message().find("motion"), std::string::npos);
}

// libvmaf's reflection reads outside the picture below 3 samples (its output
// at 1x1 changes from run to run), so those sizes are refused; force_zero
// reads no samples and works at any size.
TEST(MotionSizes, BelowThreeIsAClearErrorUnlessForcedToZero) {
  const int sizes[][2] = {{1, 1}, {2, 2}, {1, 5}, {5, 1}, {2, 7}, {7, 2}};
  for (const auto& s : sizes) {
    const VideoFormat fmt{s[0], s[1], PixFmt::k444, 8};
    std::vector<PicturePtr> frames = {flat_picture(fmt, 1), flat_picture(fmt, 9), flat_picture(fmt, 4)};
    for (const FeatureSpec* spec : {&motion_feature_spec(), &motion_v2_feature_spec()}) {
      auto r = run_feature(*spec, {}, frames);
      ASSERT_FALSE(r.ok()) << s[0] << "x" << s[1];
      EXPECT_EQ(r.status().code(), Code::kUnsupported);
      EXPECT_NE(r.status().message().find(std::string(spec->name) + ":"), std::string::npos);
      EXPECT_NE(r.status().message().find("3x3"), std::string::npos) << r.status().message();
      auto z = run_feature(*spec, dict_of({{"motion_force_zero", "true"}}), frames);
      ASSERT_TRUE(z.ok()) << z.status().message();
      for (const auto& c : z->columns())
        for (double v : c.values) EXPECT_EQ(v, 0.0);
      EXPECT_EQ(z->columns().size(), 3u);
    }
  }
  for (const auto& s : {std::array<int, 2>{3, 3}, {3, 40}, {40, 3}}) {
    const VideoFormat fmt{s[0], s[1], PixFmt::k420, 16};
    std::vector<PicturePtr> frames = {flat_picture(fmt, 100), flat_picture(fmt, 356)};
    auto r = run_feature(motion_feature_spec(), {}, frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->get("VMAF_integer_feature_motion_sad_score", 1), 1.0);  // 256 / 2^8
  }
}

TEST(MotionOptions, InvalidValuesAreRejected) {
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"motion_blend_factor", "1.5"}, {"motion_blend_factor", "-0.1"},
      {"motion_blend_offset", "1001"}, {"motion_fps_weight", "5.5"},
      {"motion_fps_weight", "-1"},     {"motion_max_val", "10001"},
      {"motion_max_val", "-2"},        {"motion_force_zero", "1"},
      {"motion_five_frame_window", "yes"}, {"motion_moving_average", "TRUE"},
      {"motion_max_val", "abc"},       {"motion_no_such_option", "1"},
  };
  for (const FeatureSpec* spec : {&motion_feature_spec(), &motion_v2_feature_spec()}) {
    for (const auto& [k, v] : bad) {
      auto o = Options::parse(spec->name, spec->options, dict_of({{k, v}}));
      EXPECT_FALSE(o.ok()) << spec->name << " " << k << "=" << v;
      if (!o.ok()) {
        EXPECT_EQ(o.status().code(), Code::kInvalidArgument);
        EXPECT_NE(o.status().message().find(k), std::string::npos) << o.status().message();
      }
    }
    // Range ends are accepted.
    auto edge = Options::parse(spec->name, spec->options,
                               dict_of({{"motion_blend_factor", "0"}, {"motion_blend_offset", "1000"},
                                        {"motion_fps_weight", "5"}, {"motion_max_val", "0"}}));
    EXPECT_TRUE(edge.ok()) << edge.status().message();
  }
  // motion_v2 (e4b93c6e) had no debug option.
  EXPECT_FALSE(Options::parse("motion_v2", motion_v2_feature_spec().options,
                              dict_of({{"debug", "true"}})).ok());
  EXPECT_TRUE(Options::parse("motion", motion_feature_spec().options,
                             dict_of({{"debug", "true"}})).ok());
}

}  // namespace
}  // namespace twinmaf
