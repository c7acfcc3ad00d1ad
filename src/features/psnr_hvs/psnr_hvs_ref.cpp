// psnr_hvs CPU reference kernels: per-block terms (see psnr_hvs.h for the
// numeric contract). No intrinsics; float expressions keep libvmaf's operand
// order and types.
//
// The block kernel is psnr_hvs_math.h's template over an integer type I and a
// float type F, shared with the CUDA twin:
// - I = int32_t, F = float: one block, the plain scalar specification
//   (psnr_hvs_block_terms_ref; a GPU thread per block runs exactly this).
// - I, F = 4-lane GCC/Clang vectors (the specialisation of PsnrHvsLaneOps
//   below): four blocks side by side, lane l doing block l. Vector operators
//   are element-wise IEEE/int32 operations, so each lane performs the scalar
//   kernel's operations in the scalar kernel's order: the results are the
//   same bits (the unit tests compare the two). It exists because every block
//   runs long float chains (64-term variance sums, 63-term energies) that
//   cannot be reordered; four chains per instruction instead of one is where
//   the speed comes from.
#include <cmath>
#include <cstdlib>

#include "features/psnr_hvs/psnr_hvs.h"

namespace twinmaf {

namespace {

using I4 = int32_t __attribute__((vector_size(16)));
using F4 = float __attribute__((vector_size(16)));
constexpr int kLanes = 4;

}  // namespace

// Four blocks, one per lane: the scalar operations of PsnrHvsLaneOps<int32_t,
// float> element-wise.
template <>
struct PsnrHvsLaneOps<I4, F4> {
  static F4 to_float(I4 v) { return __builtin_convertvector(v, F4); }
  static I4 abs_i(I4 v) { return v < 0 ? -v : v; }
  static F4 zero_if_negative(F4 d) { return d < 0 ? F4{} : d; }
  static F4 larger(F4 s, F4 d) { return d > s ? d : s; }
  // Lanes with var <= 0 compute a discarded quotient (inf/NaN, no trap:
  // floating-point exceptions are masked).
  static F4 ratio_if_positive(F4 quad_sum, F4 var) { return var > 0 ? quad_sum / var : var; }
  static F4 sqrt_div32(F4 x) {
    F4 r{};
    for (int l = 0; l < kLanes; ++l) r[l] = PsnrHvsLaneOps<int32_t, float>::sqrt_div32(static_cast<float>(x[l]));
    return r;
  }
};

namespace {

// One plane, kLanes horizontally adjacent blocks at a time. A short last
// group repeats its last block in the unused lanes; their terms are dropped.
template <typename T>
void plane_terms(const PlaneView& ref, const PlaneView& dis, const float csf[64],
                 const float mask[64], PsnrHvsPlaneTerms& out) {
  const int nbx = psnr_hvs_blocks_1d(ref.w);
  const int nby = psnr_hvs_blocks_1d(ref.h);
  out.blocks = nbx * nby;
  out.terms.clear();
  if (out.blocks == 0) return;
  out.terms.reserve(static_cast<size_t>(out.blocks) * 16);
  I4 s[64];
  I4 d[64];
  F4 t[64];
  float kept[kLanes * 64];
  for (int by = 0; by < nby; ++by) {
    const int y0 = by * kPsnrHvsStep;
    for (int bx0 = 0; bx0 < nbx; bx0 += kLanes) {
      const int lanes = nbx - bx0 < kLanes ? nbx - bx0 : kLanes;
      int x0[kLanes];
      for (int l = 0; l < kLanes; ++l) x0[l] = (bx0 + (l < lanes ? l : lanes - 1)) * kPsnrHvsStep;
      for (int i = 0; i < 8; ++i) {
        const T* rs = ref.row<T>(y0 + i);
        const T* rd = dis.row<T>(y0 + i);
        for (int j = 0; j < 8; ++j) {
          s[8 * i + j] = I4{rs[x0[0] + j], rs[x0[1] + j], rs[x0[2] + j], rs[x0[3] + j]};
          d[8 * i + j] = I4{rd[x0[0] + j], rd[x0[1] + j], rd[x0[2] + j], rd[x0[3] + j]};
        }
      }
      psnr_hvs_block_terms<I4, F4>(s, d, csf, mask, t);
      // Order-preserving compaction of the +0 terms, without branches.
      size_t n = 0;
      for (int l = 0; l < lanes; ++l) {
        for (int k = 0; k < 64; ++k) {
          const float v = t[k][l];
          kept[n] = v;
          n += v != 0 ? 1 : 0;
        }
      }
      out.terms.insert(out.terms.end(), kept, kept + n);
    }
  }
}

}  // namespace

void psnr_hvs_block_terms_ref(const int32_t ref[64], const int32_t dis[64], const float csf[64],
                              const float mask[64], float terms[64]) {
  psnr_hvs_block_terms<int32_t, float>(ref, dis, csf, mask, terms);
}

void psnr_hvs_plane_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, int plane,
                              PsnrHvsPlaneTerms& out) {
  const PsnrHvsTables& tab = psnr_hvs_tables();
  if (bpc > 8)
    plane_terms<uint16_t>(ref, dis, tab.csf[plane], tab.mask[plane], out);
  else
    plane_terms<uint8_t>(ref, dis, tab.csf[plane], tab.mask[plane], out);
}

}  // namespace twinmaf
