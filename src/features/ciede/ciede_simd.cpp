// ciede's CIEDE2000 of a row of colour pairs in SIMD (Google Highway, one
// source for every target): equal to ciede_de00_row_ref on every input.
//
// Lanes are pairs (pixels), a double vector and the float vector of as many
// lanes. Each lane performs ciede_de00's operations on its pair in the same
// order and with the same float/double conversions: a float widened by
// PromoteTo (exact), a double rounded to float by DemoteTo (round to
// nearest, as the scalar conversion), Add/Sub/Mul/Div/Sqrt the IEEE
// operations in float or double as the scalar code has them, nothing fused
// (-ffp-contract=off). The steps on libm calls (pow, powf, atan2, sin, cos,
// exp) cannot be vectorised exactly; they run per lane between the vector
// stages, the scalar calls of ciede_math.h (the reference's own functions):
//   stage 1 (lanes)  dl, L-bar, C1, C2 = (float)sqrt(a^2 + b^2), C-bar
//   per lane         pow(C-bar, 7)
//   stage 2 (lanes)  G, a'1, a'2, C'1, C'2, C-bar', delta C', S_L, S_C,
//                    sqrt(C'1 C'2)
//   per lane         ciede::hue_terms: the hue angles (atan2), delta h',
//                    H-bar', sin(delta h'/2), T (4 cos), the rotation's sine
//                    (exp, sin) and powf(C-bar', 7)
//   stage 3 (lanes)  delta H', S_H, R_T, the three quotients, the root.
// Each stage runs over the whole row (stored between stages), so the scalar
// calls run back to back. Pairs past the last whole vector run ciede_de00.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/ciede/ciede_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/ciede/ciede.h"
#include "features/ciede/ciede_math.h"

TWINMAF_SIMD_BEGIN
namespace {

using DD = hn::ScalableTag<double>;
using DF = hn::Rebind<float, DD>;
using VD = hn::Vec<DD>;
using VF = hn::Vec<DF>;

// Per-thread arrays between the stages, grown to the longest row seen.
struct Scratch {
  std::vector<float> f;
  std::vector<double> d;
};

enum FloatCol { kDl, kLBar, kCh1, kCh2, kCBar, kAp1, kAp2, kCp1, kCp2, kCbp, kDcp, kSl, kSc, kT, kC7f, kFloatCols };
enum DoubleCol { kCBar7, kRootCp, kSinHalfDhp, kSinTheta, kDoubleCols };

HWY_INLINE VD W(VF x) { return hn::PromoteTo(DD(), x); }
HWY_INLINE VF N(VD x) { return hn::DemoteTo(DF(), x); }
// sq() of the reference: a float widened, squared in double.
HWY_INLINE VD Sq(VF x) { return hn::Mul(W(x), W(x)); }
// (float)sqrt(sq(x) + sq(y)).
HWY_INLINE VF Hypot(VF x, VF y) { return N(hn::Sqrt(hn::Add(Sq(x), Sq(y)))); }

void De00Row(const CiedeLabPairs& p, size_t n, float* de00) {
  const DD dd;
  const DF df;
  const size_t kN = hn::Lanes(dd);
  const size_t nv = n / kN * kN;  // pairs in whole vectors
  thread_local Scratch s;
  if (s.f.size() < kFloatCols * nv) s.f.resize(kFloatCols * nv);
  if (s.d.size() < kDoubleCols * nv) s.d.resize(kDoubleCols * nv);
  float* const fc = s.f.data();
  double* const dc = s.d.data();
  const auto F = [fc, nv](int c) { return fc + static_cast<size_t>(c) * nv; };
  const auto D = [dc, nv](int c) { return dc + static_cast<size_t>(c) * nv; };
  const VF two = hn::Set(df, 2.0f);

  for (size_t k = 0; k < nv; k += kN) {
    const VF l1 = hn::LoadU(df, p.l[0] + k), l2 = hn::LoadU(df, p.l[1] + k);
    const VF ch1 = Hypot(hn::LoadU(df, p.a[0] + k), hn::LoadU(df, p.b[0] + k));
    const VF ch2 = Hypot(hn::LoadU(df, p.a[1] + k), hn::LoadU(df, p.b[1] + k));
    hn::StoreU(hn::Sub(l2, l1), df, F(kDl) + k);
    hn::StoreU(hn::Div(hn::Add(l1, l2), two), df, F(kLBar) + k);
    hn::StoreU(ch1, df, F(kCh1) + k);
    hn::StoreU(ch2, df, F(kCh2) + k);
    hn::StoreU(hn::Div(hn::Add(ch1, ch2), two), df, F(kCBar) + k);
  }
  for (size_t k = 0; k < nv; ++k) D(kCBar7)[k] = std::pow(static_cast<double>(F(kCBar)[k]), 7.0);

  const VD one = hn::Set(dd, 1.0);
  const VD p25 = hn::Set(dd, ciede::pow25_7());
  for (size_t k = 0; k < nv; k += kN) {
    const VD c7 = hn::LoadU(dd, D(kCBar7) + k);
    const VD g = hn::Sub(one, hn::Sqrt(hn::Div(c7, hn::Add(c7, p25))));
    const VF a1 = hn::LoadU(df, p.a[0] + k), a2 = hn::LoadU(df, p.a[1] + k);
    const VF b1 = hn::LoadU(df, p.b[0] + k), b2 = hn::LoadU(df, p.b[1] + k);
    // a + (a / 2) * g: the float half widened, the sum in double.
    const VF ap1 = N(hn::Add(W(a1), hn::Mul(W(hn::Div(a1, two)), g)));
    const VF ap2 = N(hn::Add(W(a2), hn::Mul(W(hn::Div(a2, two)), g)));
    const VF cp1 = Hypot(ap1, b1), cp2 = Hypot(ap2, b2);
    const VF cbp = hn::Div(hn::Add(cp1, cp2), two);
    const VF lm = hn::Sub(hn::LoadU(df, F(kLBar) + k), hn::Set(df, 50.0f));
    // 1 + (0.015 lm^2) / sqrt(20 + lm^2), 1 + 0.045 C-bar'.
    const VD s_l =
        hn::Add(one, hn::Div(hn::Mul(hn::Set(dd, 0.015), Sq(lm)), hn::Sqrt(hn::Add(hn::Set(dd, 20.0), Sq(lm)))));
    const VD s_c = hn::Add(one, hn::Mul(hn::Set(dd, 0.045), W(cbp)));
    hn::StoreU(ap1, df, F(kAp1) + k);
    hn::StoreU(ap2, df, F(kAp2) + k);
    hn::StoreU(cp1, df, F(kCp1) + k);
    hn::StoreU(cp2, df, F(kCp2) + k);
    hn::StoreU(cbp, df, F(kCbp) + k);
    hn::StoreU(hn::Sub(cp2, cp1), df, F(kDcp) + k);
    hn::StoreU(N(s_l), df, F(kSl) + k);
    hn::StoreU(N(s_c), df, F(kSc) + k);
    hn::StoreU(hn::Sqrt(W(hn::Mul(cp1, cp2))), dd, D(kRootCp) + k);
  }
  ciede::GlibcMath glibc;
  for (size_t k = 0; k < nv; ++k) {
    const ciede::HueTerms<ciede::GlibcMath> h = ciede::hue_terms(glibc, p.b[0][k], F(kAp1)[k], F(kCh1)[k], p.b[1][k],
                                                                 F(kAp2)[k], F(kCh2)[k], F(kCbp)[k]);
    D(kSinHalfDhp)[k] = h.sin_half_dhp;
    F(kT)[k] = h.t;
    D(kSinTheta)[k] = h.sin_theta;
    F(kC7f)[k] = h.c7;
  }

  const VD two_d = hn::Set(dd, 2.0);
  const VF p25f = hn::Set(df, ciede::pow25_7f());
  // libvmaf's weights kL, kC, kH: float fields initialised from doubles.
  const VF k_l = hn::Set(df, static_cast<float>(0.65)), k_c = hn::Set(df, static_cast<float>(1.0)),
           k_h = hn::Set(df, static_cast<float>(4.0));
  for (size_t k = 0; k < nv; k += kN) {
    const VF cbp = hn::LoadU(df, F(kCbp) + k);
    // delta H' = 2 sqrt(C'1 C'2) sin(delta h' / 2); S_H = 1 + 0.015 C-bar' T.
    const VF d_hue = N(hn::Mul(hn::Mul(two_d, hn::LoadU(dd, D(kRootCp) + k)), hn::LoadU(dd, D(kSinHalfDhp) + k)));
    const VF s_h = N(hn::Add(one, hn::Mul(hn::Mul(hn::Set(dd, 0.015), W(cbp)), W(hn::LoadU(df, F(kT) + k)))));
    // R_T = -2 sqrt(c7 / (c7 + 25^7)) sin(theta) (ciede::rotation).
    const VF c7 = hn::LoadU(df, F(kC7f) + k);
    const VD root = hn::Sqrt(W(hn::Div(c7, hn::Add(c7, p25f))));
    const VF r_t = N(hn::Mul(hn::Mul(hn::Set(dd, -2.0), root), hn::LoadU(dd, D(kSinTheta) + k)));
    const VF lightness = hn::Div(hn::LoadU(df, F(kDl) + k), hn::Mul(k_l, hn::LoadU(df, F(kSl) + k)));
    const VF chroma = hn::Div(hn::LoadU(df, F(kDcp) + k), hn::Mul(k_c, hn::LoadU(df, F(kSc) + k)));
    const VF hue = hn::Div(d_hue, hn::Mul(k_h, s_h));
    const VD sum = hn::Add(hn::Add(hn::Add(Sq(lightness), Sq(chroma)), Sq(hue)), W(hn::Mul(hn::Mul(r_t, chroma), hue)));
    hn::StoreU(N(hn::Sqrt(sum)), df, de00 + k);
  }
  for (size_t k = nv; k < n; ++k)
    de00[k] = ciede_de00({p.l[0][k], p.a[0][k], p.b[0][k]}, {p.l[1][k], p.a[1][k], p.b[1][k]});
}

}  // namespace

// Dispatch entry point (external linkage for HWY_EXPORT).
void CiedeDe00Row(const CiedeLabPairs& p, size_t n, float* de00) { De00Row(p, n, de00); }

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(CiedeDe00Row);

void ciede_de00_row_simd(const CiedeLabPairs& pairs, size_t n, float* de00) {
  HWY_DYNAMIC_DISPATCH(CiedeDe00Row)(pairs, n, de00);
}

const CiedeDsp& ciede_dsp_simd() {
  static constexpr CiedeDsp k{&ciede_de00_row_simd};
  return k;
}

void ciede_dsp_init(CiedeDsp& dsp) {
  dsp = ciede_dsp_ref();
  if (simd_enabled()) dsp = ciede_dsp_simd();
}

}  // namespace twinmaf
#endif
