// SSIM row kernels in SIMD (Google Highway, one source for every target):
// equal to ssim_row_kernels_ref on every input (ssim.h's SsimRowKernels).
//
// Lanes are neighbouring outputs, a double vector and the float vector of as
// many lanes (half its bytes: 2/4/8 lanes on SSE4/AVX2/AVX-512). Each lane
// performs its output's scalar operations in the scalar order:
//   weighted_sum_row: per tap, in tap order, the float product (Mul of float
//     lanes), its exact widening (PromoteTo) and the double Add to an
//     accumulator from +0.0; one rounding to float (DemoteTo, round to
//     nearest) at the end. Four vectors of outputs per pass share the tap
//     loop; nothing is summed across lanes.
//   pixel_terms_row: ssim_pixel itself (ssim_pixel-inl.h, compiled here per
//     target) on Highway vectors wrapped with the operators it uses, so the
//     expression and its operand order are the scalar source's. sqrt_of is (float)sqrt((double)x) as in
//     the scalar lanes (widen, Sqrt, DemoteTo); max0 and clamp_cov are the
//     same comparisons (false for NaN; -0 kept) selecting +0.
// Mul/Add/Sub/Div/Sqrt are the IEEE instructions, and the project compiles
// with -ffp-contract=off, so nothing is fused. Outputs past the last whole
// vector run the scalar expressions (ssim_weighted_sum, ssim_pixel).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/ssim/ssim_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstddef>
#include <type_traits>

#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/ssim/ssim.h"
#include "features/ssim/ssim_math.h"

TWINMAF_SIMD_BEGIN
namespace {

#include "features/ssim/ssim_pixel-inl.h"

using DD = hn::ScalableTag<double>;
using DF = hn::Rebind<float, DD>;
using VD = hn::Vec<DD>;
using VF = hn::Vec<DF>;

void WeightedSumRow(const float* const* src, const float* w, int taps, int n, float* out) {
  const DD dd;
  const DF df;
  const int kN = static_cast<int>(hn::Lanes(dd));
  int x0 = 0;
  for (; x0 + 4 * kN <= n; x0 += 4 * kN) {
    VD a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
    for (int k = 0; k < taps; ++k) {
      const VF wk = hn::Set(df, w[k]);
      const float* s = src[k] + x0;
      a0 = hn::Add(a0, hn::PromoteTo(dd, hn::Mul(hn::LoadU(df, s), wk)));
      a1 = hn::Add(a1, hn::PromoteTo(dd, hn::Mul(hn::LoadU(df, s + kN), wk)));
      a2 = hn::Add(a2, hn::PromoteTo(dd, hn::Mul(hn::LoadU(df, s + 2 * kN), wk)));
      a3 = hn::Add(a3, hn::PromoteTo(dd, hn::Mul(hn::LoadU(df, s + 3 * kN), wk)));
    }
    hn::StoreU(hn::DemoteTo(df, a0), df, out + x0);
    hn::StoreU(hn::DemoteTo(df, a1), df, out + x0 + kN);
    hn::StoreU(hn::DemoteTo(df, a2), df, out + x0 + 2 * kN);
    hn::StoreU(hn::DemoteTo(df, a3), df, out + x0 + 3 * kN);
  }
  for (; x0 + kN <= n; x0 += kN) {
    VD a = hn::Zero(dd);
    for (int k = 0; k < taps; ++k)
      a = hn::Add(a, hn::PromoteTo(dd, hn::Mul(hn::LoadU(df, src[k] + x0), hn::Set(df, w[k]))));
    hn::StoreU(hn::DemoteTo(df, a), df, out + x0);
  }
  for (int x = x0; x < n; ++x) out[x] = ssim_weighted_sum(src, w, taps, x);
}

// A Highway vector with the arithmetic operators ssim_pixel applies: vector
// op vector, and vector op scalar of the lane type (broadcast), either side.
template <class V>
struct LaneVec {
  V v;
};
template <class V>
using LaneT = hn::TFromV<V>;
template <class V>
LaneVec<V> broadcast(LaneT<V> s) {
  return {hn::Set(hn::DFromV<V>(), s)};
}

#define TWINMAF_SSIM_LANE_OP(op, fn)                                                      \
  template <class V>                                                                      \
  HWY_INLINE LaneVec<V> operator op(LaneVec<V> a, LaneVec<V> b) {                               \
    return {hn::fn(a.v, b.v)};                                                            \
  }                                                                                       \
  template <class V, typename T>                                                          \
  HWY_INLINE LaneVec<V> operator op(LaneVec<V> a, T s) {                                      \
    static_assert(std::is_same_v<T, LaneT<V>>, "a scalar operand has the lane type");     \
    return a op broadcast<V>(s);                                                          \
  }                                                                                       \
  template <class V, typename T>                                                          \
  HWY_INLINE LaneVec<V> operator op(T s, LaneVec<V> b) {                                      \
    static_assert(std::is_same_v<T, LaneT<V>>, "a scalar operand has the lane type");     \
    return broadcast<V>(s) op b;                                                          \
  }
TWINMAF_SSIM_LANE_OP(+, Add)
TWINMAF_SSIM_LANE_OP(-, Sub)
TWINMAF_SSIM_LANE_OP(*, Mul)
TWINMAF_SSIM_LANE_OP(/, Div)
#undef TWINMAF_SSIM_LANE_OP

// ssim_pixel's lanes (as SsimScalarLanes, element-wise).
struct HwyLanes {
  using F = LaneVec<VF>;
  using D = LaneVec<VD>;
  static D widen(F x) { return {hn::PromoteTo(DD(), x.v)}; }
  static F sqrt_of(F x) { return {hn::DemoteTo(DF(), hn::Sqrt(hn::PromoteTo(DD(), x.v)))}; }
  static F max0(F x) { return {hn::IfThenZeroElse(hn::Gt(hn::Zero(DF()), x.v), x.v)}; }
  static F clamp_cov(F s12, F sd) {
    const VF zero = hn::Zero(DF());
    return {hn::IfThenZeroElse(hn::And(hn::Lt(s12.v, zero), hn::Le(sd.v, zero)), s12.v)};
  }
};

void PixelTermsRow(const float* mu1, const float* mu2, const float* xx, const float* yy, const float* xy, int n,
                   double* l, double* c, double* s) {
  const DD dd;
  const DF df;
  const int kN = static_cast<int>(hn::Lanes(dd));
  int x = 0;
  for (; x + kN <= n; x += kN) {
    HwyLanes::D vl, vc, vs;
    ssim_pixel<HwyLanes>({hn::LoadU(df, mu1 + x)}, {hn::LoadU(df, mu2 + x)}, {hn::LoadU(df, xx + x)},
                         {hn::LoadU(df, yy + x)}, {hn::LoadU(df, xy + x)}, vl, vc, vs);
    hn::StoreU(vl.v, dd, l + x);
    hn::StoreU(vc.v, dd, c + x);
    hn::StoreU(vs.v, dd, s + x);
  }
  for (; x < n; ++x) ssim_pixel<SsimScalarLanes>(mu1[x], mu2[x], xx[x], yy[x], xy[x], l[x], c[x], s[x]);
}

}  // namespace

// Dispatch entry points (external linkage for HWY_EXPORT).
void SsimWeightedSumRow(const float* const* src, const float* w, int taps, int n, float* out) {
  WeightedSumRow(src, w, taps, n, out);
}
void SsimPixelTermsRow(const float* mu1, const float* mu2, const float* xx, const float* yy, const float* xy,
                       int n, double* l, double* c, double* s) {
  PixelTermsRow(mu1, mu2, xx, yy, xy, n, l, c, s);
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(SsimWeightedSumRow);
HWY_EXPORT(SsimPixelTermsRow);

namespace {

void weighted_sum_row_simd(const float* const* src, const float* w, int taps, int n, float* out) {
  HWY_DYNAMIC_DISPATCH(SsimWeightedSumRow)(src, w, taps, n, out);
}

void pixel_terms_row_simd(const float* mu1, const float* mu2, const float* xx, const float* yy, const float* xy,
                          int n, double* l, double* c, double* s) {
  HWY_DYNAMIC_DISPATCH(SsimPixelTermsRow)(mu1, mu2, xx, yy, xy, n, l, c, s);
}

}  // namespace

const SsimRowKernels& ssim_row_kernels_simd() {
  static constexpr SsimRowKernels k{weighted_sum_row_simd, pixel_terms_row_simd};
  return k;
}

void ssim_dsp_init(SsimRowKernels& dsp) {
  dsp = ssim_row_kernels_ref();
  if (simd_enabled()) dsp = ssim_row_kernels_simd();
}

}  // namespace twinmaf
#endif
