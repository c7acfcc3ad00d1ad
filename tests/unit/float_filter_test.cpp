// features/common/float_filter: kernel scales, filter sizes, Gaussian taps
// (against libvmaf's test tables, test/test_vif_tools.c), and the separable
// reflect-101 filter against an independent padded-image formulation, bit
// for bit, at every size from the smallest its radius allows.
#include "features/common/float_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/hd_math.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

TEST(FloatFilterKernelscale, LibvmafsTwentyOneValuesWithinOneThousandth) {
  ASSERT_EQ(valid_kernelscales().size(), 21u);
  for (float v : valid_kernelscales()) EXPECT_TRUE(kernelscale_is_valid(v)) << v;
  // Option text is normalised to 6 significant digits before it becomes a
  // double: the printed forms must still be accepted.
  for (float v : {0.444444f, 0.666667f, 3.71134f, 1.33333f, 1.16667f, 1.41667f, 1.66667f})
    EXPECT_TRUE(kernelscale_is_valid(v)) << v;
  EXPECT_TRUE(kernelscale_is_valid(1.0009f));
  EXPECT_FALSE(kernelscale_is_valid(1.0011f));
  EXPECT_FALSE(kernelscale_is_valid(0.3f));
  EXPECT_FALSE(kernelscale_is_valid(4.0f));
  EXPECT_FALSE(kernelscale_is_valid(2.5f));
}

TEST(FloatFilterSize, OddCeilingOfScaledWidthAtLeastThree) {
  // (scale, kernelscale) -> size; the base widths are 17, 9, 5, 3, 2.
  struct Case {
    int scale;
    float ks;
    int size;
  };
  const Case cases[] = {
      {0, 1.0f, 17},          {1, 1.0f, 9},
      {2, 1.0f, 5},           {3, 1.0f, 3},
      {4, 1.0f, 3},           {1, 0.5f, 5},
      {4, 0.5f, 3},           {1, 2.0f, 19},
      {4, 2.0f, 5},           {1, 360.0f / 97.0f, 35},
      {4, 360.0f / 97.0f, 9}, {1, 3.0f, 27},
      {4, 3.0f, 7},           {0, 3.0f, 51},
      {1, 1.0f / 2.25f, 5},   {0, 1.5f, 27},
      {1, 1.06667f, 11},
  };
  for (const Case& c : cases)
    EXPECT_EQ(gaussian_filter_size(c.scale, c.ks), c.size) << c.scale << " " << c.ks;
}

// libvmaf's test tables (test_vif_tools.c) hold these taps to 1e-6.
TEST(FloatFilterTaps, MatchLibvmafsTables) {
  const std::vector<float> s1 = vif_gaussian_filter(1, 1.0f);
  const float want1[9] = {0.0189780835f, 0.0558981746f, 0.120920904f,  0.192116052f, 0.224173605f,
                          0.192116052f,  0.120920904f,  0.0558981746f, 0.0189780835f};
  ASSERT_EQ(s1.size(), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(s1[i], want1[i], 1e-6) << i;
  const std::vector<float> s4 = vif_gaussian_filter(4, 1.0f);
  ASSERT_EQ(s4.size(), 3u);
  EXPECT_NEAR(s4[0], 0.16637851056992242, 1e-6);
  EXPECT_NEAR(s4[1], 0.6672429788601552, 1e-6);
  const std::vector<float> s2 = vif_gaussian_filter(2, 2.0f / 3.0f);  // 5 taps
  const float want2[5] = {0.054488684549642945f, 0.24420134200323335f, 0.40261994689424746f,
                          0.24420134200323335f, 0.054488684549642945f};
  ASSERT_EQ(s2.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(s2[i], want2[i], 1e-6) << i;
}

TEST(FloatFilterTaps, SymmetricNormalisedAndDecreasingFromTheCentre) {
  for (int size : {3, 5, 9, 17, 35, 65})
    for (float stdev : {0.6f, 1.8f, 3.6f, 13.0f}) {
      const std::vector<float> t = gaussian_taps(size, stdev);
      ASSERT_EQ(static_cast<int>(t.size()), size);
      double sum = 0;
      for (int i = 0; i < size; ++i) {
        EXPECT_EQ(float_bits(t[i]), float_bits(t[size - 1 - i])) << size << " " << i;
        if (i > 0 && i <= size / 2) {
          EXPECT_GE(t[i], t[i - 1]);  // far tails of narrow kernels underflow to 0
        }
        sum += t[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << size << " " << stdev;
      EXPECT_GT(t[size / 2], t[0]);
    }
}

// The same filter written another way: pad the image by reflect-101 into a
// larger buffer, run the vertical pass over the whole image into a second
// buffer, then the horizontal pass. Same products, same order, so the same
// bits.
std::vector<float> padded_filter(const std::vector<float>& taps, const std::vector<float>& img,
                                 int w, int h) {
  const int r = static_cast<int>(taps.size()) / 2;
  const int pw = w + 2 * r;
  std::vector<float> pad(static_cast<size_t>(pw) * (h + 2 * r));
  for (int y = -r; y < h + r; ++y)
    for (int x = -r; x < w + r; ++x) {
      const int sy = y < 0 ? -y : (y > h - 1 ? 2 * (h - 1) - y : y);
      const int sx = x < 0 ? -x : (x > w - 1 ? 2 * (w - 1) - x : x);
      pad[static_cast<size_t>(y + r) * pw + (x + r)] = img[static_cast<size_t>(sy) * w + sx];
    }
  std::vector<float> vert(static_cast<size_t>(pw) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < pw; ++x) {
      float acc = 0;
      for (size_t k = 0; k < taps.size(); ++k) acc += taps[k] * pad[(y + k) * pw + x];
      vert[static_cast<size_t>(y) * pw + x] = acc;
    }
  std::vector<float> out(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      for (size_t k = 0; k < taps.size(); ++k)
        acc += taps[k] * vert[static_cast<size_t>(y) * pw + x + k];
      out[static_cast<size_t>(y) * w + x] = acc;
    }
  return out;
}

std::vector<float> noise_image(int w, int h, uint64_t seed) {
  std::vector<float> img(static_cast<size_t>(w) * h);
  for (float& v : img)
    v = static_cast<float>(test::splitmix64(seed) >> 48) / 256.0f - 128.0f;  // bpc-16 samples
  return img;
}

TEST(FloatFilterSeparable, EqualsPaddedFormulationBitForBit) {
  uint64_t seed = 11;
  for (int size : {3, 9, 19, 35}) {
    const std::vector<float> taps = gaussian_taps(size, static_cast<float>(size) / 5.0f);
    const int r = size / 2;
    for (int h : {r + 1, r + 2, 2 * r + 3, 40})
      for (int w : {r + 1, r + 3, 57}) {
        const std::vector<float> img = noise_image(w, h, seed++);
        const std::vector<float> want = padded_filter(taps, img, w, h);
        std::vector<float> got(static_cast<size_t>(w) * h, -1.0f);
        filter_plane(taps, img.data(), w, w, h, got.data(), w);
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
            << "size " << size << " " << w << "x" << h;
        double energy = 0;
        for (float v : got) energy += std::fabs(v);
        ASSERT_GT(energy, 0.0);
      }
  }
}

TEST(FloatFilterSeparable, DecimatedOutputIsTheSampledFullOutput) {
  const std::vector<float> taps = gaussian_taps(9, 3.6f);
  for (int step : {2, 5, 16})
    for (int w : {80, 97, 161})
      for (int h : {80, 83, 130}) {
        const std::vector<float> img =
            noise_image(w, h, 1000u + static_cast<uint64_t>(w * h * step));
        std::vector<float> full(static_cast<size_t>(w) * h);
        filter_plane(taps, img.data(), w, w, h, full.data(), w);
        const int ow = w / step;
        const int oh = h / step;
        std::vector<float> dec(static_cast<size_t>(ow) * oh);
        std::vector<float> scratch(2 * static_cast<size_t>(w));
        // Rows handed over through the scratch buffer this time.
        filter_separable(
            taps, w, h, step,
            [&](int y, float* buf) {
              std::copy(&img[static_cast<size_t>(y) * w], &img[static_cast<size_t>(y + 1) * w],
                        buf);
              return static_cast<const float*>(buf);
            },
            dec.data(), ow, scratch.data());
        for (int y = 0; y < oh; ++y)
          for (int x = 0; x < ow; ++x)
            ASSERT_EQ(float_bits(dec[static_cast<size_t>(y) * ow + x]),
                      float_bits(full[static_cast<size_t>(y) * step * w + x * step]))
                << step << " " << w << "x" << h << " at " << x << "," << y;
      }
}

TEST(FloatFilterSeparable, ConstantImageStaysConstantToRounding) {
  const std::vector<float> taps = vif_gaussian_filter(1, 1.0f);
  const int w = 33, h = 21;
  std::vector<float> img(static_cast<size_t>(w) * h, 77.25f);
  std::vector<float> out(img.size());
  filter_plane(taps, img.data(), w, w, h, out.data(), w);
  for (float v : out) EXPECT_NEAR(v, 77.25, 77.25 * 4e-7);
}

}  // namespace
}  // namespace twinmaf
