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
#include "features/cambi/cambi.h"
#include "features/cambi/cambi_math.h"

HWY_BEFORE_NAMESPACE();
namespace twinmaf {
namespace HWY_NAMESPACE {
// HWY_SCALAR (the x86-64 static target) is never dispatched to (simd.h).
#if HWY_TARGET != HWY_SCALAR
#include "features/cambi/cambi_stages-inl.h"
#endif

Status PictureTerms(const PlaneView& luma, int bpc, const CambiSetup& setup, const CambiPicturePlan& plan,
                    unsigned frame, CambiCValueSink* sink, std::array<CambiScaleTerms, kCambiScales>& out) {
#if HWY_TARGET == HWY_SCALAR
  return cambi_picture_terms_ref(luma, bpc, setup, plan, frame, sink, out);
#else
  return picture_terms(luma, bpc, setup, plan, frame, sink, out);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace twinmaf
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(PictureTerms);

Status cambi_picture_terms_simd(const PlaneView& luma, int bpc, const CambiSetup& setup,
                                const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                                std::array<CambiScaleTerms, kCambiScales>& out) {
  return HWY_DYNAMIC_DISPATCH(PictureTerms)(luma, bpc, setup, plan, frame, sink, out);
}

}  // namespace twinmaf
#endif
