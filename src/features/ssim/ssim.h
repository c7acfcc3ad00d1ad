// float_ssim and float_ms_ssim: SSIM and multi-scale SSIM of the luma plane.
//
// Reference: libvmaf f85a8536 feature/float_ssim.c + ssim.c, float_ms_ssim.c
// + ms_ssim.c, iqa/ssim_tools.c, iqa/convolve.c, iqa/decimate.c,
// picture_copy.c (libvmaf-map.md sections 5.6-5.7).
//
// Outputs. float_ssim: float_ssim, and with enable_lcs float_ssim_l,
// float_ssim_c, float_ssim_s. float_ms_ssim: float_ms_ssim, and with
// enable_lcs float_ms_ssim_{l,c,s}_scale{0..4} (all five l, then c, then s).
// No option is a feature parameter: the names never change.
//
// Stages, per frame (the luma plane only, any layout):
//   load      x = (float)sample at 8 bit; (float)sample / 4, 16, 256 at 10,
//             12, 16 bit (the 8-bit range; the constants stay 8-bit ones).
//             Other depths are refused at init: libvmaf reads their 16-bit
//             storage as bytes (picture_copy's 8-bit branch), which is not
//             the picture, and its CLI accepts 8/10/12/16 only.
//   decimate  float_ssim with scale f > 1 (option `scale`, or for scale 0
//             max(1, round(min(w,h)/256)) with halves rounded up, i.e.
//             max(1, (min(w,h) + 128) / 256)): an f x f box filter, weights
//             (float)(1.0f / (f*f)). float_ms_ssim: scales 1..4 are the
//             previous scale filtered with the 9x9 9/7 low-pass
//             (kMsSsimLpfQuadrant) at factor 2. Both are libvmaf's
//             _iqa_decimate: output size ssim_decimated_size(n, f) =
//             n/f + (n&1); output (x, y) is centred on input (f*x, f*y),
//             taps -f/2 .. f/2-1 for an even box (-4..4 for the low-pass);
//             borders symmetric (-1-i, 2n-1-i); per output
//               (float)(sum over taps, rows outer, of (double)(float)(v*k))
//             from +0.0 in double.
//   ssim      on each image (w x h): five maps filtered with the separable
//             11-tap Gaussian, valid area only ((w-10) x (h-10)): the two
//             images, their float squares and their float product;
//             horizontal pass first, each output
//               (float)(sum_k (double)(float)(v_k * g_k)), k = 0..10, from +0.0,
//             then the vertical pass the same way over the horizontal results.
//             Per pixel ssim_pixel (ssim_math.h): l, c, s and l*c*s.
//   sums      over the valid area in raster order, four double running sums
//             from +0.0: sum of l*c*s, of l, of c, of s.
// finish (shared, host), with n = (w-10)*(h-10) as an int:
//   mean_X = (float)(sum_X / (double)n) for X in lcs, l, c, s.
//   float_ssim = mean_lcs; _l/_c/_s = mean_l/_c/_s.
//   float_ms_ssim = product over scales i = 0..4, in order, from 1.0 of
//     pow(l_i, a_i) * pow(c_i, b_i) * pow(s_i, g_i)  (double; libm pow of the
//     float means), a = {0, 0, 0, 0, 0.1333f}, b = g = {0.0448f, 0.2856f,
//     0.3001f, 0.2363f, 0.1333f}; _l/_c/_s_scaleI = the float means.
//   enable_db: min(-10 * log10(1 - score), max_db) with C's MIN (a NaN score
//     gives max_db); max_db = ceil(10 * log10(peak^2 / (0.5 / (W*H)))) with
//     peak = 2^bpc - 1 and W x H the luma size when clip_db, else +inf.
//
// Sizes. float_ssim never refuses a size: when the image SSIM runs on has
// w < 11 or h < 11 the valid area is empty, every sum is +0 and libvmaf
// divides by (w-10)*(h-10) anyway, so the means are +0, -0 (one factor
// negative) or NaN (a factor 0), whatever the pixels; we compute exactly
// that without reading them (libvmaf's decimation may read outside its
// buffer there, e.g. scale 10 on a 5x5 picture; the result cannot depend on
// what it reads). float_ms_ssim needs floor(w/2^i) >= 11 and
// floor(h/2^i) >= 11 for i = 0..4, i.e. both sides >= 176 (kMsSsimMinSize):
// libvmaf scores no frame below that ("scale below 1x1", exit 0); init
// refuses it with one line naming the feature and the minimum size.
//
// libvmaf decimates float_ssim's images in place: output (x, y) is stored at
// index y*sw + x of the input buffer, after its own reads, while later
// outputs still read the input. Wherever the result depends on the pixels
// (sw, sh >= 11, so w, h >= 10 f) no read index is below the output's own,
// so no output sees an overwritten sample and the in-place result is the
// out-of-place one computed here. Row 0: columns read are >= x (f x - f/2
// >= x for x >= 1; right reflections >= w - 1 - f/2 > w/f >= x), other rows
// start at w > x. Row y >= 1: rows read are >= min(f y - f/2, h - 1 - f/2),
// and that row times w exceeds (y+1) sw - 1 >= y sw + x (f = 2:
// (2y-1) w >= (y+1)(w+1)/2 - 1; f >= 3: (f/2) y w >= (y+1)(w/f + 1); the
// reflected bound: 0.9 h w against (h/f + 1)(w/f + 1) <= 0.31 h w).
// tests/unit/ssim_test.cpp checks the index sets exhaustively for every
// factor over a range of sizes.
//
// Terms and finish: the split and why it is exact.
//   SsimSums (per scale) = the four running sums, each libvmaf's double sum
//   of its per-pixel terms in raster order from +0.0. Everything before the
//   sums is per-output arithmetic with a fixed operand order (filters,
//   decimation, ssim_pixel), so any backend that evaluates the same
//   expressions gets the same terms. The sums are ordered double sums: the
//   CPU adds the terms row by row as it produces them (the plain loop, i.e.
//   ordered_sum_naive's definition); a device twin produces the same bits
//   with base/ordered_sum.h's double tree over the terms (its value equals
//   the plain loop for every input; tests/unit/ssim_test.cpp also checks it
//   on the terms of a frame). What crosses the bus is 32 bytes per scale.
//   finish reads only the sums and the sizes from init: the divisions, the
//   float rounding of the means, pow, log10 and the clipping, once per frame.
//
// CUDA twin (ssim.cu, ssim_cuda.cpp): every option, depth and size the CPU
// accepts. One thread per output of each stage, each computing the CPU's
// expression (the load, ssim_decimate's taps, the Gaussian passes,
// ssim_pixel); each of the four sums per scale is a tree of 64-term leaves
// walked by gpu/ordered_sum.cuh. The structure terms (s, and l c s) can be
// negative: a leaf holding one is added term by term as the CPU's loop
// does, so noise-like content costs the walk more time, never other bits.
#pragma once

#include <memory>

#include "core/picture.h"
#include "features/feature.h"
#include "features/ssim/ssim_math.h"

namespace twinmaf {

inline constexpr int kMsSsimMinSize = kSsimWindow << (kMsSsimScales - 1);  // 176

// One scale's running sums (libvmaf's ssim_sum, l_sum, c_sum, s_sum).
struct SsimSums {
  double lcs = 0, l = 0, c = 0, s = 0;
  // Bitwise: a twin must produce the same bits, NaN payloads and -0 included.
  bool operator==(const SsimSums& o) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.lcs); f(s.l); f(s.c); f(s.s); }
};

struct FloatSsimTerms final : FrameTermsOf<FloatSsimTerms> {
  SsimSums sums;
  bool operator==(const FloatSsimTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.sums); }
};

struct FloatMsSsimTerms final : FrameTermsOf<FloatMsSsimTerms> {
  SsimSums scale[kMsSsimScales];
  bool operator==(const FloatMsSsimTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.scale); }
};

// CPU kernels (ssim_ref.cpp drives them). Images are float, row-major, rows
// `w` apart.

// The two row kernels the drivers stream every row through. Each output is
// its own expression, so a SIMD kernel computes neighbouring outputs in lanes
// with the scalar operations and gives their bits.
struct SsimRowKernels {
  // out[x] = ssim_weighted_sum(src, w, taps, x) for x < n (ssim_math.h).
  void (*weighted_sum_row)(const float* const* src, const float* w, int taps, int n, float* out);
  // ssim_pixel of n pixels of the five filtered maps.
  void (*pixel_terms_row)(const float* mu1, const float* mu2, const float* xx, const float* yy, const float* xy,
                          int n, double* l, double* c, double* s);
};
// The scalar definitions (ssim_ref.cpp).
const SsimRowKernels& ssim_row_kernels_ref();
// Highway (ssim_simd.cpp), each call dispatched to the best target
// base/simd.h allows; equal to the reference on every input and target
// (tests/simd).
const SsimRowKernels& ssim_row_kernels_simd();
// dav1d's dsp_init (ssim_simd.cpp): the reference kernels, upgraded to the
// Highway ones when base/simd.h allows SIMD (this CPU and --cpumask at the
// time of the fill). The extractors fill their table in init and compute() runs it.
void ssim_dsp_init(SsimRowKernels& dsp);

// The luma plane as libvmaf's picture_copy converts it (bpc 8, 10, 12, 16).
void ssim_load_ref(const PlaneView& plane, int bpc, float* out);

// _iqa_decimate by `factor` with a kh x kw kernel (row-major weights)
// centred kh/2, kw/2 taps from its origin, into
// ssim_decimated_size(w, factor) x ssim_decimated_size(h, factor). Needs
// w >= kw/2 + 1 and h >= kh/2 + 1 (one reflection reaches every tap).
void ssim_decimate(const float* in, int w, int h, int factor, const float* kernel, int kw, int kh,
                   const SsimRowKernels& k, float* out);

// The box kernel of float_ssim's scale f and the 9x9 low-pass of
// float_ms_ssim, as row-major weight tables.
void ssim_box_kernel(int f, float* kernel);  // f*f weights
const float* ms_ssim_lpf_kernel();           // 81 weights

// The four running sums of SSIM on w x h images; +0 sums when w or h < 11.
void ssim_sums(const float* ref, const float* dis, int w, int h, const SsimRowKernels& k, SsimSums& out);

// Whole frames: float_ssim at decimation factor `scale` (>= 1, resolved)
// and float_ms_ssim's five scales (w, h >= kMsSsimMinSize).
void float_ssim_terms(const PlaneView& ref, const PlaneView& dis, int bpc, int scale, const SsimRowKernels& k,
                      SsimSums& out);
void float_ms_ssim_terms(const PlaneView& ref, const PlaneView& dis, int bpc, const SsimRowKernels& k,
                         SsimSums out[kMsSsimScales]);

// finish pieces (ssim.cpp).

// The means of one scale (libvmaf's float results), for an image of w x h
// that SSIM ran on (n = (w-10)*(h-10), empty or not).
struct SsimMeans {
  float lcs, l, c, s;
};
SsimMeans ssim_means(const SsimSums& sums, int w, int h);

// float_ssim's decimation factor for option `scale` (0 = auto) on w x h.
int float_ssim_factor(int scale, int w, int h);

// float_ms_ssim from the five scales' means.
double ms_ssim_score(const SsimMeans means[kMsSsimScales]);

// libvmaf's max_db (clip) or +inf, and its dB conversion.
double ssim_max_db(bool clip_db, int bpc, int w, int h);
double ssim_to_db(double score, double max_db);

// A configured extractor's image pyramid (for its twin): float_ms_ssim's five
// scales, or float_ssim's resolved decimation factor (1: none).
struct SsimPyramid {
  bool multi_scale = false;
  int factor = 1;
};
SsimPyramid ssim_configured_pyramid(const Extractor& configured);

// The CUDA twin of both (ssim.cu, ssim_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_ssim_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context& ctx);

const FeatureSpec& float_ssim_feature_spec();
const FeatureSpec& float_ms_ssim_feature_spec();

}  // namespace twinmaf
