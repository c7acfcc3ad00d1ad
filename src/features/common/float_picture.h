// Samples as libvmaf's float extractors see them (libvmaf f85a8536
// feature/picture_copy.c): sample s of an 8-bit plane becomes (float)s +
// offset, of a 10-, 12- or 16-bit plane (float)s / 2^(bpc-8) + offset, in
// float arithmetic (offset an integer: 0 or -128). The division by a power of
// two is exact (and dividing by 1 at 8 bit changes nothing), so each value is
// s * 2^(8-bpc) + offset rounded once to float. Only bpc 8, 10, 12 and 16 are
// defined: libvmaf reads the 16-bit samples of other depths as bytes, and the
// float features refuse them (float_picture_depth_ok). One definition for
// every float feature (float_*, ssim, speed, ...).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/hd.h"
#include "twinmaf/picture.h"

namespace twinmaf {

// The depths picture_copy converts.
constexpr bool float_picture_depth_ok(int bpc) { return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16; }

// 2^(bpc-8): libvmaf's divisor of the samples.
inline float float_picture_scale(int bpc) { return static_cast<float>(1 << (bpc - 8)); }

// One sample, scale = float_picture_scale(bpc).
TWINMAF_HD float float_picture_sample(uint32_t s, float scale, float offset) {
  return static_cast<float>(s) / scale + offset;
}

// Row y of plane v as floats: out[x] for x < v.w.
void float_picture_row(const PlaneView& v, int bpc, int y, float offset, float* out);

// The whole plane into dst, rows dst_stride floats apart.
void float_picture_plane(const PlaneView& v, int bpc, float offset, float* dst, std::ptrdiff_t dst_stride);

// The peak and PSNR ceiling of libvmaf's float_psnr and float_ansnr:
// peak = (2^bpc - 1) / 2^(bpc-8) (255, 255.75, 255.9375, 255.99609375; exact)
// and 6 bpc + 12 dB (60, 72, 84, 108).
inline double float_picture_peak(int bpc) {
  return static_cast<double>((1 << bpc) - 1) / static_cast<double>(1 << (bpc - 8));
}
inline double float_picture_psnr_max(int bpc) { return 6.0 * bpc + 12.0; }

// Whether sums of per-sample squares of a w x h plane, each at most 2^(2 bpc)
// units of 4^-(bpc-8), stay below 2^53 units: then every partial double sum
// is exact and an integer sum of the units, in any order, is the CPU's running
// sum (float_psnr's and float_moment's twins).
inline bool float_picture_square_sums_exact(int w, int h, int bpc) {
  return std::ldexp(static_cast<double>(w) * h, 2 * bpc) < 0x1p53;
}

}  // namespace twinmaf
