// float_moment CPU reference: the running double sums of the float samples
// and of their float squares (the contract is in float_moment.h).
#include <vector>

#include "features/float_moment/float_moment.h"
#include "features/common/float_picture.h"

namespace twinmaf {

void float_moment_sums_ref(const PlaneView& plane, int bpc, double* sum1, double* sum2) {
  std::vector<float> a(static_cast<size_t>(plane.w));
  double s1 = 0, s2 = 0;
  for (int y = 0; y < plane.h; ++y) {
    float_picture_row(plane, bpc, y, 0.0f, a.data());
    for (int x = 0; x < plane.w; ++x) {
      s1 += a[x];
      s2 += a[x] * a[x];  // float square, double sum
    }
  }
  *sum1 = s1;
  *sum2 = s2;
}

}  // namespace twinmaf
