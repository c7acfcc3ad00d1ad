// SSIM CPU reference kernels: load, decimation, the five Gaussian maps, the
// per-pixel terms and their running sums (contract in ssim.h).
//
// Every filter output is one independent expression (its taps' float
// products summed in double from +0.0 in tap order), so the order in which
// outputs are produced is free: weighted_sum_row computes blocks of
// neighbouring outputs in vector lanes, tap outer, lane inner, without
// changing any output's operation order. The Gaussian maps are streamed: one
// input row's five horizontal results go into a ring of 11 rows, and each
// completed window gives one row of vertical results, per-pixel terms (in
// vector lanes too) and running sums. Decimation reads its taps through
// per-row "phase" copies of the reflected input, so that every tap of a
// block of outputs is a contiguous run of floats. Only the running sums are
// sequential, as libvmaf's are.
//
// CPU variants: the two lane kernels are one source each, compiled for the
// baseline ISA and, on x86-64, for AVX2 and AVX-512 (kernel_table picks the
// best the CPU has; ssim_select_cpu_variant lets tests run each). They use
// element-wise IEEE operations only (float products and quotients, exact
// float -> double widening, double sums and quotients, correctly rounded
// square roots, one rounding back to float) and no contraction, so every
// variant gives the scalar expressions' bits; a wider ISA only runs more
// lanes per instruction.
// The lane helpers return 32- and 64-byte vectors by value; they are
// internal and inlined, so GCC's warning that such returns' ABI depends on
// the ISA concerns no interface.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "features/ssim/ssim.h"

#include "features/common/float_picture.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define TWINMAF_SSIM_X86 1
#else
#define TWINMAF_SSIM_X86 0
#endif

namespace twinmaf {

namespace {

using F4 = float __attribute__((vector_size(16)));
using D4 = double __attribute__((vector_size(32)));
using F8 = float __attribute__((vector_size(32)));
using D8 = double __attribute__((vector_size(64)));

// Lanes of 4 or 8 outputs: a float and a double vector, unaligned loads and
// stores, exact widening and the rounding back to float (written
// element-wise below: GCC 12 turns these, not __builtin_convertvector, into
// single vcvtps2pd / vcvtpd2ps instructions).
template <class FV, class DV>
struct Lanes {
  using F = FV;
  using D = DV;
  static constexpr int kN = sizeof(F) / sizeof(float);
  static F load(const float* p) {
    F v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  static F splat(float x) {
    F v;
    for (int i = 0; i < kN; ++i) v[i] = x;
    return v;
  }
  static D widen(const F& v);
  static F narrow(const D& v);
  static void store(float* p, const D& v) {
    const F f = narrow(v);
    __builtin_memcpy(p, &f, sizeof f);
  }
  static void store(double* p, const D& v) { __builtin_memcpy(p, &v, sizeof v); }
};
using Lanes4 = Lanes<F4, D4>;
using Lanes8 = Lanes<F8, D8>;

template <>
D4 Lanes4::widen(const F4& v) {
  return D4{v[0], v[1], v[2], v[3]};
}
template <>
F4 Lanes4::narrow(const D4& v) {
  return F4{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]),
            static_cast<float>(v[3])};
}
template <>
D8 Lanes8::widen(const F8& v) {
  return D8{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}
template <>
F8 Lanes8::narrow(const D8& v) {
  return F8{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]), static_cast<float>(v[3]),
            static_cast<float>(v[4]), static_cast<float>(v[5]), static_cast<float>(v[6]), static_cast<float>(v[7])};
}

// out[x] = (float)(sum over k < taps of (double)(src[k][x] * w[k])), from
// +0.0: blocks of four vectors, then single vectors, then scalars.
template <class L>
inline __attribute__((always_inline)) void weighted_sum_row_lanes(const float* const* src, const float* w,
                                                                  int taps, int n, float* out) {
  using F = typename L::F;
  using D = typename L::D;
  constexpr int kN = L::kN;
  int x0 = 0;
  for (; x0 + 4 * kN <= n; x0 += 4 * kN) {
    D a0{}, a1{}, a2{}, a3{};
    for (int k = 0; k < taps; ++k) {
      const F wk = L::splat(w[k]);
      const float* s = src[k] + x0;
      a0 += L::widen(L::load(s) * wk);
      a1 += L::widen(L::load(s + kN) * wk);
      a2 += L::widen(L::load(s + 2 * kN) * wk);
      a3 += L::widen(L::load(s + 3 * kN) * wk);
    }
    L::store(out + x0, a0);
    L::store(out + x0 + kN, a1);
    L::store(out + x0 + 2 * kN, a2);
    L::store(out + x0 + 3 * kN, a3);
  }
  for (; x0 + kN <= n; x0 += kN) {
    D a{};
    for (int k = 0; k < taps; ++k) a += L::widen(L::load(src[k] + x0) * L::splat(w[k]));
    L::store(out + x0, a);
  }
  for (int x = x0; x < n; ++x) {
    double acc = 0.0;
    for (int k = 0; k < taps; ++k) acc += static_cast<double>(src[k][x] * w[k]);
    out[x] = static_cast<float>(acc);
  }
}

// ssim_pixel (ssim_math.h) on L::kN pixels: element-wise the scalar lanes'
// operations.
template <class L>
struct SsimVectorLanes {
  using F = typename L::F;
  using D = typename L::D;
  static D widen(const F& x) { return L::widen(x); }
  static F sqrt_of(const F& x) {
    F r;
    for (int i = 0; i < L::kN; ++i) r[i] = SsimScalarLanes::sqrt_of(x[i]);
    return r;
  }
  static F max0(const F& x) { return 0.0f > x ? F{} : x; }
  static F clamp_cov(const F& s12, const F& sd) { return ((s12 < 0.0f) & (sd <= 0.0f)) ? F{} : s12; }
};

// l, c, s of n pixels of the five filtered maps.
template <class L>
inline __attribute__((always_inline)) void pixel_terms_row_lanes(const float* mu1, const float* mu2, const float* xx,
                                                                 const float* yy, const float* xy, int n, double* l,
                                                                 double* c, double* s) {
  int x = 0;
  for (; x + L::kN <= n; x += L::kN) {
    typename L::D vl, vc, vs;
    ssim_pixel<SsimVectorLanes<L>>(L::load(mu1 + x), L::load(mu2 + x), L::load(xx + x), L::load(yy + x),
                                   L::load(xy + x), vl, vc, vs);
    L::store(l + x, vl);
    L::store(c + x, vc);
    L::store(s + x, vs);
  }
  for (; x < n; ++x) ssim_pixel<SsimScalarLanes>(mu1[x], mu2[x], xx[x], yy[x], xy[x], l[x], c[x], s[x]);
}

using WeightedSumRowFn = void (*)(const float* const* src, const float* w, int taps, int n, float* out);
using PixelTermsRowFn = void (*)(const float* mu1, const float* mu2, const float* xx, const float* yy,
                                 const float* xy, int n, double* l, double* c, double* s);

struct Kernels {
  WeightedSumRowFn weighted_sum_row;
  PixelTermsRowFn pixel_terms_row;
};

// One variant: the lane kernels of L compiled for `target`.
#define TWINMAF_SSIM_VARIANT(name, attr, L)                                                                      \
  attr void weighted_sum_row_##name(const float* const* src, const float* w, int taps, int n, float* out) {      \
    weighted_sum_row_lanes<L>(src, w, taps, n, out);                                                            \
  }                                                                                                              \
  attr void pixel_terms_row_##name(const float* mu1, const float* mu2, const float* xx, const float* yy,          \
                                   const float* xy, int n, double* l, double* c, double* s) {                    \
    pixel_terms_row_lanes<L>(mu1, mu2, xx, yy, xy, n, l, c, s);                                                 \
  }                                                                                                              \
  constexpr Kernels kKernels_##name = {weighted_sum_row_##name, pixel_terms_row_##name};

TWINMAF_SSIM_VARIANT(baseline, , Lanes4)
#if TWINMAF_SSIM_X86
TWINMAF_SSIM_VARIANT(avx2, __attribute__((target("avx2"))), Lanes4)
TWINMAF_SSIM_VARIANT(avx512, __attribute__((target("avx512f"))), Lanes8)
#endif
#undef TWINMAF_SSIM_VARIANT

const Kernels* kernels_of(SsimCpuVariant v) {
  switch (v) {
    case SsimCpuVariant::kBaseline: return &kKernels_baseline;
#if TWINMAF_SSIM_X86
    case SsimCpuVariant::kAvx2: return __builtin_cpu_supports("avx2") ? &kKernels_avx2 : nullptr;
    case SsimCpuVariant::kAvx512: return __builtin_cpu_supports("avx512f") ? &kKernels_avx512 : nullptr;
#else
    default: return nullptr;
#endif
  }
  return nullptr;
}

std::atomic<const Kernels*>& selected_kernels() {
  static std::atomic<const Kernels*> k = [] {
    const std::vector<SsimCpuVariant> v = ssim_cpu_variants();
    return kernels_of(v.back());
  }();
  return k;
}

const Kernels& kernels() { return *selected_kernels().load(std::memory_order_relaxed); }

// Per-thread scratch, grown to the largest frame seen and reused.
struct Workspace {
  // Frame images: [0] reference, [1] distorted, per scale.
  std::vector<float> img[kMsSsimScales][2];
  // Decimation: the phase copies of every input row.
  std::vector<float> phases;
  // Gaussian maps: one input row's products, the ring of horizontal results
  // (kSsimWindow rows x 5 maps) and one row of vertical results.
  std::vector<float> products;
  std::vector<float> ring;
  std::vector<float> vert;
  std::vector<double> terms;
};

Workspace& workspace() {
  thread_local Workspace ws;
  return ws;
}

template <typename T>
T* sized(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

}  // namespace

std::vector<SsimCpuVariant> ssim_cpu_variants() {
  std::vector<SsimCpuVariant> v;
  for (SsimCpuVariant c : {SsimCpuVariant::kBaseline, SsimCpuVariant::kAvx2, SsimCpuVariant::kAvx512})
    if (kernels_of(c)) v.push_back(c);
  return v;
}

bool ssim_select_cpu_variant(SsimCpuVariant v) {
  const Kernels* k = kernels_of(v);
  if (k) selected_kernels().store(k, std::memory_order_relaxed);
  return k != nullptr;
}

void ssim_load_ref(const PlaneView& plane, int bpc, float* out) {
  float_picture_plane(plane, bpc, 0.0f, out, plane.w);  // no offset: x + 0.0f == x for x >= +0
}

void ssim_box_kernel(int f, float* kernel) {
  const float v = 1.0f / static_cast<float>(f * f);
  for (int i = 0; i < f * f; ++i) kernel[i] = v;
}

const float* ms_ssim_lpf_kernel() {
  static const auto table = [] {
    std::vector<float> k(kMsSsimLpfTaps * kMsSsimLpfTaps);
    const int c = kMsSsimLpfTaps / 2;
    for (int v = 0; v < kMsSsimLpfTaps; ++v)
      for (int u = 0; u < kMsSsimLpfTaps; ++u)
        k[static_cast<size_t>(v * kMsSsimLpfTaps + u)] = kMsSsimLpfQuadrant[std::abs(v - c)][std::abs(u - c)];
    return k;
  }();
  return table.data();
}

void ssim_decimate_ref(const float* in, int w, int h, int factor, const float* kernel, int kw, int kh,
                       float* out) {
  const int sw = ssim_decimated_size(w, factor), sh = ssim_decimated_size(h, factor);
  if (sw <= 0 || sh <= 0) return;
  const int uc = kw / 2, vc = kh / 2;
  // Tap b of output x reads input column factor*x + b - uc, i.e. element
  // x + b / factor of phase b % factor, where phase p of a row holds the
  // reflected columns factor*j + p - uc, j < plen.
  const int plen = sw + (kw - 1) / factor;
  const size_t row_len = static_cast<size_t>(factor) * plen;
  float* phases = sized(workspace().phases, row_len * static_cast<size_t>(h));
  for (int y = 0; y < h; ++y) {
    const float* src = in + static_cast<ptrdiff_t>(y) * w;
    float* dst = phases + row_len * y;
    for (int p = 0; p < factor; ++p) {
      float* ph = dst + static_cast<size_t>(p) * plen;
      // Columns factor*j + p - uc: reflected below 0 and from w on, read
      // directly in between. Entries past column 2w-1 only square the array
      // off; no tap reads them.
      const int j0 = std::min(plen, (uc - p + factor - 1) / factor);  // first j with column >= 0
      const int j1 = std::max(j0, std::min(plen, (w + uc - p + factor - 1) / factor));  // first with column >= w
      for (int j = 0; j < j0; ++j) ph[j] = src[ssim_reflect(factor * j + p - uc, w)];
      for (int j = j0; j < j1; ++j) ph[j] = src[factor * j + p - uc];
      for (int j = j1; j < plen; ++j) {
        const int col = factor * j + p - uc;
        ph[j] = col < 2 * w ? src[ssim_reflect(col, w)] : 0.0f;
      }
    }
  }
  const Kernels& kern = kernels();
  std::vector<const float*> src(static_cast<size_t>(kw * kh));
  for (int y = 0; y < sh; ++y) {
    for (int a = 0; a < kh; ++a) {
      const float* row = phases + row_len * ssim_reflect(factor * y + a - vc, h);
      for (int b = 0; b < kw; ++b)
        src[static_cast<size_t>(a * kw + b)] = row + static_cast<size_t>(b % factor) * plen + b / factor;
    }
    kern.weighted_sum_row(src.data(), kernel, kw * kh, sw, out + static_cast<ptrdiff_t>(y) * sw);
  }
}

void ssim_sums_ref(const float* ref, const float* dis, int w, int h, SsimSums& out) {
  out = SsimSums{};
  const int dw = w - (kSsimWindow - 1), dh = h - (kSsimWindow - 1);
  if (dw <= 0 || dh <= 0) return;
  Workspace& ws = workspace();
  const Kernels& kern = kernels();
  constexpr int kMaps = 5;  // mu1, mu2, xx, yy, xy
  const size_t wsz = static_cast<size_t>(w), dsz = static_cast<size_t>(dw);
  float* products = sized(ws.products, 3 * wsz);
  float* ring = sized(ws.ring, kSsimWindow * kMaps * dsz);
  float* vert = sized(ws.vert, kMaps * dsz);
  double* terms = sized(ws.terms, 3 * dsz);
  const float* hsrc[kSsimWindow];
  const float* vsrc[kSsimWindow];
  double lcs = 0.0, ls = 0.0, cs = 0.0, ss = 0.0;
  for (int y = 0; y < h; ++y) {
    // Horizontal pass of input row y into ring slot y % 11.
    const float* r = ref + static_cast<ptrdiff_t>(y) * w;
    const float* d = dis + static_cast<ptrdiff_t>(y) * w;
    float* xx = products;
    float* yy = products + wsz;
    float* xy = products + 2 * wsz;
    for (int x = 0; x < w; ++x) {
      xx[x] = r[x] * r[x];
      yy[x] = d[x] * d[x];
      xy[x] = r[x] * d[x];
    }
    float* slot = ring + static_cast<size_t>(y % kSsimWindow) * kMaps * dsz;
    const float* rows[kMaps] = {r, d, xx, yy, xy};
    for (int m = 0; m < kMaps; ++m) {
      for (int k = 0; k < kSsimWindow; ++k) hsrc[k] = rows[m] + k;
      kern.weighted_sum_row(hsrc, kSsimGauss, kSsimWindow, dw, slot + m * dsz);
    }
    if (y < kSsimWindow - 1) continue;
    // Vertical pass of output row oy = y - 10 over ring rows oy .. oy + 10.
    const int oy = y - (kSsimWindow - 1);
    for (int m = 0; m < kMaps; ++m) {
      for (int k = 0; k < kSsimWindow; ++k)
        vsrc[k] = ring + (static_cast<size_t>((oy + k) % kSsimWindow) * kMaps + m) * dsz;
      kern.weighted_sum_row(vsrc, kSsimGauss, kSsimWindow, dw, vert + m * dsz);
    }
    const float* mu1 = vert;
    const float* mu2 = vert + dsz;
    const float* sxx = vert + 2 * dsz;
    const float* syy = vert + 3 * dsz;
    const float* sxy = vert + 4 * dsz;
    double* tl = terms;
    double* tc = terms + dsz;
    double* ts = terms + 2 * dsz;
    kern.pixel_terms_row(mu1, mu2, sxx, syy, sxy, dw, tl, tc, ts);
    // libvmaf's running sums, raster order.
    for (int x = 0; x < dw; ++x) {
      lcs += tl[x] * tc[x] * ts[x];
      ls += tl[x];
      cs += tc[x];
      ss += ts[x];
    }
  }
  out = {lcs, ls, cs, ss};
}

void float_ssim_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, int scale, SsimSums& out) {
  const int w = ref.w, h = ref.h;
  const int sw = ssim_decimated_size(w, scale), sh = ssim_decimated_size(h, scale);
  if (scale > 1 && (sw < kSsimWindow || sh < kSsimWindow)) {
    out = SsimSums{};  // empty valid area: the sums do not depend on the pixels
    return;
  }
  Workspace& ws = workspace();
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  float* r = sized(ws.img[0][0], n);
  float* d = sized(ws.img[0][1], n);
  ssim_load_ref(ref, bpc, r);
  ssim_load_ref(dis, bpc, d);
  if (scale == 1) {
    ssim_sums_ref(r, d, w, h, out);
    return;
  }
  float kernel[kSsimMaxScale * kSsimMaxScale];
  ssim_box_kernel(scale, kernel);
  const size_t sn = static_cast<size_t>(sw) * static_cast<size_t>(sh);
  float* rs = sized(ws.img[1][0], sn);
  float* ds = sized(ws.img[1][1], sn);
  ssim_decimate_ref(r, w, h, scale, kernel, scale, scale, rs);
  ssim_decimate_ref(d, w, h, scale, kernel, scale, scale, ds);
  ssim_sums_ref(rs, ds, sw, sh, out);
}

void float_ms_ssim_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc,
                             SsimSums out[kMsSsimScales]) {
  Workspace& ws = workspace();
  int w = ref.w, h = ref.h;
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  ssim_load_ref(ref, bpc, sized(ws.img[0][0], n));
  ssim_load_ref(dis, bpc, sized(ws.img[0][1], n));
  for (int i = 0; i < kMsSsimScales; ++i) {
    const float* r = ws.img[i][0].data();
    const float* d = ws.img[i][1].data();
    ssim_sums_ref(r, d, w, h, out[i]);
    if (i + 1 == kMsSsimScales) break;
    const int sw = ssim_decimated_size(w, 2), sh = ssim_decimated_size(h, 2);
    const size_t sn = static_cast<size_t>(sw) * static_cast<size_t>(sh);
    float* rs = sized(ws.img[i + 1][0], sn);
    float* ds = sized(ws.img[i + 1][1], sn);
    ssim_decimate_ref(r, w, h, 2, ms_ssim_lpf_kernel(), kMsSsimLpfTaps, kMsSsimLpfTaps, rs);
    ssim_decimate_ref(d, w, h, 2, ms_ssim_lpf_kernel(), kMsSsimLpfTaps, kMsSsimLpfTaps, ds);
    w = sw;
    h = sh;
  }
}

}  // namespace twinmaf
