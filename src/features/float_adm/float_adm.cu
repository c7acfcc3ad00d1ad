// float_adm CUDA kernels: FloatAdmTerms' row sums, bit for bit the CPU's
// (float_adm.h). Per frame: load (picture_copy's float, offset -128); per
// scale: dwt (one thread per band sample, both pictures: the vertical sums at
// its four columns, then the horizontal ones, each float_adm_sum4), decouple
// (one thread per R1 sample: float_adm_decouple with the host processor's
// RCPSS through its table, base/rcpss.h), mask (one thread per R2 sample: the
// thresholds, float_adm_threshold, and the nine cubed terms), rows (one thread
// per R2 row and sum: the float sum from +0 in column order). Every float
// operation is the CPU's in its order; the file builds with --fmad=false.
#include "base/rcpss.h"
#include "features/adm/adm_math.h"
#include "features/common/float_picture.h"
#include "features/float_adm/float_adm_kernels.h"
#include "features/float_adm/float_adm_math.h"
#include "features/common/float_picture_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

__constant__ float c_lo[4] = {kFloatAdmDwtLo[0], kFloatAdmDwtLo[1], kFloatAdmDwtLo[2], kFloatAdmDwtLo[3]};
__constant__ float c_hi[4] = {kFloatAdmDwtHi[0], kFloatAdmDwtHi[1], kFloatAdmDwtHi[2], kFloatAdmDwtHi[3]};

dim3 grid_of(int w, int h, int z = 1) {
  return dim3(static_cast<unsigned>((w + kThreads - 1) / kThreads), static_cast<unsigned>(h), static_cast<unsigned>(z));
}

// Band sample (i, j) of src (nw x nh) for both pictures (blockIdx.z).
__global__ void __launch_bounds__(kThreads)
    float_adm_dwt_kernel(const float* in0, const float* in1, int nw, int nh, int bw, bool lo_only, float* a0,
                         float* a1, FloatAdmLaunch l) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), i = static_cast<int>(blockIdx.y);
  const int q = static_cast<int>(blockIdx.z);
  if (j >= bw) return;
  const float* src = q ? in1 : in0;
  const float* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + static_cast<std::size_t>(adm::reflect(2 * i - 1 + k, nh)) * nw;
  float lo[4], hi[4];
  for (int k = 0; k < 4; ++k) {
    const int c = adm::reflect(2 * j - 1 + k, nw);
    lo[k] = float_adm_sum4(c_lo, r[0][c], r[1][c], r[2][c], r[3][c]);
    hi[k] = lo_only ? 0.0f : float_adm_sum4(c_hi, r[0][c], r[1][c], r[2][c], r[3][c]);
  }
  const std::size_t o = static_cast<std::size_t>(i) * bw + j;
  (q ? a1 : a0)[o] = float_adm_sum4(c_lo, lo[0], lo[1], lo[2], lo[3]);
  if (lo_only) return;
  float* const* hvd = l.hvd[q];
  hvd[1][o] = float_adm_sum4(c_hi, lo[0], lo[1], lo[2], lo[3]);  // v
  hvd[0][o] = float_adm_sum4(c_lo, hi[0], hi[1], hi[2], hi[3]);  // h
  hvd[2][o] = float_adm_sum4(c_hi, hi[0], hi[1], hi[2], hi[3]);  // d
}

struct RcpssDivs {
  const uint32_t* table;
  __device__ float operator()(float n, float d) const {
    return table ? float_adm_recip_div(n, d, rcpss_model(d, table)) : n / d;
  }
};

__global__ void __launch_bounds__(kThreads) float_adm_decouple_kernel(FloatAdmLaunch l, FloatAdmScaleArgs sp) {
  const int j = sp.decouple.left + static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  const int i = sp.decouple.top + static_cast<int>(blockIdx.y);
  if (j >= sp.decouple.right) return;
  const std::size_t x = static_cast<std::size_t>(i) * sp.w + j;
  const float o[3] = {l.hvd[0][0][x], l.hvd[0][1][x], l.hvd[0][2][x]};
  const float t[3] = {l.hvd[1][0][x], l.hvd[1][1][x], l.hvd[1][2][x]};
  const FloatAdmCsf c = float_adm_decouple(o, t, l.enhn_gain_limit, l.cos_1deg_sq, sp.rfactor, RcpssDivs{l.rcpss});
  for (int b = 0; b < 3; ++b) {
    l.csf[0][b][x] = c.ca[b];
    l.csf[1][b][x] = c.fa[b];
    l.csf[2][b][x] = c.cr[b];
    l.csf[3][b][x] = c.fr[b];
  }
}

__global__ void __launch_bounds__(kThreads) float_adm_mask_kernel(FloatAdmLaunch l, FloatAdmScaleArgs sp) {
  const int j = sp.sums.left + static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  const int i = sp.sums.top + static_cast<int>(blockIdx.y);
  if (j >= sp.sums.right) return;
  float thr_num = 0.0f, thr_aim = 0.0f;
  if (!l.bypass_cm) {
    thr_num = float_adm_threshold(l.csf[0], l.csf[1], sp.w, sp.h, i, j);  // masker a: ca, fa
    thr_aim = float_adm_threshold(l.csf[2], l.csf[3], sp.w, sp.h, i, j);  // masker r: cr, fr
  }
  const std::size_t x = static_cast<std::size_t>(i) * sp.w + j;
  for (int b = 0; b < 3; ++b) {
    l.terms[b][x] = float_adm_cube(float_adm_abs(sp.rfactor[b] * l.hvd[0][b][x]));
    l.terms[3 + b][x] = float_adm_cube(float_adm_masked(l.csf[2][b][x], thr_num));
    l.terms[6 + b][x] = float_adm_cube(float_adm_masked(l.csf[0][b][x], thr_aim));
  }
}

__global__ void __launch_bounds__(kThreads) float_adm_rows_kernel(FloatAdmLaunch l, FloatAdmScaleArgs sp, float* rows) {
  const int r = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  const int n = sp.sums.bottom - sp.sums.top;
  if (r >= 9 * n) return;
  const int kb = r / n, y = r % n;  // sum * 3 + orientation, row
  const float* t = l.terms[kb] + static_cast<std::size_t>(sp.sums.top + y) * sp.w;
  float s = 0.0f;
  for (int j = sp.sums.left; j < sp.sums.right; ++j) s += t[j];
  rows[sp.rows_at + r] = s;
}

}  // namespace

cudaError_t float_adm_enqueue(const FloatAdmLaunch& l, float* rows, cudaStream_t stream) {
  const FloatAdmScaleArgs& s0 = l.scale[0];
  const cudaError_t e =
      float_picture_load({l.ref, l.dis, l.pitch, s0.in_w, s0.in_h, l.bpc, -128.0f, l.pic[0], l.pic[1]}, stream);
  if (e != cudaSuccess) return e;
  for (int s = 0; s < kFloatAdmTwinScales; ++s) {
    const FloatAdmScaleArgs& sp = l.scale[s];
    const bool skip = s == 0 && l.skip_scale0;
    const float* in0 = s == 0 ? l.pic[0] : l.a[(s - 1) & 1][0];
    const float* in1 = s == 0 ? l.pic[1] : l.a[(s - 1) & 1][1];
    float_adm_dwt_kernel<<<grid_of(sp.w, sp.h, 2), kThreads, 0, stream>>>(in0, in1, sp.in_w, sp.in_h, sp.w, skip,
                                                                           l.a[s & 1][0], l.a[s & 1][1], l);
    if (skip) continue;
    const int r1w = sp.decouple.right - sp.decouple.left, r1h = sp.decouple.bottom - sp.decouple.top;
    const int r2w = sp.sums.right - sp.sums.left, r2h = sp.sums.bottom - sp.sums.top;
    if (r1w > 0 && r1h > 0) float_adm_decouple_kernel<<<grid_of(r1w, r1h), kThreads, 0, stream>>>(l, sp);
    if (r2w <= 0 || r2h <= 0) continue;
    float_adm_mask_kernel<<<grid_of(r2w, r2h), kThreads, 0, stream>>>(l, sp);
    float_adm_rows_kernel<<<static_cast<unsigned>((9 * r2h + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        l, sp, rows);
  }
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
