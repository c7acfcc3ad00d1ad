// One plane of a picture as the float samples libvmaf's float extractors see
// (libvmaf f85a8536 feature/picture_copy.c, picture_copy):
//   bpc 8:          (float)s + offset
//   bpc 10, 12, 16: (float)s / 4, 16, 256 (a float division) + offset
// both in float arithmetic, offset an int converted to float. At these depths
// every value is exact except the division by a power of two, which is exact
// too, so the result is s * 2^(8-bpc) + offset rounded once to float.
// libvmaf converts no other depth: it reads the 16-bit samples of 9, 11 and
// 13..15 bit pictures as bytes. Callers refuse those depths
// (float_picture_depth_ok).
#pragma once

#include <cstddef>

#include "twinmaf/picture.h"

namespace twinmaf {

// The depths picture_copy converts.
constexpr bool float_picture_depth_ok(int bpc) { return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16; }

// plane (plane.w x plane.h samples of depth bpc, float_picture_depth_ok) into
// dst, rows dst_stride floats apart.
void float_picture_plane(const PlaneView& plane, int bpc, int offset, float* dst, std::ptrdiff_t dst_stride);

}  // namespace twinmaf
