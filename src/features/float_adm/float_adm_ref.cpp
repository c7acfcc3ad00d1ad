// float_adm CPU reference kernels: DWT, decouple, CSF, masking and
// denominator row sums of one frame (contract: float_adm.h).
#include <cmath>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "features/adm/adm_math.h"
#include "features/common/float_picture.h"
#include "features/float_adm/float_adm.h"
#include "features/float_adm/float_adm_math.h"

namespace twinmaf {

namespace {

using adm::reflect;

// libvmaf's DIVS(n, d): n * rcp(d) with one Newton step on RCPSS where SSE2
// exists (adm_tools.c, ADM_OPT_RECIP_DIVISION), n / d elsewhere.
inline float divs(float n, float d) {
#if defined(__SSE2__)
  return float_adm_recip_div(n, d, _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(d))));
#else
  return n / d;
#endif
}

// Bands of one picture at one scale, w x h each, rows w apart.
struct Bands {
  std::vector<float> a, h, v, d;
  void resize(size_t n) {
    a.resize(n);
    h.resize(n);
    v.resize(n);
    d.resize(n);
  }
};

struct Scratch {
  std::vector<float> ref_pic, dis_pic, tmplo, tmphi;
  Bands ref, dis;
  std::vector<float> ref_in, dis_in;  // band a of the previous scale, the DWT's input
  // Per orientation, band-sized: the CSF values of the decoupled r and a
  // (f_b * r, f_b * a) and their masking terms. libvmaf's masking targets
  // r * f_b and a * f_b are the same products, so they are read from here.
  std::vector<float> cr[3], fr[3], ca[3], fa[3];
  std::vector<float> thr_num, thr_aim;  // masking thresholds of one row (0 with adm_bypass_cm)
};

// One DWT scale: src (nw x nh, rows `stride` floats apart) into bands of
// ceil(nw/2) x ceil(nh/2); band a only when lo_only.
void dwt(const float* src, int nw, int nh, std::ptrdiff_t stride, bool lo_only, Bands& out, float* tmplo,
         float* tmphi) {
  const int bw = (nw + 1) / 2, bh = (nh + 1) / 2;
  for (int i = 0; i < bh; ++i) {
    const float* r0 = src + reflect(2 * i - 1, nh) * stride;
    const float* r1 = src + reflect(2 * i, nh) * stride;
    const float* r2 = src + reflect(2 * i + 1, nh) * stride;
    const float* r3 = src + reflect(2 * i + 2, nh) * stride;
    for (int j = 0; j < nw; ++j) {
      tmplo[j] = float_adm_sum4(kFloatAdmDwtLo, r0[j], r1[j], r2[j], r3[j]);
      if (!lo_only) tmphi[j] = float_adm_sum4(kFloatAdmDwtHi, r0[j], r1[j], r2[j], r3[j]);
    }
    float* a = out.a.data() + static_cast<std::ptrdiff_t>(i) * bw;
    float* v = out.v.data() + static_cast<std::ptrdiff_t>(i) * bw;
    float* h = out.h.data() + static_cast<std::ptrdiff_t>(i) * bw;
    float* d = out.d.data() + static_cast<std::ptrdiff_t>(i) * bw;
    // Columns 1 .. (nw-3)/2 read 2j-1 .. 2j+2 inside the row: no reflection.
    const int inner_end = (nw - 3) / 2 + 1;
    auto column = [&](int j, int j0, int j1, int j2, int j3) {
      a[j] = float_adm_sum4(kFloatAdmDwtLo, tmplo[j0], tmplo[j1], tmplo[j2], tmplo[j3]);
      if (lo_only) return;
      v[j] = float_adm_sum4(kFloatAdmDwtHi, tmplo[j0], tmplo[j1], tmplo[j2], tmplo[j3]);
      h[j] = float_adm_sum4(kFloatAdmDwtLo, tmphi[j0], tmphi[j1], tmphi[j2], tmphi[j3]);
      d[j] = float_adm_sum4(kFloatAdmDwtHi, tmphi[j0], tmphi[j1], tmphi[j2], tmphi[j3]);
    };
    for (int j = 0; j < bw; ++j) {
      if (j >= 1 && j < inner_end) {
        column(j, 2 * j - 1, 2 * j, 2 * j + 1, 2 * j + 2);
      } else {
        column(j, reflect(2 * j - 1, nw), reflect(2 * j, nw), reflect(2 * j + 1, nw), reflect(2 * j + 2, nw));
      }
    }
  }
}

// Decouple and CSF over R1 (adm_decouple_s, adm_csf_s).
void decouple_csf(const Bands& ref, const Bands& dis, const FloatAdmScaleParams& sp, const FloatAdmKernelParams& p,
                  Scratch& s) {
  const int bw = sp.w;
  const FloatAdmRegion& r1 = sp.decouple;
  for (int i = r1.top; i < r1.bottom; ++i) {
    for (int j = r1.left; j < r1.right; ++j) {
      const std::ptrdiff_t x = static_cast<std::ptrdiff_t>(i) * bw + j;
      const float o[3] = {ref.h[x], ref.v[x], ref.d[x]};
      const float t[3] = {dis.h[x], dis.v[x], dis.d[x]};
      const FloatAdmCsf c = float_adm_decouple(o, t, p.enhn_gain_limit, p.cos_1deg_sq, sp.rfactor, divs);
      for (int b = 0; b < 3; ++b) {
        s.ca[b][x] = c.ca[b];
        s.fa[b][x] = c.fa[b];
        s.cr[b][x] = c.cr[b];
        s.fr[b][x] = c.fr[b];
      }
    }
  }
}

// x^p as libvmaf pools it: x*x*x for p == 3 (kCube), else powf(x, (float)p).
template <bool kCube>
inline float power(float x, float p) {
  if constexpr (kCube) return float_adm_cube(x);
  return ::powf(x, p);
}

// Masking threshold at (i, j) (float_adm_threshold).
float threshold(const std::vector<float>* c, const std::vector<float>* f, int bw, int bh, int i, int j) {
  const float* cs[3] = {c[0].data(), c[1].data(), c[2].data()};
  const float* fs[3] = {f[0].data(), f[1].data(), f[2].data()};
  return float_adm_threshold(cs, fs, bw, bh, i, j);
}

// Thresholds of row i over columns [j0, j1) into thr[j]. Inner columns take
// the same sums as threshold() without its edge cases, in a loop the compiler
// can run over several columns at once (each column's additions keep their
// order).
void thresholds(const std::vector<float>* c, const std::vector<float>* f, int bw, int bh, int i, int j0, int j1,
                float* thr) {
  const int a = j0 > 1 ? j0 : 1;
  const int e = j1 < bw - 1 ? j1 : bw - 1;
  if (j0 < a) thr[j0] = threshold(c, f, bw, bh, i, j0);
  if (e < j1) thr[e] = threshold(c, f, bw, bh, i, e);
  if (a >= e) return;
  const std::ptrdiff_t up = (i == 0 ? 1 : i - 1) * static_cast<std::ptrdiff_t>(bw);
  const std::ptrdiff_t mid = static_cast<std::ptrdiff_t>(i) * bw;
  const std::ptrdiff_t dn = (i == bh - 1 ? bh - 1 : i + 1) * static_cast<std::ptrdiff_t>(bw);
  for (int j = a; j < e; ++j) thr[j] = 0;
  for (int b = 0; b < 3; ++b) {
    const float* __restrict u = f[b].data() + up;
    const float* __restrict m = f[b].data() + mid;
    const float* __restrict d = f[b].data() + dn;
    const float* __restrict cm = c[b].data() + mid;
    float* __restrict t = thr;
    for (int j = a; j < e; ++j) {
      float sum = 0;
      sum += u[j - 1];
      sum += u[j];
      sum += u[j + 1];
      sum += m[j - 1];
      sum = static_cast<float>(sum + kFloatAdmOneBy15 * std::fabs(cm[j]));
      sum += m[j + 1];
      sum += d[j - 1];
      sum += d[j];
      sum += d[j + 1];
      t[j] += sum;
    }
  }
}

// Row sums of masking (num, aim) and denominator over R2 (adm_cm_s,
// adm_csf_den_scale_s).
template <bool kCube>
void masked_sums(const Bands& ref, const FloatAdmScaleParams& sp, const FloatAdmKernelParams& p, Scratch& s,
                 std::vector<float> (&rows)[3][3]) {
  const auto pf = static_cast<float>(p.p_norm);
  const int bw = sp.w, bh = sp.h;
  const FloatAdmRegion& r2 = sp.sums;
  for (auto& k : rows)
    for (auto& b : k) {
      b.clear();
      b.reserve(static_cast<size_t>(r2.rows()));
    }
  s.thr_num.assign(static_cast<size_t>(bw), 0.0f);
  s.thr_aim.assign(static_cast<size_t>(bw), 0.0f);
  const float* o[3] = {ref.h.data(), ref.v.data(), ref.d.data()};
  for (int i = r2.top; i < r2.bottom; ++i) {
    if (!p.bypass_cm) {
      thresholds(s.ca, s.fa, bw, bh, i, r2.left, r2.right, s.thr_num.data());
      thresholds(s.cr, s.fr, bw, bh, i, r2.left, r2.right, s.thr_aim.data());
    }
    float den[3] = {0, 0, 0}, num[3] = {0, 0, 0}, aim[3] = {0, 0, 0};
    for (int j = r2.left; j < r2.right; ++j) {
      const std::ptrdiff_t x = static_cast<std::ptrdiff_t>(i) * bw + j;
      const float thr_num = s.thr_num[static_cast<size_t>(j)];
      const float thr_aim = s.thr_aim[static_cast<size_t>(j)];
      for (int b = 0; b < 3; ++b) {
        den[b] += power<kCube>(std::fabs(sp.rfactor[b] * o[b][x]), pf);
        num[b] += power<kCube>(float_adm_masked(s.cr[b][x], thr_num), pf);
        aim[b] += power<kCube>(float_adm_masked(s.ca[b][x], thr_aim), pf);
      }
    }
    for (int b = 0; b < 3; ++b) {
      rows[kFloatAdmDen][b].push_back(den[b]);
      rows[kFloatAdmNum][b].push_back(num[b]);
      rows[kFloatAdmAim][b].push_back(aim[b]);
    }
  }
}

}  // namespace

void float_adm_terms_ref(const PlaneView& ref, const PlaneView& dis, const FloatAdmKernelParams& p,
                         FloatAdmTerms& out) {
  thread_local Scratch s;
  const int w = ref.w, h = ref.h;
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  s.ref_pic.resize(n);
  s.dis_pic.resize(n);
  s.tmplo.resize(static_cast<size_t>(w));
  s.tmphi.resize(static_cast<size_t>(w));
  float_picture_plane(ref, p.bpc, -128, s.ref_pic.data(), w);
  float_picture_plane(dis, p.bpc, -128, s.dis_pic.data(), w);
  const size_t band0 = static_cast<size_t>(p.scale[0].w) * static_cast<size_t>(p.scale[0].h);
  s.ref.resize(band0);
  s.dis.resize(band0);
  s.ref_in.resize(band0);
  s.dis_in.resize(band0);
  for (int b = 0; b < 3; ++b)
    for (auto* v : {&s.cr[b], &s.fr[b], &s.ca[b], &s.fa[b]}) v->resize(band0);

  const float* ref_in = s.ref_pic.data();
  const float* dis_in = s.dis_pic.data();
  std::ptrdiff_t in_stride = w;
  for (int sc = 0; sc < 4; ++sc) {
    const FloatAdmScaleParams& sp = p.scale[sc];
    if (sc > 0) {  // the previous band a becomes the input; its buffer takes the new one
      std::swap(s.ref.a, s.ref_in);
      std::swap(s.dis.a, s.dis_in);
      ref_in = s.ref_in.data();
      dis_in = s.dis_in.data();
    }
    const bool skip = sc == 0 && p.skip_scale0;
    dwt(ref_in, sp.in_w, sp.in_h, in_stride, skip, s.ref, s.tmplo.data(), s.tmphi.data());
    dwt(dis_in, sp.in_w, sp.in_h, in_stride, skip, s.dis, s.tmplo.data(), s.tmphi.data());
    if (skip) {
      for (auto& k : out.rows[0])
        for (auto& b : k) b.clear();
    } else {
      decouple_csf(s.ref, s.dis, sp, p, s);
      if (p.p_norm == 3.0)
        masked_sums<true>(s.ref, sp, p, s, out.rows[sc]);
      else
        masked_sums<false>(s.ref, sp, p, s, out.rows[sc]);
    }
    in_stride = sp.w;
  }
}

}  // namespace twinmaf
