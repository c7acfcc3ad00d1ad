// vif CPU reference kernels: pyramid, separable filters, per-pixel sums.
//
// The arithmetic contract is in vif.h; the per-pixel folds and the gain step
// are vif_math.h's, shared with the CUDA twin. This file arranges the rest so
// the compiler vectorises the integer filters at the baseline ISA: one
// instantiation per scale (tap count known at compile time), every tap loop
// runs over a whole row (tap outer, column inner) on __restrict row buffers,
// the two taps of a symmetric pair share one pass, and products are
// 16x16->32 or 32x32->64 bit widening multiplies. Integer sums are exact,
// so this order gives libvmaf's values.
// Widths, with x <= 65535 (any bpc, any scale):
// - x*x and x*y fit uint32 (65535^2 < 2^32); f*x*x needs uint64 except for
//   8-bit samples, where sum f*x*x <= 65536*255^2 < 2^32 (libvmaf's uint32).
// - vertical mu sums and every horizontal mu sum <= 65536*65535 < 2^32.
// - horizontal moment sums <= 65536*(2^32-1) < 2^48.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/parallel.h"
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

// Pads a row buffer whose element j lives at p[kHalf + j] (reflect-101).
template <int kHalf, typename U>
inline void pad_row(U* p, int w) {
  for (int f = 1; f <= kHalf; ++f) {
    p[kHalf - f] = p[kHalf + f];
    p[kHalf + w - 1 + f] = p[kHalf + w - 1 - f];
  }
}

// Per-thread scratch: grows to the largest frame seen, never per pixel.
struct Scratch {
  std::vector<uint16_t> img[kVifScales][2];  // pyramid scales 1..3 (index 0 unused)
  // Vertical results of one row, padded by up to 8 on each side.
  std::vector<uint16_t> v_mu1, v_mu2;
  std::vector<uint32_t> v_xx, v_yy, v_xy;
  // Row sums (vertical moments of 8-bit input use the 32-bit ones).
  std::vector<uint32_t> a_mu1, a_mu2, a_xx32, a_yy32, a_xy32;
  std::vector<uint64_t> a_xx, a_yy, a_xy;
  std::vector<int32_t> s1, s2, s12;

  void reserve_rows(int w) {
    const size_t n = static_cast<size_t>(w) + 16;
    for (auto* v : {&v_mu1, &v_mu2})
      if (v->size() < n) v->resize(n);
    for (auto* v : {&v_xx, &v_yy, &v_xy, &a_mu1, &a_mu2, &a_xx32, &a_yy32, &a_xy32})
      if (v->size() < n) v->resize(n);
    for (auto* v : {&a_xx, &a_yy, &a_xy})
      if (v->size() < n) v->resize(n);
    for (auto* v : {&s1, &s2, &s12})
      if (v->size() < n) v->resize(n);
  }
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// A pyramid image held in scratch, as a plane view of uint16 samples.
PlaneView scratch_view(const std::vector<uint16_t>& v, int w, int h) {
  return PlaneView{reinterpret_cast<const uint8_t*>(v.data()),
                   static_cast<std::ptrdiff_t>(w) * static_cast<std::ptrdiff_t>(sizeof(uint16_t)), w,
                   h};
}

// One symmetric tap pair (rows x0/x1 of ref, y0/y1 of dis, weight f) of the
// vertical pass, accumulated over a row. Products: 16x16->32 (mu, squares)
// and 32x32->64 (f * square; 32-bit for 8-bit samples).
template <typename T, typename Acc>
inline void vertical_pair(const T* __restrict x0, const T* __restrict x1, const T* __restrict y0,
                          const T* __restrict y1, uint16_t f, int w, uint32_t* __restrict am1,
                          uint32_t* __restrict am2, Acc* __restrict axx, Acc* __restrict ayy,
                          Acc* __restrict axy) {
  for (int j = 0; j < w; ++j) {
    const uint16_t a0 = x0[j], a1 = x1[j], b0 = y0[j], b1 = y1[j];
    am1[j] += uint32_t{f} * a0 + uint32_t{f} * a1;
    am2[j] += uint32_t{f} * b0 + uint32_t{f} * b1;
    axx[j] += Acc{f} * (uint32_t{a0} * a0) + Acc{f} * (uint32_t{a1} * a1);
    ayy[j] += Acc{f} * (uint32_t{b0} * b0) + Acc{f} * (uint32_t{b1} * b1);
    axy[j] += Acc{f} * (uint32_t{a0} * b0) + Acc{f} * (uint32_t{a1} * b1);
  }
}

template <typename T, typename Acc>
inline void vertical_centre(const T* __restrict x, const T* __restrict y, uint16_t f, int w,
                            uint32_t* __restrict am1, uint32_t* __restrict am2,
                            Acc* __restrict axx, Acc* __restrict ayy, Acc* __restrict axy) {
  for (int j = 0; j < w; ++j) {
    const uint16_t a = x[j], b = y[j];
    am1[j] = uint32_t{f} * a;
    am2[j] = uint32_t{f} * b;
    axx[j] = Acc{f} * (uint32_t{a} * a);
    ayy[j] = Acc{f} * (uint32_t{b} * b);
    axy[j] = Acc{f} * (uint32_t{a} * b);
  }
}

// Vertical pass of the statistic for output row i: mu sums (uint32) and
// moment sums (Acc) of the 2*kHalf+1 reflected rows around i.
template <typename T, int kScale, typename Acc>
void vertical_moments(const PlaneView& ref, const PlaneView& dis, int i, uint32_t* am1,
                      uint32_t* am2, Acc* axx, Acc* ayy, Acc* axy) {
  constexpr int kHalf = kVifHalf[kScale];
  const uint16_t* f = kVifFilter[kScale];
  const int w = ref.w;
  const int h = ref.h;
  vertical_centre<T, Acc>(ref.row<T>(i), dis.row<T>(i), f[kHalf], w, am1, am2, axx, ayy, axy);
  for (int k = 0; k < kHalf; ++k) {
    const int i0 = reflect101(i - kHalf + k, h), i1 = reflect101(i + kHalf - k, h);
    vertical_pair<T, Acc>(ref.row<T>(i0), ref.row<T>(i1), dis.row<T>(i0), dis.row<T>(i1), f[k], w,
                          am1, am2, axx, ayy, axy);
  }
}

// The vertical pass's roundings into the padded row buffers (mu <= 65535,
// moments < 2^32: vif.h).
template <typename Acc>
inline void vertical_round(const uint32_t* __restrict am1, const uint32_t* __restrict am2,
                           const Acc* __restrict axx, const Acc* __restrict ayy,
                           const Acc* __restrict axy, int w, uint32_t mu_round, int mu_shift,
                           uint64_t sq_round, int sq_shift, uint16_t* __restrict vm1,
                           uint16_t* __restrict vm2, uint32_t* __restrict vxx,
                           uint32_t* __restrict vyy, uint32_t* __restrict vxy) {
  for (int j = 0; j < w; ++j) {
    vm1[j] = static_cast<uint16_t>((am1[j] + mu_round) >> mu_shift);
    vm2[j] = static_cast<uint16_t>((am2[j] + mu_round) >> mu_shift);
    vxx[j] = static_cast<uint32_t>((uint64_t{axx[j]} + sq_round) >> sq_shift);
    vyy[j] = static_cast<uint32_t>((uint64_t{ayy[j]} + sq_round) >> sq_shift);
    vxy[j] = static_cast<uint32_t>((uint64_t{axy[j]} + sq_round) >> sq_shift);
  }
}

// One tap pair of the horizontal pass: padded elements j + k and j + b.
inline void horizontal_pair(const uint16_t* __restrict vm1, const uint16_t* __restrict vm2,
                            const uint32_t* __restrict vxx, const uint32_t* __restrict vyy,
                            const uint32_t* __restrict vxy, int k, int b, uint16_t f, int w,
                            uint32_t* __restrict am1, uint32_t* __restrict am2,
                            uint64_t* __restrict axx, uint64_t* __restrict ayy,
                            uint64_t* __restrict axy) {
  for (int j = 0; j < w; ++j) {
    am1[j] += uint32_t{f} * vm1[j + k] + uint32_t{f} * vm1[j + b];
    am2[j] += uint32_t{f} * vm2[j + k] + uint32_t{f} * vm2[j + b];
    axx[j] += uint64_t{f} * vxx[j + k] + uint64_t{f} * vxx[j + b];
    ayy[j] += uint64_t{f} * vyy[j + k] + uint64_t{f} * vyy[j + b];
    axy[j] += uint64_t{f} * vxy[j + k] + uint64_t{f} * vxy[j + b];
  }
}

inline void horizontal_centre(const uint16_t* __restrict vm1, const uint16_t* __restrict vm2,
                              const uint32_t* __restrict vxx, const uint32_t* __restrict vyy,
                              const uint32_t* __restrict vxy, int c, uint16_t f, int w,
                              uint32_t* __restrict am1, uint32_t* __restrict am2,
                              uint64_t* __restrict axx, uint64_t* __restrict ayy,
                              uint64_t* __restrict axy) {
  for (int j = 0; j < w; ++j) {
    am1[j] = uint32_t{f} * vm1[j + c];
    am2[j] = uint32_t{f} * vm2[j + c];
    axx[j] = uint64_t{f} * vxx[j + c];
    ayy[j] = uint64_t{f} * vyy[j + c];
    axy[j] = uint64_t{f} * vxy[j + c];
  }
}

// sigma1_sq, sigma2_sq, sigma12 of one row from the horizontal sums.
inline void sigmas(const uint32_t* __restrict am1, const uint32_t* __restrict am2,
                   const uint64_t* __restrict axx, const uint64_t* __restrict ayy,
                   const uint64_t* __restrict axy, int w, int32_t* __restrict s1,
                   int32_t* __restrict s2, int32_t* __restrict s12) {
  for (int j = 0; j < w; ++j) {
    // The folds of vif_math.h (the one modular step is vif_sigma).
    s1[j] = vif_sigma(vif_moment(axx[j]), vif_mu_product(am1[j], am1[j]));
    s2[j] = vif_sigma(vif_moment(ayy[j]), vif_mu_product(am2[j], am2[j]));
    s12[j] = vif_sigma(vif_moment(axy[j]), vif_mu_product(am1[j], am2[j]));
  }
}

// The statistic of one scale: filters (ref, dis) with the scale's filter and
// returns its sums. mu_round/mu_shift and sq_round/sq_shift are the
// vertical-pass roundings (vif.h).
template <typename T, int kScale>
VifScaleSums statistic(const PlaneView& ref, const PlaneView& dis, uint32_t mu_round, int mu_shift,
                       uint64_t sq_round, int sq_shift, double egl, int row0, int row1, Scratch& s) {
  constexpr int kHalf = kVifHalf[kScale];
  constexpr const uint16_t* kF = kVifFilter[kScale];
  using VAcc = std::conditional_t<sizeof(T) == 1, uint32_t, uint64_t>;
  const int w = ref.w;
  const uint16_t* log2_table = vif_log2_table().data();
  uint16_t* const vm1 = s.v_mu1.data();
  uint16_t* const vm2 = s.v_mu2.data();
  uint32_t* const vxx = s.v_xx.data();
  uint32_t* const vyy = s.v_yy.data();
  uint32_t* const vxy = s.v_xy.data();
  uint32_t* const am1 = s.a_mu1.data();
  uint32_t* const am2 = s.a_mu2.data();
  uint64_t* const axx = s.a_xx.data();
  uint64_t* const ayy = s.a_yy.data();
  uint64_t* const axy = s.a_xy.data();
  int32_t* const s1 = s.s1.data();
  int32_t* const s2 = s.s2.data();
  int32_t* const s12 = s.s12.data();
  VAcc* vaxx;
  VAcc* vayy;
  VAcc* vaxy;
  if constexpr (std::is_same_v<VAcc, uint32_t>) {
    vaxx = s.a_xx32.data();
    vayy = s.a_yy32.data();
    vaxy = s.a_xy32.data();
  } else {
    vaxx = axx;
    vayy = ayy;
    vaxy = axy;
  }

  VifScaleSums sums;
  for (int i = row0; i < row1; ++i) {
    vertical_moments<T, kScale, VAcc>(ref, dis, i, am1, am2, vaxx, vayy, vaxy);
    vertical_round(am1, am2, vaxx, vayy, vaxy, w, mu_round, mu_shift, sq_round, sq_shift,
                   vm1 + kHalf, vm2 + kHalf, vxx + kHalf, vyy + kHalf, vxy + kHalf);
    pad_row<kHalf>(vm1, w);
    pad_row<kHalf>(vm2, w);
    pad_row<kHalf>(vxx, w);
    pad_row<kHalf>(vyy, w);
    pad_row<kHalf>(vxy, w);

    // Horizontal: output j reads padded elements j .. j + 2*kHalf.
    horizontal_centre(vm1, vm2, vxx, vyy, vxy, kHalf, kF[kHalf], w, am1, am2, axx, ayy, axy);
    for (int k = 0; k < kHalf; ++k)
      horizontal_pair(vm1, vm2, vxx, vyy, vxy, k, 2 * kHalf - k, kF[k], w, am1, am2, axx, ayy,
                      axy);
    sigmas(am1, am2, axx, ayy, axy, w, s1, s2, s12);
    for (int j = 0; j < w; ++j) vif_accumulate_pixel(s1[j], s2[j], s12[j], egl, log2_table, sums);
  }
  return sums;
}

// Row helpers of the subsampler: sums of the vertical pass ...
template <typename T>
inline void sub_vertical_pair(const T* __restrict x0, const T* __restrict x1, uint16_t f, int w,
                              uint32_t* __restrict a) {
  for (int j = 0; j < w; ++j) a[j] += uint32_t{f} * uint16_t{x0[j]} + uint32_t{f} * uint16_t{x1[j]};
}
template <typename T>
inline void sub_vertical_centre(const T* __restrict x, uint16_t f, int w, uint32_t* __restrict a) {
  for (int j = 0; j < w; ++j) a[j] = uint32_t{f} * uint16_t{x[j]};
}
// ... and of the horizontal pass at even columns (padded elements 2c + k, 2c + b).
inline void sub_horizontal_pair(const uint16_t* __restrict v, int k, int b, uint16_t f, int w2,
                                uint32_t* __restrict a) {
  for (int c = 0; c < w2; ++c) a[c] += uint32_t{f} * v[2 * c + k] + uint32_t{f} * v[2 * c + b];
}

// Filters (ref, dis) with scale kNext's filter and keeps the even rows and
// columns: dst is floor(w/2) x floor(h/2), uint16. v_round/v_shift is the
// vertical rounding (vif.h); the horizontal one is (. + 32768) >> 16.
template <typename T, int kNext>
void subsample(const PlaneView& ref, const PlaneView& dis, uint32_t v_round, int v_shift,
               uint16_t* dst_ref, uint16_t* dst_dis, Scratch& s) {
  constexpr int kHalf = kVifHalf[kNext];
  const uint16_t* f = kVifFilter[kNext];
  const int w = ref.w;
  const int h = ref.h;
  const int w2 = w / 2;
  const int h2 = h / 2;
  uint16_t* const v[2] = {s.v_mu1.data(), s.v_mu2.data()};
  uint32_t* const a[2] = {s.a_mu1.data(), s.a_mu2.data()};
  uint16_t* const dst[2] = {dst_ref, dst_dis};
  const PlaneView* src[2] = {&ref, &dis};
  for (int r = 0; r < h2; ++r) {
    const int i = 2 * r;
    for (int p = 0; p < 2; ++p) {
      const PlaneView& in = *src[p];
      uint32_t* const acc = a[p];
      uint16_t* const row = v[p];
      sub_vertical_centre<T>(in.row<T>(i), f[kHalf], w, acc);
      for (int k = 0; k < kHalf; ++k)
        sub_vertical_pair<T>(in.row<T>(reflect101(i - kHalf + k, h)),
                             in.row<T>(reflect101(i + kHalf - k, h)), f[k], w, acc);
      // libvmaf stores the vertical result through uint16 (it always fits).
      for (int j = 0; j < w; ++j) row[kHalf + j] = static_cast<uint16_t>((acc[j] + v_round) >> v_shift);
      pad_row<kHalf>(row, w);
      for (int c = 0; c < w2; ++c) acc[c] = uint32_t{f[kHalf]} * row[2 * c + kHalf];
      for (int k = 0; k < kHalf; ++k) sub_horizontal_pair(row, k, 2 * kHalf - k, f[k], w2, acc);
      uint16_t* out = dst[p] + static_cast<std::ptrdiff_t>(r) * w2;
      for (int c = 0; c < w2; ++c) out[c] = static_cast<uint16_t>((acc[c] + 32768) >> 16);
    }
  }
}

// Subsamples scale `scale` into scale + 1 (with scale + 1's filter).
template <typename T>
void subsample_to(int scale, const PlaneView& ref, const PlaneView& dis, uint32_t v_round, int v_shift,
                  uint16_t* dst_ref, uint16_t* dst_dis, Scratch& s) {
  switch (scale + 1) {
    case 1: return subsample<T, 1>(ref, dis, v_round, v_shift, dst_ref, dst_dis, s);
    case 2: return subsample<T, 2>(ref, dis, v_round, v_shift, dst_ref, dst_dis, s);
    default: return subsample<T, 3>(ref, dis, v_round, v_shift, dst_ref, dst_dis, s);
  }
}

template <typename T>
VifScaleSums statistic_at(int scale, const PlaneView& ref, const PlaneView& dis, int bpc, double egl, int row0,
                          int row1) {
  const VifRounding r = vif_rounding(scale, bpc);
  Scratch& s = scratch();
  s.reserve_rows(ref.w);
  switch (scale) {
    case 0: return statistic<T, 0>(ref, dis, r.mu_round, r.mu_shift, r.sq_round, r.sq_shift, egl, row0, row1, s);
    case 1: return statistic<T, 1>(ref, dis, r.mu_round, r.mu_shift, r.sq_round, r.sq_shift, egl, row0, row1, s);
    case 2: return statistic<T, 2>(ref, dis, r.mu_round, r.mu_shift, r.sq_round, r.sq_shift, egl, row0, row1, s);
    default: return statistic<T, 3>(ref, dis, r.mu_round, r.mu_shift, r.sq_round, r.sq_shift, egl, row0, row1, s);
  }
}

}  // namespace

VifRounding vif_rounding(int scale, int bpc) {
  if (scale > 0) return {32768, 16, 32768, 16};
  // Scale 0 shifts mu by bpc; the squares are brought back to the 8-bit range.
  const int sq_shift = 2 * (bpc - 8);
  return {1u << (bpc - 1), bpc, sq_shift ? uint64_t{1} << (sq_shift - 1) : 0, sq_shift};
}

void vif_subsample_ref(const PlaneView& ref, const PlaneView& dis, int scale, int bpc, uint16_t* dst_ref,
                       uint16_t* dst_dis) {
  const VifRounding r = vif_rounding(scale, bpc);
  Scratch& s = scratch();
  s.reserve_rows(ref.w);
  if (scale == 0 && bpc == 8)
    subsample_to<uint8_t>(scale, ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis, s);
  else
    subsample_to<uint16_t>(scale, ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis, s);
}

VifScaleSums vif_statistic_ref(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                               double egl, int row0, int row1) {
  if (scale == 0 && bpc == 8) return statistic_at<uint8_t>(0, ref, dis, bpc, egl, row0, row1);
  return statistic_at<uint16_t>(scale, ref, dis, bpc, egl, row0, row1);
}

namespace {

// Row bands of a statistic: frames of at least 1080p luma, bands of >= 64
// rows, at most band_width() (and 16) of them.
constexpr int kBandRows = 64;
constexpr int kMaxBands = 16;

VifScaleSums banded(VifStatisticFn statistic, const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                    double egl, bool large) {
  const int n = large ? std::clamp(std::min(band_width(), ref.h / kBandRows), 1, kMaxBands) : 1;
  if (n == 1) return statistic(ref, dis, scale, bpc, egl, 0, ref.h);
  VifScaleSums part[kMaxBands];
  run_bands(n, [&](int b) {
    part[b] = statistic(ref, dis, scale, bpc, egl, ref.h * b / n, ref.h * (b + 1) / n);
  });
  VifScaleSums sum;
  for (int b = 0; b < n; ++b) sum += part[b];
  return sum;
}

}  // namespace

void vif_terms_with(const VifKernels& k, const PlaneView& ref0, const PlaneView& dis0, int bpc,
                    const VifParams& p, VifTerms& out) {
  const bool large = int64_t{ref0.w} * ref0.h >= int64_t{1920} * 1080;
  Scratch& s = scratch();
  s.reserve_rows(ref0.w);
  const double egl = p.enhn_gain_limit;
  out.scale[0] = {};
  if (!p.skip_scale0) out.scale[0] = banded(k.statistic, ref0, dis0, 0, bpc, egl, large);
  int w = ref0.w, h = ref0.h;
  const PlaneView* src[2] = {&ref0, &dis0};
  PlaneView img[2];
  for (int scale = 1; scale < kVifScales; ++scale) {
    const size_t n = static_cast<size_t>(w / 2) * static_cast<size_t>(h / 2);
    for (auto& v : s.img[scale])
      if (v.size() < n) v.resize(n);
    k.subsample(*src[0], *src[1], scale - 1, bpc, s.img[scale][0].data(), s.img[scale][1].data());
    w /= 2;
    h /= 2;
    img[0] = scratch_view(s.img[scale][0], w, h);
    img[1] = scratch_view(s.img[scale][1], w, h);
    src[0] = &img[0];
    src[1] = &img[1];
    out.scale[scale] = banded(k.statistic, img[0], img[1], scale, bpc, egl, large);
  }
}

const VifKernels& vif_dsp_ref() {
  static constexpr VifKernels k{&vif_statistic_ref, &vif_subsample_ref};
  return k;
}

void vif_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, const VifParams& params,
                   VifTerms& out) {
  vif_terms_with(vif_dsp_ref(), ref, dis, bpc, params, out);
}

}  // namespace twinmaf
