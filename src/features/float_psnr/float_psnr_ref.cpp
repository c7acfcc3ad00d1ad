// float_psnr CPU reference: the running double sum of the float squared
// differences (the contract is in float_psnr.h).
#include <vector>

#include "features/common/float_picture.h"
#include "features/float_psnr/float_psnr.h"

namespace twinmaf {

double float_psnr_noise_ref(const PlaneView& ref, const PlaneView& dis, int bpc) {
  std::vector<float> a(static_cast<size_t>(ref.w)), b(static_cast<size_t>(ref.w));
  double noise = 0;
  for (int y = 0; y < ref.h; ++y) {
    float_picture_row(ref, bpc, y, 0.0f, a.data());
    float_picture_row(dis, bpc, y, 0.0f, b.data());
    for (int x = 0; x < ref.w; ++x) noise += float_psnr_term(a[x], b[x]);  // double sum
  }
  return noise;
}

}  // namespace twinmaf
