// Float image resampling of libvmaf's float features (speed_* prescale;
// float_vif and float_motion use the same resamplers).
//
// Reference: libvmaf f85a8536 feature/vif_tools.c (vif_get_scaling_method,
// vif_scale_frame_s and its nearest / bilinear / bicubic / lanczos4 variants,
// vif_scale_frame_bilinear_precompute_columns_s).
//
// Numeric contract (bit-exact with libvmaf's scalar C, no FMA contraction).
// A source of sw x sh floats becomes dw x dh floats; equal sizes copy.
// ratio = (float)sw / (float)dw (rows alike). Output column x samples
//   nearest:  src[(int)((float)y * ratio_y)][(int)((float)x * ratio_x)]
//   others:   xx = (float)(((double)x + 0.5) * ratio_x - 0.5)   (double, as float)
// and mirror(i) = i < 0 ? -i : i > n-1 ? 2*(n-1) - i : i (in float, once).
//   bilinear: x1 = mirror(floor(xx)), x2 = mirror(ceil(xx)), dx = xx - x1
//     (after the mirror, as libvmaf); value =
//     (1-dy)*(1-dx)*s[y1][x1] + (1-dy)*dx*s[y1][x2] + dy*(1-dx)*s[y2][x1] + dy*dx*s[y2][x2]
//     (float, left to right).
//   bicubic:  x0 = floor(xx), dx = xx - x0, weights w_i = K(i - dx) for
//     i = -1..2 with Keys' kernel, a = -0.75 (float); value = sum over rows j,
//     then columns i, of s[mirror(y0+j)][mirror(x0+i)] * (wx_i * wy_j), from +0.
//   lanczos4: as bicubic over i = -4..4 with L(t) = 1 at t == 0, else
//     4 sin(pi t) sin(pi t / 4) / (pi^2 t^2) for |t| < 4 (double, libm sin,
//     as float), else 0; value = (sum of s * w) / (sum of w), both float sums
//     in the same order.
// The per-column and per-row values (indices, fractions, weights) depend on x
// or y alone; they are computed once per column and per row, by the same
// operations libvmaf repeats per pixel.
//
// Sizes: one mirror keeps every index inside the source when sw, sh >= 2
// (bilinear), 3 (bicubic), 6 (lanczos4) and 0.25 <= ratio; callers guarantee
// it (DASSERTed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/option_table.h"

namespace twinmaf {

enum class ResampleMethod : uint8_t { kNearest, kBilinear, kBicubic, kLanczos4 };

// libvmaf's names: "nearest", "bilinear", "bicubic", "lanczos4".
std::optional<ResampleMethod> parse_resample_method(std::string_view name);
inline constexpr std::string_view kResampleMethodNames = "nearest, bilinear, bicubic, lanczos4";

// A ResampleMethod member is a string option naming the method; another name
// is refused when the feature is created ("<feature>: <option> 'x' is not one
// of ...", as libvmaf logs it).
template <>
struct OptionCodec<ResampleMethod> {
  static constexpr OptType kType = OptType::kString;
  static OptionValue encode(ResampleMethod m) {
    constexpr std::string_view kNames[] = {"nearest", "bilinear", "bicubic", "lanczos4"};
    return OptionValue(std::string(kNames[static_cast<int>(m)]));
  }
  static Result<ResampleMethod> decode(std::string_view owner, const OptionSpec& spec, const OptionValue& v) {
    const std::string& name = std::get<std::string>(v);
    const std::optional<ResampleMethod> m = parse_resample_method(name);
    if (!m) TWINMAF_FAIL(kInvalidArgument, "{}: {} '{}' is not one of {}", owner, spec.name, name, kResampleMethodNames);
    return *m;
  }
};

// The smallest source side `method` reads inside of (the sizes above; any
// side for nearest).
constexpr int resample_min_source(ResampleMethod method) {
  switch (method) {
    case ResampleMethod::kNearest: return 1;
    case ResampleMethod::kBilinear: return 2;
    case ResampleMethod::kBicubic: return 3;
    case ResampleMethod::kLanczos4: return 6;
  }
  return 6;
}

// Strides in floats.
void resample_plane(ResampleMethod method, const float* src, std::ptrdiff_t src_stride, int sw,
                    int sh, float* dst, std::ptrdiff_t dst_stride, int dw, int dh);

}  // namespace twinmaf
