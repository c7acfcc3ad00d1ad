// adm CPU reference kernels: DWT, decouple, CSF, masking and denominator
// sums of one frame, streamed row by row (see adm.h for the contract).
//
// Per scale, band row i is produced by the DWT (ref and dis), its reference
// cubes go into the denominator, its pointwise stages (decouple, CSF, masking
// terms) go into a ring of three rows, and the masking sum of row i-1 is taken
// once rows i-2..i are in the ring. Only the masking region plus a one-sample
// halo is computed pointwise; that halo lies inside libvmaf's decouple/CSF
// region, so every value read equals libvmaf's. Band a of each scale is kept
// whole (int32) as the next scale's input.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "features/adm/adm.h"

namespace twinmaf {

namespace {

constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kLoSum = 46342;  // sum of kLo: centres [0, 2^b) around 0

// Two's-complement helpers: libvmaf's int32 arithmetic where it can wrap.
inline int32_t wrap32(int64_t v) { return static_cast<int32_t>(v); }
inline int32_t add32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t sub32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t shl32(int32_t a, int s) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) << s);
}
inline int32_t abs32(int32_t a) {  // abs(INT32_MIN) stays INT32_MIN, as gcc's
  return a < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(a)) : a;
}
inline int64_t add64(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// DWT source index: -1 -> 1 at the start, n + k -> n - 1 - k at the end.
inline int reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - 1 - i : i); }

// 2^30 / i for i in [1, 32768] (libvmaf's div_lookup, positive half).
const int32_t* recip_q30() {
  static const std::vector<int32_t> table = [] {
    std::vector<int32_t> t(32769, 0);
    for (int i = 1; i <= 32768; ++i) t[static_cast<size_t>(i)] = (int32_t{1} << 30) / i;
    return t;
  }();
  return table.data();
}

// Angle between (oh, ov) and (th, tv) below 1 degree, in libvmaf's mixed
// precision: int64 -> float -> double, / 4096, products in double.
inline bool angle_below_1deg(int64_t dot, int64_t omag, int64_t tmag, float cos2) {
  const double d = static_cast<double>(static_cast<float>(dot)) / 4096.0;
  if (!(d >= 0.0)) return false;
  const double o = static_cast<double>(static_cast<float>(omag)) / 4096.0;
  const double t = static_cast<double>(static_cast<float>(tmag)) / 4096.0;
  return d * d >= static_cast<double>(cos2) * o * t;
}

// libvmaf's gain clamp: rst * egl (double) limited by t, truncated. Applies
// when the angle test holds and libvmaf's float product (k/2^15)*(o/64) is
// non-zero, i.e. k > 0 and o != 0 (exact: no under/overflow in that product);
// its sign is the sign of o. The result lies between 0 and t, so the
// conversion is exact truncation.
inline int64_t enhance(int64_t rst, int64_t t, int64_t k, int64_t o, double egl) {
  if (k <= 0 || o == 0) return rst;
  const double m = static_cast<double>(rst) * egl;
  const double td = static_cast<double>(t);
  if (o > 0) return static_cast<int64_t>(m < td ? m : td);
  return static_cast<int64_t>(m > td ? m : td);
}

// ---- per-scale arithmetic: scale 0 (int16 pipeline) and scales 1-3 --------

struct Scale0Math {
  // k = clamp(t / o, 0, 1) in Q15.
  static int64_t gain(int32_t o, int32_t t, const int32_t* recip) {
    if (o == 0) return 32768;
    const int64_t r = o > 0 ? recip[o] : -int64_t{recip[-o]};
    const int64_t k = (r * t + 16384) >> 15;
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
  }
  static int32_t narrow(int64_t v) { return static_cast<int16_t>(v); }
  // CSF-scaled value: (rf * x + {2^14, 2^14, 2^16 - 1}) >> {15, 15, 17}, int16.
  static int32_t csf(int32_t x, uint32_t rf, int theta) {
    const int32_t p = static_cast<int32_t>(rf) * x;  // |p| < 2^31
    return theta < 2 ? static_cast<int16_t>((p + 16384) >> 15)
                     : static_cast<int16_t>((p + 65535) >> 17);
  }
  // |x|/30 and |x|/15 masking terms, int16 (wrap as libvmaf's casts).
  static int32_t by30(int32_t v) { return static_cast<int16_t>((4369 * std::abs(v) + 2048) >> 12); }
  static int32_t by15(int32_t v) { return static_cast<int16_t>((8738 * std::abs(v) + 2048) >> 12); }
  // The masked value before thresholding.
  static int32_t target(int32_t x, uint32_t rf) { return static_cast<int32_t>(rf) * x; }
};

struct Scale123Math {
  // libvmaf reduces |o| >= 2^15 to 15 bits with a rounded shift first.
  static int64_t gain(int32_t o, int32_t t, const int32_t* recip) {
    if (o == 0) return 32768;
    const uint32_t ao = static_cast<uint32_t>(abs32(o));
    uint32_t msb = ao;
    int sh = 0;
    if (ao >= 32768) {
      sh = 17 - __builtin_clz(ao);
      msb = (ao + (1u << (sh - 1))) >> sh;
    }
    const int64_t sign = o < 0 ? -1 : 1;
    // (1 << (14 + sh)) is an int in libvmaf: for sh = 17 it wraps to -2^31.
    const int64_t rnd = static_cast<int32_t>(1u << (14 + sh));
    const int64_t k = ((int64_t{recip[msb]} * t) * sign + rnd) >> (15 + sh);
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
  }
  static int32_t narrow(int64_t v) { return static_cast<int32_t>(v); }
  static int32_t csf(int32_t x, uint32_t rf, int) {
    return wrap32((int64_t{x} * rf + (int64_t{1} << 27)) >> 28);
  }
  // libvmaf adds (int32_t)(1u << 31) = -2^31 before the shift.
  static int32_t by30(int32_t v) {
    return wrap32((int64_t{143165577} * abs32(v) - (int64_t{1} << 31)) >> 32);
  }
  static int32_t by15(int32_t v) {
    return wrap32((int64_t{286331153} * abs32(v) - (int64_t{1} << 31)) >> 32);
  }
  static int32_t target(int32_t x, uint32_t rf) { return csf(x, rf, 0); }
};

// ---- DWT ------------------------------------------------------------------

// Vertical pass of scale 0 for output row i, into rows padded for the
// horizontal pass (see pad_row). bpc 8: shift 8, round 128 -- the hbd formula.
template <bool kWithHi, typename Pix>
void dwt0_vertical(const PlaneView& src, int bpc, int i, int32_t* __restrict lo,
                   int32_t* __restrict hi) {
  const int n = src.h;
  const Pix* __restrict r0 = src.row<Pix>(reflect(2 * i - 1, n));
  const Pix* __restrict r1 = src.row<Pix>(reflect(2 * i, n));
  const Pix* __restrict r2 = src.row<Pix>(reflect(2 * i + 1, n));
  const Pix* __restrict r3 = src.row<Pix>(reflect(2 * i + 2, n));
  const uint32_t rnd = 1u << (bpc - 1);
  const uint32_t centre = static_cast<uint32_t>(kLoSum) * rnd;
  // Sums in uint32 (mod 2^32): the exact results fit int32 for bpc <= 16.
  for (int j = 0; j < src.w; ++j) {
    const uint32_t u0 = r0[j], u1 = r1[j], u2 = r2[j], u3 = r3[j];
    const uint32_t sl = static_cast<uint32_t>(kLo[0]) * u0 + static_cast<uint32_t>(kLo[1]) * u1 +
                        static_cast<uint32_t>(kLo[2]) * u2 + static_cast<uint32_t>(kLo[3]) * u3 -
                        centre;
    lo[j + 1] = static_cast<int16_t>(static_cast<int32_t>(sl + rnd) >> bpc);
    if constexpr (kWithHi) {
      const uint32_t sh = static_cast<uint32_t>(kHi[0]) * u0 + static_cast<uint32_t>(kHi[1]) * u1 +
                          static_cast<uint32_t>(kHi[2]) * u2 + static_cast<uint32_t>(kHi[3]) * u3;
      hi[j + 1] = static_cast<int16_t>(static_cast<int32_t>(sh + rnd) >> bpc);
    }
  }
}

constexpr int kVertShift[4] = {0, 0, 16, 16};
constexpr int64_t kVertRound[4] = {0, 0, 32768, 32768};
constexpr int kHorzShift[4] = {16, 15, 16, 15};
constexpr int64_t kHorzRound[4] = {32768, 16384, 32768, 16384};

// Vertical pass of scale s >= 1 over the previous band a (int32, stride w).
void dwt123_vertical(const int32_t* __restrict src, int w, int h, int s, int i,
                     int32_t* __restrict lo, int32_t* __restrict hi) {
  const int32_t* r0 = src + static_cast<size_t>(reflect(2 * i - 1, h)) * w;
  const int32_t* r1 = src + static_cast<size_t>(reflect(2 * i, h)) * w;
  const int32_t* r2 = src + static_cast<size_t>(reflect(2 * i + 1, h)) * w;
  const int32_t* r3 = src + static_cast<size_t>(reflect(2 * i + 2, h)) * w;
  const int sh = kVertShift[s];
  const int64_t rnd = kVertRound[s];
  for (int j = 0; j < w; ++j) {
    const int64_t u0 = r0[j], u1 = r1[j], u2 = r2[j], u3 = r3[j];
    const int64_t sl = kLo[0] * u0 + kLo[1] * u1 + kLo[2] * u2 + kLo[3] * u3;
    const int64_t shi = kHi[0] * u0 + kHi[1] * u1 + kHi[2] * u2 + kHi[3] * u3;
    lo[j + 1] = wrap32((sl + rnd) >> sh);
    hi[j + 1] = wrap32((shi + rnd) >> sh);
  }
}

// Fills the halo of a vertical-pass row stored at p[1..n]: p[0] = x[1]
// (index -1), p[n+1] = x[n-1], p[n+2] = x[n-2] (indices n, n+1). Output j then
// reads p[2j .. 2j+3] = input 2j-1 .. 2j+2.
inline void pad_row(int32_t* p, int n) {
  p[0] = p[2];
  p[n + 1] = p[n];
  p[n + 2] = p[n - 1];
}

// Horizontal pass: lo/hi filters over a padded row.
template <bool kS0>
inline int32_t hfilter(const int32_t* p, const int32_t* f, int s) {
  if constexpr (kS0) {
    const int32_t acc = f[0] * p[0] + f[1] * p[1] + f[2] * p[2] + f[3] * p[3];  // |acc| < 2^31
    return static_cast<int16_t>((acc + 32768) >> 16);
  } else {
    const int64_t acc = int64_t{f[0]} * p[0] + int64_t{f[1]} * p[1] + int64_t{f[2]} * p[2] +
                        int64_t{f[3]} * p[3];
    return wrap32((acc + kHorzRound[s]) >> kHorzShift[s]);
  }
}

// ---- one scale ------------------------------------------------------------

// Scratch of one thread, grown as needed and reused across frames.
struct Workspace {
  std::vector<int32_t> band_a[2][2];  // [ping-pong][ref, dis], whole bands
  std::vector<int32_t> rows;          // per-row buffers, carved by ScaleRows
};

// Row buffers of one scale. Ring rows (slot = row % 3) hold, for the masking
// of row c: the masked targets of the adm pass (from r) and of the aim pass
// (from a), and the threshold partial sums S (3-wide sum of the |csf|/30
// terms over the orientations) and C (centre |csf|/15 minus |csf|/30).
struct ScaleRows {
  int32_t* tmp[4];       // padded vertical rows: ref lo, ref hi, dis lo, dis hi
  int32_t* ref[3];       // ref h, v, d of the current row
  int32_t* dis[3];       // dis h, v, d of the current row
  int32_t* ref_a;        // band a row of the last scale (not kept whole)
  int32_t* dis_a;
  int32_t* t_pad[2];     // summed |csf|/30 of one row, padded by 1 (adm, aim)
  int32_t* x_adm[3][3];  // [slot][theta]
  int32_t* x_aim[3][3];
  int32_t* s_adm[3];
  int32_t* s_aim[3];
  int32_t* c_adm[3];
  int32_t* c_aim[3];
  int32_t* thr;          // masking threshold of one row

  ScaleRows(Workspace& ws, int in_w, int w) {
    const size_t tw = static_cast<size_t>(in_w) + 3;
    const size_t bw = static_cast<size_t>(w) + 2;
    const size_t need = 4 * tw + 8 * bw + 2 * bw + 3 * (6 * bw + 4 * bw) + bw;
    if (ws.rows.size() < need) ws.rows.resize(need);
    int32_t* p = ws.rows.data();
    auto take = [&p](size_t n) {
      int32_t* q = p;
      p += n;
      return q;
    };
    for (auto& t : tmp) t = take(tw);
    for (auto& r : ref) r = take(bw);
    for (auto& r : dis) r = take(bw);
    ref_a = take(bw);
    dis_a = take(bw);
    // Padded by one on the left: index -1 is valid.
    t_pad[0] = take(bw) + 1;
    t_pad[1] = take(bw) + 1;
    for (int k = 0; k < 3; ++k) {
      for (int th = 0; th < 3; ++th) x_adm[k][th] = take(bw);
      for (int th = 0; th < 3; ++th) x_aim[k][th] = take(bw);
      s_adm[k] = take(bw);
      s_aim[k] = take(bw);
      c_adm[k] = take(bw);
      c_aim[k] = take(bw);
    }
    thr = take(bw);
  }
};

template <bool kS0, typename Math>
class ScaleRunner {
 public:
  ScaleRunner(const AdmKernelParams& kp, int s, ScaleRows& rows, AdmScaleTerms& out)
      : kp_(kp), sp_(kp.scale[s]), s_(s), rows_(rows), out_(out), recip_(recip_q30()) {
    const AdmRegion& cm = sp_.cm;
    halo_top_ = cm.top > 0 ? cm.top - 1 : 0;
    halo_bottom_ = cm.bottom < sp_.h ? cm.bottom + 1 : sp_.h;
    halo_left_ = cm.left > 0 ? cm.left - 1 : 0;
    halo_right_ = cm.right < sp_.w ? cm.right + 1 : sp_.w;
  }

  // Consumes band row i (DWT output h, v, d of ref and dis in rows_).
  void row(int i) {
    const AdmRegion& cm = sp_.cm;
    if (i >= cm.top && i < cm.bottom) denominator();
    if (i >= halo_top_ && i < halo_bottom_) pointwise(i);
    const int c = i - 1;
    if (c >= cm.top && c < cm.bottom) mask_row(c);
  }

  // After the last row: the bottom row when it belongs to the region.
  void finish_rows() {
    const int c = sp_.h - 1;
    if (c >= sp_.cm.top && c < sp_.cm.bottom) mask_row(c);
  }

 private:
  // Reference cubes of the current row over the region.
  void denominator() {
    const AdmRegion& cm = sp_.cm;
    const int sh_row = sp_.den_row_shift;
    const uint64_t rnd_row = sh_row > 0 ? uint64_t{1} << (sh_row - 1) : 0;
    for (int th = 0; th < 3; ++th) {
      const int32_t* b = rows_.ref[th];
      uint64_t inner = 0;
      if constexpr (kS0) {
        for (int j = cm.left; j < cm.right; ++j) {
          const uint64_t v = static_cast<uint16_t>(std::abs(b[j]));
          inner += v * v * v;
        }
      } else {
        // ((v^2 + 2^q) >> q) * v, q = {31, 30, 31}: libvmaf adds the whole divisor.
        const int q = s_ == 2 ? 30 : 31;
        const uint64_t rq = uint64_t{1} << q;
        const int sh_cub = sp_.den_cube_shift;
        const uint64_t rnd_cub = uint64_t{1} << (sh_cub - 1);
        for (int j = cm.left; j < cm.right; ++j) {
          const uint64_t v = static_cast<uint32_t>(abs32(b[j]));
          inner += ((((v * v) + rq) >> q) * v + rnd_cub) >> sh_cub;
        }
      }
      out_.den[th] += (inner + rnd_row) >> sh_row;
    }
  }

  void pointwise(int i) {
    const int slot = i % 3;
    const int32_t* const* o = rows_.ref;
    const int32_t* const* t = rows_.dis;
    const float cos2 = kp_.cos_1deg_sq;
    const double egl = kp_.enhn_gain_limit;
    const uint32_t* rf = sp_.rfactor;
    int32_t* ta = rows_.t_pad[0];
    int32_t* tr = rows_.t_pad[1];
    int32_t* ca = rows_.c_adm[slot];
    int32_t* cr = rows_.c_aim[slot];
    for (int j = halo_left_; j < halo_right_; ++j) {
      const int32_t oh = o[0][j], ov = o[1][j], od = o[2][j];
      const int32_t th = t[0][j], tv = t[1][j], td = t[2][j];
      // Dot product and magnitudes: int64 in libvmaf; mod 2^64 here, which
      // only differs from exact for |values| near 2^31.
      const int64_t dot = add64(int64_t{oh} * th, int64_t{ov} * tv);
      const int64_t om = add64(int64_t{oh} * oh, int64_t{ov} * ov);
      const int64_t tm = add64(int64_t{th} * th, int64_t{tv} * tv);
      const bool angle = angle_below_1deg(dot, om, tm, cos2);
      const int32_t ob[3] = {oh, ov, od};
      const int32_t tb[3] = {th, tv, td};
      int32_t sum30_a = 0, sum30_r = 0, cen_a = 0, cen_r = 0;
      for (int b = 0; b < 3; ++b) {
        const int64_t k = Math::gain(ob[b], tb[b], recip_);
        int64_t rst = (k * ob[b] + 16384) >> 15;
        if (angle) rst = enhance(rst, tb[b], k, ob[b], egl);
        const int32_t r = Math::narrow(rst);
        const int32_t a = Math::narrow(int64_t{tb[b]} - r);
        // adm pass: masker = CSF(a), target = r; aim pass: masker = CSF(r), target = a.
        const int32_t csf_a = Math::csf(a, rf[b], b);
        const int32_t csf_r = Math::csf(r, rf[b], b);
        // Scales 1-3 mask the CSF-scaled value itself; scale 0 the unshifted product.
        rows_.x_adm[slot][b][j] = kS0 ? Math::target(r, rf[b]) : csf_r;
        rows_.x_aim[slot][b][j] = kS0 ? Math::target(a, rf[b]) : csf_a;
        const int32_t fa = Math::by30(csf_a);
        const int32_t fr = Math::by30(csf_r);
        sum30_a = add32(sum30_a, fa);
        sum30_r = add32(sum30_r, fr);
        cen_a = add32(cen_a, sub32(Math::by15(csf_a), fa));
        cen_r = add32(cen_r, sub32(Math::by15(csf_r), fr));
      }
      ta[j] = sum30_a;
      tr[j] = sum30_r;
      ca[j] = cen_a;
      cr[j] = cen_r;
    }
    // Neighbour mirroring of the masking stage: -1 -> 1, w -> w-1.
    const AdmRegion& cm = sp_.cm;
    if (cm.left == 0) {
      ta[-1] = ta[1];
      tr[-1] = tr[1];
    }
    if (cm.right == sp_.w) {
      ta[sp_.w] = ta[sp_.w - 1];
      tr[sp_.w] = tr[sp_.w - 1];
    }
    int32_t* sa = rows_.s_adm[slot];
    int32_t* sr = rows_.s_aim[slot];
    for (int j = cm.left; j < cm.right; ++j) {
      sa[j] = add32(add32(ta[j - 1], ta[j]), ta[j + 1]);
      sr[j] = add32(add32(tr[j - 1], tr[j]), tr[j + 1]);
    }
  }

  // Masking sum of row c for one pass; rows c-1 and c+1 mirrored at the band
  // edges (-1 -> 1, h -> h-1).
  void mask_pass(int c, int32_t* const* s, int32_t* const* cen, int32_t* const (*x)[3],
                 int64_t* acc) {
    const AdmRegion& cm = sp_.cm;
    const int up = (c == 0 ? 1 : c - 1) % 3;
    const int dn = (c + 1 >= sp_.h ? sp_.h - 1 : c + 1) % 3;
    const int me = c % 3;
    const int32_t* s0 = s[up];
    const int32_t* s1 = s[me];
    const int32_t* s2 = s[dn];
    const int32_t* cc = cen[me];
    int sub[3], sq[3];
    int64_t rsq[3], rcub[3];
    for (int b = 0; b < 3; ++b) {
      if constexpr (kS0) {
        sub[b] = b < 2 ? 10 : 12;
        sq[b] = b < 2 ? 29 : 30;
      } else {
        sub[b] = 0;
        sq[b] = 30;
      }
      rsq[b] = int64_t{1} << (sq[b] - 1);
      rcub[b] = int64_t{1} << (sp_.cm_cube_shift[b] - 1);
    }
    // Threshold: the int32 sum of 27 terms, mod 2^32 like libvmaf's.
    int32_t* thr = rows_.thr;
    for (int j = cm.left; j < cm.right; ++j) thr[j] = add32(add32(add32(s0[j], s1[j]), s2[j]), cc[j]);
    uint64_t inner[3] = {0, 0, 0};  // int64 sums mod 2^64, as libvmaf's wrap
    for (int b = 0; b < 3; ++b) {
      const int32_t* xb = x[me][b];
      const int shc = sp_.cm_cube_shift[b];
      for (int j = cm.left; j < cm.right; ++j) {
        int32_t v = sub32(abs32(xb[j]), kS0 ? shl32(thr[j], sub[b]) : thr[j]);
        if (v < 0) v = 0;
        const int32_t v2 = wrap32((int64_t{v} * v + rsq[b]) >> sq[b]);
        const int64_t v3 = (int64_t{v2} * v + rcub[b]) >> shc;
        inner[b] += static_cast<uint64_t>(v3);
      }
    }
    const int shr = sp_.cm_row_shift;
    const int64_t rnd = int64_t{1} << (shr - 1);
    for (int b = 0; b < 3; ++b)
      acc[b] = add64(acc[b], add64(static_cast<int64_t>(inner[b]), rnd) >> shr);
  }

  void mask_row(int c) {
    mask_pass(c, rows_.s_adm, rows_.c_adm, rows_.x_adm, out_.num);
    if (!kp_.skip_aim) mask_pass(c, rows_.s_aim, rows_.c_aim, rows_.x_aim, out_.aim);
  }

  const AdmKernelParams& kp_;
  const AdmScaleParams& sp_;
  int s_;
  ScaleRows& rows_;
  AdmScaleTerms& out_;
  const int32_t* recip_;
  int halo_top_ = 0, halo_bottom_ = 0, halo_left_ = 0, halo_right_ = 0;
};

// Horizontal pass of one band row of one picture: a (into a_out), and h, v,
// d when `hvd`.
template <bool kS0>
void dwt_horizontal(const int32_t* __restrict lo, const int32_t* __restrict hi, int w, int s,
                    bool hvd, int32_t* __restrict a_out, int32_t* const* hvd_out) {
  for (int j = 0; j < w; ++j) a_out[j] = hfilter<kS0>(lo + 2 * j, kLo, s);
  if (!hvd) return;
  int32_t* __restrict oh = hvd_out[0];
  int32_t* __restrict ov = hvd_out[1];
  int32_t* __restrict od = hvd_out[2];
  for (int j = 0; j < w; ++j) ov[j] = hfilter<kS0>(lo + 2 * j, kHi, s);  // lo vertical, hi horizontal
  for (int j = 0; j < w; ++j) oh[j] = hfilter<kS0>(hi + 2 * j, kLo, s);  // hi vertical, lo horizontal
  for (int j = 0; j < w; ++j) od[j] = hfilter<kS0>(hi + 2 * j, kHi, s);
}

template <typename Pix>
void run_scale0(const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& kp,
                Workspace& ws, int32_t* a_ref, int32_t* a_dis, AdmScaleTerms& out) {
  const AdmScaleParams& sp = kp.scale[0];
  ScaleRows rows(ws, sp.in_w, sp.w);
  const bool hvd = !kp.skip_scale0;
  ScaleRunner<true, Scale0Math> runner(kp, 0, rows, out);
  for (int i = 0; i < sp.h; ++i) {
    if (hvd) {
      dwt0_vertical<true, Pix>(ref, kp.bpc, i, rows.tmp[0], rows.tmp[1]);
      dwt0_vertical<true, Pix>(dis, kp.bpc, i, rows.tmp[2], rows.tmp[3]);
    } else {
      dwt0_vertical<false, Pix>(ref, kp.bpc, i, rows.tmp[0], rows.tmp[1]);
      dwt0_vertical<false, Pix>(dis, kp.bpc, i, rows.tmp[2], rows.tmp[3]);
    }
    for (int k = 0; k < 4; ++k)
      if (hvd || k % 2 == 0) pad_row(rows.tmp[k], sp.in_w);
    int32_t* ar = a_ref + static_cast<size_t>(i) * sp.w;
    int32_t* ad = a_dis + static_cast<size_t>(i) * sp.w;
    dwt_horizontal<true>(rows.tmp[0], rows.tmp[1], sp.w, 0, hvd, ar, rows.ref);
    dwt_horizontal<true>(rows.tmp[2], rows.tmp[3], sp.w, 0, hvd, ad, rows.dis);
    if (hvd) runner.row(i);
  }
  if (hvd) runner.finish_rows();
}

void run_scale123(int s, const int32_t* in_ref, const int32_t* in_dis, const AdmKernelParams& kp,
                  Workspace& ws, int32_t* a_ref, int32_t* a_dis, AdmScaleTerms& out) {
  const AdmScaleParams& sp = kp.scale[s];
  ScaleRows rows(ws, sp.in_w, sp.w);
  ScaleRunner<false, Scale123Math> runner(kp, s, rows, out);
  for (int i = 0; i < sp.h; ++i) {
    dwt123_vertical(in_ref, sp.in_w, sp.in_h, s, i, rows.tmp[0], rows.tmp[1]);
    dwt123_vertical(in_dis, sp.in_w, sp.in_h, s, i, rows.tmp[2], rows.tmp[3]);
    for (int k = 0; k < 4; ++k) pad_row(rows.tmp[k], sp.in_w);
    // The last scale's band a is not needed whole.
    int32_t* ar = a_ref ? a_ref + static_cast<size_t>(i) * sp.w : rows.ref_a;
    int32_t* ad = a_dis ? a_dis + static_cast<size_t>(i) * sp.w : rows.dis_a;
    dwt_horizontal<false>(rows.tmp[0], rows.tmp[1], sp.w, s, true, ar, rows.ref);
    dwt_horizontal<false>(rows.tmp[2], rows.tmp[3], sp.w, s, true, ad, rows.dis);
    runner.row(i);
  }
  runner.finish_rows();
}

}  // namespace

void adm_terms_ref(const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& p,
                   AdmTerms& out) {
  thread_local Workspace ws;
  for (AdmScaleTerms& t : out.scale) t = AdmScaleTerms{};
  for (int pp = 0; pp < 2; ++pp) {
    for (int k = 0; k < 2; ++k) {
      const size_t n = static_cast<size_t>(p.scale[pp].w) * p.scale[pp].h;
      if (ws.band_a[pp][k].size() < n) ws.band_a[pp][k].resize(n);
    }
  }
  int32_t* a0_ref = ws.band_a[0][0].data();
  int32_t* a0_dis = ws.band_a[0][1].data();
  if (p.bpc == 8)
    run_scale0<uint8_t>(ref, dis, p, ws, a0_ref, a0_dis, out.scale[0]);
  else
    run_scale0<uint16_t>(ref, dis, p, ws, a0_ref, a0_dis, out.scale[0]);
  for (int s = 1; s < 4; ++s) {
    const int in = (s - 1) % 2;
    const int nx = s % 2;
    int32_t* o_ref = s < 3 ? ws.band_a[nx][0].data() : nullptr;
    int32_t* o_dis = s < 3 ? ws.band_a[nx][1].data() : nullptr;
    run_scale123(s, ws.band_a[in][0].data(), ws.band_a[in][1].data(), p, ws, o_ref, o_dis,
                 out.scale[s]);
  }
}

}  // namespace twinmaf
