// picture_copy's conversion (contract: float_picture.h).
#include "features/common/float_picture.h"

#include <cstdint>

namespace twinmaf {

void float_picture_plane(const PlaneView& plane, int bpc, int offset, float* dst, std::ptrdiff_t dst_stride) {
  const auto off = static_cast<float>(offset);
  if (bpc == 8) {
    for (int i = 0; i < plane.h; ++i) {
      const uint8_t* s = plane.row<uint8_t>(i);
      float* d = dst + i * dst_stride;
      for (int j = 0; j < plane.w; ++j) d[j] = static_cast<float>(s[j]) + off;
    }
    return;
  }
  const float scaler = bpc == 10 ? 4.0f : (bpc == 12 ? 16.0f : 256.0f);
  for (int i = 0; i < plane.h; ++i) {
    const uint16_t* s = plane.row<uint16_t>(i);
    float* d = dst + i * dst_stride;
    for (int j = 0; j < plane.w; ++j) d[j] = static_cast<float>(s[j]) / scaler + off;
  }
}

}  // namespace twinmaf
