// SSIM CPU drivers and the scalar row kernels: load, decimation, the five
// Gaussian maps, the per-pixel terms and their running sums (contract in
// ssim.h).
//
// Every filter output is one independent expression (ssim_weighted_sum), so
// the order in which outputs are produced is free, and the drivers hand the
// row kernels (SsimRowKernels) whole rows: the scalar definitions here, or
// the Highway kernels of ssim_simd.cpp, which compute neighbouring outputs in
// lanes without changing any output's operations. The Gaussian maps are
// streamed: one input row's five horizontal results go into a ring of 11
// rows, and each completed window gives one row of vertical results,
// per-pixel terms and running sums. Decimation reads its taps through per-row
// "phase" copies of the reflected input, so that every tap of a row of
// outputs is a contiguous run of floats. Only the running sums are
// sequential, as libvmaf's are.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "features/ssim/ssim.h"

#include "features/common/float_picture.h"

namespace twinmaf {

namespace {

void weighted_sum_row_ref(const float* const* src, const float* w, int taps, int n, float* out) {
  for (int x = 0; x < n; ++x) out[x] = ssim_weighted_sum(src, w, taps, x);
}

void pixel_terms_row_ref(const float* mu1, const float* mu2, const float* xx, const float* yy, const float* xy,
                         int n, double* l, double* c, double* s) {
  for (int x = 0; x < n; ++x) ssim_pixel<SsimScalarLanes>(mu1[x], mu2[x], xx[x], yy[x], xy[x], l[x], c[x], s[x]);
}

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

const SsimRowKernels& ssim_row_kernels_ref() {
  static constexpr SsimRowKernels k{weighted_sum_row_ref, pixel_terms_row_ref};
  return k;
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

void ssim_decimate(const float* in, int w, int h, int factor, const float* kernel, int kw, int kh,
                   const SsimRowKernels& kern, float* out) {
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

void ssim_sums(const float* ref, const float* dis, int w, int h, const SsimRowKernels& kern, SsimSums& out) {
  out = SsimSums{};
  const int dw = w - (kSsimWindow - 1), dh = h - (kSsimWindow - 1);
  if (dw <= 0 || dh <= 0) return;
  Workspace& ws = workspace();
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

void float_ssim_terms(const PlaneView& ref, const PlaneView& dis, int bpc, int scale, const SsimRowKernels& kern,
                      SsimSums& out) {
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
    ssim_sums(r, d, w, h, kern, out);
    return;
  }
  float kernel[kSsimMaxScale * kSsimMaxScale];
  ssim_box_kernel(scale, kernel);
  const size_t sn = static_cast<size_t>(sw) * static_cast<size_t>(sh);
  float* rs = sized(ws.img[1][0], sn);
  float* ds = sized(ws.img[1][1], sn);
  ssim_decimate(r, w, h, scale, kernel, scale, scale, kern, rs);
  ssim_decimate(d, w, h, scale, kernel, scale, scale, kern, ds);
  ssim_sums(rs, ds, sw, sh, kern, out);
}

void float_ms_ssim_terms(const PlaneView& ref, const PlaneView& dis, int bpc, const SsimRowKernels& kern,
                         SsimSums out[kMsSsimScales]) {
  Workspace& ws = workspace();
  int w = ref.w, h = ref.h;
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  ssim_load_ref(ref, bpc, sized(ws.img[0][0], n));
  ssim_load_ref(dis, bpc, sized(ws.img[0][1], n));
  for (int i = 0; i < kMsSsimScales; ++i) {
    const float* r = ws.img[i][0].data();
    const float* d = ws.img[i][1].data();
    ssim_sums(r, d, w, h, kern, out[i]);
    if (i + 1 == kMsSsimScales) break;
    const int sw = ssim_decimated_size(w, 2), sh = ssim_decimated_size(h, 2);
    const size_t sn = static_cast<size_t>(sw) * static_cast<size_t>(sh);
    float* rs = sized(ws.img[i + 1][0], sn);
    float* ds = sized(ws.img[i + 1][1], sn);
    ssim_decimate(r, w, h, 2, ms_ssim_lpf_kernel(), kMsSsimLpfTaps, kMsSsimLpfTaps, kern, rs);
    ssim_decimate(d, w, h, 2, ms_ssim_lpf_kernel(), kMsSsimLpfTaps, kMsSsimLpfTaps, kern, ds);
    w = sw;
    h = sh;
  }
}

}  // namespace twinmaf
