// x86's RCPSS, the approximate reciprocal libvmaf's float ADM divides with
// (float_adm.h), as a model any processor can evaluate: a table of its
// results on [1, 2) by the top kRcpssBits fraction bits, scaled by the
// input's exponent. RCPSS is not specified bit for bit, so the table is
// measured on the processor the CPU path runs on (rcpss_measure), and the
// model is checked there before anything uses it. Intel processors measured
// here read the top 11 fraction bits, AMD EPYC the top 12; on the latter the
// model equals RCPSS on all 2^32 inputs (tests/unit/rcpss_test.cpp).
// CUDA-safe: the model is TWINMAF_HD.
#pragma once

#include <cstdint>
#include <string>

#include "base/hd.h"
#include "base/hd_math.h"

namespace twinmaf {

inline constexpr int kRcpssBits = 12;

struct RcpssTable {
  uint32_t bits[1 << kRcpssBits] = {};  // RCPSS(1.f) as float bits, f = the key << (23 - kRcpssBits)
};

// Zeros and subnormals give a signed infinity, infinities a signed zero, a
// NaN itself quietened; a normal x = 1.f * 2^(e - 127) gives the table's
// value for f with e subtracted from its exponent, a signed zero where that
// leaves the normal range.
TWINMAF_HD float rcpss_model(float x, const uint32_t* table) {
  const uint32_t u = float_bits(x), e = (u >> 23) & 0xffu, s = u & 0x80000000u;
  if (e == 0) return bits_float(s | 0x7f800000u);
  if (e == 255) return bits_float((u & 0x7fffffu) != 0 ? (u | 0x400000u) : s);
  const uint32_t t = table[(u >> (23 - kRcpssBits)) & ((1u << kRcpssBits) - 1)];
  const int f = static_cast<int>((t >> 23) & 0xffu) + 127 - static_cast<int>(e);
  return bits_float(f <= 0 ? s : (s | (static_cast<uint32_t>(f) << 23) | (t & 0x7fffffu)));
}

// Measures this processor's table and checks the model against RCPSS on
// every fraction at exponent 0, both ends of every key's run of fractions at
// every exponent and sign, zeros, subnormals, infinities and NaNs (12 million
// inputs, about 30 ms; once per process). False with the reason where the
// model does not hold or the processor has no RCPSS (not x86).
bool rcpss_measure(RcpssTable& table, std::string& why);

}  // namespace twinmaf
