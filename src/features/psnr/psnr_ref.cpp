// psnr CPU reference: per-plane SSE. Contract: psnr.h.
#include <cstdlib>

#include "features/psnr/psnr.h"

namespace twinmaf {

namespace {

// Row sums: 8-bit squares (<= 255^2) summed over <= 32768 samples fit uint32;
// 16-bit squares (<= 65535^2) fit uint32 each and are summed in uint64.
template <typename T, typename RowSum>
uint64_t plane_sse(const PlaneView& a, const PlaneView& b) {
  uint64_t sse = 0;
  for (int y = 0; y < a.h; ++y) {
    const T* ra = a.row<T>(y);
    const T* rb = b.row<T>(y);
    RowSum row = 0;
    for (int x = 0; x < a.w; ++x) {
      const int32_t e = static_cast<int32_t>(ra[x]) - static_cast<int32_t>(rb[x]);
      const uint32_t m = static_cast<uint32_t>(e < 0 ? -e : e);
      row += static_cast<RowSum>(m * m);
    }
    sse += row;
  }
  return sse;
}

}  // namespace

uint64_t psnr_plane_sse_ref(const PlaneView& a, const PlaneView& b, int bpc) {
  return bpc > 8 ? plane_sse<uint16_t, uint64_t>(a, b) : plane_sse<uint8_t, uint32_t>(a, b);
}

const PsnrDsp& psnr_dsp_ref() {
  static constexpr PsnrDsp k{&psnr_plane_sse_ref};
  return k;
}

void psnr_sse(const PsnrDsp& dsp, const Picture& ref, const Picture& dis, int planes, PsnrTerms& out) {
  for (int p = 0; p < planes; ++p) out.sse[p] = dsp.plane_sse(ref.plane(p), dis.plane(p), ref.format().bpc);
}

void psnr_sse_ref(const Picture& ref, const Picture& dis, int planes, PsnrTerms& out) {
  psnr_sse(psnr_dsp_ref(), ref, dis, planes, out);
}

}  // namespace twinmaf
