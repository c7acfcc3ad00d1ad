// psnr: per-plane PSNR (and MSE) between reference and distorted pictures, and
// the aggregate APSNR over the whole sequence.
//
// Reference: libvmaf f85a8536 feature/integer_psnr.c.
// Stages: compute = SSE per plane (exact integers, any summation order);
//         finish  = MSE, PSNR and the APSNR sums (shared by every backend).
// Numeric contract:
// - sse[p] = sum over the scored plane of (ref - dis)^2 as uint64 (no overflow:
//   at most 32768^2 samples of 65535^2 < 2^64).
// - mse = (double)sse / (w*h); psnr = min(10*log10(peak^2 / max(mse, 1e-16)), psnr_max).
// - 8-bit input always uses peak 255; hbd uses (1<<bpc)-1, or 255<<(bpc-8) with
//   reduced_hbd_peak.
// - psnr_max = 6*bpc+12, or with min_sse > 0:
//   ceil(10*log10(peak^2 / (min_sse / (w_p*h_p)))).
// - apsnr = min(10*(log10(peak^2) + log10(N) - log10(SSE)), ceil(10*log10(peak^2*N*2)))
//   with SSE and N summed over all frames; peak^2*N*2 is computed in uint64 and
//   wraps like libvmaf's for huge N at 16 bit.
#pragma once

#include <cstdint>

#include "core/picture.h"
#include "features/feature.h"

namespace twinmaf {

struct PsnrTerms final : FrameTermsOf<PsnrTerms> {
  uint64_t sse[3] = {};
  bool operator==(const PsnrTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.sse); }
};

// SSE of one plane (samples uint8_t at bpc 8, uint16_t above): the scalar
// reference, and Highway SIMD (psnr_simd.cpp) dispatched to the best target
// base/simd.h allows, equal to it on every input and target (tests/simd).
uint64_t psnr_plane_sse_ref(const PlaneView& a, const PlaneView& b, int bpc);
uint64_t psnr_plane_sse_simd(const PlaneView& a, const PlaneView& b, int bpc);

// The CPU kernels compute() runs (dav1d's dsp table). psnr_dsp_init fills
// the reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
struct PsnrDsp {
  uint64_t (*plane_sse)(const PlaneView& a, const PlaneView& b, int bpc);
};
const PsnrDsp& psnr_dsp_ref();     // psnr_ref.cpp
const PsnrDsp& psnr_dsp_simd();    // psnr_simd.cpp
void psnr_dsp_init(PsnrDsp& dsp);  // psnr_simd.cpp

// SSE of the first `planes` planes with the kernels of `dsp` (psnr_sse_ref:
// the reference's).
void psnr_sse(const PsnrDsp& dsp, const Picture& ref, const Picture& dis, int planes, PsnrTerms& out);
void psnr_sse_ref(const Picture& ref, const Picture& dis, int planes, PsnrTerms& out);

const FeatureSpec& psnr_feature_spec();

// Planes a configured psnr scores (1, or 3 with enable_chroma on a format
// with chroma).
int psnr_planes(const Extractor& configured);

// CUDA twin (psnr.cu; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_psnr_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context& ctx);

}  // namespace twinmaf
