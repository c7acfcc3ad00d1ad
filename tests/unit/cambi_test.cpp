// cambi: the CPU kernels against a direct evaluation of cambi.h's stages (no
// in-place passes, no sliding histograms: every window counted), the pooling
// order against libvmaf's quick select (values recorded from libvmaf's code),
// the reciprocal table against libvmaf's, init limits, names, every depth and
// layout, and heatmaps byte for byte against files written by libvmaf.
#include "features/cambi/cambi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

using test::splitmix64;

std::unique_ptr<Picture> make_picture(const VideoFormat& f) {
  return std::make_unique<Picture>(f, host_allocator());
}

void put(Picture& pic, int plane, int x, int y, int v) {
  uint8_t* row = pic.mutable_data(plane) + static_cast<std::ptrdiff_t>(y) * pic.stride(plane);
  if (pic.format().bpc > 8) {
    const uint16_t s = static_cast<uint16_t>(v);
    std::memcpy(row + 2 * x, &s, 2);
  } else {
    row[x] = static_cast<uint8_t>(v);
  }
}

int get(const PlaneView& v, int bpc, int x, int y) {
  return bpc > 8 ? v.row<uint16_t>(y)[x] : v.row<uint8_t>(y)[x];
}

// Banded plateaus: diagonal bands one 10-bit code apart (so the mask fires
// and neighbouring values differ by small steps), a few samples off by one
// step and a few uniform over the whole range. Chroma is noise.
std::unique_ptr<Picture> make_banded(const VideoFormat& f, uint64_t seed) {
  auto pic = make_picture(f);
  const int top = (1 << f.bpc) - 1;
  const int step = f.bpc > 10 ? 1 << (f.bpc - 10) : 1;
  uint64_t s = seed;
  const int base = static_cast<int>(splitmix64(s) % static_cast<uint64_t>(top / 2));
  const int band = 3 + static_cast<int>(splitmix64(s) % 9);
  for (int y = 0; y < f.h; ++y)
    for (int x = 0; x < f.w; ++x) {
      int v = base + ((x + y / 3) / band) * step;
      const uint64_t r = splitmix64(s) % 64;
      if (r == 0)
        v = static_cast<int>(splitmix64(s) % static_cast<uint64_t>(top + 1));
      else if (r < 3)
        v += r == 1 ? step : -step;
      put(*pic, 0, x, y, std::clamp(v, 0, top));
    }
  for (int pl = 1; pl < f.planes(); ++pl)
    for (int y = 0; y < f.stored_h(pl); ++y)
      for (int x = 0; x < f.stored_w(pl); ++x)
        put(*pic, pl, x, y, static_cast<int>(splitmix64(s) >> (64 - f.bpc)));
  return pic;
}

std::unique_ptr<Picture> make_noise(const VideoFormat& f, uint64_t seed) {
  auto pic = make_picture(f);
  uint64_t s = seed;
  for (int pl = 0; pl < f.planes(); ++pl)
    for (int y = 0; y < f.stored_h(pl); ++y)
      for (int x = 0; x < f.stored_w(pl); ++x)
        put(*pic, pl, x, y, static_cast<int>(splitmix64(s) >> (64 - f.bpc)));
  return pic;
}

// ---- The definition, evaluated directly --------------------------------------------------

using Grid = std::vector<std::vector<int>>;

int mode_of_three(int a, int b, int c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return std::min({a, b, c});
}

// Per scale, the c-values in row-major order (stages 1-4 of cambi.h).
std::vector<std::vector<float>> direct_c_values(const PlaneView& luma, int bpc, const CambiSetup& st,
                                                const CambiPicturePlan& plan) {
  int w = plan.w, h = plan.h;
  Grid img(static_cast<size_t>(h), std::vector<int>(static_cast<size_t>(w)));
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      const int x = plan.src_x.empty() ? j : plan.src_x[static_cast<size_t>(j)];
      const int y = plan.src_y.empty() ? i : plan.src_y[static_cast<size_t>(i)];
      const int s = get(luma, bpc, x, y);
      int v;
      if (bpc <= 9)
        v = s << (10 - bpc);
      else if (bpc == 10)
        v = s;
      else
        v = (s + (1 << (bpc - 11))) >> (bpc - 10);
      img[i][j] = v;
    }
  if (st.anti_dither) {
    Grid out = img;
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) {
        const bool right = j + 1 < w, down = i + 1 < h;
        if (right && down)
          out[i][j] = (img[i][j] + img[i][j + 1] + img[i + 1][j] + img[i + 1][j + 1]) >> 2;
        else if (down)
          out[i][j] = (img[i][j] + img[i + 1][j]) >> 1;
        else if (right)
          out[i][j] = (img[i][j] + img[i][j + 1]) >> 1;
      }
    img = out;
  }
  int ceil_log2 = 0;
  for (uint32_t n = static_cast<uint32_t>(w >> 6) * static_cast<uint32_t>(h >> 6); (1u << ceil_log2) < n;)
    ++ceil_log2;
  const int threshold = (49 + 3 * (ceil_log2 - 11) - 1) / 2;
  Grid mask(static_cast<size_t>(h), std::vector<int>(static_cast<size_t>(w)));
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      int sum = 0;
      for (int r = i - 3; r <= i + 3; ++r)
        for (int c = j - 3; c <= j + 3; ++c) {
          if (r < 0 || r >= h || c < 0 || c >= w) continue;
          sum += (c == w - 1 || img[r][c] == img[r][c + 1]) && (r == h - 1 || img[r][c] == img[r + 1][c]);
        }
      mask[i][j] = sum > threshold;
    }
  const auto& recip = cambi_reciprocal_table();
  const int p = plan.window >> 1, n = st.num_diffs;
  std::vector<std::vector<float>> out;
  for (int s = 0; s < kCambiScales; ++s) {
    if (s > 0 || plan.speedup) {
      const int w2 = (w + 1) / 2, h2 = (h + 1) / 2;
      Grid img2(static_cast<size_t>(h2), std::vector<int>(static_cast<size_t>(w2)));
      Grid mask2 = img2;
      for (int i = 0; i < h2; ++i)
        for (int j = 0; j < w2; ++j) {
          img2[i][j] = img[2 * i][2 * j];
          mask2[i][j] = mask[2 * i][2 * j];
        }
      img = img2;
      mask = mask2;
      w = w2;
      h = h2;
    }
    Grid hm = img;
    for (int i = 0; i < h; ++i)
      for (int j = 1; j + 1 < w; ++j) hm[i][j] = mode_of_three(img[i][j - 1], img[i][j], img[i][j + 1]);
    for (int i = 1; i + 1 < h; ++i)
      for (int j = 0; j < w; ++j) img[i][j] = mode_of_three(hm[i - 1][j], hm[i][j], hm[i + 1][j]);
    std::vector<float> c(static_cast<size_t>(w) * h, 0.0f);
    const int lo = st.band_base, hi = st.band_base + st.band_size;
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) {
        const int v = img[i][j];
        if (!mask[i][j] || v < lo || v >= hi) continue;
        std::vector<int> count(static_cast<size_t>(2 * n + 1), 0);  // values v - n .. v + n
        for (int r = std::max(0, i - p); r <= std::min(h - 1, i + p); ++r)
          for (int q = std::max(0, j - p); q <= std::min(w - 1, j + p); ++q) {
            const int u = img[r][q];
            if (mask[r][q] && u >= lo && u < hi && u >= v - n && u <= v + n)
              ++count[static_cast<size_t>(u - v + n)];
          }
        const int p0 = count[static_cast<size_t>(n)];
        float best = 0.0f;
        for (int d = 1; d <= n; ++d) {
          if (v > st.tvi[static_cast<size_t>(d - 1)] || v + n + d <= st.vlt_luma) continue;
          EXPECT_LT(v + d, hi) << "a query above the band";
          const int m = std::max(count[static_cast<size_t>(n + d)], count[static_cast<size_t>(n - d)]);
          const float val = static_cast<float>(st.weight[static_cast<size_t>(d - 1)] * p0 * m) *
                            recip[static_cast<size_t>(p0 + m)];
          best = std::max(best, val);
        }
        c[static_cast<size_t>(i) * w + j] = best;
      }
    out.push_back(std::move(c));
  }
  return out;
}

// Keeps what the kernel hands to a sink.
class Capture final : public CambiCValueSink {
 public:
  Status write(int scale, unsigned, std::span<const float> c, int w, int h) override {
    EXPECT_EQ(c.size(), static_cast<size_t>(w) * h);
    scales[static_cast<size_t>(scale)].assign(c.begin(), c.end());
    return ok_status();
  }
  std::array<std::vector<float>, kCambiScales> scales;
};

std::vector<uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  b.reserve(v.size());
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

struct Case {
  VideoFormat fmt;
  std::map<std::string, std::string> opts;
};

CambiOptions options_of(const std::map<std::string, std::string>& m) {
  OptionDict dict;
  for (const auto& [k, v] : m) dict.set(k, v);
  const FeatureSpec& spec = cambi_feature_spec();
  auto parsed = Options::parse("cambi", spec.options, dict);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return cambi_options(*parsed);
}

std::string describe(const Case& c) {
  std::string s = std::to_string(c.fmt.w) + "x" + std::to_string(c.fmt.h) + " " +
                  std::string(pix_fmt_name(c.fmt.fmt)) + " " + std::to_string(c.fmt.bpc) + "b";
  for (const auto& [k, v] : c.opts) s += " " + k + "=" + v;
  return s;
}

TEST(Cambi, KernelMatchesDefinition) {
  const Case cases[] = {
      {{216, 16, PixFmt::k420, 8}, {}},
      {{217, 41, PixFmt::k444, 10}, {{"window_size", "127"}, {"max_log_contrast", "5"}}},
      {{250, 33, PixFmt::k422, 9}, {{"max_log_contrast", "3"}, {"topk", "0.05"}}},
      {{231, 60, PixFmt::k420, 11}, {{"enc_bitdepth", "8"}, {"max_log_contrast", "1"}}},
      {{300, 170, PixFmt::k422, 12}, {{"enc_width", "251"}, {"enc_height", "157"}, {"cambi_topk", "1"}}},
      {{230, 200, PixFmt::k400, 16},
       {{"eotf", "pq"}, {"cambi_vis_lum_threshold", "1"}, {"tvi_threshold", "0.001"}}},
      {{333, 216, PixFmt::k444, 8}, {{"cambi_vis_lum_threshold", "0.5"}, {"max_log_contrast", "0"}}},
      {{240, 230, PixFmt::k420, 10},
       {{"full_ref", "true"},
        {"enc_width", "220"},
        {"enc_height", "200"},
        {"src_width", "320"},
        {"src_height", "240"}}},
      {{47, 507, PixFmt::k444, 10}, {{"max_log_contrast", "4"}}},
      {{2076, 1000, PixFmt::k400, 8}, {{"cambi_high_res_speedup", "1080"}}},
  };
  uint64_t seed = 40;
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    const CambiOptions opt = options_of(c.opts);
    auto setup = cambi_setup(opt, c.fmt);
    ASSERT_TRUE(setup.ok()) << setup.status().message();
    const auto pic = make_banded(c.fmt, ++seed);
    std::vector<const CambiPicturePlan*> plans = {&setup->dis};
    if (setup->full_ref) plans.push_back(&setup->src);
    for (const CambiPicturePlan* plan : plans) {
      Capture cap;
      std::array<CambiScaleTerms, kCambiScales> terms{};
      ASSERT_TRUE(cambi_picture_terms_ref(pic->plane(0), c.fmt.bpc, *setup, *plan, 0, &cap, terms).ok());
      auto want = direct_c_values(pic->plane(0), c.fmt.bpc, *setup, *plan);
      bool banding = false;
      for (int s = 0; s < kCambiScales; ++s) {
        ASSERT_EQ(bits_of(cap.scales[s]), bits_of(want[s])) << "scale " << s;
        banding |= std::any_of(want[s].begin(), want[s].end(), [](float v) { return v > 0; });
        const int k = std::clamp(static_cast<int>(setup->topk * static_cast<double>(want[s].size())), 1,
                                 static_cast<int>(want[s].size()));
        EXPECT_EQ(terms[s].topk_count, k);
        EXPECT_EQ(std::bit_cast<uint64_t>(terms[s].topk_sum),
                  std::bit_cast<uint64_t>(cambi_topk_sum(want[s], k)));
      }
      EXPECT_TRUE(banding) << "no c-value above 0: the case tests nothing";
    }
  }
}

// ---- Pooling, tables ----------------------------------------------------------------------

TEST(Cambi, TopkSumFollowsLibvmafQuickSelect) {
  // 100000 floats over 2^-10 .. 2^21 with zeros and repeats; k = 60000. The
  // expected sum came from libvmaf's quick_select + average_topk_elements on
  // the same array; the sum in sorted order differs in the last bits.
  std::vector<float> a(100000);
  uint64_t s = 2024;
  for (size_t i = 0; i < a.size(); ++i) {
    const uint64_t r = splitmix64(s);
    if ((r & 3) == 0)
      a[i] = 0.0f;
    else if (i > 0 && (r >> 2) % 7 == 0)
      a[i] = a[i - 1];
    else
      a[i] = std::ldexp(1.0f + static_cast<float>((r >> 40) & 0x7fffff) / 8388608.0f,
                        static_cast<int>((r >> 8) % 31) - 10);
  }
  std::vector<float> sorted = a;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double sorted_sum = 0;
  for (int i = 0; i < 60000; ++i) sorted_sum += sorted[static_cast<size_t>(i)];
  EXPECT_EQ(std::bit_cast<uint64_t>(sorted_sum), 0x41fb18167deef493u);
  EXPECT_EQ(std::bit_cast<uint64_t>(cambi_topk_sum(a, 60000)), 0x41fb18167deef4d3u);
  // The first k are the k largest, in libvmaf's order.
  std::vector<float> top(a.begin(), a.begin() + 60000);
  std::sort(top.begin(), top.end(), std::greater<>());
  EXPECT_TRUE(std::equal(top.begin(), top.end(), sorted.begin()));

  std::vector<float> small = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  EXPECT_EQ(cambi_topk_sum(small, 6), 32.0);
  EXPECT_EQ(small, (std::vector<float>{6, 9, 4, 5, 5, 3, 3, 2, 1, 1}));
  std::vector<float> all = {1, 2, 3};
  EXPECT_EQ(cambi_topk_sum(all, 3), 6.0);
  EXPECT_EQ(all, (std::vector<float>{1, 2, 3}));  // k == n: no reordering
}

TEST(Cambi, ReciprocalTableIsLibvmafs) {
  const auto& t = cambi_reciprocal_table();
  // Where libvmaf's 9-digit literals are not 1.0f / i (bits of its table).
  const std::map<int, uint32_t> differ = {
      {82, 0x3c47ce0d},   {83, 0x3c4565c9},   {244, 0x3b864b8b},  {488, 0x3b064b8b},  {504, 0x3b020820},
      {510, 0x3b008080},  {528, 0x3af83e0f},  {564, 0x3ae865ad},  {614, 0x3ad578ea},  {664, 0x3ac565c9},
      {749, 0x3aaefef9},  {760, 0x3aac7691},  {892, 0x3a92f113},  {1419, 0x3a38bd12}, {1699, 0x3a1a4b0a},
      {1906, 0x3a098945}, {2040, 0x3a008080}, {2071, 0x39fd282c}, {2112, 0x39f83e0f}, {2223, 0x39ebd8d8},
      {2443, 0x39d69bb8}, {2555, 0x39cd3366}, {2740, 0x39bf5893}, {2927, 0x39b31f0c}, {3285, 0x399f99c1},
      {3515, 0x39952846}, {3525, 0x3994bbf3}, {3705, 0x398d821b}, {3795, 0x398a26fd}, {3797, 0x398a145c},
      {3812, 0x39898945}, {3837, 0x3988a3dc}, {3885, 0x3986f3ad}, {4033, 0x3981ffdf}, {4080, 0x39808080},
      {4091, 0x3980280c}, {4095, 0x39800800}, {4130, 0x397de47b}, {4142, 0x397d282c}, {4203, 0x39797b95},
      {4218, 0x39789875}, {4224, 0x39783e0f}};
  EXPECT_EQ(t[0], 0.0f);
  uint64_t fnv = 1469598103934665603ull;
  for (int i = 0; i < kCambiReciprocals; ++i) {
    const uint32_t b = std::bit_cast<uint32_t>(t[static_cast<size_t>(i)]);
    for (int k = 0; k < 4; ++k) fnv = (fnv ^ ((b >> (8 * k)) & 255)) * 1099511628211ull;
    if (i == 0) continue;
    const auto it = differ.find(i);
    if (it != differ.end()) {
      EXPECT_EQ(b, it->second) << i;
    } else {
      EXPECT_EQ(t[static_cast<size_t>(i)], 1.0f / static_cast<float>(i)) << i;
    }
  }
  // FNV-1a 64 over the little-endian bits of libvmaf's 4226 entries.
  EXPECT_EQ(fnv, 0x36ab76305b81811eu);
}

TEST(Cambi, NonzeroCValuesAreAtLeastOneHalf) {
  // The order-free route of cambi.h: every nonzero c-value is >= 0.5, so a
  // multiple of 2^-24. Weight 1 is the smallest; every reachable (H, m).
  const auto& recip = cambi_reciprocal_table();
  float smallest = 1e9f;
  for (int p0 = 1; p0 < kCambiReciprocals; ++p0)
    for (int m = 1; p0 + m < kCambiReciprocals; ++m)
      smallest = std::min(smallest, static_cast<float>(p0 * m) * recip[static_cast<size_t>(p0 + m)]);
  EXPECT_EQ(smallest, 0.5f);
}

TEST(Cambi, LuminanceAndTvi) {
  EXPECT_EQ(cambi_luminance(940, CambiEotf::kBt1886), 300.0);  // vis_lum_threshold's maximum is reachable
  EXPECT_EQ(cambi_luminance(2000, CambiEotf::kBt1886), 300.0);
  EXPECT_NEAR(cambi_luminance(64, CambiEotf::kBt1886), 0.01, 1e-12);
  EXPECT_EQ(cambi_luminance(0, CambiEotf::kPq), 0.0);
  EXPECT_EQ(cambi_luminance(940, CambiEotf::kPq), 10000.0);
  auto s = cambi_setup(options_of({}), {1920, 1080, PixFmt::k420, 10});
  ASSERT_TRUE(s.ok());
  // Visibility thresholds grow with the step; vlt 0 -> 0.
  for (int d = 1; d < s->num_diffs; ++d)
    EXPECT_LE(s->tvi[static_cast<size_t>(d - 1)], s->tvi[static_cast<size_t>(d)]);
  EXPECT_GT(s->tvi[0], 64);
  EXPECT_LT(s->tvi[3], 940);
  EXPECT_EQ(s->vlt_luma, 0);
  EXPECT_EQ(s->dis.window, 33);  // ((65 * 3000) / 375) >> 4 = 32, made odd
  auto v = cambi_setup(options_of({{"cambi_vis_lum_threshold", "10"}}), {1920, 1080, PixFmt::k420, 10});
  ASSERT_TRUE(v.ok());
  EXPECT_GT(v->vlt_luma, 64);
  EXPECT_GE(cambi_luminance(v->vlt_luma, CambiEotf::kBt1886), 10.0);
  EXPECT_LT(cambi_luminance(v->vlt_luma - 1, CambiEotf::kBt1886), 10.0);
}

// ---- The extractor --------------------------------------------------------------------------

struct CambiRun {
  Status init;
  std::unique_ptr<Extractor> ext;
  Collector col;
};

CambiRun make_run(const std::map<std::string, std::string>& m, const VideoFormat& fmt) {
  CambiRun r;
  OptionDict dict;
  for (const auto& [k, v] : m) dict.set(k, v);
  const FeatureSpec& spec = cambi_feature_spec();
  auto opts = Options::parse("cambi", spec.options, dict);
  if (!opts.ok()) {
    r.init = opts.status();
    return r;
  }
  auto ext = spec.create(*opts);
  EXPECT_TRUE(ext.ok());
  r.ext = std::move(*ext);
  r.init = r.ext->init(fmt);
  return r;
}

Status score(CambiRun& r, unsigned index, const Picture& ref, const Picture& dis) {
  auto terms = r.ext->make_terms();
  FrameInput in;
  in.index = index;
  in.ref = &ref;
  in.dis = &dis;
  TWINMAF_RETURN_IF_ERROR(r.ext->compute(in, *terms));
  auto again = r.ext->make_terms();
  TWINMAF_RETURN_IF_ERROR(r.ext->compute(in, *again));
  EXPECT_TRUE(terms->same_as(*again));
  return r.ext->finish(index, *terms, r.col);
}

std::vector<std::string> names(const Collector& c) {
  std::vector<std::string> n;
  for (const auto& col : c.columns()) n.push_back(col.name);
  return n;
}

TEST(Cambi, SpecNamesAndNeeds) {
  const FeatureSpec& spec = cambi_feature_spec();
  EXPECT_EQ(spec.name, "cambi");
  ASSERT_EQ(spec.provided.size(), 1u);
  EXPECT_EQ(spec.provided[0], "Cambi_feature_cambi_score");
  EXPECT_EQ(find_feature_providing("Cambi_feature_cambi_score"), &spec);
  const auto& reg = feature_registry();
  ASSERT_FALSE(reg.empty());
  EXPECT_EQ(reg.back(), &spec);  // libvmaf: cambi after vif
  EXPECT_EQ(reg[reg.size() - 2]->name, "vif");

  const VideoFormat fmt{240, 216, PixFmt::k420, 8};
  const auto pic = make_banded(fmt, 7);
  CambiRun plain = make_run({}, fmt);
  ASSERT_TRUE(plain.init.ok()) << plain.init.message();
  EXPECT_EQ(plain.ext->needs().ref, Planes::kNone);
  EXPECT_EQ(plain.ext->needs().dis, Planes::kLuma);
  EXPECT_FALSE(plain.ext->needs().every_frame());
  ASSERT_TRUE(score(plain, 0, *pic, *pic).ok());
  EXPECT_EQ(names(plain.col), std::vector<std::string>{"Cambi_feature_cambi_score"});

  // libvmaf's own example name (feature_name.c), and full_ref's unsuffixed extras.
  CambiRun named = make_run({{"cambi_high_res_speedup", "1080"},
                             {"cambi_max_val", "17"},
                             {"cambi_vis_lum_threshold", "0.06"},
                             {"full_ref", "true"}},
                            fmt);
  ASSERT_TRUE(named.init.ok()) << named.init.message();
  EXPECT_EQ(named.ext->needs().ref, Planes::kLuma);
  ASSERT_TRUE(score(named, 0, *pic, *pic).ok());
  EXPECT_EQ(names(named.col), (std::vector<std::string>{"cambi_hrs_1080_cmxv_17_vlt_0.06", "cambi_source",
                                                        "cambi_full_reference"}));
  // Identical inputs: the reference scores as the distorted one, the difference is 0.
  const double d = *named.col.get("cambi_hrs_1080_cmxv_17_vlt_0.06", 0);
  EXPECT_GT(d, 0.0);
  EXPECT_EQ(*named.col.get("cambi_source", 0), d);
  EXPECT_EQ(*named.col.get("cambi_full_reference", 0), 0.0);

  CambiRun other =
      make_run({{"topk", "0.3"}, {"cambi_topk", "0.8"}, {"eotf", "pq"}, {"window_size", "33"}}, fmt);
  ASSERT_TRUE(other.init.ok());
  ASSERT_TRUE(score(other, 0, *pic, *pic).ok());
  EXPECT_EQ(names(other.col), std::vector<std::string>{"cambi_ctpk_0.8_eotf_pq_topk_0.3_ws_33"});
}

TEST(Cambi, OptionPrecedenceAndClipping) {
  const VideoFormat fmt{260, 220, PixFmt::k420, 10};
  const auto pic = make_banded(fmt, 11);
  const auto value = [&](const std::map<std::string, std::string>& m) {
    CambiRun r = make_run(m, fmt);
    EXPECT_TRUE(r.init.ok()) << r.init.message();
    EXPECT_TRUE(score(r, 0, *pic, *pic).ok());
    return r.col.columns().at(0).values.at(0);
  };
  const double base = value({});
  EXPECT_GT(base, 0.0);
  // topk wins when not 0.6; cambi_topk otherwise.
  EXPECT_EQ(value({{"topk", "0.2"}, {"cambi_topk", "0.9"}}), value({{"cambi_topk", "0.2"}}));
  EXPECT_NE(value({{"cambi_topk", "0.2"}}), base);
  // cambi_eotf wins when not bt1886.
  EXPECT_EQ(value({{"eotf", "bt1886"}, {"cambi_eotf", "pq"}}), value({{"eotf", "pq"}}));
  EXPECT_EQ(value({{"eotf", "pq"}, {"cambi_eotf", "bt1886"}}), value({{"eotf", "pq"}}));
  auto bt = cambi_setup(options_of({}), fmt), pq = cambi_setup(options_of({{"eotf", "pq"}}), fmt);
  ASSERT_TRUE(bt.ok() && pq.ok());
  EXPECT_NE(bt->tvi, pq->tvi);
  // Only one of enc_width/enc_height: the input size (libvmaf's rule).
  EXPECT_EQ(value({{"enc_width", "200"}}), base);
  // Clipping at cambi_max_val.
  EXPECT_EQ(value({{"cambi_max_val", "0"}}), 0.0);
  EXPECT_EQ(value({{"cambi_max_val", "1000"}}), base);
}

TEST(Cambi, EveryDepthAndLayout) {
  // Scores depend on luma only; noise has no flat area (0), banded plateaus
  // score above 0; no size from the minimum up fails.
  const int depths[] = {8, 9, 10, 11, 12, 16};
  const PixFmt fmts[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
  const int sizes[][2] = {{216, 16}, {217, 1}, {1, 216}, {215, 217}, {257, 219}};
  uint64_t seed = 100;
  for (int bpc : depths)
    for (auto& sz : sizes) {
      double first = -1;
      for (PixFmt f : fmts) {
        const VideoFormat fmt{sz[0], sz[1], f, bpc};
        SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " +
                     std::string(pix_fmt_name(f)) + " " + std::to_string(bpc) + "b");
        CambiRun r = make_run({{"full_ref", "true"}}, fmt);
        ASSERT_TRUE(r.init.ok()) << r.init.message();
        const auto banded = make_banded(fmt, seed);  // same luma for every layout
        const auto noise = make_noise(fmt, seed + 1);
        ASSERT_TRUE(score(r, 0, *noise, *banded).ok());
        ASSERT_TRUE(score(r, 1, *banded, *noise).ok());
        const double b = *r.col.get("Cambi_feature_cambi_score", 0);
        EXPECT_EQ(*r.col.get("Cambi_feature_cambi_score", 1), 0.0);
        EXPECT_EQ(*r.col.get("cambi_source", 1), b);
        EXPECT_EQ(*r.col.get("cambi_full_reference", 1), 0.0);
        EXPECT_EQ(*r.col.get("cambi_full_reference", 0), b);
        if (first < 0) first = b;
        EXPECT_EQ(b, first) << "luma-only score changed with the layout";
        // One row: no 7x7 window can hold more than 7 flags, the mask never fires.
        if (sz[1] > 1 && sz[0] > 1) {
          EXPECT_GT(b, 0.0);
        }
      }
      seed += 2;
    }
}

TEST(Cambi, InitLimits) {
  const auto fails = [](const std::map<std::string, std::string>& m, const VideoFormat& fmt,
                        const std::string& needle) {
    CambiRun r = make_run(m, fmt);
    ASSERT_FALSE(r.init.ok()) << needle;
    EXPECT_EQ(r.init.message().rfind("cambi", 0), 0u) << r.init.message();
    EXPECT_NE(r.init.message().find(needle), std::string::npos) << r.init.message();
    EXPECT_EQ(r.init.message().find('\n'), std::string::npos);
  };
  // libvmaf's init failures.
  for (auto [w, h] : {std::pair{1, 1}, {3, 3}, {64, 48}, {215, 215}})
    fails({}, {w, h, PixFmt::k420, 8}, "at least 216");
  fails({{"enc_width", "200"}, {"enc_height", "180"}}, {576, 324, PixFmt::k420, 8}, "at least 216");
  fails({{"src_width", "320"}, {"src_height", "1080"}, {"enc_width", "960"}, {"enc_height", "540"}},
        {1920, 1080, PixFmt::k420, 8}, "must not be larger in one dimension");
  fails({{"eotf", "hlg"}}, {576, 324, PixFmt::k420, 8}, "unknown eotf 'hlg'");
  fails({{"cambi_eotf", "x"}}, {576, 324, PixFmt::k420, 8}, "unknown eotf 'x'");
  fails({{"src_width", "7680"}, {"src_height", "4320"}}, {1920, 1080, PixFmt::k420, 8}, "131-pixel window");
  fails({{"window_size", "127"}}, {3840, 2160, PixFmt::k420, 8}, "127-pixel window");
  // Where libvmaf reads or writes outside its buffers.
  fails({}, {4000, 20, PixFmt::k420, 8}, "needs at least 21x21");
  fails({}, {692, 48, PixFmt::k420, 8}, "needs at least 4x4");
  fails({{"cambi_vis_lum_threshold", "300"}}, {576, 324, PixFmt::k420, 8}, "no value can band");
  fails({{"full_ref", "true"}, {"src_width", "1940"}, {"src_height", "1080"}}, {1920, 1080, PixFmt::k420, 10},
        "src_width 1940 above the input width 1920");
  fails({{"heatmaps_path", "/proc/none/cambi"}}, {576, 324, PixFmt::k420, 8}, "heatmaps_path");
  // Option ranges.
  for (const auto& [k, v] : std::map<std::string, std::string>{{"enc_width", "179"},
                                                               {"window_size", "14"},
                                                               {"topk", "0"},
                                                               {"max_log_contrast", "6"},
                                                               {"cambi_high_res_speedup", "2161"}})
    fails({{k, v}}, {576, 324, PixFmt::k420, 8}, k);
  // Accepted at the limits: the exact window fits (p x p at scale 4), one of
  // the sizes is enough, speedup below its threshold is ignored.
  for (const auto& [fmt, m] : std::vector<std::pair<VideoFormat, std::map<std::string, std::string>>>{
           {{678, 61, PixFmt::k420, 8}, {}},
           {{216, 1, PixFmt::k420, 8}, {}},
           {{47, 507, PixFmt::k444, 8}, {}},
           {{3840, 2160, PixFmt::k420, 8}, {}},
           {{1920, 1080, PixFmt::k420, 10},
            {{"full_ref", "true"}, {"src_width", "1900"}, {"src_height", "1000"}}},
           {{1920, 1080, PixFmt::k420, 8},
            {{"full_ref", "true"}, {"src_width", "2000"}, {"src_height", "1100"}}},
       }) {
    CambiRun r = make_run(m, fmt);
    EXPECT_TRUE(r.init.ok()) << fmt.w << "x" << fmt.h << ": " << r.init.message();
  }
  auto s = cambi_setup(options_of({{"cambi_high_res_speedup", "1440"}}), {1920, 1080, PixFmt::k420, 8});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->dis.speedup);
  s = cambi_setup(options_of({{"cambi_high_res_speedup", "1080"}}), {1920, 1080, PixFmt::k420, 8});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->dis.speedup);
  EXPECT_EQ(s->dis.window, 17);  // (32 + 1) >> 1, made odd
  EXPECT_EQ(s->dis.scaled(s->dis.w, 0), 960);
  EXPECT_EQ(s->dis.scaled(s->dis.h, 4), 34);
}

// ---- Heatmaps ---------------------------------------------------------------------------------

std::vector<char> slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

TEST(Cambi, HeatmapsAreLibvmafsFiles) {
  // tests/data/cambi: libvmaf's heatmaps (--subsample 2, frames 0 and 2 of 3,
  // window_size=127:max_log_contrast=3) of this 216x24 8-bit clip:
  //   Y(x, y, f) = 60 + (x + 5f + y / 6) / 9 + ((7x + 13y + 3f) % 23 == 0), chroma 128.
  const std::filesystem::path data =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "cambi";
  ASSERT_TRUE(std::filesystem::exists(data)) << data;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "cambi_heatmaps" / "nested";
  std::filesystem::remove_all(dir.parent_path());
  const VideoFormat fmt{216, 24, PixFmt::k420, 8};
  CambiRun r =
      make_run({{"window_size", "127"}, {"max_log_contrast", "3"}, {"heatmaps_path", dir.string()}}, fmt);
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  const double want[3] = {16.889123162787985, 0, 16.93528511096408};  // libvmaf's scores
  for (unsigned f : {0u, 2u}) {
    auto pic = make_picture(fmt);
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 216; ++x)
        put(*pic, 0, x, y,
            60 + (x + 5 * static_cast<int>(f) + y / 6) / 9 +
                ((7 * x + 13 * y + 3 * static_cast<int>(f)) % 23 == 0));
    ASSERT_TRUE(score(r, f, *pic, *pic).ok());
    EXPECT_EQ(*r.col.get("cambi_mlc_3_ws_127", f), want[f]);
  }
  r.ext.reset();  // closes the files
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(data)) {
    const std::vector<char> expected = slurp(e.path());
    ASSERT_GT(expected.size(), 0u);
    EXPECT_TRUE(slurp(dir / e.path().filename()) == expected) << e.path().filename();
    ++files;
  }
  EXPECT_EQ(files, kCambiScales);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), kCambiScales);
}

}  // namespace
}  // namespace twinmaf
