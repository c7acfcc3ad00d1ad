// Small integer, bit and IEEE helpers shared by CPU references and CUDA kernels:
// the device intrinsic in nvcc's device pass, the C++20 equivalent on the
// host; the same value either way. CUDA-safe.
#pragma once

#include <bit>
#include <cmath>
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

// IEEE float and double operations, round to nearest and never contracted
// (the device's _rn intrinsics; the host compiles with -ffp-contract=off), and
// the C conversions: the CPU reference's bits on both.
namespace hd {


TWINMAF_HD float rn_add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
TWINMAF_HD float rn_sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
TWINMAF_HD float rn_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
TWINMAF_HD float rn_div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
TWINMAF_HD double rn_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
TWINMAF_HD double rn_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
// (float)d, round to nearest.
TWINMAF_HD float to_float(double d) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(d);
#else
  return static_cast<float>(d);
#endif
}
// (float)i and (int)f (toward zero); exact for |i| < 2^24.
TWINMAF_HD float int_float(int i) {
#if defined(__CUDA_ARCH__)
  return __int2float_rn(i);
#else
  return static_cast<float>(i);
#endif
}
TWINMAF_HD int float_int(float f) {
#if defined(__CUDA_ARCH__)
  return __float2int_rz(f);
#else
  return static_cast<int>(f);
#endif
}

TWINMAF_HD double rn_sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
TWINMAF_HD double rn_div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
// Correctly rounded on both (IEEE sqrt; libm's sqrt is the instruction).
TWINMAF_HD double rn_sqrt(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

}  // namespace hd

}  // namespace twinmaf
