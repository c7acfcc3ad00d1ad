// vif: integer Visual Information Fidelity at four scales (luma only).
//
// Reference: libvmaf f85a8536 feature/integer_vif.c + integer_vif.h, scalar
// path (vif_statistic_8/16, subsample_rd_8/16). Outputs
// VMAF_integer_feature_vif_scale0..3_score and, with debug, integer_vif,
// integer_vif_num, integer_vif_den, integer_vif_num_scaleK, integer_vif_den_scaleK.
//
// Stages, per frame:
//   scale 0 image = the luma plane (bpc 8..16); scale s+1 image = scale s image
//   filtered with scale s+1's filter and decimated to its even rows/columns
//   (floor(w/2) x floor(h/2), uint16 samples for every bpc). At every scale
//   the statistic filters the image with that scale's filter (separable:
//   vertical into row buffers, then horizontal) and classifies each pixel.
//   Borders: reflect-101 (x[-i] = x[i], x[n-1+i] = x[n-1-i]) on rows and
//   columns of every scale's own image.
//   Filters (Q16, each sums to 65536): kVifFilter (vif_math.h), half widths 8,4,2,1.
//
// Numeric contract (all integer steps exact; shifts round as (x + 2^(s-1)) >> s):
// - Vertical pass at scale 0 (x = luma sample, b = bpc):
//     mu  = (sum f*x + 2^(b-1)) >> b                       <= 65535
//     xx  = (sum f*x*x + r) >> 2(b-8), r = 2^(2(b-8)-1) (0 for b = 8)  < 2^32
//   (the same for yy = sum f*y*y and xy = sum f*x*y). At scales >= 1 (x <= 65535)
//   all five use (. + 32768) >> 16. Widths: mu sums uint32 (<= 65536*65535
//   < 2^32); moment sums uint32 for 8-bit samples (<= 65536*255^2 < 2^32, as
//   libvmaf) and uint64 otherwise (<= 65536*65535^2 < 2^48; libvmaf uses uint64
//   there too). x*x and x*y always fit uint32 (65535^2 < 2^32). The rounded
//   results fit their stores: mu <= 65535 (uint16), moments < 2^32 (uint32).
// - Horizontal pass: mu1 = sum f*mu (uint32, < 2^32), moments sum f*m in uint64
//   then (. + 32768) >> 16 (< 2^32). mu1_sq = (mu1*mu1 + 2^31) >> 32 in uint64
//   (likewise mu2_sq, mu1_mu2). sigma1_sq = int32(uint32(xx - mu1_sq)), the one
//   modular step, as libvmaf's; its true value lies in (-few, 65535^2/4] so the
//   two's-complement cast gives the exact difference; sigma2_sq likewise then
//   clamped at 0; sigma12 in [-65535^2/4, 65535^2/4]. Nothing overflows at 16 bit:
//   every bound above holds for samples up to 65535.
// - Per pixel (vif_accumulate_pixel, vif_math.h): if sigma1_sq >= 131072 the log2
//   branch adds LOG2(131072 + sigma1_sq) - 17*2048 to den_log and, if
//   sigma12 > 0 and sigma2_sq > 0, computes in double (IEEE, no FMA)
//     g = sigma12 / (sigma1_sq + 65536*1e-10);  sv = int32(sigma2_sq - g*sigma12)
//     sv = max(sv, 0); g = min(g, egl);
//     num_log += LOG2_64(int64(g*g*sigma1_sq) + sv + 131072) - LOG2_64(sv + 131072)
//   else num_non_log += sigma2_sq, den_non_log += 1. LOG2 uses libvmaf's table
//   t[i] = (uint16)round(log2f(i) * 2048), i in [32767, 65535], built once on
//   the host (glibc log2f) and handed to every backend (never device libm).
//   int32(double) truncates; out of range it yields INT32_MIN like x86's
//   cvttsd2si (not reachable: sv <= sigma2_sq < 2^31 and >= -rounding error).
//   int64(g*g*sigma1_sq) <= 100^2 * 2^31 < 2^45.
//   The CUDA twin runs this same function (vif_math.h, base/hd_math.h: __dadd_rn/__dmul_rn/
//   __ddiv_rn on the device, no contraction) per pixel with the host's table;
//   the four integer sums it feeds are exact in any order (atomics or trees).
//   Its filter sums are integers too, summed in another order or, for the
//   moment sums wider than 32 bits, as doubles whose every partial sum is an
//   integer below 2^53 (exact): vif.cu states the argument.
// - finish (host, every backend): per scale, in double then stored as float:
//     num = num_log/2048.0 + (den_non_log - (num_non_log/16384.0)/65025.0)
//     den = den_log/2048.0 + den_non_log
//   score = (double)(num / den) with a float division. vif_skip_scale0 writes
//   0 for scale 0 (debug: num_scale0 = 0, den_scale0 = -1). Debug integer_vif
//   sums the float num/den as doubles in scale order (den 0 -> 1.0).
//
// Minimum size: 16x16 luma (kVifMinSize). Scale s is floor(w / 2^s) wide and
// its filter reaches kVifHalf[s] = 8, 4, 2, 1 samples past each edge; at
// w >= 16 scale s has >= 16, 8, 4, 2 >= kVifHalf[s] + 1 samples, so a single
// reflection stays inside the image (likewise for h). libvmaf's sequential
// padding equals (folded) reflect-101 along any dimension of >= 2 samples,
// but a dimension of 1 (scale 3 below 16, e.g. the 8x8 and 17x9 goldens)
// mirrors leftover buffer contents of the previous scale, and one of 0
// (3x3) crashes. Checked: the 8x8/17x9 golden scale0..2 values equal folded
// reflect-101, their scale3 values do not. We refuse sizes below 16 at init.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "core/picture.h"
#include "features/feature.h"
#include "features/vif/vif_math.h"

namespace twinmaf {

// Per-frame terms: the four scales' sums (scale 0 stays zero when skipped).
struct VifTerms final : FrameTermsOf<VifTerms> {
  VifScaleSums scale[kVifScales];
  bool operator==(const VifTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.scale); }
};

struct VifParams {
  double enhn_gain_limit = 100.0;
  bool skip_scale0 = false;
};

// libvmaf's 2048*log2 table (65536 entries, [32767, 65535] filled), built
// once on the host; the CUDA twin uploads this same table.
using VifLog2Table = std::array<uint16_t, 65536>;
const VifLog2Table& vif_log2_table();

// The vertical-pass roundings of a scale's statistic (and of the subsampling
// into the next scale): mu (. + mu_round) >> mu_shift, moments
// (. + sq_round) >> sq_shift. Scale 0 depends on bpc; scales >= 1 are Q16.
struct VifRounding {
  uint32_t mu_round;
  int mu_shift;
  uint64_t sq_round;
  int sq_shift;
};
VifRounding vif_rounding(int scale, int bpc);

// One stage of the pyramid: the statistic of one scale (its sums) from the
// scale's images. Samples are uint8_t at scale 0 when bpc == 8 and uint16_t
// otherwise (the pyramid images of scales >= 1 are uint16 for every bpc).
// Thread-safe (scratch is per thread). The sums of output rows [row0, row1)
// (the filters read the rows around them): the integer sums of a split add
// up to those of the whole scale.
using VifStatisticFn = VifScaleSums (*)(const PlaneView& ref, const PlaneView& dis, int scale,
                                        int bpc, double egl, int row0, int row1);
// The scalar reference: the definition every other backend equals.
VifScaleSums vif_statistic_ref(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                               double egl, int row0, int row1);
// Highway SIMD (vif_simd.cpp), dispatched to the best target simd.h allows;
// equal to vif_statistic_ref on every input and target (tests/simd).
VifScaleSums vif_statistic_simd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                                double egl, int row0, int row1);

// One subsampling step of the pyramid: ref and dis of scale `scale`
// (samples as for the statistic) filtered with scale + 1's filter, the even
// rows and columns kept: dst_ref/dst_dis are floor(w/2) x floor(h/2) uint16
// with stride floor(w/2). Vertical rounding vif_rounding(scale, bpc)'s mu,
// horizontal (. + 32768) >> 16.
using VifSubsampleFn = void (*)(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                                uint16_t* dst_ref, uint16_t* dst_dis);
void vif_subsample_ref(const PlaneView& ref, const PlaneView& dis, int scale, int bpc, uint16_t* dst_ref,
                       uint16_t* dst_dis);
// Highway SIMD (vif_simd.cpp), equal to vif_subsample_ref (tests/simd).
void vif_subsample_simd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc, uint16_t* dst_ref,
                        uint16_t* dst_dis);

// The kernels a pyramid runs (dav1d's dsp table). vif_dsp_init fills the
// reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
// The extractor fills its table in init and compute() runs it.
struct VifKernels {
  VifStatisticFn statistic;
  VifSubsampleFn subsample;
};
const VifKernels& vif_dsp_ref();      // vif_ref.cpp
const VifKernels& vif_dsp_simd();     // vif_simd.cpp
void vif_dsp_init(VifKernels& dsp);  // vif_simd.cpp

// The whole pyramid with given kernels: the luma planes of ref and dis
// (at least kVifMinSize square, samples uint8_t for bpc 8, uint16_t
// otherwise) -> the four scales' sums. Frames of at least 1080p luma split
// each statistic into row bands (base/parallel.h), exact under any split.
void vif_terms_with(const VifKernels& kernels, const PlaneView& ref, const PlaneView& dis, int bpc,
                    const VifParams& params, VifTerms& out);
// The pyramid on the scalar reference.
void vif_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, const VifParams& params,
                   VifTerms& out);

// Host finish of one scale: libvmaf's float num and den.
struct VifNumDen {
  float num;
  float den;
};
VifNumDen vif_num_den(const VifScaleSums& s);

// The kernel parameters of a configured vif.
const VifParams& vif_params(const Extractor& configured);

// CUDA twin (vif_cuda.cpp, vif.cu; defined only in CUDA builds): fills the
// same VifTerms on the device, for every option and format the CPU accepts.
Result<std::unique_ptr<Twin>> make_vif_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context& ctx);

const FeatureSpec& vif_feature_spec();

}  // namespace twinmaf
