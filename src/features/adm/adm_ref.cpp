// adm CPU reference: the scalar row kernels (adm_rows.h) and the driver that
// streams one frame through them row by row (see adm.h for the contract).
//
// Per scale, band row i is produced by the DWT (ref and dis), its reference
// cubes go into the denominator, its pointwise stages (decouple, CSF, masking
// terms) go into a ring of three rows, and the masking sum of row i-1 is taken
// once rows i-2..i are in the ring. Only the masking region plus a one-sample
// halo is computed pointwise; that halo lies inside libvmaf's decouple/CSF
// region, so every value read equals libvmaf's. Band a of each scale is kept
// whole (int32) as the next scale's input.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "base/parallel.h"
#include "features/adm/adm.h"
#include "features/adm/adm_rows.h"

namespace twinmaf {

namespace {

using adm::add32;
using adm::add64;
using adm::reflect;
using adm::Scale0Math;
using adm::Scale123Math;

// ---- reference row kernels ------------------------------------------------

template <typename Pix>
void dwt0_vert_ref(const Pix* const* r, int n, int bpc, int32_t* lo, int32_t* hi) {
  for (int j = 0; j < n; ++j) {
    const uint32_t u0 = r[0][j], u1 = r[1][j], u2 = r[2][j], u3 = r[3][j];
    lo[j] = adm::dwt0_vert_lo(u0, u1, u2, u3, bpc);
    if (hi) hi[j] = adm::dwt0_vert_hi(u0, u1, u2, u3, bpc);
  }
}

void dwt_vert_ref(const int32_t* const* r, int n, int s, int32_t* lo, int32_t* hi) {
  for (int j = 0; j < n; ++j) {
    const int64_t u0 = r[0][j], u1 = r[1][j], u2 = r[2][j], u3 = r[3][j];
    lo[j] = adm::dwt_vert_lo(u0, u1, u2, u3, s);
    hi[j] = adm::dwt_vert_hi(u0, u1, u2, u3, s);
  }
}

template <bool kS0>
int32_t hfilter_lo(const int32_t* p, int s) {
  if constexpr (kS0) return adm::dwt0_horz_lo(p[0], p[1], p[2], p[3]);
  else return adm::dwt_horz_lo(p[0], p[1], p[2], p[3], s);
}
template <bool kS0>
int32_t hfilter_hi(const int32_t* p, int s) {
  if constexpr (kS0) return adm::dwt0_horz_hi(p[0], p[1], p[2], p[3]);
  else return adm::dwt_horz_hi(p[0], p[1], p[2], p[3], s);
}

template <bool kS0>
void dwt_horz_ref_impl(const int32_t* lo, const int32_t* hi, int w, int s, int32_t* a, int32_t* const* hvd) {
  for (int j = 0; j < w; ++j) a[j] = hfilter_lo<kS0>(lo + 2 * j, s);
  if (!hvd) return;
  for (int j = 0; j < w; ++j) hvd[0][j] = hfilter_lo<kS0>(hi + 2 * j, s);  // hi vertical, lo horizontal
  for (int j = 0; j < w; ++j) hvd[1][j] = hfilter_hi<kS0>(lo + 2 * j, s);  // lo vertical, hi horizontal
  for (int j = 0; j < w; ++j) hvd[2][j] = hfilter_hi<kS0>(hi + 2 * j, s);
}

void dwt_horz_ref(const int32_t* lo, const int32_t* hi, int w, int s, int32_t* a, int32_t* const* hvd) {
  if (s == 0) dwt_horz_ref_impl<true>(lo, hi, w, s, a, hvd);
  else dwt_horz_ref_impl<false>(lo, hi, w, s, a, hvd);
}

template <typename Math>
void point_ref_impl(const AdmPointRow& row, int j0, int j1) {
  const int32_t* recip = adm_recip_q30_table();
  const auto lookup = [recip](int k) { return recip[k]; };
  for (int j = j0; j < j1; ++j) {
    const int32_t ob[3] = {row.o[0][j], row.o[1][j], row.o[2][j]};
    const int32_t tb[3] = {row.t[0][j], row.t[1][j], row.t[2][j]};
    adm::AdmPoint pt;
    adm::point<Math>(ob, tb, row.rf, row.cos2, row.egl, lookup, pt);
    for (int b = 0; b < 3; ++b) {
      row.x_adm[b][j] = pt.x_adm[b];
      row.x_aim[b][j] = pt.x_aim[b];
    }
    row.t30_adm[j] = pt.t30_adm;
    row.t30_aim[j] = pt.t30_aim;
    row.cen_adm[j] = pt.cen_adm;
    row.cen_aim[j] = pt.cen_aim;
  }
}

void point_ref(const AdmPointRow& row, int j0, int j1) {
  if (row.s == 0) point_ref_impl<Scale0Math>(row, j0, j1);
  else point_ref_impl<Scale123Math>(row, j0, j1);
}

uint64_t den_ref(const int32_t* b, int j0, int j1, int s, int cube_shift) {
  uint64_t sum = 0;
  if (s == 0) {
    for (int j = j0; j < j1; ++j) sum += adm::den_cube0(b[j]);
  } else {
    for (int j = j0; j < j1; ++j) sum += adm::den_cube(b[j], s, cube_shift);
  }
  return sum;
}

uint64_t mask_ref(const int32_t* x, const int32_t* thr, int j0, int j1, int s, int theta, int cube_shift) {
  uint64_t sum = 0;  // int64 sums mod 2^64, as libvmaf's wrap
  if (s == 0) {
    for (int j = j0; j < j1; ++j) sum += static_cast<uint64_t>(adm::mask_cube<true>(x[j], thr[j], theta, cube_shift));
  } else {
    for (int j = j0; j < j1; ++j) sum += static_cast<uint64_t>(adm::mask_cube<false>(x[j], thr[j], theta, cube_shift));
  }
  return sum;
}

// ---- the driver -------------------------------------------------------------

// Fills the halo of a vertical-pass row stored at p[1..n]: p[0] = x[1]
// (index -1), p[n+1] = x[n-1], p[n+2] = x[n-2] (indices n, n+1). Output j then
// reads p[2j .. 2j+3] = input 2j-1 .. 2j+2.
void pad_row(int32_t* p, int n) {
  p[0] = p[2];
  p[n + 1] = p[n];
  p[n + 2] = p[n - 1];
}

// Per-thread scratch, grown as needed and reused across frames: the whole
// bands a of a frame (its driver's thread) and the row buffers of a band
// (whichever thread runs it).
struct FrameScratch {
  std::vector<int32_t> band_a[2][2];  // [ping-pong][ref, dis]
};
struct RowScratch {
  std::vector<int32_t> rows;  // carved by ScaleRows
};

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

  ScaleRows(RowScratch& ws, int in_w, int w) {
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

// The stages of band rows [r0, r1) of one scale: the denominator and the
// masking of those rows (within the region); the caller streams rows
// max(r0 - 1, 0) .. min(r1, h - 1) through row(), the masking's neighbours
// included.
class ScaleRunner {
 public:
  ScaleRunner(const AdmRowKernels& k, const AdmKernelParams& kp, int s, int r0, int r1, ScaleRows& rows,
              AdmScaleTerms& out)
      : k_(k), kp_(kp), sp_(kp.scale[s]), s_(s), r0_(r0), r1_(r1), rows_(rows), out_(out) {
    const AdmRegion& cm = sp_.cm;
    halo_top_ = cm.top > 0 ? cm.top - 1 : 0;
    halo_bottom_ = cm.bottom < sp_.h ? cm.bottom + 1 : sp_.h;
    halo_left_ = cm.left > 0 ? cm.left - 1 : 0;
    halo_right_ = cm.right < sp_.w ? cm.right + 1 : sp_.w;
  }

  // Consumes band row i (DWT output h, v, d of ref and dis in rows_).
  void row(int i) {
    if (owned(i)) denominator();
    if (i >= halo_top_ && i < halo_bottom_) pointwise(i);
    if (owned(i - 1)) mask_row(i - 1);
  }

  // After the band's last row: the bottom row when it is the band's.
  void finish_rows() {
    if (owned(sp_.h - 1)) mask_row(sp_.h - 1);
  }

 private:
  // Row c is in the band and in the region.
  bool owned(int c) const { return c >= r0_ && c < r1_ && c >= sp_.cm.top && c < sp_.cm.bottom; }

  // Reference cubes of the current row over the region.
  void denominator() {
    const AdmRegion& cm = sp_.cm;
    for (int th = 0; th < 3; ++th) {
      const uint64_t inner = k_.den(rows_.ref[th], cm.left, cm.right, s_, sp_.den_cube_shift);
      out_.den[th] += adm::fold_den(inner, sp_.den_row_shift);
    }
  }

  void pointwise(int i) {
    const int slot = i % 3;
    AdmPointRow pr;
    pr.s = s_;
    for (int b = 0; b < 3; ++b) {
      pr.o[b] = rows_.ref[b];
      pr.t[b] = rows_.dis[b];
      pr.rf[b] = sp_.rfactor[b];
      pr.x_adm[b] = rows_.x_adm[slot][b];
      pr.x_aim[b] = rows_.x_aim[slot][b];
    }
    pr.cos2 = kp_.cos_1deg_sq;
    pr.egl = kp_.enhn_gain_limit;
    int32_t* ta = rows_.t_pad[0];
    int32_t* tr = rows_.t_pad[1];
    pr.t30_adm = ta;
    pr.t30_aim = tr;
    pr.cen_adm = rows_.c_adm[slot];
    pr.cen_aim = rows_.c_aim[slot];
    k_.point(pr, halo_left_, halo_right_);
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
    // Locals and restrict: the loops vectorize (the stores cannot alias
    // the bounds or each other).
    int32_t* __restrict sa = rows_.s_adm[slot];
    int32_t* __restrict sr = rows_.s_aim[slot];
    const int32_t* __restrict ca = ta;
    const int32_t* __restrict cr = tr;
    const int j0 = cm.left, j1 = cm.right;
    for (int j = j0; j < j1; ++j) sa[j] = add32(add32(ca[j - 1], ca[j]), ca[j + 1]);
    for (int j = j0; j < j1; ++j) sr[j] = add32(add32(cr[j - 1], cr[j]), cr[j + 1]);
  }

  // Masking sum of row c for one pass; rows c-1 and c+1 mirrored at the band
  // edges (-1 -> 1, h -> h-1).
  void mask_pass(int c, int32_t* const* s, int32_t* const* cen, int32_t* const (*x)[3], int64_t* acc) {
    const AdmRegion& cm = sp_.cm;
    const int up = (c == 0 ? 1 : c - 1) % 3;
    const int dn = (c + 1 >= sp_.h ? sp_.h - 1 : c + 1) % 3;
    const int me = c % 3;
    const int32_t* s0 = s[up];
    const int32_t* s1 = s[me];
    const int32_t* s2 = s[dn];
    const int32_t* cc = cen[me];
    // Threshold: the int32 sum of 27 terms, mod 2^32 like libvmaf's.
    int32_t* __restrict thr = rows_.thr;
    const int j0 = cm.left, j1 = cm.right;
    for (int j = j0; j < j1; ++j) thr[j] = add32(add32(add32(s0[j], s1[j]), s2[j]), cc[j]);
    for (int b = 0; b < 3; ++b) {
      const uint64_t inner = k_.mask(x[me][b], thr, cm.left, cm.right, s_, b, sp_.cm_cube_shift[b]);
      acc[b] = add64(acc[b], adm::fold_mask(inner, sp_.cm_row_shift));
    }
  }

  void mask_row(int c) {
    mask_pass(c, rows_.s_adm, rows_.c_adm, rows_.x_adm, out_.num);
    if (!kp_.skip_aim) mask_pass(c, rows_.s_aim, rows_.c_aim, rows_.x_aim, out_.aim);
  }

  const AdmRowKernels& k_;
  const AdmKernelParams& kp_;
  const AdmScaleParams& sp_;
  int s_;
  int r0_, r1_;
  ScaleRows& rows_;
  AdmScaleTerms& out_;
  int halo_top_ = 0, halo_bottom_ = 0, halo_left_ = 0, halo_right_ = 0;
};

// Band rows [r0, r1) of scale s: `vert(i, lo_ref, hi_ref, lo_dis, hi_dis)`
// writes the vertical DWT of band row i (hi rows only when the scale has
// bands h, v, d); band a of owned rows goes to a_ref/a_dis (null: not kept),
// the terms to out. Rows r0 - 1 and r1 are recomputed for the masking
// neighbours; their band a stays in scratch (the neighbouring band owns it).
template <typename Vert>
void run_band(const AdmRowKernels& k, const AdmKernelParams& kp, int s, int r0, int r1, const Vert& vert,
              int32_t* a_ref, int32_t* a_dis, AdmScaleTerms& out) {
  thread_local RowScratch scratch;
  const AdmScaleParams& sp = kp.scale[s];
  ScaleRows rows(scratch, sp.in_w, sp.w);
  const bool hvd = s > 0 || !kp.skip_scale0;
  ScaleRunner runner(k, kp, s, r0, r1, rows, out);
  const int lo = hvd ? std::max(r0 - 1, 0) : r0;
  const int hi = hvd ? std::min(r1 + 1, sp.h) : r1;
  for (int i = lo; i < hi; ++i) {
    // The vertical rows are written at p[1..in_w] (pad_row).
    vert(i, rows.tmp[0] + 1, hvd ? rows.tmp[1] + 1 : nullptr, rows.tmp[2] + 1, hvd ? rows.tmp[3] + 1 : nullptr);
    for (int q = 0; q < 4; ++q)
      if (hvd || q % 2 == 0) pad_row(rows.tmp[q], sp.in_w);
    const bool own = i >= r0 && i < r1;
    int32_t* ar = own && a_ref ? a_ref + static_cast<size_t>(i) * sp.w : rows.ref_a;
    int32_t* ad = own && a_dis ? a_dis + static_cast<size_t>(i) * sp.w : rows.dis_a;
    k.dwt_horz(rows.tmp[0], rows.tmp[1], sp.w, s, ar, hvd ? rows.ref : nullptr);
    k.dwt_horz(rows.tmp[2], rows.tmp[3], sp.w, s, ad, hvd ? rows.dis : nullptr);
    if (hvd) runner.row(i);
  }
  if (hvd) runner.finish_rows();
}

// Row bands: frames of at least 1080p luma split a scale into up to
// band_width() bands of >= kBandRows rows (at most kMaxBands); the terms are
// integer sums of per-row folds, equal under any split.
constexpr int kBandRows = 64;
constexpr int kMaxBands = 16;
constexpr int64_t kBandMinArea = int64_t{1920} * 1080;

int band_count(const AdmKernelParams& kp, int s) {
  const AdmScaleParams& s0 = kp.scale[0];
  if (int64_t{s0.in_w} * s0.in_h < kBandMinArea) return 1;
  return std::clamp(std::min(band_width(), kp.scale[s].h / kBandRows), 1, kMaxBands);
}

template <typename Vert>
void run_scale(const AdmRowKernels& k, const AdmKernelParams& kp, int s, const Vert& vert, int32_t* a_ref,
               int32_t* a_dis, AdmScaleTerms& out) {
  const int h = kp.scale[s].h;
  const int n = band_count(kp, s);
  if (n == 1) return run_band(k, kp, s, 0, h, vert, a_ref, a_dis, out);
  AdmScaleTerms part[kMaxBands];
  run_bands(n, [&](int b) { run_band(k, kp, s, h * b / n, h * (b + 1) / n, vert, a_ref, a_dis, part[b]); });
  for (int b = 0; b < n; ++b)
    for (int q = 0; q < 3; ++q) {
      out.den[q] += part[b].den[q];
      out.num[q] = add64(out.num[q], part[b].num[q]);
      out.aim[q] = add64(out.aim[q], part[b].aim[q]);
    }
}

template <typename Pix>
void run_scale0(const AdmRowKernels& k, const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& kp,
                int32_t* a_ref, int32_t* a_dis, AdmScaleTerms& out) {
  const auto vert = [&](int i, int32_t* lr, int32_t* hr, int32_t* ld, int32_t* hd) {
    const Pix* rr[4];
    const Pix* rd[4];
    for (int q = 0; q < 4; ++q) {
      const int y = reflect(2 * i - 1 + q, ref.h);
      rr[q] = ref.row<Pix>(y);
      rd[q] = dis.row<Pix>(y);
    }
    if constexpr (sizeof(Pix) == 1) {
      k.dwt0_vert_u8(rr, ref.w, kp.bpc, lr, hr);
      k.dwt0_vert_u8(rd, dis.w, kp.bpc, ld, hd);
    } else {
      k.dwt0_vert_u16(rr, ref.w, kp.bpc, lr, hr);
      k.dwt0_vert_u16(rd, dis.w, kp.bpc, ld, hd);
    }
  };
  run_scale(k, kp, 0, vert, a_ref, a_dis, out);
}

void run_scale123(const AdmRowKernels& k, int s, const int32_t* in_ref, const int32_t* in_dis,
                  const AdmKernelParams& kp, int32_t* a_ref, int32_t* a_dis, AdmScaleTerms& out) {
  const AdmScaleParams& sp = kp.scale[s];
  const size_t stride = static_cast<size_t>(sp.in_w);
  const auto vert = [&](int i, int32_t* lr, int32_t* hr, int32_t* ld, int32_t* hd) {
    const int32_t* rr[4];
    const int32_t* rd[4];
    for (int q = 0; q < 4; ++q) {
      const size_t y = static_cast<size_t>(reflect(2 * i - 1 + q, sp.in_h));
      rr[q] = in_ref + y * stride;
      rd[q] = in_dis + y * stride;
    }
    k.dwt_vert(rr, sp.in_w, s, lr, hr);
    k.dwt_vert(rd, sp.in_w, s, ld, hd);
  };
  run_scale(k, kp, s, vert, a_ref, a_dis, out);
}

}  // namespace

const int32_t* adm_recip_q30_table() {
  static const std::vector<int32_t> table = [] {
    std::vector<int32_t> t(32769, 0);
    for (int i = 1; i <= 32768; ++i) t[static_cast<size_t>(i)] = adm::recip_q30(i);
    return t;
  }();
  return table.data();
}

const AdmRowKernels& adm_row_kernels_ref() {
  static const AdmRowKernels k{
      .dwt0_vert_u8 = &dwt0_vert_ref<uint8_t>,
      .dwt0_vert_u16 = &dwt0_vert_ref<uint16_t>,
      .dwt_vert = &dwt_vert_ref,
      .dwt_horz = &dwt_horz_ref,
      .point = &point_ref,
      .den = &den_ref,
      .mask = &mask_ref,
  };
  return k;
}

void adm_terms_with(const AdmRowKernels& k, const PlaneView& ref, const PlaneView& dis,
                    const AdmKernelParams& p, AdmTerms& out) {
  thread_local FrameScratch ws;
  for (AdmScaleTerms& t : out.scale) t = AdmScaleTerms{};
  for (int pp = 0; pp < 2; ++pp) {
    for (int q = 0; q < 2; ++q) {
      const size_t n = static_cast<size_t>(p.scale[pp].w) * p.scale[pp].h;
      if (ws.band_a[pp][q].size() < n) ws.band_a[pp][q].resize(n);
    }
  }
  int32_t* a0_ref = ws.band_a[0][0].data();
  int32_t* a0_dis = ws.band_a[0][1].data();
  if (p.bpc == 8)
    run_scale0<uint8_t>(k, ref, dis, p, a0_ref, a0_dis, out.scale[0]);
  else
    run_scale0<uint16_t>(k, ref, dis, p, a0_ref, a0_dis, out.scale[0]);
  for (int s = 1; s < 4; ++s) {
    const int in = (s - 1) % 2;
    const int nx = s % 2;
    int32_t* o_ref = s < 3 ? ws.band_a[nx][0].data() : nullptr;
    int32_t* o_dis = s < 3 ? ws.band_a[nx][1].data() : nullptr;
    run_scale123(k, s, ws.band_a[in][0].data(), ws.band_a[in][1].data(), p, o_ref, o_dis, out.scale[s]);
  }
}

void adm_terms_ref(const PlaneView& ref, const PlaneView& dis, const AdmKernelParams& p, AdmTerms& out) {
  adm_terms_with(adm_row_kernels_ref(), ref, dis, p, out);
}

}  // namespace twinmaf
