// speed: CPU reference of stages 1-5 (float image, prescale, anti-alias and
// 1/16 decimation, local-mean removal, band). Contract: speed.h.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "features/common/float_filter.h"
#include "features/common/float_picture.h"
#include "features/common/float_resample.h"
#include "features/speed/speed.h"

namespace twinmaf {

namespace {

// libvmaf's picture_copy with offset -128 (features/common/float_picture.h),
// row by row (a row source of filter_separable).
template <typename T>
struct PlaneRows {
  const PlaneView& p;
  float divisor;
  const float* operator()(int y, float* buf) const {
    const T* s = p.row<T>(y);
    for (int x = 0; x < p.w; ++x) buf[x] = float_picture_sample(s[x], divisor, -128.0f);
    return buf;
  }
};

// speed_temporal's frame buffer: the previous frame's float image minus the
// current one's, in float.
template <typename T>
struct DifferenceRows {
  const PlaneView& prev;
  const PlaneView& cur;
  float divisor;
  const float* operator()(int y, float* buf) const {
    const T* a = prev.row<T>(y);
    const T* b = cur.row<T>(y);
    for (int x = 0; x < prev.w; ++x)
      buf[x] = float_picture_sample(a[x], divisor, -128.0f) - float_picture_sample(b[x], divisor, -128.0f);
    return buf;
  }
};

// Stages 2-5 of the w x h float image given by `rows`.
template <class Rows>
void band_of(const SpeedKernelParams& kp, const Rows& rows, SpeedBand& band) {
  const SpeedGeometry& g = kp.g;
  const size_t op = static_cast<size_t>(g.op_w) * static_cast<size_t>(g.op_h);
  std::vector<float> small(op);
  const int widest = g.scaled_w > g.w ? g.scaled_w : g.w;
  std::vector<float> scratch(2 * static_cast<size_t>(widest));
  if (kp.prescale) {
    // The resampler reads anywhere in the source: materialise it.
    std::vector<float> src(static_cast<size_t>(g.w) * static_cast<size_t>(g.h));
    for (int y = 0; y < g.h; ++y) {
      float* dst = src.data() + static_cast<size_t>(y) * g.w;
      const float* row = rows(y, dst);
      if (row != dst) std::copy(row, row + g.w, dst);
    }
    std::vector<float> scaled(static_cast<size_t>(g.scaled_w) * static_cast<size_t>(g.scaled_h));
    resample_plane(kp.method, src.data(), g.w, g.w, g.h, scaled.data(), g.scaled_w, g.scaled_w,
                   g.scaled_h);
    const float* s = scaled.data();
    const int sw = g.scaled_w;
    filter_separable(
        kp.antialias, g.scaled_w, g.scaled_h, kSpeedDecimation,
        [s, sw](int y, float*) { return s + static_cast<size_t>(y) * sw; }, small.data(), g.op_w,
        scratch.data());
  } else if (g.scaled_w <= g.w && g.scaled_h <= g.h) {
    // libvmaf filters the top-left scaled_w x scaled_h of the unscaled image:
    // all of it, or a row/column less when |ps - 1| < 1e-3 still rounds a
    // side down.
    filter_separable(kp.antialias, g.scaled_w, g.scaled_h, kSpeedDecimation, rows, small.data(),
                     g.op_w, scratch.data());
  } else {
    // A side rounded up past the input: init proved that no kept output
    // reads the extra samples, so any value serves for them (0).
    const auto padded = [&rows, &g](int y, float* buf) -> const float* {
      if (y >= g.h) {
        std::fill(buf, buf + g.scaled_w, 0.0f);
        return buf;
      }
      const float* row = rows(y, buf);
      if (row != buf) std::copy(row, row + g.w, buf);
      std::fill(buf + g.w, buf + g.scaled_w, 0.0f);
      return buf;
    };
    filter_separable(kp.antialias, g.scaled_w, g.scaled_h, kSpeedDecimation, padded, small.data(),
                     g.op_w, scratch.data());
  }
  speed_band_from_small(kp, small.data(), band);
}

}  // namespace

void speed_band_from_small(const SpeedKernelParams& kp, const float* small, SpeedBand& band) {
  const SpeedGeometry& g = kp.g;
  std::vector<float> mean(static_cast<size_t>(g.op_w) * static_cast<size_t>(g.op_h));
  filter_plane(kp.local_mean, small, g.op_w, g.op_w, g.op_h, mean.data(), g.op_w);
  band.resize(g.band_size());
  for (int y = 0; y < g.trunc_h; ++y)
    for (int x = 0; x < g.trunc_w; ++x) {
      const size_t i = static_cast<size_t>(y) * g.op_w + x;
      band[static_cast<size_t>(y) * g.trunc_w + x] = small[i] - mean[i];
    }
}

void speed_band_ref(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band) {
  if (kp.bpc == 8)
    band_of(kp, PlaneRows<uint8_t>{plane, kp.sample_divisor}, band);
  else
    band_of(kp, PlaneRows<uint16_t>{plane, kp.sample_divisor}, band);
}

void speed_difference_band_ref(const SpeedKernelParams& kp, const PlaneView& prev,
                               const PlaneView& cur, SpeedBand& band) {
  if (kp.bpc == 8)
    band_of(kp, DifferenceRows<uint8_t>{prev, cur, kp.sample_divisor}, band);
  else
    band_of(kp, DifferenceRows<uint16_t>{prev, cur, kp.sample_divisor}, band);
}

const SpeedDsp& speed_dsp_ref() {
  static constexpr SpeedDsp k{&speed_band_ref, &speed_difference_band_ref, &speed_shifted_sums_ref,
                              &speed_covariance_sums_ref};
  return k;
}

}  // namespace twinmaf
