// Float image resampling (contract: float_resample.h).
#include "features/common/float_resample.h"

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/assert.h"

namespace twinmaf {

namespace {

constexpr double kPi = 3.14159265358979323846;

// One reflection about 0 and `last`, in float, as an index.
int mirror(float i, int last) {
  const float r = static_cast<float>(last);
  return static_cast<int>(i < 0 ? -i : (i > r ? 2 * r - i : i));
}

// Source coordinate of output sample x: (x + 0.5) * ratio - 0.5 in double,
// rounded to float.
float source_position(int x, float ratio) {
  return static_cast<float>((x + 0.5) * static_cast<double>(ratio) - 0.5);
}

float keys_cubic(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos4(float t) {
  const float a = 4.0f;
  if (t == 0.0) return 1.0f;
  if (t > -a && t < a)
    return static_cast<float>(a * std::sin(kPi * t) * std::sin(kPi * t / a) / (kPi * kPi * t * t));
  return 0.0f;
}

struct LinearTap {
  int i1 = 0;
  int i2 = 0;
  float d = 0;
};

LinearTap linear_tap(int x, float ratio, int n) {
  const float p = source_position(x, ratio);
  LinearTap t;
  t.i1 = mirror(static_cast<float>(std::floor(static_cast<double>(p))), n - 1);
  t.i2 = mirror(static_cast<float>(std::ceil(static_cast<double>(p))), n - 1);
  t.d = p - static_cast<float>(t.i1);
  TWINMAF_DASSERT(t.i1 >= 0 && t.i1 < n && t.i2 >= 0 && t.i2 < n);
  return t;
}

// Source indices and weights of taps kFirst..kLast around one output
// coordinate (bicubic: -1..2, lanczos4: -4..4).
template <int kFirst, int kLast>
struct Window {
  static constexpr int kTaps = kLast - kFirst + 1;
  std::array<int, kTaps> idx{};
  std::array<float, kTaps> w{};
};

template <int kFirst, int kLast, class Kernel>
Window<kFirst, kLast> window(int x, float ratio, int n, const Kernel& kernel) {
  const float p = source_position(x, ratio);
  const int x0 = static_cast<int>(std::floor(static_cast<double>(p)));
  const float d = p - static_cast<float>(x0);
  Window<kFirst, kLast> win;
  for (int i = kFirst; i <= kLast; ++i) {
    win.w[i - kFirst] = kernel(static_cast<float>(i) - d);
    const int m = mirror(static_cast<float>(x0 + i), n - 1);
    TWINMAF_DASSERT(m >= 0 && m < n);
    win.idx[i - kFirst] = m;
  }
  return win;
}

void nearest(const float* src, std::ptrdiff_t ss, int sw, int sh, float* dst, std::ptrdiff_t ds,
             int dw, int dh) {
  const float rx = static_cast<float>(sw) / static_cast<float>(dw);
  const float ry = static_cast<float>(sh) / static_cast<float>(dh);
  for (int y = 0; y < dh; ++y) {
    const int sy = static_cast<int>(static_cast<float>(y) * ry);
    TWINMAF_DASSERT(sy < sh);
    for (int x = 0; x < dw; ++x) {
      const int sx = static_cast<int>(static_cast<float>(x) * rx);
      TWINMAF_DASSERT(sx < sw);
      dst[y * ds + x] = src[sy * ss + sx];
    }
  }
}

void bilinear(const float* src, std::ptrdiff_t ss, int sw, int sh, float* dst, std::ptrdiff_t ds,
              int dw, int dh) {
  const float rx = static_cast<float>(sw) / static_cast<float>(dw);
  const float ry = static_cast<float>(sh) / static_cast<float>(dh);
  std::vector<LinearTap> cols(static_cast<size_t>(dw));
  for (int x = 0; x < dw; ++x) cols[x] = linear_tap(x, rx, sw);
  for (int y = 0; y < dh; ++y) {
    const LinearTap ty = linear_tap(y, ry, sh);
    const float dy = ty.d;
    const float* r1 = src + ty.i1 * ss;
    const float* r2 = src + ty.i2 * ss;
    float* out = dst + y * ds;
    for (int x = 0; x < dw; ++x) {
      const LinearTap& c = cols[x];
      const float dx = c.d;
      out[x] = (1 - dy) * (1 - dx) * r1[c.i1] + (1 - dy) * dx * r1[c.i2] +
               dy * (1 - dx) * r2[c.i1] + dy * dx * r2[c.i2];
    }
  }
}

template <int kFirst, int kLast, bool kNormalise, class Kernel>
void windowed(const float* src, std::ptrdiff_t ss, int sw, int sh, float* dst, std::ptrdiff_t ds,
              int dw, int dh, const Kernel& kernel) {
  using Win = Window<kFirst, kLast>;
  const float rx = static_cast<float>(sw) / static_cast<float>(dw);
  const float ry = static_cast<float>(sh) / static_cast<float>(dh);
  std::vector<Win> cols(static_cast<size_t>(dw));
  for (int x = 0; x < dw; ++x) cols[x] = window<kFirst, kLast>(x, rx, sw, kernel);
  for (int y = 0; y < dh; ++y) {
    const Win wy = window<kFirst, kLast>(y, ry, sh, kernel);
    float* out = dst + y * ds;
    for (int x = 0; x < dw; ++x) {
      const Win& wx = cols[x];
      float value = 0;
      float weight_sum = 0;
      for (int j = 0; j < Win::kTaps; ++j) {
        const float* row = src + wy.idx[j] * ss;
        for (int i = 0; i < Win::kTaps; ++i) {
          const float weight = wx.w[i] * wy.w[j];
          if constexpr (kNormalise) weight_sum += weight;
          value += row[wx.idx[i]] * weight;
        }
      }
      if constexpr (kNormalise)
        out[x] = value / weight_sum;
      else
        out[x] = value;
    }
  }
}

}  // namespace

std::optional<ResampleMethod> parse_resample_method(std::string_view name) {
  if (name == "nearest") return ResampleMethod::kNearest;
  if (name == "bilinear") return ResampleMethod::kBilinear;
  if (name == "bicubic") return ResampleMethod::kBicubic;
  if (name == "lanczos4") return ResampleMethod::kLanczos4;
  return std::nullopt;
}

void resample_plane(ResampleMethod method, const float* src, std::ptrdiff_t src_stride, int sw,
                    int sh, float* dst, std::ptrdiff_t dst_stride, int dw, int dh) {
  if (sw == dw && sh == dh) {
    for (int y = 0; y < dh; ++y)
      std::memcpy(dst + y * dst_stride, src + y * src_stride,
                  sizeof(float) * static_cast<size_t>(dw));
    return;
  }
  switch (method) {
    case ResampleMethod::kNearest:
      nearest(src, src_stride, sw, sh, dst, dst_stride, dw, dh);
      return;
    case ResampleMethod::kBilinear:
      bilinear(src, src_stride, sw, sh, dst, dst_stride, dw, dh);
      return;
    case ResampleMethod::kBicubic:
      windowed<-1, 2, false>(src, src_stride, sw, sh, dst, dst_stride, dw, dh, keys_cubic);
      return;
    case ResampleMethod::kLanczos4:
      windowed<-4, 4, true>(src, src_stride, sw, sh, dst, dst_stride, dw, dh, lanczos4);
      return;
  }
}

}  // namespace twinmaf
