// ciede CUDA kernels: one thread per luma position reads libvmaf's chroma
// memory (ciede_math.h's chroma_read), takes both Lab colours (8 bit: from
// the table of every triple's; deeper: computed on ciede_bounds.h's
// intervals), computes dE00 on intervals and stores it where the interval is
// one float; other pixels become entries the host computes. The patched terms
// are summed in order by gpu/ordered_sum.cuh's tree.
#include "features/ciede/ciede_bounds.h"
#include "features/ciede/ciede_kernels.h"
#include "gpu/ordered_sum.cuh"

namespace twinmaf::cuda {

namespace {

constexpr int kThreads = 128;
constexpr int kPatchBlocks = 64;

template <typename T>
__device__ uint16_t sample(const uint8_t* plane, std::size_t pitch, int row, int col) {
  return reinterpret_cast<const T*>(plane + static_cast<std::size_t>(row) * pitch)[col];
}

template <typename T>
__device__ void triple(const CiedeLaunch& l, const uint8_t* const* planes, int i, int j, uint16_t out[3]) {
  out[0] = sample<T>(planes[0], l.pitch[0], i, j);
  for (int p = 1; p < 3; ++p) {
    if (l.chroma_full) {
      out[p] = sample<T>(planes[p], l.pitch[p], i, j);
      continue;
    }
    const ciede::ChromaPlace c = ciede::chroma_read(p, i, j, l.half_cols, l.cw, l.ch);
    out[p] = c.plane ? sample<T>(planes[c.plane], l.pitch[c.plane], c.row, c.col) : 0;
  }
}

// Out of line: one body for both colours (see TWINMAF_CIEDE_OUTLINE).
__device__ __noinline__ ciede::Lab<ciede::CiedeBounds> lab_bounds(ciede::CiedeBounds& m, const uint16_t t[3],
                                                                  const ciede::Levels& levels) {
  return ciede::lab(m, t[0], t[1], t[2], levels);
}

// The CPU's Lab colour of an 8-bit triple: one point per component.
__device__ ciede::Lab<ciede::CiedeBounds> looked_up(const CiedeLabEntry* table, const uint16_t t[3]) {
  const float4 e = __ldg(reinterpret_cast<const float4*>(table) + ciede_lab_index(t));
  return {ciede::IvF(e.x), ciede::IvF(e.y), ciede::IvF(e.z)};
}

__global__ void __launch_bounds__(kThreads) lab_table_kernel(CiedeLabEntry* table, uint32_t* list, unsigned* count,
                                                             ciede::Levels k) {
  const uint32_t t = blockIdx.x * kThreads + threadIdx.x;  // the grid is the table
  const uint16_t s[3] = {ciede_lab_sample(t, 0), ciede_lab_sample(t, 1), ciede_lab_sample(t, 2)};
  ciede::CiedeBounds m;
  const ciede::Lab<ciede::CiedeBounds> c = lab_bounds(m, s, k);
  if (!m.unsure && c.l.point() && c.a.point() && c.b.point())
    table[t] = {c.l.lo, c.a.lo, c.b.lo, 0.0f};
  else
    list[atomicAdd(count, 1u)] = t;
}

__global__ void lab_fix_kernel(CiedeLabEntry* table, const CiedeLabFix* fixes, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    table[fixes[i].index] = fixes[i].lab;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) pixel_kernel(CiedeLaunch l) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), i = static_cast<int>(blockIdx.y);
  if (j >= l.w) return;
  uint16_t r[3], d[3];
  triple<T>(l, l.ref, i, j, r);
  triple<T>(l, l.dis, i, j, d);
  const uint32_t pixel = static_cast<uint32_t>(i) * static_cast<uint32_t>(l.w) + static_cast<uint32_t>(j);
  double term = 0;  // equal triples: +0
  if (r[0] != d[0] || r[1] != d[1] || r[2] != d[2]) {
    ciede::CiedeBounds m;
    constexpr bool kTable = sizeof(T) == 1;
    const ciede::Lab<ciede::CiedeBounds> a = kTable ? looked_up(l.lab8, r) : lab_bounds(m, r, l.levels);
    const ciede::Lab<ciede::CiedeBounds> b = kTable ? looked_up(l.lab8, d) : lab_bounds(m, d, l.levels);
    const ciede::IvF e = ciede::de00(m, a, b);
    if (!m.unsure && e.point()) {
      term = e.lo;
    } else {
      const unsigned k = atomicAdd(l.count, 1u);
      l.entries[k] = {pixel, {r[0], r[1], r[2]}, {d[0], d[1], d[2]}};
    }
  }
  l.sums.terms[pixel] = term;
}

__global__ void patch_kernel(CiedeLaunch l) {
  const unsigned n = *l.count;
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    l.sums.terms[l.entries[k].pixel] = l.results[k];
}

}  // namespace

cudaError_t ciede_enqueue_lab_table(CiedeLabEntry* table, uint32_t* list, unsigned* count, const ciede::Levels& k,
                                    cudaStream_t stream) {
  const cudaError_t e = cudaMemsetAsync(count, 0, sizeof(unsigned), stream);
  if (e != cudaSuccess) return e;
  lab_table_kernel<<<kCiedeLabEntries / kThreads, kThreads, 0, stream>>>(table, list, count, k);
  return cudaGetLastError();
}

cudaError_t ciede_enqueue_lab_fixes(CiedeLabEntry* table, const CiedeLabFix* fixes, unsigned n, cudaStream_t stream) {
  lab_fix_kernel<<<kPatchBlocks, kThreads, 0, stream>>>(table, fixes, n);
  return cudaGetLastError();
}

cudaError_t ciede_enqueue_pixels(const CiedeLaunch& l, cudaStream_t stream) {
  cudaError_t e = cudaMemsetAsync(l.count, 0, sizeof(unsigned), stream);
  if (e != cudaSuccess) return e;
  const dim3 grid(static_cast<unsigned>((l.w + kThreads - 1) / kThreads), static_cast<unsigned>(l.h));
  if (l.bpc > 8)
    pixel_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(l);
  else
    pixel_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(l);
  return cudaGetLastError();
}

cudaError_t ciede_enqueue_sum(const CiedeLaunch& l, uint64_t* ret, cudaStream_t stream) {
  patch_kernel<<<kPatchBlocks, kThreads, 0, stream>>>(l);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : ordered_sum_enqueue_terms(l.sums, ret, stream);
}

}  // namespace twinmaf::cuda
