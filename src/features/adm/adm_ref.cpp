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

using adm::add32;
using adm::add64;
using adm::reflect;
using adm::Scale0Math;
using adm::Scale123Math;

// 2^30 / i for i in [1, 32768], tabulated (adm::recip_q30).
const int32_t* recip_q30() {
  static const std::vector<int32_t> table = [] {
    std::vector<int32_t> t(32769, 0);
    for (int i = 1; i <= 32768; ++i) t[static_cast<size_t>(i)] = adm::recip_q30(i);
    return t;
  }();
  return table.data();
}

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
  for (int j = 0; j < src.w; ++j) {
    const uint32_t u0 = r0[j], u1 = r1[j], u2 = r2[j], u3 = r3[j];
    lo[j + 1] = adm::dwt0_vert_lo(u0, u1, u2, u3, bpc);
    if constexpr (kWithHi) hi[j + 1] = adm::dwt0_vert_hi(u0, u1, u2, u3, bpc);
  }
}

// Vertical pass of scale s >= 1 over the previous band a (int32, stride w).
void dwt123_vertical(const int32_t* __restrict src, int w, int h, int s, int i,
                     int32_t* __restrict lo, int32_t* __restrict hi) {
  const int32_t* r0 = src + static_cast<size_t>(reflect(2 * i - 1, h)) * w;
  const int32_t* r1 = src + static_cast<size_t>(reflect(2 * i, h)) * w;
  const int32_t* r2 = src + static_cast<size_t>(reflect(2 * i + 1, h)) * w;
  const int32_t* r3 = src + static_cast<size_t>(reflect(2 * i + 2, h)) * w;
  for (int j = 0; j < w; ++j) {
    const int64_t u0 = r0[j], u1 = r1[j], u2 = r2[j], u3 = r3[j];
    lo[j + 1] = adm::dwt_vert_lo(u0, u1, u2, u3, s);
    hi[j + 1] = adm::dwt_vert_hi(u0, u1, u2, u3, s);
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
inline int32_t hfilter_lo(const int32_t* p, int s) {
  if constexpr (kS0) return adm::dwt0_horz_lo(p[0], p[1], p[2], p[3]);
  else return adm::dwt_horz_lo(p[0], p[1], p[2], p[3], s);
}
template <bool kS0>
inline int32_t hfilter_hi(const int32_t* p, int s) {
  if constexpr (kS0) return adm::dwt0_horz_hi(p[0], p[1], p[2], p[3]);
  else return adm::dwt_horz_hi(p[0], p[1], p[2], p[3], s);
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
    for (int th = 0; th < 3; ++th) {
      const int32_t* b = rows_.ref[th];
      uint64_t inner = 0;
      if constexpr (kS0) {
        for (int j = cm.left; j < cm.right; ++j) inner += adm::den_cube0(b[j]);
      } else {
        const int sh_cub = sp_.den_cube_shift;
        for (int j = cm.left; j < cm.right; ++j) inner += adm::den_cube(b[j], s_, sh_cub);
      }
      out_.den[th] += adm::fold_den(inner, sp_.den_row_shift);
    }
  }

  void pointwise(int i) {
    const int slot = i % 3;
    const float cos2 = kp_.cos_1deg_sq;
    const double egl = kp_.enhn_gain_limit;
    const uint32_t* rf = sp_.rfactor;
    const int32_t* recip = recip_;
    const auto lookup = [recip](int k) { return recip[k]; };
    int32_t* ta = rows_.t_pad[0];
    int32_t* tr = rows_.t_pad[1];
    int32_t* ca = rows_.c_adm[slot];
    int32_t* cr = rows_.c_aim[slot];
    for (int j = halo_left_; j < halo_right_; ++j) {
      const int32_t ob[3] = {rows_.ref[0][j], rows_.ref[1][j], rows_.ref[2][j]};
      const int32_t tb[3] = {rows_.dis[0][j], rows_.dis[1][j], rows_.dis[2][j]};
      adm::AdmPoint pt;
      adm::point<Math>(ob, tb, rf, cos2, egl, lookup, pt);
      for (int b = 0; b < 3; ++b) {
        rows_.x_adm[slot][b][j] = pt.x_adm[b];
        rows_.x_aim[slot][b][j] = pt.x_aim[b];
      }
      ta[j] = pt.t30_adm;
      tr[j] = pt.t30_aim;
      ca[j] = pt.cen_adm;
      cr[j] = pt.cen_aim;
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
    // Threshold: the int32 sum of 27 terms, mod 2^32 like libvmaf's.
    int32_t* thr = rows_.thr;
    for (int j = cm.left; j < cm.right; ++j) thr[j] = add32(add32(add32(s0[j], s1[j]), s2[j]), cc[j]);
    for (int b = 0; b < 3; ++b) {
      const int32_t* xb = x[me][b];
      const int shc = sp_.cm_cube_shift[b];
      uint64_t inner = 0;  // int64 sums mod 2^64, as libvmaf's wrap
      for (int j = cm.left; j < cm.right; ++j)
        inner += static_cast<uint64_t>(adm::mask_cube<kS0>(xb[j], thr[j], b, shc));
      acc[b] = add64(acc[b], adm::fold_mask(inner, sp_.cm_row_shift));
    }
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
  for (int j = 0; j < w; ++j) a_out[j] = hfilter_lo<kS0>(lo + 2 * j, s);
  if (!hvd) return;
  int32_t* __restrict oh = hvd_out[0];
  int32_t* __restrict ov = hvd_out[1];
  int32_t* __restrict od = hvd_out[2];
  for (int j = 0; j < w; ++j) ov[j] = hfilter_hi<kS0>(lo + 2 * j, s);  // lo vertical, hi horizontal
  for (int j = 0; j < w; ++j) oh[j] = hfilter_lo<kS0>(hi + 2 * j, s);  // hi vertical, lo horizontal
  for (int j = 0; j < w; ++j) od[j] = hfilter_hi<kS0>(hi + 2 * j, s);
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
