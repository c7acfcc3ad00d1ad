// adm CUDA twin: the tile decomposition of one scale (adm.cu runs it; a host
// program can run the same stage functions block by block to check the index
// logic against adm_terms_ref without a device). CUDA-safe.
//
// One block owns a tile of kTileW x kTileH band samples at (x0, y0) and runs
// three stages, separated by barriers, over shared memory (TileSmem):
//   A. vertical DWT pass (ref and dis) for the tile's halo rows y0-1 .. y0+kTileH
//      (band row reflect(row, h)) over input columns 2*x0-3 .. 2*x0+2*kTileW+2,
//      an item being one column of one picture over kVertRows consecutive rows;
//   B. per halo sample (y0-1 .. y0+kTileH) x (x0-1 .. x0+kTileW): the horizontal
//      pass at band position reflect(p) (= the masking neighbour mirroring
//      -1 -> 1, n -> n-1), band a of inner samples to global memory for the
//      next scale, and, where the masking reads it, the pointwise stage
//      (adm::point): threshold terms of every such sample, targets, centre
//      terms and reference bands of inner ones;
//   C. per inner sample of the masking region: threshold from the 3x3 halo
//      neighbourhood, masked cubes (adm, aim) and reference cubes, i.e. the
//      sample's contributions to the 9 row sums of its band row; an item sums
//      kMaskRun adjacent samples of a row.
// The row sums (mod 2^64) of all tiles of a row are added with integer atomics
// (order-free); the fold stage then applies libvmaf's per-row rounding shift
// to each complete row and sums the rows into the frame terms. Every value is
// the one adm_ref.cpp computes (same adm_math.h functions on the same inputs),
// so the terms are equal bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.h"
#include "features/adm/adm_math.h"

namespace twinmaf::adm {

inline constexpr int kTileW = 32;  // band columns per tile: stage C maps one row to one warp
inline constexpr int kTileH = 16;
inline constexpr int kTileThreads = 320;  // 10 warps: stage B's 612 samples in two rounds
inline constexpr int kHaloW = kTileW + 2;
inline constexpr int kHaloH = kTileH + 2;
inline constexpr int kVertW = 2 * kTileW + 6;
inline constexpr int kVertRows = kHaloH / 2;  // stage A item: rows [k, k + kVertRows) of a column
inline constexpr int kVertItems = 2 * kVertW * (kHaloH / kVertRows);  // [pic][row run][column]
static_assert(kHaloH % kVertRows == 0);
inline constexpr int kMaskRun = 4;                  // stage C item: kMaskRun adjacent samples of a row
inline constexpr int kMaskLanes = kTileW / kMaskRun;  // items per tile row
static_assert(kTileW % kMaskRun == 0 && (kMaskLanes & (kMaskLanes - 1)) == 0 && kMaskLanes < 32);
inline constexpr int kRowTerms = 9;  // per band row: den h v d, num h v d, aim h v d

struct TileSmem {
  int32_t lo[2][kHaloH][kVertW];  // vertical pass [ref, dis]
  int32_t hi[2][kHaloH][kVertW];
  int32_t t30[2][kHaloH][kHaloW];  // threshold terms [adm, aim] of halo samples
  int32_t x[6][kTileH][kTileW];    // targets: adm h v d, aim h v d
  int32_t cen[2][kTileH][kTileW];  // centre terms [adm, aim]
  int32_t ref[3][kTileH][kTileW];  // reference bands h v d
};

// What one scale's kernel reads (a flat copy of AdmKernelParams for scale s).
struct TileScale {
  int s = 0;
  int in_w = 0, in_h = 0, w = 0, h = 0;
  AdmRegion cm;
  uint32_t rfactor[3] = {};
  int cm_cube_shift[3] = {};
  int den_cube_shift = 0;
  int bpc = 8;
  bool hvd = true;    // bands h, v, d and terms (false: scale 0 under skip_scale0)
  bool aim = true;    // aim terms
  bool a_out = true;  // band a for the next scale (false at scale 3)
  float cos2 = 0;
  double egl = 0;
};

inline TileScale tile_scale(const AdmKernelParams& p, int s) {
  const AdmScaleParams& sp = p.scale[s];
  TileScale g;
  g.s = s;
  g.in_w = sp.in_w;
  g.in_h = sp.in_h;
  g.w = sp.w;
  g.h = sp.h;
  g.cm = sp.cm;
  for (int b = 0; b < 3; ++b) {
    g.rfactor[b] = sp.rfactor[b];
    g.cm_cube_shift[b] = sp.cm_cube_shift[b];
  }
  g.den_cube_shift = sp.den_cube_shift;
  g.bpc = p.bpc;
  g.hvd = !(s == 0 && p.skip_scale0);
  g.aim = !p.skip_aim;
  g.a_out = s < 3;
  g.cos2 = p.cos_1deg_sq;
  g.egl = p.enhn_gain_limit;
  return g;
}

// Scale-0 input: a pitched plane of Pix samples.
template <typename Pix>
struct PlaneSrc {
  static constexpr bool kS0 = true;
  const uint8_t* base;
  std::size_t pitch;
  TWINMAF_HD uint32_t at(int y, int x) const {
    return reinterpret_cast<const Pix*>(base + static_cast<std::size_t>(y) * pitch)[x];
  }
};

// Scales 1-3 input: the previous scale's band a.
struct BandSrc {
  static constexpr bool kS0 = false;
  const int32_t* base;
  int stride;
  TWINMAF_HD int64_t at(int y, int x) const { return base[static_cast<std::size_t>(y) * stride + x]; }
};

struct RecipDiv {
  TWINMAF_HD int32_t operator()(int i) const { return recip_q30(i); }
};

// Whether the tile at (x0, y0) has masking-region samples (then it computes
// the pointwise stages of their halo itself; nothing crosses tiles).
TWINMAF_HD bool tile_pointwise(const TileScale& g, int x0, int y0) {
  return g.hvd && y0 < g.cm.bottom && y0 + kTileH > g.cm.top && x0 < g.cm.right && x0 + kTileW > g.cm.left;
}

template <typename Src, typename V>
TWINMAF_HD void vertical_pair(const TileScale& g, V u0, V u1, V u2, V u3, bool with_hi, int32_t* lo, int32_t* hi) {
  if constexpr (Src::kS0) {
    *lo = dwt0_vert_lo(u0, u1, u2, u3, g.bpc);
    if (with_hi) *hi = dwt0_vert_hi(u0, u1, u2, u3, g.bpc);
  } else {
    *lo = dwt_vert_lo(u0, u1, u2, u3, g.s);
    if (with_hi) *hi = dwt_vert_hi(u0, u1, u2, u3, g.s);
  }
}

// Stage A item: stage column c of one picture over the kVertRows stage rows
// from r0. Positions no band sample of stage B reads are skipped (rows past h,
// input columns outside [-1, 2w]; both reflect validly otherwise). A run that
// needs no reflection (the interior) loads its 2 * kVertRows + 2 input rows
// once, all at a time; other runs load four rows per band row, reflected.
// hi only when `with_hi`.
template <typename Src>
TWINMAF_HD void tile_vertical(const TileScale& g, const Src& src, int x0, int y0, int c, int r0, bool with_hi,
                              int32_t (*lo)[kVertW], int32_t (*hi)[kVertW]) {
  const int ic = 2 * x0 - 3 + c;
  if (ic < -1 || ic > 2 * g.w) return;
  const int x = reflect(ic, g.in_w);
  const int py0 = y0 - 1 + r0;
  using V = decltype(src.at(0, 0));
  if (py0 >= 1 && py0 + kVertRows <= g.h && 2 * (py0 + kVertRows) + 1 <= g.in_h) {
    V u[2 * kVertRows + 2];
    for (int j = 0; j < 2 * kVertRows + 2; ++j) u[j] = src.at(2 * py0 - 1 + j, x);
    for (int k = 0; k < kVertRows; ++k)
      vertical_pair<Src>(g, u[2 * k], u[2 * k + 1], u[2 * k + 2], u[2 * k + 3], with_hi, &lo[r0 + k][c],
                         &hi[r0 + k][c]);
    return;
  }
  for (int r = r0; r < r0 + kVertRows; ++r) {
    const int py = y0 - 1 + r;
    if (py > g.h) return;  // so are all later rows
    const int qy = reflect(py, g.h);
    const V u0 = src.at(reflect(2 * qy - 1, g.in_h), x), u1 = src.at(reflect(2 * qy, g.in_h), x);
    const V u2 = src.at(reflect(2 * qy + 1, g.in_h), x), u3 = src.at(reflect(2 * qy + 2, g.in_h), x);
    vertical_pair<Src>(g, u0, u1, u2, u3, with_hi, &lo[r][c], &hi[r][c]);
  }
}

template <bool kS0>
TWINMAF_HD int32_t tile_horz_lo(const int32_t* p, int s) {
  if constexpr (kS0) return dwt0_horz_lo(p[0], p[1], p[2], p[3]);
  else return dwt_horz_lo(p[0], p[1], p[2], p[3], s);
}
template <bool kS0>
TWINMAF_HD int32_t tile_horz_hi(const int32_t* p, int s) {
  if constexpr (kS0) return dwt0_horz_hi(p[0], p[1], p[2], p[3]);
  else return dwt_horz_hi(p[0], p[1], p[2], p[3], s);
}

// Stage B item: halo sample (r, cc) = band (y0 - 1 + r, x0 - 1 + cc).
// `pointwise` = tile_pointwise(g, x0, y0).
template <typename Math>
TWINMAF_HD void tile_point(const TileScale& g, TileSmem& sm, int x0, int y0, int r, int cc, bool pointwise,
                           int32_t* a_ref, int32_t* a_dis) {
  const int py = y0 - 1 + r, px = x0 - 1 + cc;
  const bool inner = r >= 1 && r <= kTileH && cc >= 1 && cc <= kTileW && py < g.h && px < g.w;
  const bool need = pointwise && py >= g.cm.top - 1 && py <= g.cm.bottom && px >= g.cm.left - 1 &&
                    px <= g.cm.right;
  const bool a = inner && g.a_out;
  if (!need && !a) return;
  const int qx = reflect(px, g.w);
  const int c = 2 * (qx - x0) + 2;  // stage column of input column 2*qx - 1
  constexpr bool kS0 = Math::kS0;
  if (a) {
    const std::size_t at = static_cast<std::size_t>(py) * g.w + px;
    a_ref[at] = tile_horz_lo<kS0>(&sm.lo[0][r][c], g.s);
    a_dis[at] = tile_horz_lo<kS0>(&sm.lo[1][r][c], g.s);
  }
  if (!need) return;
  int32_t band[2][3];
  for (int pic = 0; pic < 2; ++pic) {
    band[pic][0] = tile_horz_lo<kS0>(&sm.hi[pic][r][c], g.s);  // h: hi vertical, lo horizontal
    band[pic][1] = tile_horz_hi<kS0>(&sm.lo[pic][r][c], g.s);  // v: lo vertical, hi horizontal
    band[pic][2] = tile_horz_hi<kS0>(&sm.hi[pic][r][c], g.s);  // d
  }
  AdmPoint pt;
  point<Math>(band[0], band[1], g.rfactor, g.cos2, g.egl, RecipDiv{}, pt);
  sm.t30[0][r][cc] = pt.t30_adm;
  sm.t30[1][r][cc] = pt.t30_aim;
  if (inner) {
    const int ir = r - 1, ic = cc - 1;
    for (int b = 0; b < 3; ++b) {
      sm.x[b][ir][ic] = pt.x_adm[b];
      sm.x[3 + b][ir][ic] = pt.x_aim[b];
      sm.ref[b][ir][ic] = band[0][b];
    }
    sm.cen[0][ir][ic] = pt.cen_adm;
    sm.cen[1][ir][ic] = pt.cen_aim;
  }
}

// Whether band row y holds masking-region samples of tile column x0.
TWINMAF_HD bool tile_row_active(const TileScale& g, int x0, int y) {
  return g.hvd && y >= g.cm.top && y < g.cm.bottom && x0 < g.cm.right && x0 + kTileW > g.cm.left;
}

// Stage C item: inner sample (r, cc) = band (y0 + r, x0 + cc); its
// contributions to the row sums (zero outside the masking region).
template <bool kS0>
TWINMAF_HD void tile_mask(const TileScale& g, const TileSmem& sm, int x0, int y0, int r, int cc,
                          uint64_t v[kRowTerms]) {
  for (int q = 0; q < kRowTerms; ++q) v[q] = 0;
  const int py = y0 + r, px = x0 + cc;
  if (!g.hvd || py < g.cm.top || py >= g.cm.bottom || px < g.cm.left || px >= g.cm.right) return;
  for (int b = 0; b < 3; ++b) {
    const int32_t rb = sm.ref[b][r][cc];
    v[b] = kS0 ? den_cube0(rb) : den_cube(rb, g.s, g.den_cube_shift);
  }
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1 && !g.aim) break;
    int32_t thr = sm.cen[pass][r][cc];
    for (int dr = 0; dr < 3; ++dr)
      for (int dc = 0; dc < 3; ++dc) thr = add32(thr, sm.t30[pass][r + dr][cc + dc]);
    for (int b = 0; b < 3; ++b)
      v[3 + 3 * pass + b] =
          static_cast<uint64_t>(mask_cube<kS0>(sm.x[3 * pass + b][r][cc], thr, b, g.cm_cube_shift[b]));
  }
}

// Stage C item: inner samples (r, c0 .. c0 + kMaskRun - 1); the sum of their
// contributions (mod 2^64).
template <bool kS0>
TWINMAF_HD void tile_mask_run(const TileScale& g, const TileSmem& sm, int x0, int y0, int r, int c0,
                              uint64_t v[kRowTerms]) {
  for (int q = 0; q < kRowTerms; ++q) v[q] = 0;
  TWINMAF_NO_UNROLL  // one sample's terms live at a time: four blocks per SM without spills
  for (int k = 0; k < kMaskRun; ++k) {
    uint64_t w[kRowTerms];
    tile_mask<kS0>(g, sm, x0, y0, r, c0 + k, w);
    for (int q = 0; q < kRowTerms; ++q) v[q] += w[q];
  }
}

// Fold of one row sum of term q (0-2 den, 3-8 num/aim) into its frame-term
// contribution (mod 2^64).
TWINMAF_HD uint64_t fold_row(uint64_t row, int q, int den_row_shift, int cm_row_shift) {
  return q < 3 ? fold_den(row, den_row_shift) : static_cast<uint64_t>(fold_mask(row, cm_row_shift));
}

}  // namespace twinmaf::adm
