// float_ssim and float_ms_ssim: the extractors (streamed, vectorised
// kernels) against a direct evaluation of libvmaf's definition written out
// plainly here (whole-image passes, libvmaf's in-place decimation, scalar
// per-pixel expressions, one running sum), bit for bit, on seeded noise at
// every depth and layout, odd and tiny sizes and every decimation factor;
// plus the special values, init errors, option limits, the in-place
// decimation argument of ssim.h and the ordered-sum split a twin relies on.
#include "features/ssim/ssim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/ordered_sum.h"
#include "core/collector.h"
#include "core/options.h"
#include "tests/support/seeded_pair.h"
#include "tests/support/splitmix.h"

namespace twinmaf {
namespace {

using test::make_seeded_pair;
using test::PairNoise;
using test::SeededPair;
using test::splitmix64;


// ---- The definition, written out plainly (libvmaf's structure) ----

using Image = std::vector<float>;

Image load(const PlaneView& v, int bpc) {
  Image out(static_cast<size_t>(v.w) * v.h);
  for (int y = 0; y < v.h; ++y)
    for (int x = 0; x < v.w; ++x) {
      float f;
      if (bpc == 8) {
        f = static_cast<float>(v.row<uint8_t>(y)[x]);
      } else {
        const float scaler = bpc == 10 ? 4.0f : (bpc == 12 ? 16.0f : 256.0f);
        f = static_cast<float>(v.row<uint16_t>(y)[x]) / scaler;
      }
      out[static_cast<size_t>(y) * v.w + x] = f;
    }
  return out;
}

int sym(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }

// libvmaf's _iqa_decimate. With &dst == &src it works in place, as
// float_ssim's does: outputs overwrite the input in raster order while later
// outputs still read it; float_ms_ssim's writes a separate buffer.
void decimate(const Image& src, Image& dst, int& w, int& h, int f, const std::vector<float>& k, int kw, int kh) {
  const int sw = w / f + (w & 1), sh = h / f + (h & 1);
  if (&dst != &src) dst.assign(static_cast<size_t>(sw) * sh, 0.0f);
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x) {
      double sum = 0.0;
      for (int v = 0; v < kh; ++v)
        for (int u = 0; u < kw; ++u)
          sum += src[static_cast<size_t>(sym(y * f + v - kh / 2, h)) * w + sym(x * f + u - kw / 2, w)] *
                 k[static_cast<size_t>(v) * kw + u];
      dst[static_cast<size_t>(y) * sw + x] = static_cast<float>(sum);
    }
  w = sw;
  h = sh;
}

// Valid 11-tap convolution, horizontal then vertical, double sums.
Image convolve(const Image& img, int w, int h) {
  const int dw = w - 10, dh = h - 10;
  Image tmp(static_cast<size_t>(w) * h), out(static_cast<size_t>(std::max(dw, 0)) * std::max(dh, 0));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < dw; ++x) {
      double sum = 0.0;
      for (int k = 0; k < 11; ++k) sum += img[static_cast<size_t>(y) * w + x + k] * kSsimGauss[k];
      tmp[static_cast<size_t>(y) * w + x] = static_cast<float>(sum);
    }
  for (int x = 0; x < dw; ++x)
    for (int y = 0; y < dh; ++y) {
      double sum = 0.0;
      for (int k = 0; k < 11; ++k) sum += tmp[static_cast<size_t>(y + k) * w + x] * kSsimGauss[k];
      out[static_cast<size_t>(y) * dw + x] = static_cast<float>(sum);
    }
  return out;
}

struct DefSums {
  double lcs = 0, l = 0, c = 0, s = 0;
  std::vector<double> terms[4];  // per pixel, raster order: lcs, l, c, s
};

DefSums ssim_definition(const Image& a, const Image& b, int w, int h) {
  DefSums d;
  const int dw = w - 10, dh = h - 10;
  if (dw <= 0 || dh <= 0) return d;
  Image aa(a.size()), bb(a.size()), ab(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    aa[i] = a[i] * a[i];
    bb[i] = b[i] * b[i];
    ab[i] = a[i] * b[i];
  }
  const Image mu1 = convolve(a, w, h), mu2 = convolve(b, w, h);
  Image s1 = convolve(aa, w, h), s2 = convolve(bb, w, h), s12 = convolve(ab, w, h);
  const float C1 = (0.01f * 255) * (0.01f * 255), C2 = (0.03f * 255) * (0.03f * 255), C3 = C2 / 2.0f;
  for (size_t i = 0; i < mu1.size(); ++i) {
    s1[i] -= mu1[i] * mu1[i];
    s2[i] -= mu2[i] * mu2[i];
    s1[i] = static_cast<float>(0.0 > s1[i] ? 0.0 : s1[i]);  // C's MAX(0.0, v)
    s2[i] = static_cast<float>(0.0 > s2[i] ? 0.0 : s2[i]);
    s12[i] -= mu1[i] * mu2[i];
  }
  for (size_t i = 0; i < mu1.size(); ++i) {
    const float sd = static_cast<float>(std::sqrt(static_cast<double>(s1[i] * s2[i])));
    const double l = (2.0 * mu1[i] * mu2[i] + C1) / (mu1[i] * mu1[i] + mu2[i] * mu2[i] + C1);
    const double c = (2.0 * sd + C2) / (s1[i] + s2[i] + C2);
    const float cov = (s12[i] < 0.0f && sd <= 0.0f) ? 0.0f : s12[i];
    const double s = (cov + C3) / (sd + C3);
    d.lcs += l * c * s;
    d.l += l;
    d.c += c;
    d.s += s;
    d.terms[0].push_back(l * c * s);
    d.terms[1].push_back(l);
    d.terms[2].push_back(c);
    d.terms[3].push_back(s);
  }
  return d;
}

float mean(double sum, int w, int h) { return static_cast<float>(sum / static_cast<double>((w - 10) * (h - 10))); }

struct Expected {
  std::vector<std::pair<std::string, double>> values;  // output order
  std::vector<DefSums> sums;                            // per scale
};

Expected float_ssim_definition(const SeededPair& p, int scale_opt, bool lcs) {
  const VideoFormat& f = p.ref->format();
  int w = f.w, h = f.h;
  Image a = load(p.ref->plane(0), f.bpc), b = load(p.dis->plane(0), f.bpc);
  const int scale = scale_opt > 0 ? scale_opt : std::max(1, static_cast<int>(std::lround(std::min(w, h) / 256.0)));
  if (scale > 1) {
    std::vector<float> k(static_cast<size_t>(scale) * scale, 1.0f / static_cast<float>(scale * scale));
    const int sw = w / scale + (w & 1), sh = h / scale + (h & 1);
    if (sw >= 11 && sh >= 11) {  // elsewhere libvmaf's reads may leave the buffer; the result is fixed anyway
      int hw = w, hh = h;
      decimate(a, a, hw, hh, scale, k, scale, scale);
      decimate(b, b, w, h, scale, k, scale, scale);
    } else {
      w = sw;
      h = sh;
    }
  }
  Expected e;
  e.sums.push_back(ssim_definition(a, b, w, h));
  const DefSums& d = e.sums[0];
  e.values.push_back({"float_ssim", mean(d.lcs, w, h)});
  if (lcs) {
    e.values.push_back({"float_ssim_l", mean(d.l, w, h)});
    e.values.push_back({"float_ssim_c", mean(d.c, w, h)});
    e.values.push_back({"float_ssim_s", mean(d.s, w, h)});
  }
  return e;
}

Expected float_ms_ssim_definition(const SeededPair& p, bool lcs) {
  const VideoFormat& f = p.ref->format();
  int w = f.w, h = f.h;
  Image a = load(p.ref->plane(0), f.bpc), b = load(p.dis->plane(0), f.bpc);
  std::vector<float> lpf(81);
  for (int v = 0; v < 9; ++v)
    for (int u = 0; u < 9; ++u)
      lpf[static_cast<size_t>(v) * 9 + u] = kMsSsimLpfQuadrant[std::abs(v - 4)][std::abs(u - 4)];
  const float alpha[5] = {0, 0, 0, 0, 0.1333f}, beta[5] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
  Expected e;
  double ms = 1.0;
  float lm[5], cm[5], sm[5];
  for (int i = 0; i < 5; ++i) {
    e.sums.push_back(ssim_definition(a, b, w, h));
    const DefSums& d = e.sums.back();
    lm[i] = mean(d.l, w, h);
    cm[i] = mean(d.c, w, h);
    sm[i] = mean(d.s, w, h);
    ms *= std::pow(double{lm[i]}, double{alpha[i]}) * std::pow(double{cm[i]}, double{beta[i]}) *
          std::pow(double{sm[i]}, double{beta[i]});
    if (i < 4) {
      int w2 = w, h2 = h;
      Image a2, b2;
      decimate(a, a2, w2, h2, 2, lpf, 9, 9);
      decimate(b, b2, w, h, 2, lpf, 9, 9);
      a.swap(a2);
      b.swap(b2);
    }
  }
  e.values.push_back({"float_ms_ssim", ms});
  if (lcs) {
    for (int i = 0; i < 5; ++i) e.values.push_back({"float_ms_ssim_l_scale" + std::to_string(i), lm[i]});
    for (int i = 0; i < 5; ++i) e.values.push_back({"float_ms_ssim_c_scale" + std::to_string(i), cm[i]});
    for (int i = 0; i < 5; ++i) e.values.push_back({"float_ms_ssim_s_scale" + std::to_string(i), sm[i]});
  }
  return e;
}

// ---- Running the extractors ----

struct ExtractorRun {
  Status init;
  Collector out;
  std::unique_ptr<FrameTerms> terms;
};

ExtractorRun run(const FeatureSpec& spec, const OptionDict& dict, const SeededPair& p) {
  ExtractorRun r;
  auto opts = Options::parse(spec.name, spec.options, dict);
  EXPECT_TRUE(opts.ok()) << opts.status().message();
  auto ext = spec.create(*opts);
  EXPECT_TRUE(ext.ok());
  r.init = (*ext)->init(p.ref->format());
  if (!r.init.ok()) return r;
  r.terms = (*ext)->make_terms();
  FrameInput in;
  in.ref = p.ref.get();
  in.dis = p.dis.get();
  EXPECT_TRUE((*ext)->compute(in, *r.terms).ok());
  EXPECT_TRUE((*ext)->finish(0, *r.terms, r.out).ok());
  return r;
}

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

std::string describe(const VideoFormat& f, uint64_t seed) {
  return std::to_string(f.w) + "x" + std::to_string(f.h) + " " + std::string(pix_fmt_name(f.fmt)) + " " +
         std::to_string(f.bpc) + "b seed " + std::to_string(seed);
}

// Same names in the same order, every value bit for bit.
void expect_outputs(const ExtractorRun& r, const Expected& e, const std::string& what) {
  ASSERT_EQ(r.out.columns().size(), e.values.size()) << what;
  for (size_t i = 0; i < e.values.size(); ++i) {
    const auto& col = r.out.columns()[i];
    EXPECT_EQ(col.name, e.values[i].first) << what;
    ASSERT_EQ(col.values.size(), 1u) << what;
    EXPECT_EQ(bits(col.values[0]), bits(e.values[i].second))
        << what << " " << col.name << ": " << col.values[0] << " vs " << e.values[i].second;
  }
}

OptionDict dict(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

TEST(FloatSsim, NoiseMatchesDefinitionEveryLayoutAndDepth) {
  const PixFmt fmts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
  const int sizes[][2] = {{64, 48}, {65, 63}, {29, 17}, {11, 11}, {12, 40}};
  uint64_t seed = 100;
  for (int bpc : {8, 10, 12, 16})
    for (PixFmt fmt : fmts)
      for (auto& sz : sizes)
        for (PairNoise noise : {PairNoise::kFull, PairNoise::kSmall}) {
          const VideoFormat f{sz[0], sz[1], fmt, bpc};
          const SeededPair p = make_seeded_pair(f, noise, ++seed);
          const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), p);
          ASSERT_TRUE(r.init.ok()) << r.init.message();
          const Expected e = float_ssim_definition(p, 0, true);
          const std::string what = describe(f, seed);
          expect_outputs(r, e, what);
          // Non-trivial: a finite SSIM strictly inside (-1, 1) from a non-empty area.
          const double v = r.out.columns()[0].values[0];
          EXPECT_TRUE(v > -1 && v < 1 && v != 0) << what << ": " << v;
          EXPECT_FALSE(e.sums[0].terms[0].empty());
        }
}

TEST(FloatSsim, EveryDecimationFactorMatchesDefinition) {
  // Odd and even sizes, so that n/f + (n&1) and the box's anchoring show;
  // 357x353 and 230x111 reach decimated sizes >= 11 up to factor 10.
  const int sizes[][2] = {{357, 353}, {230, 111}, {64, 48}, {33, 35}};
  uint64_t seed = 500;
  for (auto& sz : sizes)
    for (int scale = 1; scale <= kSsimMaxScale; ++scale)
      for (int bpc : {8, 16}) {
        const VideoFormat f{sz[0], sz[1], PixFmt::k420, bpc};
        const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, ++seed);
        const std::string sc = std::to_string(scale);
        const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"scale", sc.c_str()}, {"enable_lcs", "true"}}), p);
        ASSERT_TRUE(r.init.ok());
        expect_outputs(r, float_ssim_definition(p, scale, true), describe(f, seed) + " scale " + sc);
      }
}

TEST(FloatSsim, AutoScaleRoundsHalfUp) {
  EXPECT_EQ(float_ssim_factor(0, 1920, 1080), 4);  // 4.22
  EXPECT_EQ(float_ssim_factor(0, 3840, 2160), 8);  // 8.44
  EXPECT_EQ(float_ssim_factor(0, 576, 324), 1);    // 1.27
  EXPECT_EQ(float_ssim_factor(0, 1000, 383), 1);   // 1.496
  EXPECT_EQ(float_ssim_factor(0, 1000, 384), 2);   // 1.5 rounds up
  EXPECT_EQ(float_ssim_factor(0, 640, 127), 1);    // 0.496 -> max(1, 0)
  EXPECT_EQ(float_ssim_factor(0, 2000, 640), 3);   // 2.5 rounds up
  EXPECT_EQ(float_ssim_factor(7, 16, 16), 7);
  // Auto at 1080p through the extractor: the factor-4 definition.
  const VideoFormat f{1920, 1080, PixFmt::k420, 10};
  const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 9);
  const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), p);
  expect_outputs(r, float_ssim_definition(p, 4, true), "1080p auto");
}

TEST(FloatSsim, TinyImagesGiveLibvmafsEmptyAreaValues) {
  // The image SSIM runs on (after decimation) has w-10 or h-10 <= 0: +0 when
  // both are negative, -0 when one is, NaN when one is 0; same for l, c, s.
  struct Case {
    int w, h, scale;
    int kind;  // 0: +0, 1: -0, 2: NaN
  };
  const Case cases[] = {{3, 3, 1, 0},   {8, 8, 1, 0},    {17, 9, 1, 1},  {10, 16, 1, 2}, {16, 10, 1, 2},
                        {1, 1, 1, 0},   {5, 5, 10, 0},   {8, 8, 10, 0},  {17, 9, 2, 0},  {20, 21, 2, 2},
                        {64, 48, 5, 1}, {64, 48, 10, 0}, {3, 3, 3, 0},   {200, 17, 2, 1}};
  for (const Case& c : cases)
    for (int bpc : {8, 12}) {
      const VideoFormat f{c.w, c.h, PixFmt::k444, bpc};
      const SeededPair p = make_seeded_pair(f, PairNoise::kFull, 3);
      const std::string sc = std::to_string(c.scale);
      const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"scale", sc.c_str()}, {"enable_lcs", "true"}}), p);
      ASSERT_TRUE(r.init.ok());
      const std::string what = describe(f, 3) + " scale " + sc;
      ASSERT_EQ(r.out.columns().size(), 4u);
      for (const auto& col : r.out.columns()) {
        const double v = col.values[0];
        if (c.kind == 2) {
          EXPECT_TRUE(std::isnan(v)) << what << " " << col.name;
        } else {
          EXPECT_EQ(v, 0.0) << what;
          EXPECT_EQ(std::signbit(v), c.kind == 1) << what << " " << col.name;
        }
      }
      if (c.scale == 1) expect_outputs(r, float_ssim_definition(p, 1, true), what);
    }
}

TEST(FloatSsim, IdenticalInputs) {
  for (int bpc : {8, 10, 16}) {
    const VideoFormat f{96, 80, PixFmt::k420, bpc};
    const SeededPair p = make_seeded_pair(f, PairNoise::kSame, 4);
    const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), p);
    expect_outputs(r, float_ssim_definition(p, 0, true), describe(f, 4));
    EXPECT_NEAR(r.out.columns()[0].values[0], 1.0, 1e-6);
    // Flat identical pictures: libvmaf's covariance clamp keeps s at 1.
    const SeededPair flat = make_seeded_pair(f, PairNoise::kSame, 4);
    for (Picture* pic : {flat.ref.get(), flat.dis.get()})
      for (int y = 0; y < f.h; ++y)
        for (int x = 0; x < f.w; ++x) {
          uint8_t* row = pic->mutable_data(0) + y * pic->stride(0);
          if (bpc == 8) {
            row[x] = 90;
          } else {
            const uint16_t v = static_cast<uint16_t>(90 << (bpc - 8));
            std::memcpy(row + 2 * x, &v, 2);
          }
        }
    const ExtractorRun rf = run(float_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), flat);
    expect_outputs(rf, float_ssim_definition(flat, 0, true), "flat " + describe(f, 4));
    EXPECT_NEAR(*rf.out.get("float_ssim_s", 0), 1.0, 1e-6);
  }
}

TEST(FloatSsim, DecibelsAndClipping) {
  const VideoFormat f{64, 48, PixFmt::k420, 8};
  const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 11);
  const double lin = float_ssim_definition(p, 0, false).values[0].second;
  const ExtractorRun db = run(float_ssim_feature_spec(), dict({{"enable_db", "true"}}), p);
  EXPECT_EQ(bits(*db.out.get("float_ssim", 0)), bits(-10. * std::log10(1 - lin)));
  // Identical pictures: SSIM 1 (after the float rounding of the mean) -> +inf, or max_db.
  const SeededPair same = make_seeded_pair(f, PairNoise::kSame, 11);
  const double lin_same = float_ssim_definition(same, 0, false).values[0].second;
  ASSERT_EQ(lin_same, 1.0);
  const ExtractorRun inf = run(float_ssim_feature_spec(), dict({{"enable_db", "true"}}), same);
  EXPECT_EQ(*inf.out.get("float_ssim", 0), std::numeric_limits<double>::infinity());
  const ExtractorRun clip = run(float_ssim_feature_spec(), dict({{"enable_db", "true"}, {"clip_db", "true"}}), same);
  // ceil(10*log10(255^2 / (0.5 / (64*48)))) = ceil(86.0...) = 87.
  EXPECT_EQ(*clip.out.get("float_ssim", 0), 87.0);
  EXPECT_EQ(ssim_max_db(true, 8, 64, 48), 87.0);
  EXPECT_EQ(ssim_max_db(true, 16, 1920, 1080), std::ceil(10 * std::log10(65535.0 * 65535.0 * 2 * 1920 * 1080)));
  EXPECT_EQ(ssim_max_db(false, 8, 64, 48), std::numeric_limits<double>::infinity());
  // clip_db alone changes nothing.
  const ExtractorRun clip_only = run(float_ssim_feature_spec(), dict({{"clip_db", "true"}}), p);
  EXPECT_EQ(bits(*clip_only.out.get("float_ssim", 0)), bits(lin));
  // C's MIN: a NaN score gives max_db; -0 and +0 give -0 dB.
  EXPECT_EQ(ssim_to_db(std::numeric_limits<double>::quiet_NaN(), 87.0), 87.0);
  EXPECT_EQ(ssim_to_db(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::signbit(ssim_to_db(0.0, 87.0)));
  EXPECT_TRUE(std::signbit(ssim_to_db(-0.0, 87.0)));
  const ExtractorRun nan_clip = run(float_ssim_feature_spec(), dict({{"enable_db", "true"}, {"clip_db", "true"}}),
                           make_seeded_pair({10, 16, PixFmt::k444, 8}, PairNoise::kFull, 1));
  EXPECT_EQ(*nan_clip.out.get("float_ssim", 0), std::ceil(10 * std::log10(255.0 * 255 * 2 * 160)));
}

TEST(FloatSsim, OptionsAndSpec) {
  const FeatureSpec& spec = float_ssim_feature_spec();
  EXPECT_EQ(spec.name, "float_ssim");
  ASSERT_EQ(spec.provided.size(), 1u);
  EXPECT_EQ(spec.provided[0], "float_ssim");
  ASSERT_EQ(spec.options.size(), 4u);
  for (const OptionSpec& o : spec.options) EXPECT_FALSE(o.feature_param) << o.name;
  for (const char* bad : {"11", "-1", "1.5"})
    EXPECT_FALSE(Options::parse("float_ssim", spec.options, dict({{"scale", bad}})).ok()) << bad;
  for (const char* good : {"0", "1", "10"})
    EXPECT_TRUE(Options::parse("float_ssim", spec.options, dict({{"scale", good}})).ok()) << good;
  // The feature name never changes (no feature parameters).
  auto o = Options::parse("float_ssim", spec.options, dict({{"scale", "3"}, {"enable_lcs", "true"}}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->feature_name("float_ssim"), "float_ssim");
  // Registry: libvmaf's order float_ms_ssim, float_ssim, ciede, psnr.
  const auto& reg = feature_registry();
  const auto pos = [&](std::string_view n) {
    return std::find_if(reg.begin(), reg.end(), [&](const FeatureSpec* s) { return s->name == n; }) - reg.begin();
  };
  EXPECT_EQ(pos("float_ssim"), pos("float_ms_ssim") + 1);
  EXPECT_EQ(pos("ciede"), pos("float_ssim") + 1);
  EXPECT_EQ(pos("psnr"), pos("ciede") + 1);
  EXPECT_EQ(find_feature_providing("float_ssim"), &spec);
  auto ex = spec.create(*o);
  ASSERT_TRUE(ex.ok());
  ASSERT_TRUE((*ex)->init({64, 48, PixFmt::k420, 8}).ok());
  const FeatureNeeds n = (*ex)->needs();
  EXPECT_EQ(n.ref, Planes::kLuma);
  EXPECT_EQ(n.dis, Planes::kLuma);
  EXPECT_FALSE(n.every_frame());
}

TEST(FloatSsim, InitRejectsDepthsLibvmafMisreads) {
  for (int bpc : {9, 11, 13, 14, 15}) {
    const ExtractorRun r = run(float_ssim_feature_spec(), OptionDict{},
                               make_seeded_pair({32, 32, PixFmt::k420, bpc}, PairNoise::kFull, 1));
    EXPECT_EQ(r.init.code(), Code::kUnsupported);
    EXPECT_NE(r.init.message().find("float_ssim: bit depth " + std::to_string(bpc)), std::string::npos)
        << r.init.message();
    const ExtractorRun m = run(float_ms_ssim_feature_spec(), OptionDict{},
                               make_seeded_pair({176, 176, PixFmt::k420, bpc}, PairNoise::kFull, 1));
    EXPECT_EQ(m.init.code(), Code::kUnsupported);
    EXPECT_NE(m.init.message().find("float_ms_ssim"), std::string::npos);
  }
}

TEST(FloatMsSsim, NoiseMatchesDefinition) {
  const int sizes[][2] = {{176, 176}, {177, 181}, {200, 190}, {183, 176}};
  uint64_t seed = 900;
  for (int bpc : {8, 10, 12, 16})
    for (auto& sz : sizes)
      for (PairNoise noise : {PairNoise::kFull, PairNoise::kSmall}) {
        const PixFmt fmt =
            bpc == 8 ? PixFmt::k400 : (bpc == 10 ? PixFmt::k420 : (bpc == 12 ? PixFmt::k422 : PixFmt::k444));
        const VideoFormat f{sz[0], sz[1], fmt, bpc};
        const SeededPair p = make_seeded_pair(f, noise, ++seed);
        const ExtractorRun r = run(float_ms_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), p);
        ASSERT_TRUE(r.init.ok()) << r.init.message();
        const Expected e = float_ms_ssim_definition(p, true);
        expect_outputs(r, e, describe(f, seed));
        // Every scale scored something.
        for (const DefSums& d : e.sums) EXPECT_FALSE(d.terms[1].empty());
        if (noise == PairNoise::kSmall) {
          EXPECT_GT(r.out.columns()[0].values[0], 0.5) << describe(f, seed);
        }
      }
}

TEST(FloatMsSsim, IdenticalAndDecibels) {
  const VideoFormat f{190, 180, PixFmt::k420, 12};
  const SeededPair same = make_seeded_pair(f, PairNoise::kSame, 5);
  const ExtractorRun r = run(float_ms_ssim_feature_spec(), dict({{"enable_lcs", "true"}}), same);
  expect_outputs(r, float_ms_ssim_definition(same, true), "identical");
  const double lin = r.out.columns()[0].values[0];
  EXPECT_NEAR(lin, 1.0, 1e-6);
  const ExtractorRun db = run(float_ms_ssim_feature_spec(), dict({{"enable_db", "true"}, {"clip_db", "true"}}), same);
  const double max_db = std::ceil(10 * std::log10(4095.0 * 4095 * 2 * 190 * 180));
  EXPECT_EQ(ssim_max_db(true, 12, 190, 180), max_db);
  EXPECT_EQ(*db.out.get("float_ms_ssim", 0), std::min(-10. * std::log10(1 - lin), max_db));
  ASSERT_EQ(db.out.columns().size(), 1u);
}

TEST(FloatMsSsim, MinimumSize) {
  for (auto sz : {std::pair{175, 176}, std::pair{176, 175}, std::pair{64, 48}, std::pair{3, 3}}) {
    const ExtractorRun r = run(float_ms_ssim_feature_spec(), OptionDict{},
                      make_seeded_pair({sz.first, sz.second, PixFmt::k420, 8}, PairNoise::kFull, 1));
    EXPECT_EQ(r.init.code(), Code::kUnsupported);
    EXPECT_NE(r.init.message().find("float_ms_ssim: needs a luma plane of at least 176x176"), std::string::npos)
        << r.init.message();
  }
  const ExtractorRun ok = run(float_ms_ssim_feature_spec(), OptionDict{},
                              make_seeded_pair({176, 176, PixFmt::k420, 8}, PairNoise::kFull, 1));
  EXPECT_TRUE(ok.init.ok());
  EXPECT_EQ(kMsSsimMinSize, 176);
}

TEST(FloatMsSsim, OptionsAndSpec) {
  const FeatureSpec& spec = float_ms_ssim_feature_spec();
  EXPECT_EQ(spec.name, "float_ms_ssim");
  ASSERT_EQ(spec.provided.size(), 1u);
  EXPECT_EQ(spec.provided[0], "float_ms_ssim");
  ASSERT_EQ(spec.options.size(), 3u);
  EXPECT_FALSE(Options::parse("float_ms_ssim", spec.options, dict({{"scale", "2"}})).ok());
  EXPECT_EQ(find_feature_providing("float_ms_ssim"), &spec);
}

TEST(Ssim, LowPassTableIsSymmetricAndNormalised) {
  const float* k = ms_ssim_lpf_kernel();
  double sum = 0;
  for (int v = 0; v < 9; ++v)
    for (int u = 0; u < 9; ++u) {
      EXPECT_EQ(k[v * 9 + u], k[u * 9 + v]);
      EXPECT_EQ(k[v * 9 + u], k[(8 - v) * 9 + u]);
      sum += k[v * 9 + u];
    }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  EXPECT_EQ(k[4 * 9 + 4], 0.363505f);
  EXPECT_EQ(k[0], 0.000714f);
  double g = 0;
  for (float t : kSsimGauss) g += t;
  EXPECT_NEAR(g, 1.0, 1e-5);
}

// Whether libvmaf's in-place decimation of a w x h image by f with a
// `taps` x `taps` kernel reads, for some output, an index that an earlier
// output has overwritten (output (x, y) is stored at y*sw + x after its
// reads, so every read index must be >= that index).
bool in_place_reads_output(int w, int h, int f, int taps) {
  const int sw = w / f + (w & 1), sh = h / f + (h & 1), c = taps / 2;
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x) {
      // The smallest index read: smallest reflected row, then column.
      int rmin = h, cmin = w;
      for (int t = 0; t < taps; ++t) {
        rmin = std::min(rmin, sym(y * f + t - c, h));
        cmin = std::min(cmin, sym(x * f + t - c, w));
      }
      if (static_cast<long>(rmin) * w + cmin < static_cast<long>(y) * sw + x) return true;
    }
  return false;
}

// ssim.h's claim: wherever float_ssim's decimated image is at least 11x11,
// its in-place box decimation never reads its own output. Exhaustive over
// factors 2..10 and every size from the smallest that qualifies to 16 f,
// plus larger ones.
TEST(Ssim, InPlaceDecimationNeverReadsItsOutput) {
  int checked = 0;
  for (int f = 2; f <= kSsimMaxScale; ++f) {
    std::vector<int> dims;
    for (int n = 10 * f - 2; n <= 16 * f; ++n) dims.push_back(n);
    for (int n : {31 * f, 40 * f + 3}) dims.push_back(n);
    for (int w : dims)
      for (int h : dims) {
        if (w / f + (w & 1) < 11 || h / f + (h & 1) < 11) continue;
        ASSERT_FALSE(in_place_reads_output(w, h, f, f)) << "factor " << f << ", " << w << "x" << h;
        ++checked;
      }
  }
  EXPECT_GT(checked, 10000);
  // The check has teeth: the 9-tap low-pass at factor 2 would read its own
  // output (libvmaf decimates float_ms_ssim into separate buffers).
  EXPECT_TRUE(in_place_reads_output(64, 64, 2, 9));
}

// The split a twin relies on: each FrameTerms sum is the ordered double sum
// of the per-pixel terms, which base/ordered_sum.h's tree (the device
// reduction's host model) reproduces bit for bit.
TEST(Ssim, SumsAreOrderedSumsOfThePixelTerms) {
  const VideoFormat f{131, 77, PixFmt::k420, 10};
  const SeededPair p = make_seeded_pair(f, PairNoise::kSmall, 21);
  const ExtractorRun r = run(float_ssim_feature_spec(), dict({{"scale", "1"}}), p);
  const SsimSums& got = down_cast<const FloatSsimTerms&>(*r.terms).sums;
  const Expected e = float_ssim_definition(p, 1, false);
  const DefSums& d = e.sums[0];
  const double* mine[4] = {&got.lcs, &got.l, &got.c, &got.s};
  ASSERT_EQ(d.terms[0].size(), static_cast<size_t>(121 * 67));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(bits(*mine[i]), bits(ordered_sum_naive(d.terms[i])));
    for (int leaf : {1, 7, 64, 100})
      EXPECT_EQ(bits(*mine[i]), bits(ordered_sum_tree_sum(std::span<const double>(d.terms[i]), leaf))) << leaf;
  }
  // Terms compare bitwise; a copy is equal, a changed sum is not.
  auto copy = r.terms->clone();
  EXPECT_TRUE(copy->same_as(*r.terms));
  down_cast<FloatSsimTerms&>(*copy).sums.s = std::nextafter(got.s, 2.0);
  EXPECT_FALSE(copy->same_as(*r.terms));
  FloatMsSsimTerms ms;
  EXPECT_FALSE(ms.same_as(*r.terms));
}

}  // namespace
}  // namespace twinmaf
