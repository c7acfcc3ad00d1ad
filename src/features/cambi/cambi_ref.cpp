// cambi CPU reference: one picture -> five scales of top-k sums (the contract
// is in cambi.h; the stages are in cambi_stages-inl.h). Integer stages may
// use any order (their results are counts and sample values); the float steps
// (c-values, pooling) follow libvmaf's.
#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "features/cambi/cambi.h"

namespace twinmaf {

double cambi_topk_sum(std::span<float> c, int k) {
  float* a = c.data();
  const int n = static_cast<int>(c.size());
  if (k != n) {
    // Hoare partitions around the value at index k until index k separates
    // the larger values (left) from the smaller (right); libvmaf's sequence of
    // swaps, which decides the order of the sum below.
    int lo = 0, hi = n - 1;
    while (lo < hi) {
      const float pivot = a[k];
      int i = lo, j = hi;
      do {
        while (a[i] > pivot) ++i;
        while (a[j] < pivot) --j;
        if (i <= j) {
          std::swap(a[i], a[j]);
          ++i;
          --j;
        }
      } while (i <= j);
      if (j < k) lo = i;
      if (k < i) hi = j;
    }
  }
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += a[i];
  return sum;
}

namespace cambi_ref {
#include "features/cambi/cambi_stages-inl.h"
}  // namespace cambi_ref

Status cambi_picture_terms_ref(const PlaneView& luma, int bpc, const CambiSetup& setup,
                               const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                               std::array<CambiScaleTerms, kCambiScales>& out) {
  return cambi_ref::picture_terms(luma, bpc, setup, plan, frame, sink, out);
}

}  // namespace twinmaf
