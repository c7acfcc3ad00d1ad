// cambi's per-picture stages compiled for each Highway target (SSE4, AVX2,
// AVX-512 on x86): the reference's own source (cambi_stages-inl.h), which the
// compiler vectorises for the target's ISA; equal to cambi_picture_terms_ref
// bit for bit (that header says why; tests/simd checks every target).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/cambi/cambi_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/assert.h"
#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/cambi/cambi.h"
#include "features/cambi/cambi_math.h"

TWINMAF_SIMD_BEGIN
#if TWINMAF_SIMD_KERNELS
#include "features/cambi/cambi_stages-inl.h"
#endif

Status PictureTerms(const PlaneView& luma, int bpc, const CambiSetup& setup, const CambiPicturePlan& plan,
                    unsigned frame, CambiCValueSink* sink, std::array<CambiScaleTerms, kCambiScales>& out) {
#if !TWINMAF_SIMD_KERNELS
  return cambi_picture_terms_ref(luma, bpc, setup, plan, frame, sink, out);
#else
  return picture_terms(luma, bpc, setup, plan, frame, sink, out);
#endif
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(PictureTerms);

Status cambi_picture_terms_simd(const PlaneView& luma, int bpc, const CambiSetup& setup,
                                const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                                std::array<CambiScaleTerms, kCambiScales>& out) {
  return HWY_DYNAMIC_DISPATCH(PictureTerms)(luma, bpc, setup, plan, frame, sink, out);
}

const CambiDsp& cambi_dsp_simd() {
  static constexpr CambiDsp k{&cambi_picture_terms_simd};
  return k;
}

void cambi_dsp_init(CambiDsp& dsp) {
  dsp = cambi_dsp_ref();
  if (simd_enabled()) dsp = cambi_dsp_simd();
}

}  // namespace twinmaf
#endif
