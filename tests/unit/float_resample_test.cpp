// features/common/float_resample: libvmaf's four resamplers. The library
// computes indices and weights once per column and per row; the reference
// here recomputes them for every pixel, as libvmaf's vif_tools.c does, with
// bounds-checked reads. Both must give the same bits at every size from the
// smallest each method supports, up- and downscaling.
#include "features/common/float_resample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "base/hd_math.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Image {
  int w, h;
  std::vector<float> px;
  float at(int y, int x) const {
    if (x < 0 || x >= w || y < 0 || y >= h) throw std::out_of_range("resampler read outside");
    return px[static_cast<size_t>(y) * w + x];
  }
};

float mirror(float i, float left, float right) {
  return i < left ? -i : (i > right ? 2 * right - i : i);
}

float cubic(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos(float x, float a) {
  if (x == 0.0) return 1.0;
  if (x > -a && x < a)
    return static_cast<float>(a * std::sin(kPi * x) * std::sin(kPi * x / a) / (kPi * kPi * x * x));
  return 0.0;
}

// libvmaf's per-pixel formulation of each method.
float reference_pixel(ResampleMethod m, const Image& s, int dw, int dh, int x, int y) {
  const float rx = static_cast<float>(s.w) / dw;
  const float ry = static_cast<float>(s.h) / dh;
  if (m == ResampleMethod::kNearest)
    return s.at(static_cast<int>(y * ry), static_cast<int>(x * rx));
  const float xx = static_cast<float>((x + 0.5) * rx - 0.5);
  const float yy = static_cast<float>((y + 0.5) * ry - 0.5);
  if (m == ResampleMethod::kBilinear) {
    const int x1 = static_cast<int>(mirror(static_cast<float>(std::floor(xx)), 0, s.w - 1));
    const int x2 = static_cast<int>(mirror(static_cast<float>(std::ceil(xx)), 0, s.w - 1));
    const float dx = xx - x1;
    const int y1 = static_cast<int>(mirror(static_cast<float>(std::floor(yy)), 0, s.h - 1));
    const int y2 = static_cast<int>(mirror(static_cast<float>(std::ceil(yy)), 0, s.h - 1));
    const float dy = yy - y1;
    return (1 - dy) * (1 - dx) * s.at(y1, x1) + (1 - dy) * dx * s.at(y1, x2) +
           dy * (1 - dx) * s.at(y2, x1) + dy * dx * s.at(y2, x2);
  }
  const int x0 = static_cast<int>(std::floor(xx));
  const int y0 = static_cast<int>(std::floor(yy));
  const float dx = xx - x0;
  const float dy = yy - y0;
  if (m == ResampleMethod::kBicubic) {
    float v = 0;
    for (int j = -1; j <= 2; ++j)
      for (int i = -1; i <= 2; ++i) {
        const float wgt = cubic(i - dx) * cubic(j - dy);
        v += s.at(static_cast<int>(mirror(y0 + j, 0, s.h - 1)),
                  static_cast<int>(mirror(x0 + i, 0, s.w - 1))) *
             wgt;
      }
    return v;
  }
  float v = 0;
  float ws = 0;
  for (int j = -4; j <= 4; ++j)
    for (int i = -4; i <= 4; ++i) {
      const float wgt = lanczos(i - dx, 4.0f) * lanczos(j - dy, 4.0f);
      ws += wgt;
      v += s.at(static_cast<int>(mirror(y0 + j, 0, s.h - 1)),
                static_cast<int>(mirror(x0 + i, 0, s.w - 1))) *
           wgt;
    }
  return v / ws;
}

Image noise(int w, int h, uint64_t seed) {
  Image im{w, h, std::vector<float>(static_cast<size_t>(w) * h)};
  for (float& v : im.px)
    v = static_cast<float>(test::splitmix64(seed) >> 54) / 4.0f - 128.0f;  // 10 bit
  return im;
}

TEST(FloatResample, NamesAreLibvmafs) {
  EXPECT_EQ(parse_resample_method("nearest"), ResampleMethod::kNearest);
  EXPECT_EQ(parse_resample_method("bilinear"), ResampleMethod::kBilinear);
  EXPECT_EQ(parse_resample_method("bicubic"), ResampleMethod::kBicubic);
  EXPECT_EQ(parse_resample_method("lanczos4"), ResampleMethod::kLanczos4);
  EXPECT_FALSE(parse_resample_method("lanczos").has_value());
  EXPECT_FALSE(parse_resample_method("Bilinear").has_value());
  EXPECT_FALSE(parse_resample_method("").has_value());
}

TEST(FloatResample, EveryMethodEqualsPerPixelFormulation) {
  struct M {
    ResampleMethod m;
    int min_size;
  };
  const M methods[] = {{ResampleMethod::kNearest, 1},
                       {ResampleMethod::kBilinear, 2},
                       {ResampleMethod::kBicubic, 3},
                       {ResampleMethod::kLanczos4, 6}};
  uint64_t seed = 5;
  int cases = 0;
  for (const M& m : methods)
    for (int sw : {m.min_size, m.min_size + 1, 20, 37})
      for (int sh : {m.min_size, 23})
        for (double f : {0.25, 0.5, 0.6, 0.75, 1.3, 2.0, 3.7})
          for (int stride_pad : {0, 3}) {
            const int dw = static_cast<int>(sw * f + 0.5);
            const int dh = static_cast<int>(sh * f + 0.5);
            // The resamplers take ratios >= 0.25 (speed_prescale <= 4).
            if (dw < 1 || dh < 1 || static_cast<double>(sw) / dw < 0.25 ||
                static_cast<double>(sh) / dh < 0.25)
              continue;
            const Image src = noise(sw, sh, seed++);
            std::vector<float> padded_src(static_cast<size_t>(sw + stride_pad) * sh, 1e30f);
            for (int y = 0; y < sh; ++y)
              std::memcpy(&padded_src[static_cast<size_t>(y) * (sw + stride_pad)],
                          &src.px[static_cast<size_t>(y) * sw], sizeof(float) * sw);
            const int ds = dw + stride_pad;
            std::vector<float> got(static_cast<size_t>(ds) * dh, -7.0f);
            resample_plane(m.m, padded_src.data(), sw + stride_pad, sw, sh, got.data(), ds, dw, dh);
            double energy = 0;
            for (int y = 0; y < dh; ++y)
              for (int x = 0; x < dw; ++x) {
                float want = 0;
                if (sw == dw && sh == dh) {
                  want = src.at(y, x);
                } else {
                  ASSERT_NO_THROW(want = reference_pixel(m.m, src, dw, dh, x, y))
                      << static_cast<int>(m.m) << " " << sw << "x" << sh << " -> " << dw << "x"
                      << dh;
                }
                ASSERT_EQ(float_bits(got[static_cast<size_t>(y) * ds + x]), float_bits(want))
                    << "method " << static_cast<int>(m.m) << " " << sw << "x" << sh << " -> " << dw
                    << "x" << dh << " at " << x << "," << y;
                energy += std::fabs(want);
              }
            ASSERT_GT(energy, 0.0);
            for (int y = 0; y < dh; ++y)  // stride padding untouched
              for (int x = dw; x < ds; ++x) ASSERT_EQ(got[static_cast<size_t>(y) * ds + x], -7.0f);
            ++cases;
          }
  EXPECT_GT(cases, 150);
}

TEST(FloatResample, ConstantImagesStayNearlyConstant) {
  const Image flat{40, 30, std::vector<float>(1200, 12.5f)};
  for (ResampleMethod m : {ResampleMethod::kNearest, ResampleMethod::kBilinear,
                           ResampleMethod::kBicubic, ResampleMethod::kLanczos4})
    for (double f : {0.5, 1.7}) {
      const int dw = static_cast<int>(40 * f + 0.5);
      const int dh = static_cast<int>(30 * f + 0.5);
      std::vector<float> out(static_cast<size_t>(dw) * dh);
      resample_plane(m, flat.px.data(), 40, 40, 30, out.data(), dw, dw, dh);
      for (float v : out) ASSERT_NEAR(v, 12.5, 12.5 * 1e-5) << static_cast<int>(m);
    }
}

}  // namespace
}  // namespace twinmaf
