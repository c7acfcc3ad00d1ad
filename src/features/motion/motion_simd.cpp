// motion SAD in SIMD (Google Highway, one source for every target): equal
// to motion_sad_ref bit for bit (motion.h has the contract).
//
// Per row: the vertical 5-tap blur of (prev - cur), a column vector at a
// time, into padded int16 rows of its bytes; then the horizontal blur (by
// 16-bit multiply-adds of neighbouring elements, even and odd output pixels
// as two vectors) and |.| summed in uint32 lanes (the row's total fits uint32, motion_ref.cpp), added to the
// uint64 SAD per row. All integer: exact in any order. Widths: a vertical
// sum f*d is within +-65536*(2^bpc - 1), an int32 up to bpc 15; at bpc 16,
// and always for the horizontal sum (|y| <= 65280..65535: +-2^32), a value
// v = 256*v_hi + v_lo (v_hi = v >> 8 arithmetic, v_lo = v & 255) is summed
// as A = sum f*v_hi (|A| <= 2^24) and B = sum f*v_lo (<= 65536*255), and
//   (256*A + B + 2^(s-1)) >> s = (A + ((B + 2^(s-1)) >> 8)) >> (s - 8)
// for s >= 8 (the low byte of B + 2^(s-1) cannot carry past a multiple of
// 2^s). Widths below one vector run the reference.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/motion/motion_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hd_math.h"
#include "base/simd.h"
#include "base/simd_kernel.h"
#include "features/motion/motion.h"

TWINMAF_SIMD_BEGIN
#if TWINMAF_SIMD_KERNELS
namespace {

#include "base/simd_madd-inl.h"

using DI = hn::ScalableTag<int32_t>;
using VI = hn::Vec<DI>;

// (sum f_k v_k + 2^(s-1)) >> s over five values, via the byte split.
HWY_INLINE VI blur_split(DI d, const VI (&v)[5], int s) {
  const VI f0 = hn::Set(d, kMotionFilter[0]), f1 = hn::Set(d, kMotionFilter[1]),
           f2 = hn::Set(d, kMotionFilter[2]);
  const VI lo_mask = hn::Set(d, 255);
  VI hi[5], lo[5];
  for (int k = 0; k < 5; ++k) {
    hi[k] = hn::ShiftRight<8>(v[k]);
    lo[k] = hn::And(v[k], lo_mask);
  }
  const VI a = hn::Add(hn::Add(hn::Mul(f0, hn::Add(hi[0], hi[4])), hn::Mul(f1, hn::Add(hi[1], hi[3]))),
                       hn::Mul(f2, hi[2]));
  const VI b = hn::Add(hn::Add(hn::Mul(f0, hn::Add(lo[0], lo[4])), hn::Mul(f1, hn::Add(lo[1], lo[3]))),
                       hn::Mul(f2, lo[2]));
  const VI b_round = hn::ShiftRight<8>(hn::Add(b, hn::Set(d, 1 << (s - 1))));
  return hn::ShiftRightSame(hn::Add(a, b_round), s - 8);
}

// Straight int32 sum (bpc <= 15: no overflow).
HWY_INLINE VI blur_direct(DI d, const VI (&v)[5], int s) {
  const VI acc = hn::Add(hn::Add(hn::Mul(hn::Set(d, kMotionFilter[0]), hn::Add(v[0], v[4])),
                                 hn::Mul(hn::Set(d, kMotionFilter[1]), hn::Add(v[1], v[3]))),
                         hn::Mul(hn::Set(d, kMotionFilter[2]), v[2]));
  return hn::ShiftRightSame(hn::Add(acc, hn::Set(d, 1 << (s - 1))), s);
}

// sum_t f_t x_t over the five padded elements of output pixels j + 2i
// (first = 0, even) or j + 2i + 1 (first = 1) of a row of int16 values:
// neighbouring elements paired with two taps, one multiply-add per pair
// (|x| <= 256, taps < 2^15: exact in int32).
HWY_INLINE VI taps5(const int16_t* x, size_t first) {
  const DI d;
  const hn::Repartition<int16_t, DI> d16;
  const auto madd = [&](size_t t, int32_t f0, int32_t f1, VI acc) {
    return MulAddPairs(hn::LoadU(d16, x + first + t), PairTaps(d16, f0, f1), acc);
  };
  return madd(4, kMotionFilter[4], 0,
              madd(2, kMotionFilter[2], kMotionFilter[3], madd(0, kMotionFilter[0], kMotionFilter[1], hn::Zero(d))));
}

template <typename T>
uint64_t sad(const PlaneView& prev, const PlaneView& cur, int bpc) {
  const DI d;
  const hn::Rebind<T, DI> dt;
  const hn::Rebind<int16_t, DI> dh;
  const hn::RebindToUnsigned<DI> du;
  const size_t n = hn::Lanes(d);
  const size_t w = static_cast<size_t>(cur.w);
  const int h = cur.h;
  // The vertical results v (|v| <= 65535) as their bytes: v_hi = v >> 8
  // (arithmetic, in [-256, 255]) and v_lo = v & 255, in padded int16 rows
  // (2 elements each side; the horizontal loads reach 2n + 2 past the end).
  thread_local std::vector<int16_t> buf_hi, buf_lo;
  for (auto* b : {&buf_hi, &buf_lo})
    if (b->size() < w + 2 * n + 6) b->resize(w + 2 * n + 6);
  int16_t* yh = buf_hi.data() + 2;
  int16_t* yl = buf_lo.data() + 2;
  const VI lo_mask = hn::Set(d, 255);

  uint64_t total = 0;
  for (int i = 0; i < h; ++i) {
    const T* p[5];
    const T* c[5];
    for (int k = 0; k < 5; ++k) {
      const int r = reflect101(i - 2 + k, h);
      p[k] = prev.row<T>(r);
      c[k] = cur.row<T>(r);
    }
    VI any = hn::Zero(d);
    // Full vectors; the last one overlaps the previous (same values).
    for (size_t j = 0;; j += n) {
      if (j + n > w) j = w - n;
      VI diff[5];
      for (int k = 0; k < 5; ++k)
        diff[k] = hn::Sub(hn::PromoteTo(d, hn::LoadU(dt, p[k] + j)), hn::PromoteTo(d, hn::LoadU(dt, c[k] + j)));
      const VI v = bpc == 16 ? blur_split(d, diff, bpc) : blur_direct(d, diff, bpc);
      any = hn::Or(any, v);
      hn::StoreU(hn::DemoteTo(dh, hn::ShiftRight<8>(v)), dh, yh + j);
      hn::StoreU(hn::DemoteTo(dh, hn::And(v, lo_mask)), dh, yl + j);
      if (j + n == w) break;
    }
    // A zero row adds (0 + 2^15) >> 16 == 0 at every column.
    if (hn::AllTrue(d, hn::Eq(any, hn::Zero(d)))) continue;
    for (int16_t* y : {yh, yl}) {
      y[-1] = y[reflect101(-1, static_cast<int>(w))];
      y[-2] = y[reflect101(-2, static_cast<int>(w))];
      y[w] = y[reflect101(static_cast<int>(w), static_cast<int>(w))];
      y[w + 1] = y[reflect101(static_cast<int>(w) + 1, static_cast<int>(w))];
    }

    // blur_split's horizontal sum (s = 16) of even and odd output pixels.
    const VI r15 = hn::Set(d, 1 << 15);
    const auto blur = [&](size_t j, size_t first) {
      const VI a = taps5(yh + j - 2, first), b = taps5(yl + j - 2, first);
      return hn::Abs(hn::ShiftRight<8>(hn::Add(a, hn::ShiftRight<8>(hn::Add(b, r15)))));
    };
    auto row = hn::Zero(du);
    for (size_t j = 0; j < w; j += 2 * n) {
      const size_t valid = w - j;
      row = hn::Add(row, hn::BitCast(du, hn::IfThenElseZero(hn::FirstN(d, (valid + 1) / 2), blur(j, 0))));
      row = hn::Add(row, hn::BitCast(du, hn::IfThenElseZero(hn::FirstN(d, valid / 2), blur(j, 1))));
    }
    total += hn::GetLane(hn::SumOfLanes(du, row));
  }
  return total;
}

}  // namespace
#endif

uint64_t SadSimd(const PlaneView& prev, const PlaneView& cur, int bpc) {
#if !TWINMAF_SIMD_KERNELS
  return motion_sad_ref(prev, cur, bpc);
#else
  if (static_cast<size_t>(cur.w) < hwy::HWY_NAMESPACE::Lanes(DI())) return motion_sad_ref(prev, cur, bpc);
  return bpc > 8 ? sad<uint16_t>(prev, cur, bpc) : sad<uint8_t>(prev, cur, bpc);
#endif
}

TWINMAF_SIMD_END

#if HWY_ONCE
namespace twinmaf {

HWY_EXPORT(SadSimd);

uint64_t motion_sad_simd(const PlaneView& prev, const PlaneView& cur, int bpc) {
  return HWY_DYNAMIC_DISPATCH(SadSimd)(prev, cur, bpc);
}

const MotionDsp& motion_dsp_simd() {
  static constexpr MotionDsp k{&motion_sad_simd};
  return k;
}

void motion_dsp_init(MotionDsp& dsp) {
  dsp = motion_dsp_ref();
  if (simd_enabled()) dsp = motion_dsp_simd();
}

}  // namespace twinmaf
#endif
