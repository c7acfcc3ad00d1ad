#include <cstdlib>

#include "features/psnr/psnr.h"

namespace twinmaf {

namespace {

template <typename T>
uint64_t plane_sse(const PlaneView& a, const PlaneView& b) {
  uint64_t sse = 0;
  for (int y = 0; y < a.h; ++y) {
    const T* ra = a.row<T>(y);
    const T* rb = b.row<T>(y);
    uint64_t row = 0;
    for (int x = 0; x < a.w; ++x) {
      const int64_t e = static_cast<int64_t>(ra[x]) - static_cast<int64_t>(rb[x]);
      row += static_cast<uint64_t>(e * e);
    }
    sse += row;
  }
  return sse;
}

}  // namespace

void psnr_sse_ref(const Picture& ref, const Picture& dis, int planes, PsnrTerms& out) {
  const bool hbd = ref.format().bpc > 8;
  for (int p = 0; p < planes; ++p) {
    out.sse[p] = hbd ? plane_sse<uint16_t>(ref.plane(p), dis.plane(p))
                     : plane_sse<uint8_t>(ref.plane(p), dis.plane(p));
  }
}

}  // namespace twinmaf
