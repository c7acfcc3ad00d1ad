// cambi arithmetic shared by the CPU reference (cambi_ref.cpp) and the CUDA
// twin (cambi.cu): the mode of three samples, a c-value's units, when the
// pooled sum is order-free, and libvmaf's quick select with its ordered
// double sum (cambi.h, stages 3-5). CUDA-safe: TWINMAF_HD, no std:: calls.
#pragma once

#include <cstdint>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

// The value present at least twice among three, else the smallest.
template <typename T>
TWINMAF_HD T cambi_mode3(T a, T b, T c) {
  const T ab = a < b ? a : b;
  const T lo = ab < c ? ab : c;
  const T bc = b == c ? b : lo;
  return (a == b) | (a == c) ? a : bc;
}

// A nonzero c-value (a float >= 0.5, so a multiple of 2^-24 below 2^14) in
// units of 2^-24: exact.
TWINMAF_HD int64_t cambi_c_units(float c) { return static_cast<int64_t>(static_cast<double>(c) * 0x1p24); }

// Pooling without the order (cambi.h). A nonzero c-value v and every larger
// float are integer multiples of v's ulp, 2^cambi_units_shift(v) units.
TWINMAF_HD int cambi_units_shift(float v) { return static_cast<int>((float_bits(v) >> 23) & 0xffu) - 126; }
// When the k largest c-values total `units`, and the smallest nonzero one of
// them has units shift `shift`, every partial sum of libvmaf's loop over
// them is an integer multiple of 2^shift units below 2^(53 + shift) when the
// total is: each double addition is exact, in any order, and the loop gives
// the total.
TWINMAF_HD bool cambi_topk_exact(int64_t units, int shift) {
  return shift >= 10 || units < (int64_t{1} << (53 + shift));
}
// That total as a double (units a multiple of 2^shift below 2^(53 + shift)).
TWINMAF_HD double cambi_units_value(int64_t units, int shift) {
  return static_cast<double>(units >> shift) * bits_double(static_cast<uint64_t>(1023 + shift - 24) << 52);
}
// The CPU's case (shift 0, which holds for any nonzero c-value): with at most
// k nonzero c-values, the k largest are all of them (plus zeros).
TWINMAF_HD bool cambi_order_free(int64_t nonzero, int64_t units, int k) {
  return nonzero <= k && cambi_topk_exact(units, 0);
}

// libvmaf's quick select on a[lo..hi] (descending around the element at
// index k, k in [lo, hi]): Hoare partitions around the value at index k until
// index k separates the larger values (left) from the smaller (right); the
// sequence of swaps decides the order of the sum below. Reorders a. The
// device's block version (cambi_pool.cuh) gives the same array.
TWINMAF_HD void cambi_quick_select(float* a, int lo, int hi, int k) {
  while (lo < hi) {
    const float pivot = a[k];
    int i = lo, j = hi;
    do {
      while (a[i] > pivot) ++i;
      while (a[j] < pivot) --j;
      if (i <= j) {
        const float t = a[i];
        a[i] = a[j];
        a[j] = t;
        ++i;
        --j;
      }
    } while (i <= j);
    if (j < k) lo = i;
    if (k < i) hi = j;
  }
}

// libvmaf's top-k pooling of a[0..n) (k in [1, n]): the quick select, then
// the double sum of a[0..k) in the resulting order, from 0.
TWINMAF_HD double cambi_topk_sum_raw(float* a, int n, int k) {
  if (k != n) cambi_quick_select(a, 0, n - 1, k);
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += a[i];
  return sum;
}

}  // namespace twinmaf
