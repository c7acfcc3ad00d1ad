// cambi: Contrast Aware Multiscale Banding Index (no-reference banding score
// of the distorted luma; with full_ref also of the reference).
//
// Reference: libvmaf f85a8536 feature/cambi.c, cambi.h (the reciprocal table,
// the histogram updates), luminance_tools.c (BT.1886 and PQ), scalar path.
// Output Cambi_feature_cambi_score (printed "cambi", suffixed by the
// feature-param options that differ from their defaults); with full_ref also
// cambi_source and cambi_full_reference (never suffixed: libvmaf appends them
// outside its name dictionary). Any bpc 8..16, any layout (luma only).
//
// Stages, per picture P (the distorted one at the encoding size enc_w x enc_h
// with window W; with full_ref also the reference at src_w x src_h with its own
// window W_src):
//   1. to 10 bit: bpc <= 8: x << (10 - bpc); 9: x << 1; >= 10:
//      (x + 2^(bpc-11)) >> (bpc - 10) (no rounding at 10). A size other than the
//      input's resamples by nearest neighbour with libvmaf's float positions
//      (cambi_resample_index). enc_bitdepth < 10 then applies the 2x2 average
//      (>> 2; last column and last row average 2 samples, >> 1; the last
//      sample stays), in place, top-down and left to right, each output from
//      samples not yet overwritten.
//   2. spatial mask at that size: z(r,c) = 1 where the sample equals its right
//      and its lower neighbour (a missing neighbour counts as equal); mask = 1
//      where the 7x7 sum of z around the pixel (zeros outside) exceeds
//      (49 + 3 * (ceil_log2((w >> 6) * (h >> 6)) - 11) - 1) >> 1.
//   3. five scales s = 0..4 (weights 16, 8, 4, 2, 1): for s > 0, and for s = 0
//      with cambi_high_res_speedup, image and mask keep their even rows and
//      columns (ceil halves); then the image gets the 3x3 separable mode filter
//      (a value present twice among three, else the smallest; first/last row
//      and column unchanged, the filtered image feeds the next scale).
//   4. c-values: for each masked pixel of value v, with H(u) the number of
//      masked pixels of value u in the (2p+1)^2 window around it (p = W >> 1,
//      clipped at the borders) and only values of the band [B, B + S) counted
//      (B = max(0, vlt_luma - 3n + 1), S = tvi[n-1] + n + 1 - B, n = 2^
//      max_log_contrast): c = 0 outside the band, else the float maximum, from
//      0, over d = 1..n with v <= tvi[d-1] and v + n + d > vlt_luma of
//        (float)(w_d * H(v) * m) * recip[H(v) + m],  m = max(H(v+d), H(v-d))
//      (H(v-d) = 0 below B; w_d = 1,2,3,4,4,5,...; int product, float multiply).
//      Unmasked pixels have c = 0. recip is libvmaf's 4226-entry float table
//      (cambi_reciprocal_table: the 9-significant-digit decimal of 1/i read
//      as a float; 42 entries differ from 1.0f / i).
//   5. pooling: k = clip((int)(topk * N), 1, N) over the N = w_s * h_s
//      c-values; libvmaf's quick select (cambi_topk_sum) reorders them and the
//      first k are summed in double, in that order, from 0.
//   finish: mean_s = sum_s / k_s; score = (sum over s of mean_s * weight_s) /
//   (2 (W >> 1) + 1)^2 (double, scale order); cambi = min(score, cambi_max_val);
//   full_ref: cambi_source = min(src score, max), cambi_full_reference =
//   min(max(0, dis score - src score), max) (C's MIN/MAX macros).
//
// Init (cambi_setup, every choice resolved once): enc/src sizes (0 or larger
// than the input -> the input's size), the window W = ((ws * (w + h)) / 375)
// >> 4 on uint16, halved ((W + 1) >> 1) with the speedup, then made odd; tvi[d]
// by libvmaf's bisection of dL > tvi_threshold * L on 10-bit limited range
// (64..940) with the chosen EOTF; vlt_luma = the first code from 64 whose
// luminance reaches cambi_vis_lum_threshold (0 if 64 does). topk wins over
// cambi_topk when it is not 0.6, cambi_eotf over eotf when it is not bt1886.
//
// Refused at init, as libvmaf does: encoding or source size below 216 in both
// dimensions, source and encoding sizes ordered differently in the two
// dimensions, an unknown eotf, a window whose square reaches the table size,
// a heatmaps_path that cannot be created. Refused at init where libvmaf has no
// defined value (it crashes, hangs, or reads and writes outside its buffers;
// docs/cambi.md has the cases): a scale-4 image narrower or lower than p, a
// band that is empty (cambi_vis_lum_threshold above every tvi: libvmaf indexes
// its histograms with a negative row), a 10-bit input copied into a wider
// buffer (full_ref with src_width above the input width, 32-sample rows
// apart: libvmaf's memcpy keeps the input's stride and scores misplaced rows),
// a resampling position outside the input, a cambi_vis_lum_threshold above the
// EOTF's peak, a tvi table whose queries leave the band. Every message names
// cambi and the limit. (A scale of exactly p rows is accepted: libvmaf's extra
// pass over row p then writes only past the scored c-values.)
//
// Terms and finish: the split and why it is exact.
//   CambiTerms = per picture (dis; src with full_ref) and scale: k_s and the
//   double sum_s of the k_s largest c-values in libvmaf's order (its quick
//   select, then a double loop from 0). That sum is the only order-dependent
//   float step. Two ways give it bit for bit, and every backend uses them:
//   - order-free: every nonzero c-value is a float >= 0.5 (H(v) >= 1 and m >= 1
//     give w_d H m / (H + m) >= 1/2; exhaustive check in cambi_test), hence an
//     integer number of 2^-24 units. With at most k nonzero c-values, the k
//     largest are all of them plus zeros; if their exact integer total is below
//     2^53 units, every partial sum of libvmaf's loop is an exact double
//     whatever the order, and sum_s is the total. Integer counting and summing:
//     any order, atomics or trees on a device.
//   - otherwise cambi_topk_sum (libvmaf's quick select and loop) on the
//     c-values; a device backend reads them back and calls the same function.
//   The c-values are integer window counts plus one float multiply by the
//   host's reciprocal table per candidate (no FMA): the same on any backend.
//   finish (cambi_score) is the mean, the weighted scale sum, the
//   normalisation and the clipping: a few doubles per frame.
//
// CUDA twin (cambi.cu, cambi_cuda.cpp): the same CambiTerms, bit for bit.
//   Stages 1-3 are integer maps of integer samples (shifts, 2x2 average,
//   equality flags, a 7x7 count against the shared cambi_mask_threshold,
//   stride-2 decimation, cambi_mode3): computed out of place on the device
//   they give the CPU's samples, whatever the order. The CPU's in-place
//   passes read only samples not yet overwritten (anti-dithering reads right
//   and below; the mode filter takes its horizontal modes before a row is
//   written), so each output is a function of the unfiltered input.
//   Stage 4: H(u) over the clipped window is a count (any order); the device
//   counts it per pixel from a shared-memory halo in which samples outside the
//   picture are no band row (the clipping). The c-value is then the CPU's
//   float steps: int product -> float (round to nearest), one multiply by the
//   host's reciprocal table (__fmul_rn), max by compares: exact.
//   Stage 5: the nonzero count and the unit total are integer sums (atomics):
//   a c-value is below 9 * 4225 / 4 < 2^14, i.e. below 2^38 units, so below
//   2^25 samples per picture the total is below 2^63 (the twin refuses larger
//   pictures). The pool kernel then gives the CPU's double by one of three
//   routes, each equal to libvmaf's ordered sum:
//   - at most k nonzero c-values: the CPU's own test and value
//     (cambi_order_free);
//   - else (more than k nonzero, or a total of 2^53 units or more): after
//     libvmaf's quick select, c[0..k) holds the k largest values (its
//     partition leaves a[k] with no smaller value before it and no larger
//     one after), a multiset fixed by the values alone. A radix select on
//     the float bits (non-negative floats order as their bits; levels of 16,
//     8 and 8 bits; integer counts per bin) finds V, the min(k, nonzero)-th
//     largest value; with more than k nonzero, one more pass counts and sums
//     the values above V, giving the exact total T of the k largest (else T
//     is the unit total). V and every larger float are integer multiples of
//     V's ulp u (2^shift units, shift >= 0 since V >= 0.5), and so is every
//     partial sum of libvmaf's loop (a sub-multiset of the k largest, zeros
//     included, in some order), which lies between 0 and T. If T < 2^53 u,
//     each is an integer multiple of u below 2^53 u, a double, so each
//     double addition is exact and the loop gives T whatever the order
//     (cambi_topk_exact; T as a double: cambi_units_value);
//     otherwise libvmaf's quick select and double loop on the scale's
//     c-values (which are the CPU's bit for bit), computed by the whole block
//     (cambi_pool.cuh: each partition's swaps found from counts and ranks,
//     the ordered double sum as a scan of parity-dependent increments per
//     binade), the same array and the same double as the loop.
//   That route needs T >= 2^53 u (a value of 2^29 where u = 2^-24, i.e.
//   V < 1): strong banding over most of the picture with a small c-value
//   among the k largest, common at 4K without the speedup (the CTC presets'
//   cambi). The twin tests reach it with 1080p stripes and isolated
//   first-row samples and test the block version against the loop on
//   adversarial arrays; a host test checks the premise above against
//   cambi_topk_sum_raw, and that beyond it the order can matter.
//   Not on the device: heatmaps_path (the twin refuses it; the feature then
//   runs on the CPU under --backend auto).
//
// Heatmaps (heatmaps_path): per scale one file
// <path>/cambi_heatmap_scale_<s>_<W>x<H>_16b.gray (W x H: the encoding size
// halved s times, ceil, even where the speedup made scale 0 half that size),
// frame f's c-values at byte offset f * w_s * h_s * 2 as native uint16
// (uint16)(int)(65535.0 / (max w_d * W * W / 4) * c) (the int conversion wraps
// modulo 2^16 above 65535 as libvmaf's x86 build does). Written by compute
// before pooling, for the distorted picture only, with pwrite (frames may be
// computed concurrently); frames not computed leave holes (zeros), as
// libvmaf's fseek past the end does. Offsets are 64-bit: libvmaf's int
// offset (in samples) overflows from 2^31 samples per file on (frame 1036 at
// 1080p) and then seeks nowhere or backwards; we write every frame where it
// belongs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/picture.h"
#include "features/feature.h"

namespace twinmaf {

inline constexpr int kCambiScales = 5;
inline constexpr int kCambiMinSize = 216;       // one of width, height at least this
inline constexpr int kCambiReciprocals = 4226;  // entries of libvmaf's reciprocal table
inline constexpr int kCambiMaxDiffs = 32;       // 2^max_log_contrast at most

// recip[0] = 0, recip[i] = the float nearest to 1/i rounded to 9 significant
// digits (libvmaf's table as written). Built once on the host.
const std::array<float, kCambiReciprocals>& cambi_reciprocal_table();

// Options as libvmaf parses them (feature-param flags decide the names).
struct CambiOptions {
  double max_val = 1000.0;
  int enc_width = 0;
  int enc_height = 0;
  int enc_bitdepth = 0;
  int src_width = 0;
  int src_height = 0;
  int window_size = 65;
  double topk = 0.6;
  double cambi_topk = 0.6;
  double tvi_threshold = 0.019;
  double vis_lum_threshold = 0.0;
  int max_log_contrast = 2;
  std::string heatmaps_path;  // empty: none (libvmaf's NULL)
  bool full_ref = false;
  std::string eotf = "bt1886";
  std::string cambi_eotf = "bt1886";
  int high_res_speedup = 0;
};

// The parsed option table (cambi_feature_spec's) as CambiOptions.
CambiOptions cambi_options(const Options& o);

// How one picture is scored (the distorted one, or the reference with
// full_ref): sizes, window and the resampling positions.
struct CambiPicturePlan {
  int in_w = 0, in_h = 0;  // input luma size
  int w = 0, h = 0;        // processed size (encoding or source size)
  int window = 0;          // odd window W; the histogram radius is W >> 1
  bool speedup = false;    // scale 0 is already halved
  // Input column / row of each output column / row; empty: same size.
  std::vector<int> src_x, src_y;
  // Width or height `size` at scale s (ceil halvings, one more with the speedup).
  int scaled(int size, int s) const;
};

// Everything init resolves; shared by compute, finish and a twin.
struct CambiSetup {
  CambiPicturePlan dis;
  CambiPicturePlan src;  // used with full_ref only
  bool full_ref = false;
  bool anti_dither = false;  // enc_bitdepth < 10
  int num_diffs = 4;
  std::array<int, kCambiMaxDiffs> tvi{};     // largest raw 10-bit value for d = index + 1
  std::array<int, kCambiMaxDiffs> weight{};  // w_d for d = index + 1
  int vlt_luma = 0;
  int band_base = 0;
  int band_size = 0;  // > 0 (cambi_setup refuses the rest)
  double topk = 0.6;
  double max_val = 1000.0;
};

// libvmaf's nearest-neighbour positions for resampling `in` samples to `out`:
// float ratio in/out, float start ratio/2 - 0.5, float steps, (int)(x + 0.5).
std::vector<int> cambi_resample_index(int in, int out);

// Options + input format -> setup, with every limit above checked.
Result<CambiSetup> cambi_setup(const CambiOptions& opt, const VideoFormat& fmt);

// BT.1886 (Lw 300, Lb 0.01, gamma 2.4) and PQ luminance of a 10-bit
// limited-range code, libvmaf's arithmetic (exposed for tests).
enum class CambiEotf : uint8_t { kBt1886, kPq };
double cambi_luminance(int code, CambiEotf eotf);

struct CambiScaleTerms {
  double topk_sum = 0;  // libvmaf's ordered double sum of the k largest c-values
  int topk_count = 0;   // k
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.topk_sum); f(s.topk_count); }
};

// Per-frame terms: equality compares the bits of the sums.
struct CambiTerms final : FrameTermsOf<CambiTerms> {
  std::array<CambiScaleTerms, kCambiScales> dis{};
  std::array<CambiScaleTerms, kCambiScales> src{};  // full_ref only
  bool operator==(const CambiTerms& o) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.dis); f(s.src); }
};

// libvmaf's quick select on c (descending around the element at index k, k
// in [1, n]) followed by the double sum of c[0..k) in the resulting order.
// Reorders c. The one implementation of the pooling order (cambi_math.h's
// cambi_topk_sum_raw, which the twin runs on the device); any float values.
double cambi_topk_sum(std::span<float> c, int k);

// The spatial mask's threshold at a w x h picture (stage 2).
uint32_t cambi_mask_threshold(int w, int h);
// k of a scale of n c-values: clip((int)(topk * n), 1, n) (stage 5).
int cambi_topk_count(double topk, int n);

// Receives the c-values of each scale before pooling (heatmaps).
class CambiCValueSink {
 public:
  virtual ~CambiCValueSink() = default;
  virtual Status write(int scale, unsigned frame, std::span<const float> c, int w, int h) = 0;
};

// CPU reference for one picture: luma -> the five scales' terms. `sink` (may
// be null) sees every scale's c-values. Thread-safe (scratch is per thread).
Status cambi_picture_terms_ref(const PlaneView& luma, int bpc, const CambiSetup& setup,
                               const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                               std::array<CambiScaleTerms, kCambiScales>& out);
// The same stages compiled for the best Highway target simd.h allows
// (cambi_simd.cpp); equal to cambi_picture_terms_ref on every input and
// target (tests/simd).
Status cambi_picture_terms_simd(const PlaneView& luma, int bpc, const CambiSetup& setup,
                                const CambiPicturePlan& plan, unsigned frame, CambiCValueSink* sink,
                                std::array<CambiScaleTerms, kCambiScales>& out);

// The CPU kernels compute() runs (dav1d's dsp table). cambi_dsp_init fills
// the reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
struct CambiDsp {
  Status (*picture_terms)(const PlaneView& luma, int bpc, const CambiSetup& setup, const CambiPicturePlan& plan,
                          unsigned frame, CambiCValueSink* sink, std::array<CambiScaleTerms, kCambiScales>& out);
};
const CambiDsp& cambi_dsp_ref();     // cambi_ref.cpp
const CambiDsp& cambi_dsp_simd();    // cambi_simd.cpp
void cambi_dsp_init(CambiDsp& dsp);  // cambi_simd.cpp

// finish of one picture: the weighted, normalised score before clipping.
double cambi_score(const std::array<CambiScaleTerms, kCambiScales>& t, int window);

// The setup and input depth of a configured (initialised) cambi extractor,
// and whether it writes heatmaps.
const CambiSetup& cambi_configured_setup(const Extractor& configured);
bool cambi_writes_heatmaps(const Extractor& configured);

// CUDA twin (cambi_cuda.cpp, cambi.cu; defined only in CUDA builds): fills
// the same CambiTerms on the device; refuses heatmaps_path and pictures above
// 2^25 samples.
Result<std::unique_ptr<Twin>> make_cambi_twin(const Extractor& configured, const VideoFormat& fmt,
                                              gpu::Context& ctx);

const FeatureSpec& cambi_feature_spec();

}  // namespace twinmaf
