// adm row kernels in SIMD (Google Highway, one source for every target):
// equal to the reference row kernels (adm_ref.cpp, per sample the adm_math.h
// functions) bit for bit; adm_rows.h has the interface, adm.h the contract.
//
// Every kernel works on vectors of N int32 lanes (one band or input column
// per lane). Exactness, step by step against adm_math.h:
// - int32 steps (scale-0 DWT, CSF, |x|/30 terms, threshold sums, every
//   narrowing) are the same operations mod 2^32: Highway's Add/Sub/Mul and
//   shifts wrap like the two's-complement helpers, and the int16 casts are
//   (v << 16) >> 16.
// - int64 steps (scales 1-3 DWT, gains, rst, scale 1-3 CSF and |x|/30,
//   cubes) use exact 32x32 -> 64-bit lane products (MulEven) on the even and
//   the odd int32 lanes separately, int64 adds (mod 2^64, as the reference's
//   add64 and uint64 sums) and shifts; where the reference keeps the low 32
//   bits of a shifted value, those bits do not depend on whether the shift is
//   arithmetic or logical. A signed int32 times uint32 product is the
//   unsigned product minus rf << 32 for negative x, mod 2^64.
// - The angle test converts int64 -> float -> double as the reference: the
//   int64 is made exact in double first (|x| < 2^53 as is; above, its low 11
//   bits collapsed into one sticky bit at 2^10, which float rounding, with
//   its rounding bit at 2^29 or higher there, cannot tell apart), then
//   rounded to float (DemoteTo, round to nearest even) and widened. The
//   products d*d and (cos2*o)*t are the same IEEE double operations in the
//   same order; nothing is fused (-ffp-contract=off).
// - The gain clamp (adm::enhance) in double lanes: (double)rst * egl, then
//   the comparison the reference writes (m < td ? m : td, or >), truncated
//   to int32 (the value lies between 0 and t).
// - The reciprocal table is read with gathers; the scale 1-3 reduction of
//   |o| >= 2^15 takes floor(log2 |o|) from the float exponent of |o| >> 8
//   (< 2^24: exact), i.e. 31 - clz.
// Rows shorter than one vector run the reference; sums take the last partial
// vector from the reference, stores overlap the last full vector instead.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/adm/adm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/adm/adm.h"
#include "features/adm/adm_rows.h"

TWINMAF_SIMD_BEGIN
#if TWINMAF_SIMD_KERNELS
namespace {

using DI = hn::ScalableTag<int32_t>;
using DU = hn::RebindToUnsigned<DI>;
using D64 = hn::Repartition<int64_t, DI>;
using DU64 = hn::Repartition<uint64_t, DI>;
using DF = hn::Repartition<double, DI>;
using DH = hn::Half<DI>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;
using V64 = hn::Vec<D64>;
using VU64 = hn::Vec<DU64>;
using VF = hn::Vec<DF>;

// ---- lane helpers ---------------------------------------------------------

HWY_INLINE VI int16_cast(VI v) { return hn::ShiftRight<16>(hn::ShiftLeft<16>(v)); }

// The odd int32 lanes moved to the even positions (for MulEven).
HWY_INLINE VI odd_to_even(VI v) {
  return hn::BitCast(DI(), hn::ShiftRight<32>(hn::BitCast(DU64(), v)));
}
HWY_INLINE VU odd_to_even(VU v) {
  return hn::BitCast(DU(), hn::ShiftRight<32>(hn::BitCast(DU64(), v)));
}
// int64 lanes holding the even (odd) int32 lanes, sign-extended.
HWY_INLINE V64 even64(VI v) { return hn::ShiftRight<32>(hn::ShiftLeft<32>(hn::BitCast(D64(), v))); }
HWY_INLINE V64 odd64(VI v) { return hn::ShiftRight<32>(hn::BitCast(D64(), v)); }

// int32 lanes from the low (high) 32 bits of the int64 results of the even
// and the odd lanes.
template <class V>
HWY_INLINE VI low32(V even, V odd) {
  const DI di;
  return hn::OddEven(hn::BitCast(di, hn::ShiftLeft<32>(hn::BitCast(DU64(), odd))), hn::BitCast(di, even));
}
template <class V>
HWY_INLINE VI high32(V even, V odd) {
  const DI di;
  return hn::OddEven(hn::BitCast(di, odd), hn::BitCast(di, hn::ShiftRight<32>(hn::BitCast(DU64(), even))));
}

// An int32 mask from masks of the even and the odd lanes (as int64 lanes).
HWY_INLINE hn::Mask<DI> mask32(hn::Mask<D64> even, hn::Mask<D64> odd) {
  const D64 d64;
  return hn::MaskFromVec(low32(hn::VecFromMask(d64, even), hn::VecFromMask(d64, odd)));
}

using D16 = hn::Repartition<int16_t, DI>;
using V16 = hn::Vec<D16>;

// No tap here is -2^15 (MulAddPairs' operands).
#include "base/simd_madd-inl.h"

// sum of the four taps' products of lane pairs (p01, p23): exact in int32
// for the DWT's int16 operands, |sum| < 2^31 (adm_math.h).
HWY_INLINE VI dwt0_taps(V16 p01, V16 k01, V16 p23, V16 k23) {
  return MulAddPairs(p23, k23, MulAddPairs(p01, k01, hn::Zero(DI())));
}

// Column loop of a store-only kernel over [j0, j1), j1 - j0 >= N: full
// vectors, the last one overlapping its predecessor (same values).
template <class F>
HWY_INLINE void for_columns(int j0, int j1, F&& f) {
  const int n = static_cast<int>(hn::Lanes(DI()));
  for (int j = j0;; j += n) {
    if (j + n > j1) j = j1 - n;
    f(static_cast<size_t>(j));
    if (j + n == j1) break;
  }
}

// ---- DWT ------------------------------------------------------------------

template <typename Pix>
void Dwt0Vert(const Pix* const* r, int n, int bpc, int32_t* lo, int32_t* hi) {
  const DU du;
  const DI di;
  if (n < static_cast<int>(hn::Lanes(du))) {
    const AdmRowKernels& ref = adm_row_kernels_ref();
    if constexpr (sizeof(Pix) == 1) ref.dwt0_vert_u8(r, n, bpc, lo, hi);
    else ref.dwt0_vert_u16(r, n, bpc, lo, hi);
    return;
  }
  const hn::Rebind<Pix, DU> dp;
  const uint32_t rnd = 1u << (bpc - 1);
  const VU vrnd = hn::Set(du, rnd);
  const VU centre = hn::Set(du, 46342u * rnd);
  const VU c0 = hn::Set(du, 15826u), c1 = hn::Set(du, 27411u), c2 = hn::Set(du, 7345u), c3 = hn::Set(du, 4240u);
  const auto round = [&](VU s) { return int16_cast(hn::ShiftRightSame(hn::BitCast(di, hn::Add(s, vrnd)), bpc)); };
  if constexpr (sizeof(Pix) == 1) {
    // 8-bit samples pair rows (0, 1) and (2, 3) in int16 lanes: two
    // multiply-adds per output with taps < 2^15 in magnitude, each exact in
    // int32; the sums equal the uint32 ones modulo 2^32.
    const D16 d16;
    const auto pair = [&](VU a, VU b) { return hn::BitCast(d16, hn::Or(a, hn::ShiftLeft<16>(b))); };
    const V16 k01 = PairTaps(d16, 15826, 27411), k23 = PairTaps(d16, 7345, -4240), h01 = PairTaps(d16, -4240, -7345),
              h23 = PairTaps(d16, 27411, -15826);
    for_columns(0, n, [&](size_t j) {
      const auto p01 = pair(hn::PromoteTo(du, hn::LoadU(dp, r[0] + j)), hn::PromoteTo(du, hn::LoadU(dp, r[1] + j)));
      const auto p23 = pair(hn::PromoteTo(du, hn::LoadU(dp, r[2] + j)), hn::PromoteTo(du, hn::LoadU(dp, r[3] + j)));
      hn::StoreU(round(hn::Sub(hn::BitCast(du, dwt0_taps(p01, k01, p23, k23)), centre)), di, lo + j);
      if (hi) hn::StoreU(round(hn::BitCast(du, dwt0_taps(p01, h01, p23, h23))), di, hi + j);
    });
    return;
  }
  for_columns(0, n, [&](size_t j) {
    const VU u0 = hn::PromoteTo(du, hn::LoadU(dp, r[0] + j));
    const VU u1 = hn::PromoteTo(du, hn::LoadU(dp, r[1] + j));
    const VU u2 = hn::PromoteTo(du, hn::LoadU(dp, r[2] + j));
    const VU u3 = hn::PromoteTo(du, hn::LoadU(dp, r[3] + j));
    const VU sl = hn::Sub(hn::Sub(hn::Add(hn::Add(hn::Mul(c0, u0), hn::Mul(c1, u1)), hn::Mul(c2, u2)), hn::Mul(c3, u3)),
                          centre);
    hn::StoreU(round(sl), di, lo + j);
    if (hi) {
      const VU sh = hn::Sub(hn::Add(hn::Sub(hn::Zero(du), hn::Add(hn::Mul(c3, u0), hn::Mul(c2, u1))), hn::Mul(c1, u2)),
                            hn::Mul(c0, u3));
      hn::StoreU(round(sh), di, hi + j);
    }
  });
}

// sum_k f_k * x_k of four int32 vectors, exact int64 for the even and odd lanes.
struct Taps64 {
  V64 even, odd;
};
HWY_INLINE Taps64 taps64(VI x0, VI x1, VI x2, VI x3, int32_t f0, int32_t f1, int32_t f2, int32_t f3) {
  const DI di;
  const VI k0 = hn::Set(di, f0), k1 = hn::Set(di, f1), k2 = hn::Set(di, f2), k3 = hn::Set(di, f3);
  const V64 e = hn::Add(hn::Add(hn::MulEven(x0, k0), hn::MulEven(x1, k1)), hn::Add(hn::MulEven(x2, k2), hn::MulEven(x3, k3)));
  const V64 o = hn::Add(hn::Add(hn::MulEven(odd_to_even(x0), k0), hn::MulEven(odd_to_even(x1), k1)),
                        hn::Add(hn::MulEven(odd_to_even(x2), k2), hn::MulEven(odd_to_even(x3), k3)));
  return {e, o};
}

// Low 32 bits of (sum + 2^(sh-1)) >> sh (sh = 0: of sum).
HWY_INLINE VI round_low32(Taps64 t, int sh) {
  if (sh == 0) return low32(t.even, t.odd);
  const V64 r = hn::Set(D64(), int64_t{1} << (sh - 1));
  return low32(hn::ShiftRightSame(hn::Add(t.even, r), sh), hn::ShiftRightSame(hn::Add(t.odd, r), sh));
}

void DwtVert(const int32_t* const* r, int n, int s, int32_t* lo, int32_t* hi) {
  const DI di;
  if (n < static_cast<int>(hn::Lanes(di))) return adm_row_kernels_ref().dwt_vert(r, n, s, lo, hi);
  const int sh = s == 1 ? 0 : 16;  // adm::dwt_vert_round
  for_columns(0, n, [&](size_t j) {
    const VI u0 = hn::LoadU(di, r[0] + j), u1 = hn::LoadU(di, r[1] + j);
    const VI u2 = hn::LoadU(di, r[2] + j), u3 = hn::LoadU(di, r[3] + j);
    hn::StoreU(round_low32(taps64(u0, u1, u2, u3, 15826, 27411, 7345, -4240), sh), di, lo + j);
    hn::StoreU(round_low32(taps64(u0, u1, u2, u3, -4240, -7345, 27411, -15826), sh), di, hi + j);
  });
}

// Horizontal filters of one padded row at output columns j .. j+N-1.
struct HorzIn {
  VI p0, p1, p2, p3;  // inputs 2j-1, 2j, 2j+1, 2j+2 per lane
};
HWY_INLINE HorzIn horz_in(const int32_t* p, size_t j) {
  const DI di;
  HorzIn in;
  hn::LoadInterleaved2(di, p + 2 * j, in.p0, in.p1);
  hn::LoadInterleaved2(di, p + 2 * j + 2, in.p2, in.p3);
  return in;
}

// Scale 0: the inputs are int16 values (dwt0_vert_*), narrowed into int16
// lane pairs: lane i of p01 holds (p0, p1) of output j + i, of p23 (p2, p3).
struct Horz0In {
  V16 p01, p23;
};
HWY_INLINE Horz0In horz0_in(const int32_t* p, size_t j) {
  const DI di;
  const D16 d16;
  const hn::Half<D16> dh;
  const size_t n = hn::Lanes(di);
  const auto narrow = [&](const int32_t* q) {
    return hn::Combine(d16, hn::DemoteTo(dh, hn::LoadU(di, q + n)), hn::DemoteTo(dh, hn::LoadU(di, q)));
  };
  return {narrow(p + 2 * j), narrow(p + 2 * j + 2)};
}

// dwt0_horz_*.
HWY_INLINE VI horz0(const Horz0In& in, V16 k01, V16 k23) {
  const DI di;
  const VI acc = dwt0_taps(in.p01, k01, in.p23, k23);
  return int16_cast(hn::ShiftRight<16>(hn::Add(acc, hn::Set(di, 32768))));
}
HWY_INLINE VI horz123(const HorzIn& in, int sh, int32_t f0, int32_t f1, int32_t f2, int32_t f3) {
  return round_low32(taps64(in.p0, in.p1, in.p2, in.p3, f0, f1, f2, f3), sh);
}

void DwtHorz(const int32_t* lo, const int32_t* hi, int w, int s, int32_t* a, int32_t* const* hvd) {
  const DI di;
  if (w < static_cast<int>(hn::Lanes(di))) return adm_row_kernels_ref().dwt_horz(lo, hi, w, s, a, hvd);
  if (s == 0) {
    const D16 d16;
    const V16 k01 = PairTaps(d16, 15826, 27411), k23 = PairTaps(d16, 7345, -4240), h01 = PairTaps(d16, -4240, -7345),
              h23 = PairTaps(d16, 27411, -15826);
    for_columns(0, w, [&](size_t j) {
      const Horz0In l = horz0_in(lo, j);
      hn::StoreU(horz0(l, k01, k23), di, a + j);
      if (!hvd) return;
      const Horz0In h = horz0_in(hi, j);
      hn::StoreU(horz0(h, k01, k23), di, hvd[0] + j);
      hn::StoreU(horz0(l, h01, h23), di, hvd[1] + j);
      hn::StoreU(horz0(h, h01, h23), di, hvd[2] + j);
    });
    return;
  }
  const int sh = s == 2 ? 16 : 15;  // adm::dwt_horz_round
  const auto lo_f = [&](const HorzIn& in) { return horz123(in, sh, 15826, 27411, 7345, -4240); };
  const auto hi_f = [&](const HorzIn& in) { return horz123(in, sh, -4240, -7345, 27411, -15826); };
  for_columns(0, w, [&](size_t j) {
    const HorzIn l = horz_in(lo, j);
    hn::StoreU(lo_f(l), di, a + j);
    if (!hvd) return;
    const HorzIn h = horz_in(hi, j);
    hn::StoreU(lo_f(h), di, hvd[0] + j);
    hn::StoreU(hi_f(l), di, hvd[1] + j);
    hn::StoreU(hi_f(h), di, hvd[2] + j);
  });
}

// ---- pointwise ------------------------------------------------------------

// The double value of (float)x for int64 lanes x (adm::angle_below_1deg's
// conversion). kSmall: every |x| < 2^53.
template <bool kSmall>
HWY_INLINE VF int64_float_double(V64 x) {
  const D64 d64;
  const DF df;
  if constexpr (!kSmall) {
    const DU64 du64;
    const auto neg = hn::Lt(x, hn::Zero(d64));
    const V64 ax = hn::IfThenElse(neg, hn::Neg(x), x);
    const VU64 ua = hn::BitCast(du64, ax);
    const auto big = hn::Ne(hn::ShiftRight<53>(ua), hn::Zero(du64));
    const VU64 low = hn::And(ua, hn::Set(du64, 0x7ffu));
    const VU64 sticky = hn::IfThenElseZero(hn::Ne(low, hn::Zero(du64)), hn::Set(du64, 0x400u));
    const VU64 folded = hn::Or(hn::AndNot(hn::Set(du64, 0x7ffu), ua), sticky);
    const V64 ax2 = hn::BitCast(d64, hn::IfThenElse(big, folded, ua));
    x = hn::IfThenElse(neg, hn::Neg(ax2), ax2);
  }
  const hn::Rebind<float, DF> dfl;
  return hn::PromoteTo(df, hn::DemoteTo(dfl, hn::ConvertTo(df, x)));
}

// adm::angle_below_1deg for the int64 lanes of dot, |o|^2, |t|^2.
template <bool kSmall>
HWY_INLINE hn::Mask<D64> angle_lanes(V64 dot, V64 om, V64 tm, double cos2) {
  const DF df;
  const VF scale = hn::Set(df, 0x1p-12);
  const VF d = hn::Mul(int64_float_double<kSmall>(dot), scale);
  const VF o = hn::Mul(int64_float_double<kSmall>(om), scale);
  const VF t = hn::Mul(int64_float_double<kSmall>(tm), scale);
  const auto m = hn::And(hn::Ge(d, hn::Zero(df)), hn::Ge(hn::Mul(d, d), hn::Mul(hn::Mul(hn::Set(df, cos2), o), t)));
  return hn::RebindMask(D64(), m);
}

// The angle test of a column vector (orientations h and v).
template <bool kS0>
HWY_INLINE hn::Mask<DI> angle_test(const VI* o, const VI* t, double cos2) {
  V64 part[2][3];
  for (int p = 0; p < 2; ++p) {
    const VI o0 = p ? odd_to_even(o[0]) : o[0], o1 = p ? odd_to_even(o[1]) : o[1];
    const VI t0 = p ? odd_to_even(t[0]) : t[0], t1 = p ? odd_to_even(t[1]) : t[1];
    part[p][0] = hn::Add(hn::MulEven(o0, t0), hn::MulEven(o1, t1));
    part[p][1] = hn::Add(hn::MulEven(o0, o0), hn::MulEven(o1, o1));
    part[p][2] = hn::Add(hn::MulEven(t0, t0), hn::MulEven(t1, t1));
  }
  // Scale 0: int16 bands, |sums| <= 2^31.
  return mask32(angle_lanes<kS0>(part[0][0], part[0][1], part[0][2], cos2),
                angle_lanes<kS0>(part[1][0], part[1][1], part[1][2], cos2));
}

// k = clamp(t / o, 0, 1) in Q15 (Math::gain) from the reciprocal lookup r
// (sign included), the rounding rnd and the shift 15 + sh (int64 lanes).
HWY_INLINE V64 gain_lanes(V64 p, V64 rnd, V64 shift) {
  const D64 d64;
  const V64 k = hn::Add(p, rnd) >> shift;
  return hn::Min(hn::Max(k, hn::Zero(d64)), hn::Set(d64, 32768));
}

HWY_INLINE VI gain0(VI o, VI t, const int32_t* recip) {
  const DI di;
  const D64 d64;
  const VI r0 = hn::GatherIndex(di, recip, hn::Abs(o));
  const VI r = hn::IfThenElse(hn::Gt(o, hn::Zero(di)), r0, hn::Neg(r0));
  const V64 rnd = hn::Set(d64, 16384);
  const V64 k = hn::ShiftRight<15>(hn::Add(hn::MulEven(r, t), rnd));
  const V64 ko = hn::ShiftRight<15>(hn::Add(hn::MulEven(odd_to_even(r), odd_to_even(t)), rnd));
  const V64 lo = hn::Zero(d64), hi = hn::Set(d64, 32768);
  const VI kc = low32(hn::Min(hn::Max(k, lo), hi), hn::Min(hn::Max(ko, lo), hi));
  return hn::IfThenElse(hn::Eq(o, hn::Zero(di)), hn::Set(di, 32768), kc);
}

HWY_INLINE VI gain123(VI o, VI t, const int32_t* recip) {
  const DI di;
  const DU du;
  const VU ao = hn::BitCast(du, hn::Abs(o));  // abs32: 2^31 for INT32_MIN
  const auto big = hn::Ne(hn::ShiftRight<15>(ao), hn::Zero(du));
  // floor(log2 ao) for ao >= 2^15: ao >> 8 < 2^24 converts exactly.
  const hn::Rebind<float, DI> dfl;
  const VI e = hn::Add(hn::ShiftRight<23>(hn::BitCast(di, hn::ConvertTo(dfl, hn::BitCast(di, hn::ShiftRight<8>(ao))))),
                       hn::Set(di, 8 - 127));
  const VU sh = hn::BitCast(du, hn::IfThenElseZero(hn::RebindMask(di, big), hn::Sub(e, hn::Set(di, 14))));
  const VU one = hn::Set(du, 1u);
  const VU half = one << hn::Sub(hn::Max(sh, one), one);
  const VU msb = hn::IfThenElse(big, hn::Add(ao, half) >> sh, ao);
  // (int32)(1u << (14 + sh)): -2^31 for sh = 17.
  const VI rnd = hn::BitCast(di, one << hn::Add(sh, hn::Set(du, 14u)));
  const VI rc = hn::GatherIndex(di, recip, hn::BitCast(di, msb));
  const D64 d64;
  const V64 shift_e = hn::BitCast(d64, hn::And(hn::BitCast(DU64(), hn::Add(sh, hn::Set(du, 15u))), hn::Set(DU64(), 0xffu)));
  const V64 shift_o = hn::BitCast(d64, hn::ShiftRight<32>(hn::BitCast(DU64(), hn::Add(sh, hn::Set(du, 15u)))));
  const V64 pe = hn::MulEven(rc, t);
  const V64 po = hn::MulEven(odd_to_even(rc), odd_to_even(t));
  const V64 ke = gain_lanes(hn::IfThenElse(hn::Lt(even64(o), hn::Zero(d64)), hn::Neg(pe), pe), even64(rnd), shift_e);
  const V64 ko = gain_lanes(hn::IfThenElse(hn::Lt(odd64(o), hn::Zero(d64)), hn::Neg(po), po), odd64(rnd), shift_o);
  return hn::IfThenElse(hn::Eq(o, hn::Zero(di)), hn::Set(di, 32768), low32(ke, ko));
}

// adm::enhance where `apply` (angle && k > 0 && o != 0).
HWY_INLINE VI enhance(VI rst, VI t, VI o, hn::Mask<DI> apply, double egl) {
  const DI di;
  const DH dh;
  const DF df;
  const VF vegl = hn::Set(df, egl);
  const auto half = [&](hn::Vec<DH> r, hn::Vec<DH> tv, hn::Vec<DH> ov) {
    const VF m = hn::Mul(hn::PromoteTo(df, r), vegl);
    const VF td = hn::PromoteTo(df, tv);
    const auto pos = hn::RebindMask(df, hn::Gt(hn::PromoteTo(D64(), ov), hn::Zero(D64())));
    const VF v = hn::IfThenElse(pos, hn::IfThenElse(hn::Lt(m, td), m, td), hn::IfThenElse(hn::Gt(m, td), m, td));
    return hn::DemoteTo(dh, v);
  };
  const auto lo = half(hn::LowerHalf(dh, rst), hn::LowerHalf(dh, t), hn::LowerHalf(dh, o));
  const auto hi = half(hn::UpperHalf(dh, rst), hn::UpperHalf(dh, t), hn::UpperHalf(dh, o));
  return hn::IfThenElse(apply, hn::Combine(di, hi, lo), rst);
}

// Math::csf of orientation b at scale 0 / 1-3.
HWY_INLINE VI csf0(VI x, int32_t rf, int b) {
  const DI di;
  const VI p = hn::Mul(hn::Set(di, rf), x);
  if (b < 2) return int16_cast(hn::ShiftRight<15>(hn::Add(p, hn::Set(di, 16384))));
  return int16_cast(hn::ShiftRight<17>(hn::Add(p, hn::Set(di, 65535))));
}
HWY_INLINE VI csf123(VI x, uint32_t rf) {
  const DU du;
  const DU64 du64;
  const D64 d64;
  const VU vrf = hn::Set(du, rf);
  const VU64 corr = hn::Set(du64, uint64_t{rf} << 32);
  const VU64 rnd = hn::Set(du64, uint64_t{1} << 27);
  const auto lanes = [&](VU xu, V64 xs) {
    const VU64 p = hn::MulEven(xu, vrf);
    const VU64 q = hn::Sub(p, hn::IfThenElseZero(hn::RebindMask(du64, hn::Lt(xs, hn::Zero(d64))), corr));
    return hn::ShiftRight<28>(hn::Add(q, rnd));
  };
  const VU xu = hn::BitCast(du, x);
  return low32(lanes(xu, even64(x)), lanes(odd_to_even(xu), odd64(x)));
}

// Math::by30 / by15 (kMul 4369 / 8738 at scale 0, 143165577 / 286331153 at 1-3).
template <int32_t kMul>
HWY_INLINE VI by_n0(VI v) {
  const DI di;
  return int16_cast(hn::ShiftRight<12>(hn::Add(hn::Mul(hn::Set(di, kMul), hn::Abs(v)), hn::Set(di, 2048))));
}
template <int32_t kMul>
HWY_INLINE VI by_n123(VI v) {
  const DI di;
  const VI av = hn::Abs(v);  // abs32: INT32_MIN stays negative
  const VI m = hn::Set(di, kMul);
  const V64 half = hn::Set(D64(), int64_t{1} << 31);
  return high32(hn::Sub(hn::MulEven(av, m), half), hn::Sub(hn::MulEven(odd_to_even(av), m), half));
}

template <bool kS0>
void point_impl(const AdmPointRow& row, int j0, int j1) {
  const DI di;
  const int32_t* recip = adm_recip_q30_table();
  const double cos2 = static_cast<double>(row.cos2);
  for_columns(j0, j1, [&](size_t j) {
    VI o[3], t[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = hn::LoadU(di, row.o[b] + j);
      t[b] = hn::LoadU(di, row.t[b] + j);
    }
    const auto angle = angle_test<kS0>(o, t, cos2);
    VI sum30_a = hn::Zero(di), sum30_r = sum30_a, cen_a = sum30_a, cen_r = sum30_a;
    for (int b = 0; b < 3; ++b) {
      const VI k = kS0 ? gain0(o[b], t[b], recip) : gain123(o[b], t[b], recip);
      const V64 rnd = hn::Set(D64(), 16384);
      VI rst = low32(hn::ShiftRight<15>(hn::Add(hn::MulEven(k, o[b]), rnd)),
                     hn::ShiftRight<15>(hn::Add(hn::MulEven(odd_to_even(k), odd_to_even(o[b])), rnd)));
      const auto apply = hn::And(angle, hn::And(hn::Gt(k, hn::Zero(di)), hn::Ne(o[b], hn::Zero(di))));
      if (!hn::AllFalse(di, apply)) rst = enhance(rst, t[b], o[b], apply, row.egl);
      const VI r = kS0 ? int16_cast(rst) : rst;
      const VI a = kS0 ? int16_cast(hn::Sub(t[b], r)) : hn::Sub(t[b], r);
      const VI csf_a = kS0 ? csf0(a, static_cast<int32_t>(row.rf[b]), b) : csf123(a, row.rf[b]);
      const VI csf_r = kS0 ? csf0(r, static_cast<int32_t>(row.rf[b]), b) : csf123(r, row.rf[b]);
      if constexpr (kS0) {
        const VI rf = hn::Set(di, static_cast<int32_t>(row.rf[b]));
        hn::StoreU(hn::Mul(rf, r), di, row.x_adm[b] + j);
        hn::StoreU(hn::Mul(rf, a), di, row.x_aim[b] + j);
      } else {
        hn::StoreU(csf_r, di, row.x_adm[b] + j);
        hn::StoreU(csf_a, di, row.x_aim[b] + j);
      }
      const VI fa = kS0 ? by_n0<4369>(csf_a) : by_n123<143165577>(csf_a);
      const VI fr = kS0 ? by_n0<4369>(csf_r) : by_n123<143165577>(csf_r);
      const VI ga = kS0 ? by_n0<8738>(csf_a) : by_n123<286331153>(csf_a);
      const VI gr = kS0 ? by_n0<8738>(csf_r) : by_n123<286331153>(csf_r);
      sum30_a = hn::Add(sum30_a, fa);
      sum30_r = hn::Add(sum30_r, fr);
      cen_a = hn::Add(cen_a, hn::Sub(ga, fa));
      cen_r = hn::Add(cen_r, hn::Sub(gr, fr));
    }
    hn::StoreU(sum30_a, di, row.t30_adm + j);
    hn::StoreU(sum30_r, di, row.t30_aim + j);
    hn::StoreU(cen_a, di, row.cen_adm + j);
    hn::StoreU(cen_r, di, row.cen_aim + j);
  });
}

void Point(const AdmPointRow& row, int j0, int j1) {
  if (j1 - j0 < static_cast<int>(hn::Lanes(DI()))) return adm_row_kernels_ref().point(row, j0, j1);
  if (row.s == 0) point_impl<true>(row, j0, j1);
  else point_impl<false>(row, j0, j1);
}

// ---- sums -----------------------------------------------------------------

// Sum over [j0, j1) of f(column vector) (uint64 lanes), the last partial
// vector from the reference sum `tail`.
template <class F, class Tail>
HWY_INLINE uint64_t sum_columns(int j0, int j1, F&& f, Tail&& tail) {
  const DU64 du64;
  const int n = static_cast<int>(hn::Lanes(DI()));
  VU64 acc = hn::Zero(du64);
  int j = j0;
  for (; j + n <= j1; j += n) acc = hn::Add(acc, f(static_cast<size_t>(j)));
  uint64_t sum = hn::GetLane(hn::SumOfLanes(du64, acc));
  if (j < j1) sum += tail(j, j1);
  return sum;
}

uint64_t Den(const int32_t* b, int j0, int j1, int s, int cube_shift) {
  const DI di;
  const DU du;
  const DU64 du64;
  const auto tail = [&](int a, int e) { return adm_row_kernels_ref().den(b, a, e, s, cube_shift); };
  if (s == 0) {
    return sum_columns(j0, j1, [&](size_t j) {
      const VU a = hn::And(hn::BitCast(du, hn::Abs(hn::LoadU(di, b + j))), hn::Set(du, 0xffffu));
      const VU a2 = hn::Mul(a, a);
      return hn::Add(hn::MulEven(a2, a), hn::MulEven(odd_to_even(a2), odd_to_even(a)));
    }, tail);
  }
  const int q = s == 2 ? 30 : 31;
  const VU64 rq = hn::Set(du64, uint64_t{1} << q);
  const VU64 rc = hn::Set(du64, uint64_t{1} << (cube_shift - 1));
  // v <= 2^31 in the even lanes; v2 = (v^2 + 2^q) >> q < 2^32 except
  // v2 = 2^32 + 1 for v = 2^31, q = 30: v2 * v = lo32(v2) * v + (v2 >> 32) * v << 32.
  const auto cube = [&](VU v) {
    const VU64 v2 = hn::ShiftRightSame(hn::Add(hn::MulEven(v, v), rq), q);
    const VU64 v64 = hn::And(hn::BitCast(du64, v), hn::Set(du64, 0xffffffffu));
    const VU64 carry = hn::IfThenElseZero(hn::Ne(hn::ShiftRight<32>(v2), hn::Zero(du64)), hn::ShiftLeft<32>(v64));
    const VU64 c = hn::Add(hn::MulEven(hn::BitCast(du, v2), v), carry);
    return hn::ShiftRightSame(hn::Add(c, rc), cube_shift);
  };
  return sum_columns(j0, j1, [&](size_t j) {
    const VU v = hn::BitCast(du, hn::Abs(hn::LoadU(di, b + j)));
    return hn::Add(cube(v), cube(odd_to_even(v)));
  }, tail);
}

uint64_t Mask(const int32_t* x, const int32_t* thr, int j0, int j1, int s, int theta, int cube_shift) {
  const DI di;
  const DU du;
  const DU64 du64;
  const D64 d64;
  const int tshift = s == 0 ? (theta < 2 ? 10 : 12) : 0;
  const int sq = s == 0 && theta < 2 ? 29 : 30;
  const VU64 rq = hn::Set(du64, uint64_t{1} << (sq - 1));
  const V64 rc = hn::Set(d64, int64_t{1} << (cube_shift - 1));
  const auto cube = [&](VI v) {  // v >= 0 in the even lanes
    const VU vu = hn::BitCast(du, v);
    const VU64 v2 = hn::ShiftRightSame(hn::Add(hn::MulEven(vu, vu), rq), sq);
    return hn::BitCast(du64, hn::ShiftRightSame(hn::Add(hn::MulEven(hn::BitCast(di, v2), v), rc), cube_shift));
  };
  const auto tail = [&](int a, int e) { return adm_row_kernels_ref().mask(x, thr, a, e, s, theta, cube_shift); };
  return sum_columns(j0, j1, [&](size_t j) {
    const VI th = hn::ShiftLeftSame(hn::LoadU(di, thr + j), tshift);
    const VI v = hn::Max(hn::Sub(hn::Abs(hn::LoadU(di, x + j)), th), hn::Zero(di));
    return hn::Add(cube(v), cube(odd_to_even(v)));
  }, tail);
}

}  // namespace
#endif

const AdmRowKernels* RowKernels() {
#if !TWINMAF_SIMD_KERNELS
  return &adm_row_kernels_ref();
#else
  static const AdmRowKernels k{
      .dwt0_vert_u8 = &Dwt0Vert<uint8_t>,
      .dwt0_vert_u16 = &Dwt0Vert<uint16_t>,
      .dwt_vert = &DwtVert,
      .dwt_horz = &DwtHorz,
      .point = &Point,
      .den = &Den,
      .mask = &Mask,
  };
  return &k;
#endif
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(RowKernels);

const AdmRowKernels& adm_row_kernels_simd() { return *HWY_DYNAMIC_DISPATCH(RowKernels)(); }

void adm_dsp_init(AdmRowKernels& dsp) {
  dsp = adm_row_kernels_ref();
  if (simd_enabled()) dsp = adm_row_kernels_simd();
}

}  // namespace twinmaf
#endif
