// speed_chroma and speed_temporal: SpEED-QA (spatial efficient entropic
// differencing), the entropy of 5x5 blocks of a 1/16-scale image under a
// Gaussian scale mixture model, compared between reference and distorted.
//
// Reference: libvmaf f85a8536 feature/speed.c (scalar path, `--cpumask -1`),
// feature/vif_tools.c, feature/picture_copy.c, feature/common/convolution*.
//   speed_chroma   outputs Speed_chroma_feature_speed_chroma_{u,v,uv}_score
//                  from the two chroma planes; used by the v1.0.16 models.
//   speed_temporal outputs Speed_temporal_feature_speed_temporal_score from the
//                  luma difference of consecutive frames (libvmaf TEMPORAL).
//
// Stages, per image (one chroma plane, or one luma frame difference):
//   1. float image: sample / d - 128 with d = 1, 4, 16, 256 at bpc 8, 10, 12,
//      16 (picture_copy); speed_temporal: previous minus current frame, each
//      converted so (all exact in float: at most 16 significant bits).
//   2. prescale (only when |speed_prescale - 1| >= 1e-3) to
//      (int)(w * ps + 0.5) x (int)(h * ps + 0.5) with speed_prescale_method
//      (features/common/float_resample.h).
//   3. anti-alias Gaussian, size S1 = gaussian_filter_size(1, ks), stdev
//      (float)(sqrt(4) * S1 / 5.0) (double), then every 16th row and column
//      from (0, 0): the 1/16 image, (scaled >> 4) per side
//      (features/common/float_filter.h: filter_separable, step 16).
//   4. local mean: the 1/16 image minus its own Gaussian filter of scale 4
//      (vif_gaussian_filter(4, ks)), reflect-101 at the 1/16 image's edges.
//   5. band = the top-left T = (trunc_w x trunc_h) of that image, each side
//      rounded down to a multiple of 5: nx x ny blocks of 5x5.
//   6. block statistics (est_params; speed_finish.cpp): the 25 means of the
//      shifted (trunc - 4)^2 sub-images (float sums), the 25x25 covariance
//      (double sums, divided in double, stored float), its eigenvalues
//      (Householder tridiagonalisation + implicit-shift QR, float, at most
//      500 steps), and the 25 x nb system K X = Y (Y: the samples of each
//      block, Householder QR + back substitution, float). An eigenvalue
//      < 1e-6 or a pivot |R_ii| < 1e-6 makes the image "singular": X = 0.
//      Per block: S = sum over i of (X_i * Y_i) / 25 (float), entropy =
//      sum over eigenvalues L (negative ones as 0) of
//      log2(L * S + snn) + log2(2 pi e) (double terms, float running sum).
//   7. score (get_speed_score): base = 25 * (log2((1 + nnf) * snn) +
//      log2(2 pi e)); blocks where both entropies are below base add 0, the
//      others |H_ref * log2(1 + v_ref) - H_dis * log2(1 + v_dis')| with the
//      variances of speed_weight_var_mode; the float sum over blocks / nb.
//      If exactly one of ref/dis is singular the score is 0.
//   speed_chroma: u and v as above; uv = (u + v) / 2, or the other channel's
//   score when exactly one channel had a singular image; each printed value
//   is min(score, speed_max_val) in double. speed_temporal: frame 0 is 0;
//   frame i > 0 compares ref(i-1) - ref(i) with dis(i-1) - dis(i) (with
//   speed_use_ref_diff: dis(i-1) - ref(i)), weight_var_mode 0, no clipping
//   (libvmaf ignores speed_max_val there; it only renames the output).
//
// Numeric contract: every float and double operation is libvmaf's scalar C
// in its order and types (float where it keeps float, double where C
// promotes, float results rounded where it stores them), compiled without
// FMA contraction; libm exp, sin, sqrt and log2 are called as libvmaf calls
// them. libvmaf's AVX2/AVX-512 covariance kernel (FMA, two partial sums)
// gives other values; this is the scalar path (docs/speed.md).
//
// Terms and finish: the split and why it is exact.
//   SpeedChromaTerms / SpeedTemporalTerms hold, per image (SpeedImageTerms),
//   the band of stage 5 (trunc_w x trunc_h floats, row-major: the exact float
//   values libvmaf's est_params reads), est_params' 325 covariance sums of it
//   (SpeedSums), the QR factors of the covariance matrix K (SpeedFactors)
//   and each block's variance S (solving R X = q Y; all +0 when a pivot is
//   below 1e-6, where est_params gives up).
//   Each band value depends on a bounded window of the input (the
//   anti-alias taps around its sample, the local-mean taps around it) and is
//   computed with float multiplies and adds in a fixed tap order, no
//   reduction across the image: a device can produce each value
//   independently, bit for bit, with the same operations (no FMA, taps
//   uploaded from the host's gaussian_taps). Each covariance sum is one
//   sequence of IEEE operations over the band in raster order (and the 25
//   means it subtracts are float sums in raster order): a device thread can
//   run that sequence as it stands (speed_math.h). Each entry of the QR
//   factors is a fixed sequence too, given the step's reflector (speed_qr),
//   and so is each block's variance given the factors and its 25 samples
//   (speed_block_variance). The rest of stages 6-7 (K's eigenvalues, every
//   libm call, the scores) runs in the shared finish on the host, on those
//   values, so no backend carries its own copy of them. The finish uses the
//   variances only when every eigenvalue and pivot passes (else est_params'
//   X is 0 and each S a zero, whose sign no later step can see).
//
// CUDA twins (speed.cu, speed_cuda.cpp, speed_math.h): stages 1-5, the
// covariance sums, K's QR factors and the variances on the device, the finish
// above on the host. A QR that runs dense (a reflector of norm 0:
// rank-deficient K) holds NaNs whose bits are the hardware's; for that image
// the twin takes the CPU's factors of the device's sums and the CPU's
// variances of those, and the CPU's variances too wherever the device's hold a
// NaN (an x86 0/0 is negative, the device's canonical NaN positive). Exact
// because every band value is computed with this file's operations in this
// order, each written as an IEEE round-to-nearest intrinsic (float and double
// alike: the same result as the host's SSE arithmetic, which -ffp-contract=off
// keeps uncontracted), from the extractor's own host-made taps; the sample
// division by 2^k is the exact multiplication by 2^-k; each sum is one
// thread's sequence, each QR entry one thread's over the CPU's index ranges,
// each block's variance one thread's. The resamplers' per-axis windows use
// only + - * /, floor and ceil (float_resample.h) and are computed on the
// device once. lanczos4's weights call libm sin: a resampling lanczos4
// prescale is refused (the CPU runs it). No reduction is split across threads,
// so no order question arises.
//
// Sizes: libvmaf has no block below 80x80 samples after prescale (the 1/16
// image must be at least 5x5): it divides by zero blocks and crashes. init
// refuses such sizes with the minimum. Above it every filter radius fits its
// image (S1 <= 35 taps for the largest kernel scale, local mean <= 9 taps).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/picture.h"
#include "features/common/float_resample.h"
#include "features/feature.h"
#include "features/speed/speed_math.h"

namespace twinmaf {

inline constexpr int kSpeedDecimation = 16;                          // 1/16 scale
inline constexpr int kSpeedMinScaled = kSpeedBlock * kSpeedDecimation;  // 80

// The options that decide the numbers (libvmaf's SpeedOptions).
struct SpeedParams {
  double kernelscale = 1.0;
  double prescale = 1.0;
  ResampleMethod prescale_method = ResampleMethod::kNearest;
  double sigma_nn = 0.29;
  double nn_floor = 0.0;
  double max_val = 1000.0;
  int weight_var_mode = 0;
  bool use_ref_diff = false;  // speed_temporal only

  // libvmaf's ALMOST_EQUAL(prescale, 1.0) test, negated.
  bool prescales() const;
};

// Image sizes through the stages (libvmaf's SpeedDimensions).
struct SpeedGeometry {
  int w = 0, h = 0;                // input plane
  int scaled_w = 0, scaled_h = 0;  // after prescale ((int)(w * ps + 0.5))
  int op_w = 0, op_h = 0;          // 1/16 image: scaled >> 4
  int trunc_w = 0, trunc_h = 0;    // op rounded down to multiples of 5

  int blocks_x() const { return trunc_w / kSpeedBlock; }
  int blocks_y() const { return trunc_h / kSpeedBlock; }
  int blocks() const { return blocks_x() * blocks_y(); }
  size_t band_size() const { return static_cast<size_t>(trunc_w) * static_cast<size_t>(trunc_h); }
};

SpeedGeometry speed_geometry(int w, int h, const SpeedParams& p);

// What the kernels of stages 1-5 need, resolved once at init.
struct SpeedKernelParams {
  SpeedGeometry g;
  bool prescale = false;
  ResampleMethod method = ResampleMethod::kNearest;
  int bpc = 8;                    // 8: uint8_t samples; 10, 12, 16: uint16_t
  float sample_divisor = 1;       // 1, 4, 16, 256
  std::vector<float> antialias;   // stage 3 taps
  std::vector<float> local_mean;  // stage 4 taps
};

// How stages 1-2 give the scaled_w x scaled_h image the anti-alias pass
// filters (speed_math.h's SpeedSource; kDirect also for a prescale that keeps
// the size, which resample_plane copies); nullopt for a resampling lanczos4
// prescale (its weights call libm sin).
std::optional<SpeedSource> speed_source(const SpeedKernelParams& kp);

// Stage 5 of one image: trunc_w x trunc_h floats, row-major.
using SpeedBand = std::vector<float>;

// est_params' covariance sums of one band (speed_band_sums), pairs row by
// row (speed_math.h's kSpeedPairs order).
using SpeedSums = std::array<double, kSpeedPairs>;

// A kSpeedBlockSamples square matrix, row-major.
using SpeedMatrix = std::array<float, kSpeedMatrix>;

// The QR factors of a band's covariance matrix K as est_params' solve forms
// them (speed_qr): q = Q' (the product of its reflections) and r = q K.
struct SpeedFactors {
  SpeedMatrix q{}, r{};
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.q);
    f(s.r);
  }
};

// Per block, raster order: est_params' S (speed_block_variances).
using SpeedVariance = std::vector<float>;

// One image's terms: its band, and est_params' intermediates of it. At
// speed_temporal's frame 0 (no predecessor) the band and variances are empty
// and the rest 0.
struct SpeedImageTerms {
  SpeedBand band;
  SpeedSums sums{};
  SpeedFactors factors;
  SpeedVariance variance;
  // Bitwise.
  bool operator==(const SpeedImageTerms& o) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.band);
    f(s.sums);
    f(s.factors);
    f(s.variance);
  }
};

struct SpeedChromaTerms final : FrameTermsOf<SpeedChromaTerms> {
  // u ref, u dis, v ref, v dis.
  std::array<SpeedImageTerms, 4> image;
  bool operator==(const SpeedChromaTerms& o) const { return image == o.image; }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.image); }
};

struct SpeedTemporalTerms final : FrameTermsOf<SpeedTemporalTerms> {
  // Frame differences: ref, dis.
  std::array<SpeedImageTerms, 2> image;
  bool operator==(const SpeedTemporalTerms& o) const { return image == o.image; }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.image); }
};

// CPU reference kernels (stages 1-5).
// Band of one plane (bpc 8: uint8_t samples, else uint16_t).
void speed_band_ref(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band);
// Band of prev - cur (same size and bpc).
void speed_difference_band_ref(const SpeedKernelParams& kp, const PlaneView& prev,
                               const PlaneView& cur, SpeedBand& band);
// Stages 4-5 from the 1/16 image (op_w x op_h floats, row-major): every
// CPU kernel's own.
void speed_band_from_small(const SpeedKernelParams& kp, const float* small, SpeedBand& band);

// SIMD kernels (speed_simd.cpp, Highway): the bands of the references bit for
// bit (tests/simd). Stages 1-3 are vectorised (only the scaled rows the
// anti-alias pass reads are resampled); a resampling lanczos4 prescale runs
// the reference.
void speed_band_simd(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band);
void speed_difference_band_simd(const SpeedKernelParams& kp, const PlaneView& prev,
                                const PlaneView& cur, SpeedBand& band);

// finish, stages 6-7.
struct SpeedBlockStats {
  std::vector<float> entropy;   // per block, raster order
  std::vector<float> variance;  // per block, raster order
  bool singular = false;
};
// est_params of one image from its terms.
SpeedBlockStats speed_block_stats(const SpeedGeometry& g, const SpeedImageTerms& image, float sigma_nn);
// est_params' sums of each of the 25 sub-images shifted by (a / 5, a % 5)
// (their means times their area): speed_shifted_sum. Reference, and Highway
// SIMD (speed_finish_simd.cpp: one lane per sub-image, gathered), equal on
// every target (tests/simd).
void speed_shifted_sums_ref(const SpeedGeometry& g, const float* band, float* sum);
void speed_shifted_sums_simd(const SpeedGeometry& g, const float* band, float* sum);
// est_params' covariance sums (speed_covariance_sum) for every pair, `acc`
// in kSpeedPairs order, from the means (the shifted sums divided by the
// area in float). Reference, and Highway SIMD (speed_finish_simd.cpp: lanes
// over the pairs of one row a, every pair's sum still in raster order,
// products and sums the reference's IEEE operations), equal on every target
// (tests/simd).
void speed_covariance_sums_ref(const SpeedGeometry& g, const float* band, const float* mean, double* acc);
void speed_covariance_sums_simd(const SpeedGeometry& g, const float* band, const float* mean, double* acc);

// The CPU kernels compute() runs (dav1d's dsp table). speed_dsp_init fills
// the reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
struct SpeedDsp {
  void (*band)(const SpeedKernelParams& kp, const PlaneView& plane, SpeedBand& band);
  void (*difference_band)(const SpeedKernelParams& kp, const PlaneView& prev, const PlaneView& cur,
                          SpeedBand& band);
  void (*shifted_sums)(const SpeedGeometry& g, const float* band, float* sum);
  void (*covariance_sums)(const SpeedGeometry& g, const float* band, const float* mean, double* acc);
};
const SpeedDsp& speed_dsp_ref();     // speed_ref.cpp
const SpeedDsp& speed_dsp_simd();    // speed_simd.cpp
void speed_dsp_init(SpeedDsp& dsp);  // speed_simd.cpp

// The means and covariance sums of one band, on the kernels of `dsp`.
void speed_band_sums(const SpeedDsp& dsp, const SpeedGeometry& g, const SpeedBand& band, SpeedSums& sums);
// K from the sums: speed_covariance_entry for every entry.
SpeedMatrix speed_covariance_matrix(const SpeedGeometry& g, const SpeedSums& sums);
// K's QR factors: the reflections in libvmaf's order, each product entry
// speed_product_entry's sum (speed_finish.cpp has why the products it skips
// change nothing).
void speed_qr(const SpeedMatrix& k, SpeedFactors& f);
// Every block's variance from the band and the factors
// (speed_block_variance, column-vectorised): all +0 unless
// speed_solvable(r).
void speed_block_variances(const SpeedGeometry& g, SpeedImageTerms& image);
// What the CPU extractors' compute() stores beside a band: its sums,
// factors and variances.
void speed_image_terms(const SpeedDsp& dsp, const SpeedGeometry& g, SpeedImageTerms& image);
// get_speed_score of two images' statistics.
float speed_blocks_score(const SpeedBlockStats& ref, const SpeedBlockStats& dis, float sigma_nn,
                         float nn_floor, int weight_var_mode);

struct SpeedScore {
  float score = 0;
  bool singular = false;  // either image singular (libvmaf's channel error)
};
// speed_extract_score of a (ref, dis) pair of images.
SpeedScore speed_pair_score(const SpeedGeometry& g, const SpeedImageTerms& ref, const SpeedImageTerms& dis,
                            const SpeedParams& p);

// libvmaf's three outputs from the two channel scores.
struct SpeedChromaScores {
  double u = 0, v = 0, uv = 0;
};
SpeedChromaScores speed_chroma_scores(const SpeedScore& u, const SpeedScore& v, double max_val);

// Both extractors settle (Extractor::settle): est_params and the scores are
// the costly part of finish and read one frame's bands alone. The values
// finish appends, in its order (speed_temporal: the first).
struct SpeedSettled final : FrameTermsOf<SpeedSettled> {
  std::array<double, 3> value{};
  bool operator==(const SpeedSettled& o) const {
    for (size_t i = 0; i < value.size(); ++i)
      if (double_bits(value[i]) != double_bits(o.value[i])) return false;
    return true;
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.value); }
};

const FeatureSpec& speed_chroma_feature_spec();
const FeatureSpec& speed_temporal_feature_spec();

// The resolved parameters of an initialised speed_chroma or speed_temporal
// extractor (what its twin reproduces).
const SpeedParams& speed_params(const Extractor& configured);
const SpeedKernelParams& speed_kernel_params(const Extractor& configured);

// The twin's launch for an initialised extractor's kernel parameters:
// geometry, source, taps (speed_math.h; no planes, windows or scratch).
// kUnsupported for a lanczos4 prescale that resamples.
Result<SpeedLaunch> speed_twin_launch(std::string_view feature, const SpeedKernelParams& kp, bool temporal);

// CUDA twins (speed.cu, speed_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_speed_chroma_twin(const Extractor& configured, const VideoFormat& fmt,
                                                     gpu::Context& ctx);
Result<std::unique_ptr<Twin>> make_speed_temporal_twin(const Extractor& configured, const VideoFormat& fmt,
                                                       gpu::Context& ctx);

}  // namespace twinmaf
