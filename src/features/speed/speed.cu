// speed_chroma / speed_temporal CUDA kernels: stages 1-5 of speed.h, each
// band value with the CPU reference's float operations in its order
// (speed_ref.cpp, features/common/float_filter.h, float_resample.h). Every
// float and double operation is an explicit round-to-nearest intrinsic, so
// no contraction or reassociation can change a result whatever the flags.
//
// Three launches per frame, every image of the frame in blockIdx.z:
//   vertical:   vert[oy][x] = sum_k aa[k] * S(x, reflect101(16 oy - r + k))
//               for every column x < scaled_w (S: the resampled image, its
//               samples computed where read);
//   horizontal: small[oy][ox] = sum_k aa[k] * vert[oy][reflect101(16 ox - r + k)];
//   band:       small - its local mean (vertical then horizontal pass per
//               value, the vertical values recomputed per use: same
//               operations, same bits), top-left trunc_w x trunc_h.
// Sums start from +0 and add tap by tap, as filter_vertical /
// filter_horizontal do.
#include "base/hd_math.h"
#include "features/speed/speed_kernels.h"
#include "gpu/reduce.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 128;

// float_picture_sample(s, divisor, -128): (float)s / divisor + -128. The
// divisor is 2^k (k = 0, 2, 4, 8) and s < 2^16: s / 2^k and s * 2^-k are the
// same exact float.
template <typename T>
__device__ __forceinline__ float sample(const uint8_t* plane, std::size_t pitch, int x, int y, float inverse) {
  const float s = __uint2float_rn(row_ptr<T>(plane, pitch, y)[x]);
  return __fadd_rn(__fmul_rn(s, inverse), -128.0f);
}

// F(x, y) of image i: a sample, or speed_temporal's difference of two.
template <typename T, bool kDiff>
__device__ __forceinline__ float image_value(const SpeedLaunch& l, const SpeedImage& im, int x, int y) {
  const float a = sample<T>(im.a, im.pitch_a, x, y, l.inverse);
  if constexpr (kDiff) return __fsub_rn(a, sample<T>(im.b, im.pitch_b, x, y, l.inverse));
  return a;
}

// S(x, y): float_resample.cpp's per-pixel expressions with the windows of
// column x and row y.
template <typename T, bool kDiff, SpeedSource kSource>
__device__ __forceinline__ float source_value(const SpeedLaunch& l, const SpeedImage& im, int x, int y) {
  if constexpr (kSource == SpeedSource::kDirect) {
    // speed_ref.cpp pads a rounded-up side with zeros (never reaching a
    // kept output: init checks it).
    return x < l.w && y < l.h ? image_value<T, kDiff>(l, im, x, y) : 0.0f;
  } else if constexpr (kSource == SpeedSource::kNearest) {
    return image_value<T, kDiff>(l, im, l.cols[x].idx[0], l.rows[y].idx[0]);
  } else if constexpr (kSource == SpeedSource::kBilinear) {
    const SpeedWindow& c = l.cols[x];
    const SpeedWindow& r = l.rows[y];
    const float dx = c.w[0], dy = r.w[0];
    const float ux = __fsub_rn(1.0f, dx), uy = __fsub_rn(1.0f, dy);
    // (1-dy)*(1-dx)*r1[x1] + (1-dy)*dx*r1[x2] + dy*(1-dx)*r2[x1] + dy*dx*r2[x2],
    // left to right.
    float v = __fmul_rn(__fmul_rn(uy, ux), image_value<T, kDiff>(l, im, c.idx[0], r.idx[0]));
    v = __fadd_rn(v, __fmul_rn(__fmul_rn(uy, dx), image_value<T, kDiff>(l, im, c.idx[1], r.idx[0])));
    v = __fadd_rn(v, __fmul_rn(__fmul_rn(dy, ux), image_value<T, kDiff>(l, im, c.idx[0], r.idx[1])));
    return __fadd_rn(v, __fmul_rn(__fmul_rn(dy, dx), image_value<T, kDiff>(l, im, c.idx[1], r.idx[1])));
  } else {
    const SpeedWindow& c = l.cols[x];
    const SpeedWindow& r = l.rows[y];
    float v = 0.0f;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        v = __fadd_rn(v, __fmul_rn(image_value<T, kDiff>(l, im, c.idx[i], r.idx[j]), __fmul_rn(c.w[i], r.w[j])));
    return v;
  }
}

template <typename T, bool kDiff, SpeedSource kSource>
__global__ void __launch_bounds__(kThreads) vertical_kernel(SpeedLaunch l) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x >= l.scaled_w) return;
  const int oy = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  const SpeedImage& im = l.image[k];
  const int y0 = oy * 16 - l.aa_taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < l.aa_taps; ++t)
    acc = __fadd_rn(acc, __fmul_rn(l.aa[t], source_value<T, kDiff, kSource>(l, im, x, reflect101(y0 + t, l.scaled_h))));
  l.vert[(static_cast<std::size_t>(k) * l.op_h + oy) * l.scaled_w + x] = acc;
}

__global__ void __launch_bounds__(kThreads) horizontal_kernel(SpeedLaunch l) {
  const int ox = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (ox >= l.op_w) return;
  const int oy = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  const float* row = l.vert + (static_cast<std::size_t>(k) * l.op_h + oy) * l.scaled_w;
  const int x0 = ox * 16 - l.aa_taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < l.aa_taps; ++t) acc = __fadd_rn(acc, __fmul_rn(l.aa[t], row[reflect101(x0 + t, l.scaled_w)]));
  l.small[(static_cast<std::size_t>(k) * l.op_h + oy) * l.op_w + ox] = acc;
}

__global__ void __launch_bounds__(kThreads) band_kernel(SpeedLaunch l, uint32_t* present, float* bands) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x >= l.trunc_w) return;
  const int y = static_cast<int>(blockIdx.y), k = static_cast<int>(blockIdx.z);
  const float* s = l.small + static_cast<std::size_t>(k) * l.op_h * l.op_w;
  const int r = l.lm_taps / 2;
  float mean = 0.0f;
  for (int t = 0; t < l.lm_taps; ++t) {
    const int xx = reflect101(x - r + t, l.op_w);
    float v = 0.0f;  // the vertical pass at (xx, y)
    for (int j = 0; j < l.lm_taps; ++j)
      v = __fadd_rn(v, __fmul_rn(l.lm[j], s[static_cast<std::size_t>(reflect101(y - r + j, l.op_h)) * l.op_w + xx]));
    mean = __fadd_rn(mean, __fmul_rn(l.lm[t], v));
  }
  const std::size_t band = static_cast<std::size_t>(l.trunc_w) * l.trunc_h;
  bands[k * band + static_cast<std::size_t>(y) * l.trunc_w + x] =
      __fsub_rn(s[static_cast<std::size_t>(y) * l.op_w + x], mean);
  if (x == 0 && y == 0 && k == 0) *present = 1;
}

// float_resample.cpp's mirror: one reflection about 0 and last, in float.
__device__ int mirror(float i, int last) {
  const float r = __int2float_rn(last);
  return __float2int_rz(i < 0.0f ? -i : (i > r ? __fsub_rn(__fmul_rn(2.0f, r), i) : i));
}

// source_position: (float)((x + 0.5) * (double)ratio - 0.5).
__device__ float source_position(int x, float ratio) {
  return __double2float_rn(__dadd_rn(__dmul_rn(__dadd_rn(static_cast<double>(x), 0.5), static_cast<double>(ratio)), -0.5));
}

// keys_cubic, a = -0.75: (a + 2) = 1.25, (a + 3) = 2.25 exactly.
__device__ float keys_cubic(float t) {
  if (t < 0.0f) t = -t;
  if (t < 1.0f) return __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(__fmul_rn(1.25f, t), 2.25f), t), t), 1.0f);
  if (t < 2.0f)
    return __fmul_rn(__fsub_rn(__fmul_rn(__fadd_rn(__fmul_rn(__fsub_rn(t, 5.0f), t), 8.0f), t), 4.0f), -0.75f);
  return 0.0f;
}

__global__ void windows_kernel(SpeedSource source, int n, int dst, SpeedWindow* out) {
  const int x = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (x >= dst) return;
  const float ratio = __fdiv_rn(__int2float_rn(n), __int2float_rn(dst));
  SpeedWindow win{};
  if (source == SpeedSource::kNearest) {
    win.idx[0] = __float2int_rz(__fmul_rn(__int2float_rn(x), ratio));
  } else if (source == SpeedSource::kBilinear) {
    const float p = source_position(x, ratio);
    win.idx[0] = mirror(static_cast<float>(floor(static_cast<double>(p))), n - 1);
    win.idx[1] = mirror(static_cast<float>(ceil(static_cast<double>(p))), n - 1);
    win.w[0] = __fsub_rn(p, __int2float_rn(win.idx[0]));  // after the mirror, as libvmaf
  } else {
    const float p = source_position(x, ratio);
    const int x0 = static_cast<int>(floor(static_cast<double>(p)));
    const float d = __fsub_rn(p, __int2float_rn(x0));
    for (int i = -1; i <= 2; ++i) {
      win.w[i + 1] = keys_cubic(__fsub_rn(__int2float_rn(i), d));
      win.idx[i + 1] = mirror(__int2float_rn(x0 + i), n - 1);
    }
  }
  out[x] = win;
}

template <typename T, bool kDiff>
void launch_vertical(const SpeedLaunch& l, dim3 grid, cudaStream_t stream) {
  switch (l.source) {
    case SpeedSource::kDirect: vertical_kernel<T, kDiff, SpeedSource::kDirect><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kNearest: vertical_kernel<T, kDiff, SpeedSource::kNearest><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kBilinear: vertical_kernel<T, kDiff, SpeedSource::kBilinear><<<grid, kThreads, 0, stream>>>(l); return;
    case SpeedSource::kBicubic: vertical_kernel<T, kDiff, SpeedSource::kBicubic><<<grid, kThreads, 0, stream>>>(l); return;
  }
}

unsigned blocks(int n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

cudaError_t speed_resample_windows(SpeedSource source, int src, int dst, SpeedWindow* out, cudaStream_t stream) {
  windows_kernel<<<blocks(dst), kThreads, 0, stream>>>(source, src, dst, out);
  return cudaGetLastError();
}

cudaError_t speed_enqueue(const SpeedLaunch& l, uint32_t* present, float* bands, cudaStream_t stream) {
  const auto z = static_cast<unsigned>(l.images);
  const dim3 vgrid(blocks(l.scaled_w), static_cast<unsigned>(l.op_h), z);
  if (l.bpc == 8) {
    if (l.difference) launch_vertical<uint8_t, true>(l, vgrid, stream);
    else launch_vertical<uint8_t, false>(l, vgrid, stream);
  } else {
    if (l.difference) launch_vertical<uint16_t, true>(l, vgrid, stream);
    else launch_vertical<uint16_t, false>(l, vgrid, stream);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  horizontal_kernel<<<dim3(blocks(l.op_w), static_cast<unsigned>(l.op_h), z), kThreads, 0, stream>>>(l);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  band_kernel<<<dim3(blocks(l.trunc_w), static_cast<unsigned>(l.trunc_h), z), kThreads, 0, stream>>>(l, present, bands);
  return cudaGetLastError();
}

}  // namespace twinmaf::cuda
