// vif statistic in SIMD (Google Highway, one source for every target):
// equal to vif_statistic_ref bit for bit (vif.h has the numeric contract).
//
// Per output row: the vertical pass over 2*kHalf+1 rows, a column vector at
// a time (taps inner, accumulators in registers), into padded rows of
// 16-bit values (stored biased as int16); then the horizontal pass by
// 16-bit multiply-adds (horizontal() says why it is exact) and the
// per-pixel classification, two column vectors (even and odd pixels) at a
// time, with vector accumulators of the four integer sums.
// Exactness:
// - Integer sums are exact in any order. Every filter sum is held in uint32
//   lanes: mu sums <= 65536*65535 < 2^32 (vif.h). A moment m = x*x (x*y) of
//   up to 65535^2 is split into m_hi = m >> 16 and m_lo = m & 0xffff; each
//   half's filter sum is <= 65536*65535 < 2^32 (the taps sum to 65536), so
//   sum f*m = (H << 16) + L exactly, and
//     (sum + r) >> s = (H << (16 - s)) + ((L + r) >> s)   (s <= 16, r < 2^16),
//   a uint32 (L + r <= 2^32 - 2^16 + 2^15). 8-bit samples need no split:
//   sum f*x*x <= 65536*255^2 < 2^32. The two taps of a symmetric pair share
//   one product f*(a + b): f <= 26386 for paired taps, a + b <= 131070, so
//   it is < 2^32 (the unpaired centre tap multiplies one value).
// - mu products (mu_a*mu_b + 2^31) >> 32 use 32x32->64 bit lane products.
// - The per-pixel classification (vif_accumulate_pixel) runs lane-parallel
//   in double lanes with the same IEEE operations in the same order
//   (g = s12 / (s1 + eps), s2 - g*s12, min(g, egl), (g*g)*s1), never fused
//   (-ffp-contract=off; Highway's Mul/Add/Sub/Div are the plain
//   instructions). The integer truncations: int32(s2 - g*s12) clamped at 0
//   is max(trunc(t), 0) (a negative value, in range or not, becomes 0), and
//   int64((g*g)*s1) + numer1 is trunc((g*g)*s1) + numer1 in double, exact
//   below 2^53 (g <= 100: < 2^45 + 2^32). 2048*log2 of an integer-valued
//   double x >= 2^16 is read from its bits: with e its exponent,
//   x >> (e - 15) = 32768 + the top 15 mantissa bits, the table index of
//   vif_log2_32/64 (whose k is e - 15); both come from the high 32 bits of
//   the double, so 16 pixels share one 32-bit gather (of the table's
//   entries re-encoded as bytes, log2_bytes()).
// - Lanes past the row end and lanes of the other branch are masked out of
//   every sum; their double steps may see any value but only feed a table
//   index that is in range by construction.
// Widths below one vector run the reference (only scale 3 of tiny inputs).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/vif/vif_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "base/hd_math.h"
#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/vif/vif.h"

#ifndef TWINMAF_VIF_SIMD_ONCE
#define TWINMAF_VIF_SIMD_ONCE
namespace twinmaf::vif_simd {
// vif_log2_table() entries 32768 + m (m < 2^15) re-encoded as the bytes
// t[32768 + m] - 30720 - (m >> 4), which lie in [0, 177] (2048*log2 of
// 32768 + m minus its chord; checked when built): 32 KiB that stay in L1
// for the gathers, where the int32 table would take 128 KiB. Three bytes
// of padding: a 32-bit gather at byte offset m reads m .. m + 3.
inline const uint8_t* log2_bytes() {
  static const std::vector<uint8_t> t = [] {
    std::vector<uint8_t> v(32768 + 3);
    const VifLog2Table& src = vif_log2_table();
    for (uint32_t m = 0; m < 32768; ++m) {
      const int32_t b = int32_t{src[32768 + m]} - 30720 - static_cast<int32_t>(m >> 4);
      if (b < 0 || b > 255) std::abort();  // the table is not 2048*log2: a build defect
      v[m] = static_cast<uint8_t>(b);
    }
    return v;
  }();
  return t.data();
}
}  // namespace twinmaf::vif_simd
#endif

TWINMAF_SIMD_BEGIN
#if TWINMAF_SIMD_KERNELS
namespace {

using D32 = hn::ScalableTag<uint32_t>;
using V32 = hn::Vec<D32>;

// Row buffers of one thread: the padded vertical results (mu, moment
// halves), each a 16-bit value v stored as the int16 v - 32768 (the
// horizontal pass's multiply-adds take signed 16-bit operands).
struct Rows {
  // 0 mu1, 1 mu2, 2 xx_hi, 3 xx_lo, 4 yy_hi, 5 yy_lo, 6 xy_hi, 7 xy_lo
  std::vector<int16_t> v[8];
  void reserve(size_t n) {
    for (auto& r : v)
      if (r.size() < n) r.resize(n);
  }
};

Rows& rows() {
  thread_local Rows r;
  return r;
}

using DI32 = hn::RebindToSigned<D32>;
using D16 = hn::Repartition<int16_t, D32>;  // twice the lanes of D32

// MulAddPairs' operands here (biased samples, moments, taps) are never
// both -2^15.
#include "base/simd_madd-inl.h"

// The int16 vector holding lo[i] in element 2i and hi[i] in element 2i+1
// (lo, hi < 2^15).
HWY_INLINE hn::Vec<D16> pair16(V32 lo, V32 hi) { return hn::BitCast(D16(), hn::Or(lo, hn::ShiftLeft<16>(hi))); }

// Stores the 16-bit values of v (< 2^16) as v - 32768.
HWY_INLINE void store_biased(D32 d, V32 v, int16_t* p) {
  const DI32 di;
  const hn::Rebind<int16_t, D32> dh;
  hn::StoreU(hn::DemoteTo(dh, hn::BitCast(di, hn::Sub(v, hn::Set(d, 32768u)))), dh, p);
}

// Splits a moment into its high and low 16 bits.
HWY_INLINE void split16(D32 d, V32 m, V32& hi, V32& lo) {
  hi = hn::ShiftRight<16>(m);
  lo = hn::And(m, hn::Set(d, 0xffffu));
}

// (H << (16 - s)) + ((L + r) >> s): the rounded moment of sum = (H << 16) + L.
HWY_INLINE V32 round_split(V32 h, V32 l, V32 r, int s) {
  return hn::Add(hn::ShiftLeftSame(h, 16 - s), hn::ShiftRightSame(hn::Add(l, r), s));
}

// Vertical pass of one column vector at column j: writes the rounded mu and
// the split moments of row i into the padded rows at kHalf + j (biased).
// 8-bit samples pair the two rows of a symmetric tap pair in one int16 lane
// pair: one multiply-add gives f*a0 + f*a1; the products a0^2, a1^2 (b0^2,
// b1^2; a0*b0, a1*b1), each < 2^16, are formed in 16-bit lanes, biased by
// -32768 to int16, and one multiply-add gives f*(a0^2 + a1^2) - 2^16 f
// (|.| < 2^31), the bias restored once after the taps.
template <typename T, int kScale>
HWY_INLINE void vertical(D32 d, const T* const* xr, const T* const* yr, size_t j,
                         const VifRounding& rd, int16_t* const* out) {
  constexpr int kHalf = kVifHalf[kScale];
  const hn::Rebind<T, D32> dt;
  const auto load = [&](const T* p) { return hn::PromoteTo(d, hn::LoadU(dt, p + j)); };
  const V32 fc = hn::Set(d, kVifFilter[kScale][kHalf]);
  const V32 a = load(xr[kHalf]), b = load(yr[kHalf]);
  V32 m1 = hn::Mul(fc, a), m2 = hn::Mul(fc, b);
  const size_t o = static_cast<size_t>(kHalf) + j;
  V32 h, l;
  if constexpr (sizeof(T) == 1) {
    // 8-bit samples: moments sum in uint32 unsplit (sq_shift is 0).
    const DI32 di;
    const D16 d16;
    const hn::RebindToUnsigned<D16> du16;
    const auto bias = hn::Set(du16, uint16_t{0x8000});
    // (p0*q0, p1*q1) of two pairs, each < 2^16, biased to int16 (- 32768).
    const auto products = [&](hn::Vec<D16> p, hn::Vec<D16> q) {
      return hn::BitCast(d16, hn::Xor(hn::Mul(hn::BitCast(du16, p), hn::BitCast(du16, q)), bias));
    };
    auto s1 = hn::Zero(di), s2 = s1, sxx = s1, syy = s1, sxy = s1;
    HWY_UNROLL(8)
    for (int k = 0; k < kHalf; ++k) {
      const auto pa = pair16(load(xr[k]), load(xr[2 * kHalf - k]));
      const auto pb = pair16(load(yr[k]), load(yr[2 * kHalf - k]));
      const auto ff = hn::Set(d16, static_cast<int16_t>(kVifFilter[kScale][k]));
      s1 = MulAddPairs(pa, ff, s1);
      s2 = MulAddPairs(pb, ff, s2);
      sxx = MulAddPairs(products(pa, pa), ff, sxx);
      syy = MulAddPairs(products(pb, pb), ff, syy);
      sxy = MulAddPairs(products(pa, pb), ff, sxy);
    }
    // Each biased pair lost 2 * 32768 * f: the sum of the off-centre taps
    // times 2^16, added back modulo 2^32 (the true sums are < 2^32).
    constexpr uint32_t kLost = static_cast<uint32_t>((65536u - vif_tap(kScale, kHalf)) / 2 * 65536ull);
    const V32 lost = hn::Set(d, kLost);
    m1 = hn::Add(m1, hn::BitCast(d, s1));
    m2 = hn::Add(m2, hn::BitCast(d, s2));
    const V32 xx = hn::Add(hn::Add(hn::Mul(fc, hn::Mul(a, a)), hn::BitCast(d, sxx)), lost);
    const V32 yy = hn::Add(hn::Add(hn::Mul(fc, hn::Mul(b, b)), hn::BitCast(d, syy)), lost);
    const V32 xy = hn::Add(hn::Add(hn::Mul(fc, hn::Mul(a, b)), hn::BitCast(d, sxy)), lost);
    split16(d, xx, h, l);
    store_biased(d, h, out[2] + o);
    store_biased(d, l, out[3] + o);
    split16(d, yy, h, l);
    store_biased(d, h, out[4] + o);
    store_biased(d, l, out[5] + o);
    split16(d, xy, h, l);
    store_biased(d, h, out[6] + o);
    store_biased(d, l, out[7] + o);
  } else {
    V32 hs[3], ls[3];
    V32 ph, pl;
    split16(d, hn::Mul(a, a), ph, pl);
    hs[0] = hn::Mul(fc, ph), ls[0] = hn::Mul(fc, pl);
    split16(d, hn::Mul(b, b), ph, pl);
    hs[1] = hn::Mul(fc, ph), ls[1] = hn::Mul(fc, pl);
    split16(d, hn::Mul(a, b), ph, pl);
    hs[2] = hn::Mul(fc, ph), ls[2] = hn::Mul(fc, pl);
    for (int k = 0; k < kHalf; ++k) {
      const V32 f = hn::Set(d, kVifFilter[kScale][k]);
      const V32 a0 = load(xr[k]), a1 = load(xr[2 * kHalf - k]);
      const V32 b0 = load(yr[k]), b1 = load(yr[2 * kHalf - k]);
      m1 = hn::Add(m1, hn::Mul(f, hn::Add(a0, a1)));
      m2 = hn::Add(m2, hn::Mul(f, hn::Add(b0, b1)));
      const V32 p0[3] = {hn::Mul(a0, a0), hn::Mul(b0, b0), hn::Mul(a0, b0)};
      const V32 p1[3] = {hn::Mul(a1, a1), hn::Mul(b1, b1), hn::Mul(a1, b1)};
      for (int m = 0; m < 3; ++m) {
        V32 h0, l0, h1, l1;
        split16(d, p0[m], h0, l0);
        split16(d, p1[m], h1, l1);
        hs[m] = hn::Add(hs[m], hn::Mul(f, hn::Add(h0, h1)));
        ls[m] = hn::Add(ls[m], hn::Mul(f, hn::Add(l0, l1)));
      }
    }
    const V32 r = hn::Set(d, static_cast<uint32_t>(rd.sq_round));
    for (int m = 0; m < 3; ++m) {
      split16(d, round_split(hs[m], ls[m], r, rd.sq_shift), h, l);
      store_biased(d, h, out[2 + 2 * m] + o);
      store_biased(d, l, out[3 + 2 * m] + o);
    }
  }
  const V32 mr = hn::Set(d, rd.mu_round);
  store_biased(d, hn::ShiftRightSame(hn::Add(m1, mr), rd.mu_shift), out[0] + o);
  store_biased(d, hn::ShiftRightSame(hn::Add(m2, mr), rd.mu_shift), out[1] + o);
}

// (a*b + 2^31) >> 32 per uint32 lane (vif_mu_product).
HWY_INLINE V32 mu_product(D32 d, V32 a, V32 b) {
  const hn::Repartition<uint64_t, D32> d64;
  const auto half = hn::Set(d64, uint64_t{0x80000000u});
  const auto odd = [&](V32 v) { return hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, v))); };
  const auto pe = hn::ShiftRight<32>(hn::Add(hn::MulEven(a, b), half));
  const auto po = hn::ShiftRight<32>(hn::Add(hn::MulEven(odd(a), odd(b)), half));
  return hn::BitCast(d, hn::Or(pe, hn::ShiftLeft<32>(po)));
}

// The four sums as vector accumulators.
template <class DI64>
struct Acc {
  hn::Vec<DI64> num_log, den_log, num_non_log;
  size_t den_non_log = 0;
};

// The double steps of vif_accumulate_pixel on one half-vector of pixels:
// the three values whose 2048*log2 it takes (s1 + nsq, numer1_tmp, numer1),
// integer-valued doubles (any value in lanes of the other branch).
template <class DH>
HWY_INLINE void log_args(DH, hn::Vec<DH> s1, hn::Vec<DH> s2, hn::Vec<DH> s12, double egl,
                         hn::Vec<hn::Rebind<double, DH>>* x) {
  const hn::Rebind<double, DH> df;
  const auto s1d = hn::PromoteTo(df, s1);
  const auto s2d = hn::PromoteTo(df, s2);
  const auto s12d = hn::PromoteTo(df, s12);
  const auto nsq = hn::Set(df, static_cast<double>(kVifSigmaNsq));
  x[0] = hn::Add(s1d, nsq);
  constexpr double kEps = 65536 * 1.0e-10;
  auto g = hn::Div(s12d, hn::Add(s1d, hn::Set(df, kEps)));
  const auto sv = hn::Max(hn::Trunc(hn::Sub(s2d, hn::Mul(g, s12d))), hn::Zero(df));
  const auto egl_v = hn::Set(df, egl);
  g = hn::IfThenElse(hn::Lt(g, egl_v), g, egl_v);
  x[2] = hn::Add(sv, nsq);
  x[1] = hn::Add(hn::Trunc(hn::Mul(hn::Mul(g, g), s1d)), x[2]);
}

// 2048*log2(x) of the integer-valued doubles x in [2^16, 2^53) of two
// half-vectors (lo: lanes 0 .. n/2 - 1), from the high 32 bits of each:
// e = biased exponent, m = the top 15 mantissa bits (x >> (e - 1023 - 15)
// = 32768 + m indexes vif_log2_table), k = e - 1023 - 15; the table entry
// is log2_bytes()[m] + 30720 + (m >> 4) (any bits give an in-range m).
template <class DF>
HWY_INLINE hn::Vec<DI32> log2_q11(DF, hn::Vec<DF> lo, hn::Vec<DF> hi, const uint8_t* bytes) {
  const DI32 di;
  const auto top = hn::ConcatOdd(di, hn::BitCast(di, hi), hn::BitCast(di, lo));
  const auto m = hn::And(hn::ShiftRight<5>(top), hn::Set(di, 0x7fff));
  const auto e = hn::And(hn::ShiftRight<20>(top), hn::Set(di, 0x7ff));
  const auto b = hn::And(hn::GatherOffset(di, reinterpret_cast<const int32_t*>(bytes), m), hn::Set(di, 0xff));
  return hn::Add(hn::Add(b, hn::ShiftRight<4>(m)), hn::Add(hn::ShiftLeft<11>(e), hn::Set(di, 30720 - 2048 * (1023 + 15))));
}

// acc (int64 lanes) += the int32 lanes of v.
template <class V64>
HWY_INLINE void add_wide(hn::Vec<DI32> v, V64& acc) {
  const hn::Half<DI32> dh;
  const hn::DFromV<V64> d64;
  acc = hn::Add(acc, hn::PromoteTo(d64, hn::LowerHalf(dh, v)));
  acc = hn::Add(acc, hn::PromoteTo(d64, hn::UpperHalf(dh, v)));
}

// Classification and sums of one vector of pixels from their horizontal
// sums s (0 mu1, 1 mu2, 2..7 the moment halves); lanes outside in_row are
// ignored.
template <class DI64>
HWY_INLINE void classify(D32 d, const V32* s, hn::Mask<DI32> in_row, double egl, const uint8_t* table,
                         Acc<DI64>& acc) {
  const V32 r16 = hn::Set(d, 32768u);
  const V32 xx = round_split(s[2], s[3], r16, 16);
  const V32 yy = round_split(s[4], s[5], r16, 16);
  const V32 xy = round_split(s[6], s[7], r16, 16);
  const DI32 di32;
  const auto s1 = hn::BitCast(di32, hn::Sub(xx, mu_product(d, s[0], s[0])));
  const auto s2 = hn::Max(hn::BitCast(di32, hn::Sub(yy, mu_product(d, s[1], s[1]))), hn::Zero(di32));
  const auto s12 = hn::BitCast(di32, hn::Sub(xy, mu_product(d, s[0], s[1])));

  const auto log_m = hn::And(in_row, hn::Gt(s1, hn::Set(di32, kVifSigmaNsq - 1)));
  const auto non_log = hn::AndNot(log_m, in_row);
  const auto num_m = hn::And(log_m, hn::And(hn::Gt(s12, hn::Zero(di32)), hn::Gt(s2, hn::Zero(di32))));
  acc.den_non_log += hn::CountTrue(di32, non_log);

  add_wide(hn::IfThenElseZero(non_log, s2), acc.num_non_log);
  // Nothing in the log branch: the double steps add nothing.
  if (hn::AllFalse(di32, log_m)) return;
  const hn::Half<decltype(di32)> dh;
  hn::Vec<hn::Rebind<double, decltype(dh)>> lo[3], hi[3];
  log_args(dh, hn::LowerHalf(dh, s1), hn::LowerHalf(dh, s2), hn::LowerHalf(dh, s12), egl, lo);
  log_args(dh, hn::UpperHalf(dh, s1), hn::UpperHalf(dh, s2), hn::UpperHalf(dh, s12), egl, hi);
  const hn::Rebind<double, decltype(dh)> df;
  const auto den = hn::Sub(log2_q11(df, lo[0], hi[0], table), hn::Set(di32, 2048 * 17));
  add_wide(hn::IfThenElseZero(log_m, den), acc.den_log);
  const auto num = hn::Sub(log2_q11(df, lo[1], hi[1], table), log2_q11(df, lo[2], hi[2], table));
  add_wide(hn::IfThenElseZero(num_m, num), acc.num_log);
}

// Horizontal pass + classification of the 2n pixels from column j (lanes
// at or past `valid` pixels are ignored). Taps are taken two at a time,
// (t, t + 1), with one multiply-add on the pairs of neighbouring padded
// elements: the even pixels j + 2i read elements from j + t, the odd ones
// from j + 1 + t (the last tap pairs with a zero weight). With every stored
// value v biased to v - 32768 (int16) and the taps summing to 65536, the
// int32 sum S = sum f*(v - 32768) is in [-2^31, 2^31) and
// sum f*v = S + 2^31 < 2^32: adding 2^31 modulo 2^32 gives the uint32 sum
// exactly (the weights are valid int16 operands: taps <= 26386 < 2^15, and
// scale 3's centre tap is split over two pairs).
template <int kScale, class DI64>
HWY_INLINE void horizontal(D32 d, const int16_t* const* v, size_t j, size_t valid, double egl,
                           const uint8_t* table, Acc<DI64>& acc) {
  constexpr int kTaps = 2 * kVifHalf[kScale] + 1;
  const DI32 di;
  const D16 d16;
  // One parity at a time (8 accumulators live, not 16).
  for (size_t parity = 0; parity < 2 && parity < valid; ++parity) {
    hn::Vec<DI32> se[8];
    for (int m = 0; m < 8; ++m) se[m] = hn::Zero(di);
    const auto tap_pair = [&](size_t t, uint32_t f0, uint32_t f1) {
      const auto ff = PairTaps(d16, f0, f1);
      for (int m = 0; m < 8; ++m) se[m] = MulAddPairs(hn::LoadU(d16, v[m] + j + parity + t), ff, se[m]);
    };
    if constexpr (kScale == 3) {
      // The centre tap (43728) is no int16: each pair takes half of it.
      constexpr uint32_t fc = vif_tap(3, 1);
      tap_pair(0, vif_tap(3, 0), fc / 2);
      tap_pair(1, fc - fc / 2, vif_tap(3, 2));
    } else {
      static_assert(kScale == 0 || kScale == 1 || kScale == 2);
      static_assert(vif_tap(0, 8) < 32768 && vif_tap(1, 4) < 32768 && vif_tap(2, 2) < 32768, "centre taps (the largest) fit int16");
      HWY_UNROLL(9)
      for (int t = 0; t < kTaps; t += 2) tap_pair(t, vif_tap(kScale, t), t + 1 < kTaps ? vif_tap(kScale, t + 1) : 0);
    }
    const V32 bias = hn::Set(d, 0x80000000u);
    V32 s[8];
    for (int m = 0; m < 8; ++m) s[m] = hn::Add(hn::BitCast(d, se[m]), bias);
    classify(d, s, hn::FirstN(di, (valid - parity + 1) / 2), egl, table, acc);
  }
}

template <typename T, int kScale>
VifScaleSums statistic(const PlaneView& ref, const PlaneView& dis, int bpc, double egl, int row0, int row1) {
  constexpr int kHalf = kVifHalf[kScale];
  const D32 d;
  const size_t n = hn::Lanes(d);
  const size_t w = static_cast<size_t>(ref.w);
  const int h = ref.h;
  const VifRounding rd = vif_rounding(kScale, bpc);
  const uint8_t* table = vif_simd::log2_bytes();
  Rows& rw = rows();
  // The horizontal pass reads up to 2n + 1 elements past its last block.
  rw.reserve(w + 2 * kHalf + 2 * n + 2);
  int16_t* v[8];
  for (int m = 0; m < 8; ++m) v[m] = rw.v[m].data();

  using DI64 = hn::Rebind<int64_t, hn::Half<hn::RebindToSigned<D32>>>;
  const DI64 di64;
  Acc<DI64> acc{hn::Zero(di64), hn::Zero(di64), hn::Zero(di64)};
  const T* xr[2 * kHalf + 1];
  const T* yr[2 * kHalf + 1];
  for (int i = row0; i < row1; ++i) {
    for (int k = 0; k <= 2 * kHalf; ++k) {
      const int r = reflect101(i - kHalf + k, h);
      xr[k] = ref.row<T>(r);
      yr[k] = dis.row<T>(r);
    }
    // Full vectors; the last one overlaps the previous (same values).
    for (size_t j = 0;; j += n) {
      if (j + n > w) j = w - n;
      vertical<T, kScale>(d, xr, yr, j, rd, v);
      if (j + n == w) break;
    }
    for (int m = 0; m < 8; ++m) {
      int16_t* p = v[m];
      for (int f = 1; f <= kHalf; ++f) {
        p[kHalf - f] = p[kHalf + f];
        p[kHalf + w - 1 + f] = p[kHalf + w - 1 - f];
      }
    }
    for (size_t j = 0; j < w; j += 2 * n) horizontal<kScale>(d, v, j, w - j, egl, table, acc);
  }
  VifScaleSums out;
  out.num_log = hn::GetLane(hn::SumOfLanes(di64, acc.num_log));
  out.den_log = hn::GetLane(hn::SumOfLanes(di64, acc.den_log));
  out.num_non_log = hn::GetLane(hn::SumOfLanes(di64, acc.num_non_log));
  out.den_non_log = static_cast<int64_t>(acc.den_non_log);
  return out;
}

// Subsampling into scale kNext: per kept row (even i), the vertical pass a
// column vector at a time into a padded row of the uint16 results (stored
// biased as int16, as the statistic's rows), then the horizontal pass at
// even columns. Both sums are <= 65536 * 65535 < 2^32 (the taps sum to
// 65536, samples <= 65535) and are taken as in horizontal(): int16 operands
// v - 32768 in multiply-adds, S = sum f*(v - 32768) in [-2^31, 2^31), the
// sum S + 2^31 modulo 2^32. Vertically a lane pairs the rows of a
// symmetric tap pair (the centre tap, up to 43728, multiplies in int32:
// |fc*(v - 32768)| < 2^31); horizontally output c + i pairs the padded
// elements 2(c + i) + t, t + 1 (scale 3's centre tap split over two pairs).
template <typename T, int kNext>
void subsample(const PlaneView& ref, const PlaneView& dis, uint32_t v_round, int v_shift, uint16_t* dst_ref,
               uint16_t* dst_dis) {
  constexpr int kHalf = kVifHalf[kNext];
  constexpr int kTaps = 2 * kHalf + 1;
  const D32 d;
  const DI32 di;
  const D16 d16;
  const hn::Rebind<T, D32> dt;
  const hn::Rebind<uint16_t, D32> du16;
  const size_t n = hn::Lanes(d);
  const size_t w = static_cast<size_t>(ref.w);
  const int h = ref.h;
  const size_t w2 = w / 2;
  Rows& rw = rows();
  rw.reserve(w + 2 * kHalf + n);
  int16_t* row = rw.v[0].data();
  const PlaneView* src[2] = {&ref, &dis};
  uint16_t* dst[2] = {dst_ref, dst_dis};
  const V32 vr = hn::Set(d, v_round);
  const V32 lo16 = hn::Set(d, 0xffffu);
  const V32 bias = hn::Set(d, 0x80000000u);
  const V32 hr = hn::Set(d, 32768u);
  const V32 flip = hn::Set(d, 0x8000u);
  const auto fc = hn::Set(di, static_cast<int32_t>(vif_tap(kNext, kHalf)));
  for (int r = 0; r < h / 2; ++r) {
    const int i = 2 * r;
    for (int p = 0; p < 2; ++p) {
      const T* xr[kTaps];
      for (int k = 0; k < kTaps; ++k) xr[k] = src[p]->row<T>(reflect101(i - kHalf + k, h));
      // Lane values v - 32768 as int32 / as the low half of an int16 pair.
      const auto load = [&](int k, size_t j) { return hn::Xor(hn::PromoteTo(d, hn::LoadU(dt, xr[k] + j)), flip); };
      for (size_t j = 0;; j += n) {
        if (j + n > w) j = w - n;
        auto acc = hn::Mul(fc, hn::Sub(hn::BitCast(di, hn::PromoteTo(d, hn::LoadU(dt, xr[kHalf] + j))),
                                       hn::Set(di, 32768)));
        for (int k = 0; k < kHalf; ++k)
          acc = MulAddPairs(pair16(load(k, j), load(2 * kHalf - k, j)), hn::Set(d16, static_cast<int16_t>(vif_tap(kNext, k))), acc);
        const V32 sum = hn::Add(hn::BitCast(d, acc), bias);
        store_biased(d, hn::And(hn::ShiftRightSame(hn::Add(sum, vr), v_shift), lo16), row + kHalf + j);
        if (j + n == w) break;
      }
      for (int t = 1; t <= kHalf; ++t) {
        row[kHalf - t] = row[kHalf + t];
        row[kHalf + w - 1 + t] = row[kHalf + w - 1 - t];
      }
      uint16_t* out = dst[p] + static_cast<size_t>(r) * w2;
      for (size_t c = 0;; c += n) {
        if (c + n > w2) c = w2 - n;
        auto acc = hn::Zero(di);
        const auto tap_pair = [&](size_t t, uint32_t f0, uint32_t f1) {
          acc = MulAddPairs(hn::LoadU(d16, row + 2 * c + t), PairTaps(d16, f0, f1), acc);
        };
        if constexpr (kNext == 3) {
          constexpr uint32_t fm = vif_tap(3, 1);
          tap_pair(0, vif_tap(3, 0), fm / 2);
          tap_pair(1, fm - fm / 2, vif_tap(3, 2));
        } else {
          for (int t = 0; t < kTaps; t += 2) tap_pair(t, vif_tap(kNext, t), t + 1 < kTaps ? vif_tap(kNext, t + 1) : 0);
        }
        const V32 sum = hn::Add(hn::BitCast(d, acc), bias);
        hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, hn::ShiftRight<16>(hn::Add(sum, hr)))), du16, out + c);
        if (c + n == w2) break;
      }
    }
  }
}

}  // namespace
#endif

void SubsampleSimd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc, uint16_t* dst_ref,
                   uint16_t* dst_dis) {
#if !TWINMAF_SIMD_KERNELS
  return vif_subsample_ref(ref, dis, scale, bpc, dst_ref, dst_dis);
#else
  namespace hn = hwy::HWY_NAMESPACE;
  if (static_cast<size_t>(ref.w / 2) < hn::Lanes(D32())) return vif_subsample_ref(ref, dis, scale, bpc, dst_ref, dst_dis);
  const VifRounding r = vif_rounding(scale, bpc);
  switch (scale + 1) {
    case 1:
      return bpc == 8 ? subsample<uint8_t, 1>(ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis)
                      : subsample<uint16_t, 1>(ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis);
    case 2: return subsample<uint16_t, 2>(ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis);
    default: return subsample<uint16_t, 3>(ref, dis, r.mu_round, r.mu_shift, dst_ref, dst_dis);
  }
#endif
}

VifScaleSums StatisticSimd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                           double egl, int row0, int row1) {
#if !TWINMAF_SIMD_KERNELS
  return vif_statistic_ref(ref, dis, scale, bpc, egl, row0, row1);
#else
  namespace hn = hwy::HWY_NAMESPACE;
  if (static_cast<size_t>(ref.w) < hn::Lanes(D32())) return vif_statistic_ref(ref, dis, scale, bpc, egl, row0, row1);
  switch (scale) {
    case 0:
      return bpc == 8 ? statistic<uint8_t, 0>(ref, dis, bpc, egl, row0, row1)
                      : statistic<uint16_t, 0>(ref, dis, bpc, egl, row0, row1);
    case 1: return statistic<uint16_t, 1>(ref, dis, bpc, egl, row0, row1);
    case 2: return statistic<uint16_t, 2>(ref, dis, bpc, egl, row0, row1);
    default: return statistic<uint16_t, 3>(ref, dis, bpc, egl, row0, row1);
  }
#endif
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(StatisticSimd);
HWY_EXPORT(SubsampleSimd);

void vif_subsample_simd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc, uint16_t* dst_ref,
                        uint16_t* dst_dis) {
  HWY_DYNAMIC_DISPATCH(SubsampleSimd)(ref, dis, scale, bpc, dst_ref, dst_dis);
}

VifScaleSums vif_statistic_simd(const PlaneView& ref, const PlaneView& dis, int scale, int bpc,
                                double egl, int row0, int row1) {
  return HWY_DYNAMIC_DISPATCH(StatisticSimd)(ref, dis, scale, bpc, egl, row0, row1);
}

const VifKernels& vif_dsp_simd() {
  static constexpr VifKernels k{&vif_statistic_simd, &vif_subsample_simd};
  return k;
}

void vif_dsp_init(VifKernels& dsp) {
  dsp = vif_dsp_ref();
  if (simd_enabled()) dsp = vif_dsp_simd();
}

}  // namespace twinmaf
#endif
