// Samples as libvmaf's float extractors see them (libvmaf f85a8536
// feature/picture_copy.c): sample s of an 8-bit plane becomes (float)s +
// offset, of a 10-, 12- or 16-bit plane (float)s / 2^(bpc-8) + offset, in
// float arithmetic. The division by a power of two and the integer offsets
// used (0, -128) are exact, so each value is s / 2^(bpc-8) + offset exactly;
// only bpc 8, 10, 12 and 16 are defined (libvmaf's other depths read the
// samples as bytes; the float features refuse them).
#pragma once

#include "core/picture.h"

namespace twinmaf {

// Whether libvmaf's picture_copy reads samples of this depth as samples.
inline bool float_picture_depth_ok(int bpc) { return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16; }

// 2^(bpc-8): libvmaf's divisor of the samples (1 at 8 bit, where it does not divide).
inline float float_picture_scale(int bpc) { return static_cast<float>(1 << (bpc - 8)); }

// Row y of plane v as floats: out[x] = (float)s / scale + offset, x < v.w.
inline void float_picture_row(const PlaneView& v, int bpc, int y, float offset, float* out) {
  if (bpc > 8) {
    const float scale = float_picture_scale(bpc);
    const uint16_t* src = v.row<uint16_t>(y);
    for (int x = 0; x < v.w; ++x) out[x] = static_cast<float>(src[x]) / scale + offset;
  } else {
    const uint8_t* src = v.row<uint8_t>(y);
    for (int x = 0; x < v.w; ++x) out[x] = static_cast<float>(src[x]) + offset;
  }
}

// The peak and PSNR ceiling libvmaf's float_psnr and float_ansnr use:
// peak = (2^bpc - 1) / 2^(bpc-8) (255, 255.75, 255.9375, 255.99609375; exact)
// and 6 bpc + 12 dB (60, 72, 84, 108).
inline double float_picture_peak(int bpc) {
  return static_cast<double>((1 << bpc) - 1) / static_cast<double>(1 << (bpc - 8));
}
inline double float_picture_psnr_max(int bpc) { return 6.0 * bpc + 12.0; }

}  // namespace twinmaf
