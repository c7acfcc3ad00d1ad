// cambi CPU reference: one picture -> five scales of top-k sums (the contract
// is in cambi.h; the stages are in cambi_stages-inl.h). Integer stages may
// use any order (their results are counts and sample values); the float steps
// (c-values, pooling) follow libvmaf's.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "base/assert.h"
#include "features/cambi/cambi.h"
#include "features/cambi/cambi_math.h"

namespace twinmaf {

double cambi_topk_sum(std::span<float> c, int k) {
  return cambi_topk_sum_raw(c.data(), static_cast<int>(c.size()), k);
}

uint32_t cambi_mask_threshold(int w, int h) {
  const uint32_t shifted = static_cast<uint32_t>(w >> 6) * static_cast<uint32_t>(h >> 6);
  const int ceil_log2 = shifted == 0 ? 0 : std::bit_width(shifted - 1);
  return static_cast<uint32_t>((49 + 3 * (ceil_log2 - 11) - 1) >> 1);
}

int cambi_topk_count(double topk, int n) {
  // clip((int)(topk * n), 1, n) as libvmaf: double product, truncated.
  return std::clamp(static_cast<int>(topk * n), 1, n);
}

namespace cambi_ref {
#include "features/cambi/cambi_stages-inl.h"
}  // namespace cambi_ref

Status cambi_picture_terms_ref(const PlaneView& luma, int bpc, const CambiSetup& setup,
                               const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                               std::array<CambiScaleTerms, kCambiScales>& out) {
  return cambi_ref::picture_terms(luma, bpc, setup, plan, frame, sink, out);
}

const CambiDsp& cambi_dsp_ref() {
  static constexpr CambiDsp k{&cambi_picture_terms_ref};
  return k;
}

}  // namespace twinmaf
