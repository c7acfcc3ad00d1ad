// float_vif CUDA kernels: FloatVifTerms' row sums, bit for bit the CPU's
// (float_vif.h). Per frame, in stream order:
//   load        one thread per luma sample: picture_copy's float, offset -128;
//   per scale s (from 0; the statistic from first_scale):
//   decimate    s >= 1: one thread per kept sample of the previous image: the
//               vertical pass at each of its horizontal taps' columns, then
//               the horizontal pass over those, each a float sum from +0 in
//               tap order (filter_separable at step 2);
//   vertical    one thread per sample: the five moments' vertical passes
//               (the products rounded to float first, as moments_tap);
//   statistic   one thread per sample: the horizontal passes
//               (filter_horizontal), then float_vif_pixel (the CPU's
//               function);
//   rows        one thread per row: the float sums of num and den from +0 in
//               column order.
// Every float operation is the CPU's in its order; the file builds with
// --fmad=false.
#include "base/hd_math.h"
#include "features/common/float_picture.h"
#include "features/float_vif/float_vif_kernels.h"
#include "features/common/float_picture_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 256;

dim3 grid_of(int w, int h) { return dim3(static_cast<unsigned>((w + kThreads - 1) / kThreads), static_cast<unsigned>(h)); }

// Output (ox, oy) of filter_separable at step 2 over the w x h image src.
__device__ float decimated(const float* src, int w, int h, const float* t, int n, int ox, int oy) {
  const int r = n / 2;
  float out = 0.0f;
  for (int kh = 0; kh < n; ++kh) {
    const int c = reflect101(2 * ox - r + kh, w);
    float v = 0.0f;
    for (int kv = 0; kv < n; ++kv) v += t[kv] * src[static_cast<std::size_t>(reflect101(2 * oy - r + kv, h)) * w + c];
    out += t[kh] * v;
  }
  return out;
}

__global__ void __launch_bounds__(kThreads)
    float_vif_decimate_kernel(const float* ref, const float* dis, int w, int h, const float* t, int n, float* out_ref,
                              float* out_dis) {
  const int nw = w / 2;
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= nw) return;
  const std::size_t o = static_cast<std::size_t>(y) * nw + x;
  out_ref[o] = decimated(ref, w, h, t, n, x, y);
  out_dis[o] = decimated(dis, w, h, t, n, x, y);
}

__global__ void __launch_bounds__(kThreads)
    float_vif_vertical_kernel(const float* ref, const float* dis, int w, int h, const float* t, int n, float* vert) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= w) return;
  const int r = n / 2;
  float mu1 = 0.0f, mu2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
  for (int k = 0; k < n; ++k) {
    const std::size_t o = static_cast<std::size_t>(reflect101(y - r + k, h)) * w + x;
    const float a = ref[o], b = dis[o], tk = t[k];
    mu1 += tk * a;
    mu2 += tk * b;
    xx += tk * (a * a);
    yy += tk * (b * b);
    xy += tk * (a * b);
  }
  const std::size_t plane = static_cast<std::size_t>(w) * h, o = static_cast<std::size_t>(y) * w + x;
  vert[o] = mu1;
  vert[plane + o] = mu2;
  vert[2 * plane + o] = xx;
  vert[3 * plane + o] = yy;
  vert[4 * plane + o] = xy;
}

__global__ void __launch_bounds__(kThreads)
    float_vif_statistic_kernel(const float* vert, int w, int h, const float* t, int n, FloatVifStatParams sp,
                               float* num, float* den) {
  const int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), y = static_cast<int>(blockIdx.y);
  if (x >= w) return;
  const int r = n / 2;
  const std::size_t plane = static_cast<std::size_t>(w) * h, row = static_cast<std::size_t>(y) * w;
  float m[5];
  for (int i = 0; i < 5; ++i) {
    const float* acc = vert + i * plane + row;
    float a = 0.0f;
    for (int k = 0; k < n; ++k) a += t[k] * acc[reflect101(x - r + k, w)];
    m[i] = a;
  }
  const FloatVifPixel v = float_vif_pixel(m[0], m[1], m[2], m[3], m[4], sp);
  num[row + x] = v.num;
  den[row + x] = v.den;
}

__global__ void __launch_bounds__(kThreads)
    float_vif_rows_kernel(const float* num, const float* den, int w, int h, float* rows) {
  const int y = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (y >= h) return;
  const float* pn = num + static_cast<std::size_t>(y) * w;
  const float* pd = den + static_cast<std::size_t>(y) * w;
  float sn = 0.0f, sd = 0.0f;
  for (int x = 0; x < w; ++x) {
    sn += pn[x];
    sd += pd[x];
  }
  rows[y] = sn;
  rows[h + y] = sd;
}

}  // namespace

cudaError_t float_vif_enqueue(const FloatVifLaunch& l, float* rows, cudaStream_t stream) {
  const cudaError_t e = float_picture_load(
      {l.ref, l.dis, l.pitch, l.w[0], l.h[0], l.bpc, -128.0f, l.img[0][0], l.img[0][1]}, stream);
  if (e != cudaSuccess) return e;
  int cur = 0;
  for (int s = 0; s < kFloatVifTwinScales; ++s) {
    const int w = l.w[s], h = l.h[s], n = l.ntaps[s];
    if (s > 0) {
      float_vif_decimate_kernel<<<grid_of(w, h), kThreads, 0, stream>>>(
          l.img[cur][0], l.img[cur][1], l.w[s - 1], l.h[s - 1], l.taps[s], n, l.img[1 - cur][0], l.img[1 - cur][1]);
      cur = 1 - cur;
    }
    if (s < l.first_scale) continue;
    float_vif_vertical_kernel<<<grid_of(w, h), kThreads, 0, stream>>>(l.img[cur][0], l.img[cur][1], w, h, l.taps[s],
                                                                       n, l.vert);
    float_vif_statistic_kernel<<<grid_of(w, h), kThreads, 0, stream>>>(l.vert, w, h, l.taps[s], n, l.stat, l.num,
                                                                          l.den);
    float_vif_rows_kernel<<<static_cast<unsigned>((h + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        l.num, l.den, w, h, rows + l.rows_at[s]);
  }
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
