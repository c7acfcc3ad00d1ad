// adm: integer ADM (Detail Loss Metric, adm2) and the Additive Impairment
// Measure (aim, adm3) of libvmaf's "adm" extractor, luma only.
//
// Reference: libvmaf f85a8536 feature/integer_adm.c (its scalar C paths),
// integer_adm.h, barten_csf_tools.h. Matched bit for bit; see docs/adm.md.
//
// Stages, per scale s = 0..3 (band size ceil(in/2) each scale):
//   1. DWT (db2, 4 taps, Q15): ref and dis -> bands a, v, h, d. Row/column
//      index 2i-1 reflects to 1 at the top/left; indices >= n map to 2n-1-idx
//      (edge duplicated) at the bottom/right. Scale 0 is int16 from the
//      pixels; scales 1-3 read the previous int32 band a.
//   2. Decouple (h, v, d): k = clamp(t/o, 0, 1) in Q15 through a 2^30/|o|
//      table, r = k*o, a = t - r; within 1 degree (a float/double test on
//      int64 dot products) r is pushed towards t by adm_enhn_gain_limit
//      (double product truncated back to integer).
//   3. CSF: fixed-point scaling of a (and of r for AIM) by the CSF factor,
//      and the |x|/30 masking term.
//   4. Contrast masking: per pixel, a threshold from the 3x3 neighbourhood
//      (top/left reflect 1, bottom/right duplicate) of the masker's |csf|/30
//      over the three orientations plus |csf|/15 at the centre; the masked
//      target (r for adm, a for aim) minus the threshold, clamped at 0, cubed
//      with fixed rounding shifts; sums per row rounded by a height shift.
//   5. Denominator: cubed reference bands over the same region.
//   6. finish(): int64 -> float/double conversions, divisions by powers of
//      two, powf(x, 1/3) with the noise floor, float sums per scale, double
//      totals, adm2, aim, adm3 and the per-scale ratios.
//
// Terms (AdmTerms): for each scale and orientation (h, v, d) the integer
// accumulators of stages 4-5 after their per-row rounding shifts: den (uint64,
// reference cubes), num (int64, adm masking of r) and aim (int64, masking of
// a). They are sums of per-row integers, so any summation order (GPU trees,
// atomics) gives the same bits; wrap-around is modulo 2^64 where libvmaf's
// int64 would overflow (only for adversarial input), which is also order-free.
// Every float/double step that libvmaf performs per pixel (the angle test, the
// gain-limit clamp) stays inside the kernels with the same IEEE operations;
// every per-scale/per-frame float step is in finish(), shared by all backends.
// The per-sample arithmetic of stages 1-5 and the per-row folds live in
// adm_math.h, used by both the CPU reference and the CUDA twin (adm.cu), so
// the twin's terms equal the CPU's by construction.
//
// Numeric contract of the kernels (all integer unless stated):
// - Scale-0 DWT at bpc b (8..16): vertical sum_k f_k*p minus 46342*2^(b-1)
//   (lo only), then (x + 2^(b-1)) >> b into int16; horizontal
//   (sum + 32768) >> 16 into int16. libvmaf accumulates in int32: partial sums
//   overflow at 16 bit (UB in C, wraps in practice), but the final sums lie
//   within +-1.8e9 < 2^31 for every bpc <= 16, so any wrapping 32-bit or exact
//   64-bit evaluation (ours: uint32 modular) yields libvmaf's values.
// - Scales 1-3 DWT: int64 sums, vertical shift {0,16,16} round {0,2^15,2^15},
//   horizontal shift {15,16,15} round {2^14,2^15,2^14}, narrowed to int32
//   modulo 2^32 as libvmaf's (int32_t) casts do.
// - Every narrowing libvmaf does (to int16 at scale 0, to int32 at 1-3), every
//   int32 sum/shift that can overflow for extreme input (threshold sums,
//   threshold << 10/12, |x| - thr), and abs(INT32_MIN) are reproduced as
//   two's-complement wrap-around, which is what gcc's x86-64 code computes.
// - The scale-1..3 |x|/30 and |x|/15 terms add (int32)(1u<<31) = -2^31
//   before >> 32, as libvmaf does (so 0 maps to -1).
// - Fixed-point CSF factors: scale 0 uses (uint16)(f*2^21) (h, v) and
//   (uint16)(f*2^23) (d), hard-coded {36453, 36453, 49417} for Watson at
//   nvd*rdh == 3240; scales 1-3 use (uint32)(f*2^32). Out-of-range
//   conversions (C UB; every Barten setting reaches them, its factors are
//   ~1..1000) follow x86-64 gcc: cvttsd2si into 32 (uint16 case) or 64
//   (uint32 case) bits, low bits kept.
// - 12/16 bit: after the first vertical pass (>> bpc) every depth has the
//   8-bit widths (int16 bands at scale 0, int32 at 1-3, int64 products and
//   row sums), so nothing else depends on the depth and nothing overflows
//   beyond the wrap-arounds listed above.
#pragma once

#include <cstdint>

#include "core/picture.h"
#include "features/feature.h"
#include "features/adm/adm_csf.h"
#include "features/adm/adm_math.h"

namespace twinmaf {

// Orientation order everywhere: 0 = h, 1 = v, 2 = d.
struct AdmScaleTerms {
  uint64_t den[3] = {};
  int64_t num[3] = {};
  int64_t aim[3] = {};
  bool operator==(const AdmScaleTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.den); f(s.num); f(s.aim); }
};

struct AdmTerms final : FrameTermsOf<AdmTerms> {
  AdmScaleTerms scale[4];
  bool operator==(const AdmTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.scale); }
};

// Smallest luma size every scale handles without reading outside its data:
// the scale-3 DWT needs a band of >= 3 samples (index 2i-1 for i = 1), i.e.
// >= 5 input samples there, which is >= 33 luma samples; libvmaf misbehaves
// (crashes or reads out of bounds) below.
inline constexpr int kAdmMinSize = 33;

// CPU reference: the terms of one frame (luma planes of ref and dis, bpc 8
// samples as uint8, 9..16 as uint16). Thread-safe; scratch is thread-local.
void adm_terms_ref(const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& p,
                   AdmTerms& out);

// compute() runs adm_terms_with (adm_rows.h) on the row kernels adm_dsp_init
// chose at init: the Highway ones when base/simd.h allows SIMD, else the
// reference; equal terms either way.

// The kernel parameters of a configured adm (options validated by create,
// format by init): the CPU extractor and the CUDA twin use the same ones.
const AdmKernelParams& adm_kernel_params(const Extractor& configured);

// CUDA twin (adm_cuda.cpp, adm.cu; defined only in CUDA builds): fills the
// same AdmTerms on the device; every option and format the CPU accepts.
Result<std::unique_ptr<Twin>> make_adm_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context& ctx);

const FeatureSpec& adm_feature_spec();

}  // namespace twinmaf
