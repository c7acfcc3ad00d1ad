// Small integer and bit helpers shared by CPU references and CUDA kernels:
// the device intrinsic in nvcc's device pass, the C++20 equivalent on the
// host; the same value either way. CUDA-safe.
#pragma once

#include <bit>
#include <cstdint>

#include "base/hd.h"

namespace twinmaf {

// Leading / trailing zero bits of x != 0.
TWINMAF_HD int clz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return std::countl_zero(x);
#endif
}
TWINMAF_HD int clz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return std::countl_zero(x);
#endif
}
TWINMAF_HD int ctz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return std::countr_zero(x);
#endif
}
TWINMAF_HD int ctz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return std::countr_zero(x);
#endif
}

// The IEEE bits of a float or a double, and back.
TWINMAF_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return std::bit_cast<uint32_t>(f);
#endif
}
TWINMAF_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}
TWINMAF_HD uint64_t double_bits(double f) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(f));
#else
  return std::bit_cast<uint64_t>(f);
#endif
}
TWINMAF_HD double bits_double(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  return std::bit_cast<double>(u);
#endif
}

// Mirror without repeating the edge sample (-1 -> 1, n -> n - 2), exact for
// overhangs up to n - 1 (libvmaf's vif and motion borders).
TWINMAF_HD int reflect101(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); }

}  // namespace twinmaf
