// vif CPU reference kernels: pyramid, separable filters, per-pixel sums.
// The arithmetic contract is in vif.h; this file only arranges it so the
// compiler can vectorise the integer filters (tap loops unrolled per scale,
// symmetric taps paired: f*(a+b) == f*a + f*b exactly in the widths used).
#include <cmath>
#include <cstddef>
#include <vector>

#include "features/vif/vif.h"

namespace twinmaf {

const VifLog2Table& vif_log2_table() {
  static const VifLog2Table table = [] {
    VifLog2Table t{};
    for (unsigned i = 32767; i < 65536; ++i)
      t[i] = static_cast<uint16_t>(std::round(std::log2f(static_cast<float>(i)) * 2048));
    return t;
  }();
  return table;
}

namespace {

// Reflect-101 for |overhang| <= n - 1 (guaranteed by kVifMinSize).
inline int reflect(int i, int n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// Pads a row buffer whose element j of the row lives at p[kHalf + j].
template <int kHalf, typename U>
inline void pad_row(U* p, int w) {
  for (int f = 1; f <= kHalf; ++f) {
    p[kHalf - f] = p[kHalf + f];
    p[kHalf + w - 1 + f] = p[kHalf + w - 1 - f];
  }
}

// Per-thread scratch: grows to the largest frame seen, never per pixel.
struct Scratch {
  std::vector<uint16_t> img[kVifScales][2];  // scales 1..3 (index 0 unused)
  // Vertical results of one row, padded by 8 on each side.
  std::vector<uint32_t> v_mu1, v_mu2, v_xx, v_yy, v_xy;
  // Vertical sums of one row (unpadded).
  std::vector<uint32_t> a_mu1, a_mu2;
  std::vector<uint64_t> a_xx, a_yy, a_xy;

  void reserve_rows(int w) {
    const size_t n = static_cast<size_t>(w) + 16;
    for (auto* v : {&v_mu1, &v_mu2, &v_xx, &v_yy, &v_xy})
      if (v->size() < n) v->resize(n);
    for (auto* v : {&a_mu1, &a_mu2})
      if (v->size() < n) v->resize(n);
    for (auto* v : {&a_xx, &a_yy, &a_xy})
      if (v->size() < n) v->resize(n);
  }
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// One image of the pyramid: samples T, element stride.
template <typename T>
struct Img {
  const T* data;
  std::ptrdiff_t stride;  // elements
  int w;
  int h;
  const T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

// Filters (ref, dis) with the scale `kHalf` filter and returns the scale's sums.
// mu_round/mu_shift and sq_round/sq_shift are the vertical-pass roundings.
template <typename T, int kHalf>
VifScaleSums statistic(const Img<T>& ref, const Img<T>& dis, const uint16_t* filt,
                       uint32_t mu_round, int mu_shift, uint64_t sq_round, int sq_shift,
                       double egl, Scratch& s) {
  constexpr int kTaps = 2 * kHalf + 1;
  const int w = ref.w;
  const int h = ref.h;
  const uint16_t* log2_table = vif_log2_table().data();
  uint32_t* const vm1 = s.v_mu1.data();
  uint32_t* const vm2 = s.v_mu2.data();
  uint32_t* const vxx = s.v_xx.data();
  uint32_t* const vyy = s.v_yy.data();
  uint32_t* const vxy = s.v_xy.data();
  uint32_t* const am1 = s.a_mu1.data();
  uint32_t* const am2 = s.a_mu2.data();
  uint64_t* const axx = s.a_xx.data();
  uint64_t* const ayy = s.a_yy.data();
  uint64_t* const axy = s.a_xy.data();

  VifScaleSums sums;
  for (int i = 0; i < h; ++i) {
    // Vertical: centre tap, then symmetric pairs.
    {
      const T* r = ref.row(i);
      const T* d = dis.row(i);
      const uint32_t f = filt[kHalf];
      for (int j = 0; j < w; ++j) {
        const uint32_t x = r[j], y = d[j];
        const uint32_t fx = f * x, fy = f * y;
        am1[j] = fx;
        am2[j] = fy;
        axx[j] = uint64_t{fx} * x;
        ayy[j] = uint64_t{fy} * y;
        axy[j] = uint64_t{fx} * y;
      }
    }
    for (int k = 0; k < kHalf; ++k) {
      const T* r0 = ref.row(reflect(i - kHalf + k, h));
      const T* r1 = ref.row(reflect(i + kHalf - k, h));
      const T* d0 = dis.row(reflect(i - kHalf + k, h));
      const T* d1 = dis.row(reflect(i + kHalf - k, h));
      const uint32_t f = filt[k];
      for (int j = 0; j < w; ++j) {
        const uint32_t x0 = r0[j], x1 = r1[j], y0 = d0[j], y1 = d1[j];
        am1[j] += f * (x0 + x1);
        am2[j] += f * (y0 + y1);
        axx[j] += uint64_t{f} * (uint64_t{x0} * x0 + uint64_t{x1} * x1);
        ayy[j] += uint64_t{f} * (uint64_t{y0} * y0 + uint64_t{y1} * y1);
        axy[j] += uint64_t{f} * (uint64_t{x0} * y0 + uint64_t{x1} * y1);
      }
    }
    for (int j = 0; j < w; ++j) {
      vm1[kHalf + j] = (am1[j] + mu_round) >> mu_shift;
      vm2[kHalf + j] = (am2[j] + mu_round) >> mu_shift;
      vxx[kHalf + j] = static_cast<uint32_t>((axx[j] + sq_round) >> sq_shift);
      vyy[kHalf + j] = static_cast<uint32_t>((ayy[j] + sq_round) >> sq_shift);
      vxy[kHalf + j] = static_cast<uint32_t>((axy[j] + sq_round) >> sq_shift);
    }
    pad_row<kHalf>(vm1, w);
    pad_row<kHalf>(vm2, w);
    pad_row<kHalf>(vxx, w);
    pad_row<kHalf>(vyy, w);
    pad_row<kHalf>(vxy, w);

    // Horizontal: output j reads padded elements j .. j + 2*kHalf.
    for (int j = 0; j < w; ++j) {
      uint32_t mu1 = filt[kHalf] * vm1[j + kHalf];
      uint32_t mu2 = filt[kHalf] * vm2[j + kHalf];
      uint64_t xx = uint64_t{filt[kHalf]} * vxx[j + kHalf];
      uint64_t yy = uint64_t{filt[kHalf]} * vyy[j + kHalf];
      uint64_t xy = uint64_t{filt[kHalf]} * vxy[j + kHalf];
      for (int k = 0; k < kHalf; ++k) {
        const uint32_t f = filt[k];
        const int a = j + k, b = j + kTaps - 1 - k;
        mu1 += f * (vm1[a] + vm1[b]);
        mu2 += f * (vm2[a] + vm2[b]);
        xx += uint64_t{f} * (uint64_t{vxx[a]} + vxx[b]);
        yy += uint64_t{f} * (uint64_t{vyy[a]} + vyy[b]);
        xy += uint64_t{f} * (uint64_t{vxy[a]} + vxy[b]);
      }
      am1[j] = mu1;
      am2[j] = mu2;
      axx[j] = xx;
      ayy[j] = yy;
      axy[j] = xy;
    }
    for (int j = 0; j < w; ++j) {
      const uint64_t mu1 = am1[j], mu2 = am2[j];
      const uint32_t mu1_sq = static_cast<uint32_t>((mu1 * mu1 + 2147483648u) >> 32);
      const uint32_t mu2_sq = static_cast<uint32_t>((mu2 * mu2 + 2147483648u) >> 32);
      const uint32_t mu1_mu2 = static_cast<uint32_t>((mu1 * mu2 + 2147483648u) >> 32);
      const uint32_t xx = static_cast<uint32_t>((axx[j] + 32768) >> 16);
      const uint32_t yy = static_cast<uint32_t>((ayy[j] + 32768) >> 16);
      const uint32_t xy = static_cast<uint32_t>((axy[j] + 32768) >> 16);
      const int32_t sigma1_sq = static_cast<int32_t>(xx - mu1_sq);
      const int32_t sigma2_sq = static_cast<int32_t>(yy - mu2_sq);
      const int32_t sigma12 = static_cast<int32_t>(xy - mu1_mu2);
      vif_accumulate_pixel(sigma1_sq, sigma2_sq, sigma12, egl, log2_table, sums);
    }
  }
  (void)kTaps;
  return sums;
}

// Filters (ref, dis) with the next scale's filter (half width kHalf) and keeps
// the even rows and columns: dst is floor(w/2) x floor(h/2), uint16.
template <typename T, int kHalf>
void subsample(const Img<T>& ref, const Img<T>& dis, const uint16_t* filt, uint32_t v_round,
               int v_shift, uint16_t* dst_ref, uint16_t* dst_dis, Scratch& s) {
  constexpr int kTaps = 2 * kHalf + 1;
  const int w = ref.w;
  const int h = ref.h;
  const int w2 = w / 2;
  const int h2 = h / 2;
  uint32_t* const vr = s.v_mu1.data();
  uint32_t* const vd = s.v_mu2.data();
  uint32_t* const ar = s.a_mu1.data();
  uint32_t* const ad = s.a_mu2.data();
  for (int r = 0; r < h2; ++r) {
    const int i = 2 * r;
    {
      const T* x = ref.row(i);
      const T* y = dis.row(i);
      const uint32_t f = filt[kHalf];
      for (int j = 0; j < w; ++j) {
        ar[j] = f * x[j];
        ad[j] = f * y[j];
      }
    }
    for (int k = 0; k < kHalf; ++k) {
      const T* x0 = ref.row(reflect(i - kHalf + k, h));
      const T* x1 = ref.row(reflect(i + kHalf - k, h));
      const T* y0 = dis.row(reflect(i - kHalf + k, h));
      const T* y1 = dis.row(reflect(i + kHalf - k, h));
      const uint32_t f = filt[k];
      for (int j = 0; j < w; ++j) {
        ar[j] += f * (uint32_t{x0[j]} + x1[j]);
        ad[j] += f * (uint32_t{y0[j]} + y1[j]);
      }
    }
    // The vertical result is 16 bits wide (libvmaf stores it through uint16).
    for (int j = 0; j < w; ++j) {
      vr[kHalf + j] = static_cast<uint16_t>((ar[j] + v_round) >> v_shift);
      vd[kHalf + j] = static_cast<uint16_t>((ad[j] + v_round) >> v_shift);
    }
    pad_row<kHalf>(vr, w);
    pad_row<kHalf>(vd, w);
    uint16_t* out_r = dst_ref + static_cast<std::ptrdiff_t>(r) * w2;
    uint16_t* out_d = dst_dis + static_cast<std::ptrdiff_t>(r) * w2;
    for (int c = 0; c < w2; ++c) {
      const int j = 2 * c;
      uint32_t sr = filt[kHalf] * vr[j + kHalf];
      uint32_t sd = filt[kHalf] * vd[j + kHalf];
      for (int k = 0; k < kHalf; ++k) {
        const uint32_t f = filt[k];
        sr += f * (vr[j + k] + vr[j + kTaps - 1 - k]);
        sd += f * (vd[j + k] + vd[j + kTaps - 1 - k]);
      }
      out_r[c] = static_cast<uint16_t>((sr + 32768) >> 16);
      out_d[c] = static_cast<uint16_t>((sd + 32768) >> 16);
    }
  }
}

template <typename T>
VifScaleSums statistic_at(int scale, const Img<T>& ref, const Img<T>& dis, uint32_t mu_round,
                          int mu_shift, uint64_t sq_round, int sq_shift, double egl, Scratch& s) {
  const uint16_t* f = kVifFilter[scale];
  switch (scale) {
    case 0: return statistic<T, 8>(ref, dis, f, mu_round, mu_shift, sq_round, sq_shift, egl, s);
    case 1: return statistic<T, 4>(ref, dis, f, mu_round, mu_shift, sq_round, sq_shift, egl, s);
    case 2: return statistic<T, 2>(ref, dis, f, mu_round, mu_shift, sq_round, sq_shift, egl, s);
    default: return statistic<T, 1>(ref, dis, f, mu_round, mu_shift, sq_round, sq_shift, egl, s);
  }
}

// Subsamples scale `scale` into scale + 1.
template <typename T>
void subsample_to(int scale, const Img<T>& ref, const Img<T>& dis, uint32_t v_round, int v_shift,
                  uint16_t* dst_ref, uint16_t* dst_dis, Scratch& s) {
  const uint16_t* f = kVifFilter[scale + 1];
  switch (scale + 1) {
    case 1: return subsample<T, 4>(ref, dis, f, v_round, v_shift, dst_ref, dst_dis, s);
    case 2: return subsample<T, 2>(ref, dis, f, v_round, v_shift, dst_ref, dst_dis, s);
    default: return subsample<T, 1>(ref, dis, f, v_round, v_shift, dst_ref, dst_dis, s);
  }
}

template <typename T>
void run(const PlaneView& ref_plane, const PlaneView& dis_plane, int bpc, const VifParams& p,
         VifTerms& out) {
  Scratch& s = scratch();
  s.reserve_rows(ref_plane.w);
  const Img<T> ref0{ref_plane.row<T>(0), ref_plane.stride / static_cast<std::ptrdiff_t>(sizeof(T)),
                    ref_plane.w, ref_plane.h};
  const Img<T> dis0{dis_plane.row<T>(0), dis_plane.stride / static_cast<std::ptrdiff_t>(sizeof(T)),
                    dis_plane.w, dis_plane.h};
  // Scale 0 (and the 0 -> 1 vertical pass) shift by bpc; the squares are
  // brought back to the 8-bit range.
  const uint32_t mu_round = 1u << (bpc - 1);
  const int sq_shift = 2 * (bpc - 8);
  const uint64_t sq_round = sq_shift ? uint64_t{1} << (sq_shift - 1) : 0;
  const double egl = p.enhn_gain_limit;

  out.scale[0] = {};
  if (!p.skip_scale0)
    out.scale[0] = statistic_at<T>(0, ref0, dis0, mu_round, bpc, sq_round, sq_shift, egl, s);

  int w = ref0.w / 2, h = ref0.h / 2;
  for (auto& v : s.img[1])
    if (v.size() < static_cast<size_t>(w) * h) v.resize(static_cast<size_t>(w) * h);
  subsample_to<T>(0, ref0, dis0, mu_round, bpc, s.img[1][0].data(), s.img[1][1].data(), s);

  for (int scale = 1; scale < kVifScales; ++scale) {
    const Img<uint16_t> r{s.img[scale][0].data(), w, w, h};
    const Img<uint16_t> d{s.img[scale][1].data(), w, w, h};
    out.scale[scale] = statistic_at<uint16_t>(scale, r, d, 32768, 16, 32768, 16, egl, s);
    if (scale + 1 < kVifScales) {
      const int w2 = w / 2, h2 = h / 2;
      for (auto& v : s.img[scale + 1])
        if (v.size() < static_cast<size_t>(w2) * h2) v.resize(static_cast<size_t>(w2) * h2);
      subsample_to<uint16_t>(scale, r, d, 32768, 16, s.img[scale + 1][0].data(),
                             s.img[scale + 1][1].data(), s);
      w = w2;
      h = h2;
    }
  }
}

}  // namespace

void vif_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, const VifParams& params,
                   VifTerms& out) {
  if (bpc == 8)
    run<uint8_t>(ref, dis, bpc, params, out);
  else
    run<uint16_t>(ref, dis, bpc, params, out);
}

}  // namespace twinmaf
