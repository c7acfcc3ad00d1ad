// picture_copy's conversion (contract: float_picture.h).
#include "features/common/float_picture.h"

namespace twinmaf {

void float_picture_row(const PlaneView& v, int bpc, int y, float offset, float* out) {
  const float scale = float_picture_scale(bpc);
  if (bpc > 8) {
    const uint16_t* s = v.row<uint16_t>(y);
    for (int x = 0; x < v.w; ++x) out[x] = float_picture_sample(s[x], scale, offset);
  } else {
    const uint8_t* s = v.row<uint8_t>(y);
    for (int x = 0; x < v.w; ++x) out[x] = float_picture_sample(s[x], scale, offset);
  }
}

void float_picture_plane(const PlaneView& v, int bpc, float offset, float* dst, std::ptrdiff_t dst_stride) {
  for (int y = 0; y < v.h; ++y) float_picture_row(v, bpc, y, offset, dst + y * dst_stride);
}

}  // namespace twinmaf
