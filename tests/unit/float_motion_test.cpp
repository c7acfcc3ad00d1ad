// float_motion: kernels against their definitions, libvmaf anchors on noise
// clips (every option family), the window/flush end cases, limits and option
// errors.
#include "features/float_motion/float_motion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "features/common/float_picture.h"
#include "tests/support/memory_source.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

// The reference pictures of a golden noise clip (shared/golden/noiseclip.py).
std::vector<PicturePtr> noise_refs(const std::string& name) {
  test::NoiseClipSpec spec;
  EXPECT_TRUE(test::parse_noise_clip_name(name, &spec)) << name;
  std::vector<uint8_t> ref, dis;
  test::make_noise_clip(spec, &ref, &dis);
  const VideoFormat fmt{spec.w, spec.h, spec.fmt, spec.bpc};
  test::MemorySource src(fmt, std::move(ref));
  std::vector<PicturePtr> out;
  for (int i = 0; i < spec.frames; ++i) {
    auto pic = std::make_shared<Picture>(fmt, host_allocator());
    auto got = src.read(*pic);
    EXPECT_TRUE(got.ok() && *got) << name << " frame " << i;
    out.push_back(pic);
  }
  return out;
}

// Luma fn(x, y), chroma mid-grey.
template <typename Fn>
PicturePtr make_picture(const VideoFormat& f, Fn fn) {
  auto p = std::make_shared<Picture>(f, host_allocator());
  for (int pl = 0; pl < f.planes(); ++pl)
    for (int y = 0; y < f.stored_h(pl); ++y)
      for (int x = 0; x < f.stored_w(pl); ++x) {
        const int v = pl == 0 ? fn(x, y) : 1 << (f.bpc - 1);
        uint8_t* row = p->mutable_data(pl) + y * p->stride(pl);
        if (f.bpc > 8)
          reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
        else
          row[x] = static_cast<uint8_t>(v);
      }
  return p;
}

OptionDict dict_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

struct Run {
  Options options;
  Collector out;
};

// Runs float_motion the way the engine does (compute + finish per frame in
// order, then flush).
Result<Run> run(const OptionDict& dict, const std::vector<PicturePtr>& frames) {
  const FeatureSpec& spec = float_motion_feature_spec();
  Run r;
  TWINMAF_ASSIGN_OR_RETURN(r.options, Options::parse(spec.name, spec.options, dict));
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(r.options));
  TWINMAF_RETURN_IF_ERROR(ex->init(frames.at(0)->format()));
  EXPECT_TRUE(ex->needs().temporal);
  for (size_t i = 0; i < frames.size(); ++i) {
    FrameInput in;
    in.index = static_cast<unsigned>(i);
    in.ref = frames[i].get();
    in.dis = frames[i].get();
    auto t = ex->make_terms();
    TWINMAF_RETURN_IF_ERROR(ex->compute(in, *t));
    TWINMAF_RETURN_IF_ERROR(ex->finish(in.index, *t, r.out));
  }
  TWINMAF_RETURN_IF_ERROR(ex->flush(r.out));
  return r;
}

// Column `provided` (under this run's name) for frames 0..n-1.
std::vector<double> column(const Run& r, const char* provided, size_t n) {
  const std::string name = r.options.feature_name(provided);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    const auto x = r.out.get(name, static_cast<unsigned>(i));
    EXPECT_TRUE(x.has_value()) << name << " frame " << i;
    v.push_back(x.value_or(NAN));
  }
  return v;
}

constexpr const char* kM2 = "VMAF_feature_motion2_score";
constexpr const char* kM = "VMAF_feature_motion_score";
constexpr const char* kM3 = "VMAF_feature_motion3_score";

// ---------------------------------------------------------------------------
// Kernels against their definitions.

int mirror_def(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i); }

TEST(FloatMotionKernel, BlurEqualsItsDefinitionAtTinyAndOddSizes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-128.0f, 127.0f);
  for (int fs : {5, 3, 1}) {
    const std::vector<float> f = float_motion_filter(fs);
    const int r = static_cast<int>(f.size()) / 2;
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{3, 3}, {2, 5}, {4, 3}, {7, 9}, {33, 17}}) {
      if (w < r + 1 || h < r + 1) continue;
      const std::ptrdiff_t stride = w + 3;  // rows wider than the picture
      std::vector<float> src(static_cast<size_t>(stride * h)), tmp(src.size()), dst(src.size());
      for (auto& v : src) v = u(rng);
      float_motion_blur_ref(f, src.data(), w, h, stride, tmp.data(), dst.data());
      double norm = 0;
      for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
          float expect = 0.0f;
          for (int k = 0; k < static_cast<int>(f.size()); ++k) {
            const int jj = mirror_def(j - r + k, w);
            float col = 0.0f;  // the vertical pass at (i, jj)
            for (int m = 0; m < static_cast<int>(f.size()); ++m)
              col += f[m] * src[mirror_def(i - r + m, h) * stride + jj];
            expect += f[k] * col;
          }
          ASSERT_EQ(dst[i * stride + j], expect)
              << "filter " << fs << " " << w << "x" << h << " at " << i << "," << j;
          norm += std::fabs(expect);
        }
      EXPECT_GT(norm, 0.0);
    }
  }
}

TEST(FloatMotionKernel, SadRowsAreFloatSumsOfAbsoluteDifferences) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-128.0f, 127.0f);
  const int w = 37, h = 5;
  std::vector<float> a(w * h), b(w * h);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  std::vector<float> rows;
  float_motion_sad_rows_ref(a.data(), b.data(), w, h, w, rows);
  ASSERT_EQ(rows.size(), static_cast<size_t>(h));
  for (int i = 0; i < h; ++i) {
    // libvmaf's form: the running float plus fabs() in double, rounded.
    float line = 0.0f;
    for (int j = 0; j < w; ++j)
      line = static_cast<float>(line + std::fabs(static_cast<double>(a[i * w + j] - b[i * w + j])));
    EXPECT_EQ(rows[static_cast<size_t>(i)], line) << "row " << i;
    EXPECT_GT(line, 0.0f);
  }
  // |a - b| == |b - a|: libvmaf's recomputed previous SAD has the same bits.
  std::vector<float> back;
  float_motion_sad_rows_ref(b.data(), a.data(), w, h, w, back);
  EXPECT_EQ(0, std::memcmp(rows.data(), back.data(), rows.size() * sizeof(float)));
}

TEST(FloatMotionKernel, HalfSizeScalingOfAConstantAndARamp) {
  // Bilinear weights sum to one: a constant stays that constant.
  const int w = 9, h = 7, dw = 5, dh = 4;
  std::vector<float> src(w * h, 3.5f), dst(dw * dh, -1.0f);
  float_motion_scale_ref(src.data(), w, h, w, dst.data(), dw, dh);
  for (float v : dst) EXPECT_EQ(v, 3.5f);
  // An even width halves exactly: output x averages columns 2x and 2x+1.
  const int ew = 8;
  std::vector<float> ramp(ew * 2), half(4);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < ew; ++x) ramp[y * ew + x] = static_cast<float>(4 * x);
  float_motion_scale_ref(ramp.data(), ew, 2, ew, half.data(), 4, 1);
  for (int x = 0; x < 4; ++x) EXPECT_EQ(half[x], static_cast<float>(8 * x + 2)) << x;
}

TEST(FloatMotionKernel, PictureCopyScalesHighDepthsToEightBit) {
  for (int bpc : {8, 10, 12, 16}) {
    const VideoFormat f{5, 2, PixFmt::k400, bpc};
    auto p = make_picture(f, [&](int x, int y) { return ((x + 7 * y) * 977) & ((1 << bpc) - 1); });
    std::vector<float> out(10);
    float_picture_plane(p->plane(0), bpc, -128, out.data(), 5);
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 5; ++x) {
        const int s = ((x + 7 * y) * 977) & ((1 << bpc) - 1);
        EXPECT_EQ(out[y * 5 + x], static_cast<float>(std::ldexp(s, 8 - bpc) - 128.0)) << bpc;
      }
  }
}

// ---------------------------------------------------------------------------
// libvmaf f85a8536 (--cpumask -1), %.17g, on golden noise clips.

struct Anchor {
  const char* clip;
  OptionDict dict;
  std::vector<std::array<double, 3>> m2_m_m3;  // per frame
};

TEST(FloatMotionGolden, NoiseClipsEqualLibvmaf) {
  const std::vector<Anchor> anchors = {
      {"noise_64x48_420_10b_6f_s2", {},
       {{0, 0, 25.27808380126953},
        {25.27808380126953, 25.27808380126953, 25.27808380126953},
        {26.543710708618164, 26.919878005981445, 26.543710708618164},
        {25.368364334106445, 26.543710708618164, 25.368364334106445},
        {25.368364334106445, 25.368364334106445, 25.368364334106445},
        {25.625198364257812, 25.625198364257812, 25.625198364257812}}},
      {"noise_357x353_444_8b_6f_s21", {},
       {{0, 0, 24.138961791992188},
        {24.138961791992188, 24.138961791992188, 24.138961791992188},
        {24.303081512451172, 24.373580932617188, 24.303081512451172},
        {24.303081512451172, 24.303081512451172, 24.303081512451172},
        {24.305522918701172, 24.305522918701172, 24.305522918701172},
        {24.46417808532715, 24.46417808532715, 24.46417808532715}}},
      {"noise_64x48_422_16b_6f_s8", {},
       {{0, 0, 24.05499267578125},
        {24.05499267578125, 24.05499267578125, 24.05499267578125},
        {24.660005569458008, 24.660005569458008, 24.660005569458008},
        {25.098220825195312, 25.382537841796875, 25.098220825195312},
        {24.73219108581543, 25.098220825195312, 24.73219108581543},
        {24.73219108581543, 24.73219108581543, 24.73219108581543}}},
      {"noise_3x3_444_8b_3f_s102", {},
       {{0, 0, 87.46966552734375},
        {87.46966552734375, 87.46966552734375, 87.46966552734375},
        {88.57943725585938, 88.57943725585938, 88.57943725585938}}},
      {"noise_64x48_444_12b_6f_s11",
       dict_of({{"motion_add_uv", "true"}, {"motion_add_scale1", "true"}, {"motion_filter_size", "3"}}),
       {{0, 0, 216.53907012939453},
        {216.53907012939453, 216.53907012939453, 216.53907012939453},
        {218.08586883544922, 218.08586883544922, 218.08586883544922},
        {223.83624267578125, 223.96389770507812, 223.83624267578125},
        {222.70828247070312, 223.83624267578125, 222.70828247070312},
        {222.70828247070312, 222.70828247070312, 222.70828247070312}}},
      {"noise_64x48_444_12b_6f_s11",
       dict_of({{"motion_fps_weight", "2.5"}, {"motion_max_val", "215"}, {"motion_blend_factor", "0.3"},
                {"motion_blend_offset", "20"}, {"motion_filter_size", "1"}}),
       {{0, 0, 77.07752799987793},
        {210.25842666625977, 210.25842666625977, 77.07752799987793},
        {215, 215, 79.37826538085938},
        {214.06320571899414, 215, 78.21896171569824},
        {214.06320571899414, 214.06320571899414, 78.21896171569824},
        {214.28466796875, 214.28466796875, 78.285400390625}}},
      {"noise_64x48_420_8b_4f_s1", dict_of({{"motion_add_uv", "true"}}),
       {{0, 0, 79.65677452087402},
        {75.25320243835449, 79.65677452087402, 75.25320243835449},
        {75.25320243835449, 75.25320243835449, 75.25320243835449},
        {75.91230583190918, 75.91230583190918, 75.91230583190918}}},
  };
  for (const Anchor& a : anchors) {
    SCOPED_TRACE(a.clip);
    const auto frames = noise_refs(a.clip);
    auto r = run(a.dict, frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const size_t n = a.m2_m_m3.size();
    const auto m2 = column(*r, kM2, n), m = column(*r, kM, n), m3 = column(*r, kM3, n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(m2[i], a.m2_m_m3[i][0]) << "motion2 frame " << i;
      EXPECT_EQ(m[i], a.m2_m_m3[i][1]) << "motion frame " << i;
      EXPECT_EQ(m3[i], a.m2_m_m3[i][2]) << "motion3 frame " << i;
    }
  }
}

// ---------------------------------------------------------------------------
// The window and flush from their definition (float_motion.h), on every
// length 1..6, with the debug score m_i = MIN(score_i * f, max) exposing
// score_i (f = 1, max above every score): motion2[0] = 0, motion2[i] =
// MIN(m_i, m_{i+1}) inside, m_last at the end; motion3 = blend(motion2) but
// motion3[0] = blend(m_1), and 0 for one frame.

TEST(FloatMotionWindow, EveryLengthFollowsTheDefinition) {
  const auto all = noise_refs("noise_64x48_420_8b_6f_s1");
  const OptionDict d = dict_of({{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "20"}});
  auto blend = [](double x) { return x * 0.5 + (1 - 0.5) * (20 < x ? 20 : x); };
  for (size_t n = 1; n <= all.size(); ++n) {
    SCOPED_TRACE(::testing::Message() << n << " frames");
    std::vector<PicturePtr> frames(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = run(d, frames);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const auto m2 = column(*r, kM2, n), m = column(*r, kM, n), m3 = column(*r, kM3, n);
    EXPECT_EQ(m[0], 0.0);
    EXPECT_EQ(m2[0], 0.0);
    EXPECT_EQ(m3[0], n == 1 ? 0.0 : blend(m[1]));
    for (size_t i = 1; i < n; ++i) {
      EXPECT_GT(m[i], 20.0) << "non-trivial scores, frame " << i;
      const double expect = i + 1 == n ? m[i] : (m[i] < m[i + 1] ? m[i] : m[i + 1]);
      EXPECT_EQ(m2[i], expect) << "frame " << i;
      EXPECT_EQ(m3[i], blend(expect)) << "frame " << i;
    }
    // libvmaf's column order: motion2, motion, motion3.
    ASSERT_EQ(r->out.columns().size(), 3u);
    EXPECT_EQ(r->out.columns()[0].name, r->options.feature_name(kM2));
    EXPECT_EQ(r->out.columns()[1].name, r->options.feature_name(kM));
    EXPECT_EQ(r->out.columns()[2].name, r->options.feature_name(kM3));
  }
}

TEST(FloatMotionWindow, IdenticalFramesScoreZero) {
  const auto one = noise_refs("noise_64x48_420_10b_6f_s2");
  const std::vector<PicturePtr> same(4, one[0]);
  auto r = run({}, same);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const char* c : {kM2, kM, kM3})
    for (double v : column(*r, c, 4)) EXPECT_EQ(v, 0.0) << c;
}

TEST(FloatMotionWindow, ForceZeroWritesZerosInLibvmafsOrderAtAnySize) {
  const VideoFormat tiny{1, 1, PixFmt::k444, 9};  // nothing is read: any size, any depth
  std::vector<PicturePtr> frames;
  for (int i = 0; i < 3; ++i) frames.push_back(make_picture(tiny, [&](int, int) { return 100 * i; }));
  auto r = run(dict_of({{"motion_force_zero", "true"}}), frames);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->out.columns().size(), 3u);
  EXPECT_EQ(r->out.columns()[0].name, "motion2_force_0");
  EXPECT_EQ(r->out.columns()[1].name, "motion3_force_0");
  EXPECT_EQ(r->out.columns()[2].name, "motion_force_0");
  for (const auto& c : r->out.columns()) EXPECT_EQ(c.values, (std::vector<double>{0, 0, 0})) << c.name;
  auto quiet = run(dict_of({{"motion_force_zero", "true"}, {"debug", "false"}}), frames);
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ(quiet->out.columns().size(), 2u);
}

// ---------------------------------------------------------------------------
// Limits and options.

TEST(FloatMotionInit, SizesDepthsAndCombinationsLibvmafCannotScore) {
  auto init = [](const OptionDict& d, const VideoFormat& f) -> Status {
    const FeatureSpec& spec = float_motion_feature_spec();
    TWINMAF_ASSIGN_OR_RETURN(Options o, Options::parse(spec.name, spec.options, d));
    TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(o));
    return ex->init(f);
  };
  auto expect_error = [&](const OptionDict& d, const VideoFormat& f, const char* part) {
    const Status s = init(d, f);
    ASSERT_FALSE(s.ok()) << f.w << "x" << f.h << " " << part;
    EXPECT_EQ(s.code(), Code::kUnsupported);
    EXPECT_EQ(s.message().rfind("float_motion: ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  expect_error({}, {2, 2, PixFmt::k444, 8}, "3x3");
  expect_error({}, {3, 2, PixFmt::k444, 8}, "3x3");
  expect_error(dict_of({{"motion_filter_size", "1"}}), {2, 9, PixFmt::k444, 8}, "3x3");
  expect_error(dict_of({{"motion_filter_size", "3"}}), {1, 4, PixFmt::k444, 8}, "2x2");
  EXPECT_TRUE(init(dict_of({{"motion_filter_size", "3"}}), {2, 2, PixFmt::k444, 8}).ok());
  EXPECT_TRUE(init({}, {3, 3, PixFmt::k420, 16}).ok());
  // Chroma of a 5x5 4:2:0 picture is 2x2.
  expect_error(dict_of({{"motion_add_uv", "true"}}), {5, 5, PixFmt::k420, 8}, "plane 1 is 2x2");
  expect_error(dict_of({{"motion_add_uv", "true"}}), {64, 48, PixFmt::k400, 8}, "4:0:0");
  expect_error(dict_of({{"motion_add_uv", "true"}, {"motion_add_scale1", "true"}}), {64, 48, PixFmt::k420, 8},
               "4:4:4 only");
  EXPECT_TRUE(
      init(dict_of({{"motion_add_uv", "true"}, {"motion_add_scale1", "true"}}), {64, 48, PixFmt::k444, 8}).ok());
  for (int bpc : {9, 11, 14}) expect_error({}, {64, 48, PixFmt::k420, bpc}, "bit depth");
  expect_error(dict_of({{"motion_add_scale1", "true"}}), {15361, 4, PixFmt::k400, 8}, "7680");
  EXPECT_TRUE(init(dict_of({{"motion_add_scale1", "true"}}), {15360, 4, PixFmt::k400, 8}).ok());
}

TEST(FloatMotionOptions, RangesAndNames) {
  const FeatureSpec& spec = float_motion_feature_spec();
  for (const auto& [k, v] : std::vector<std::pair<const char*, const char*>>{{"motion_fps_weight", "5.1"},
                                                                              {"motion_blend_factor", "-0.1"},
                                                                              {"motion_blend_offset", "1001"},
                                                                              {"motion_filter_size", "10"},
                                                                              {"motion_max_val", "10001"},
                                                                              {"motion_add_uv", "1"}})
    EXPECT_FALSE(Options::parse(spec.name, spec.options, dict_of({{k, v}})).ok()) << k << "=" << v;
  auto o = Options::parse(spec.name, spec.options,
                          dict_of({{"motion_max_val", "18"}, {"motion_add_scale1", "true"}, {"debug", "false"}}));
  ASSERT_TRUE(o.ok());
  // Sorted by option name; bools print their alias only; debug is no feature
  // parameter.
  EXPECT_EQ(o->feature_name(kM3), "motion3_mdc_mmxv_18");
  EXPECT_EQ(Options::parse(spec.name, spec.options, {})->feature_name(kM2), kM2);
}

}  // namespace
}  // namespace twinmaf
