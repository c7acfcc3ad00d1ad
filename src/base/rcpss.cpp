// rcpss_measure (contract: rcpss.h).
#include "base/rcpss.h"

#include <fmt/format.h>

#include <mutex>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace twinmaf {

namespace {

#if defined(__SSE2__)
uint32_t rcpss_bits(uint32_t x) { return float_bits(_mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(bits_float(x))))); }

bool measure(RcpssTable& t, std::string& why) {
  constexpr int kLow = 23 - kRcpssBits;
  for (uint32_t k = 0; k < (1u << kRcpssBits); ++k) t.bits[k] = rcpss_bits(0x3f800000u | (k << kLow));
  const auto check = [&](uint32_t x) {
    const uint32_t want = rcpss_bits(x), got = float_bits(rcpss_model(bits_float(x), t.bits));
    if (want == got) return true;
    why = fmt::format("this processor's RCPSS of {:#010x} is {:#010x}, not {:#010x} as a {}-bit table gives", x,
                      want, got, kRcpssBits);
    return false;
  };
  for (uint32_t f = 0; f < (1u << 23); ++f)
    if (!check(0x3f800000u | f)) return false;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t e = 1; e < 255; ++e)
      for (uint32_t k = 0; k < (1u << kRcpssBits); ++k)
        for (uint32_t low : {0u, (1u << kLow) - 1})
          if (!check(sign | (e << 23) | (k << kLow) | low)) return false;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t x : {0u, 1u, 0x400000u, 0x7fffffu, 0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu})
      if (!check(sign | x)) return false;
  return true;
}
#else
bool measure(RcpssTable&, std::string& why) {
  why = "this processor has no RCPSS (libvmaf divides exactly here)";
  return false;
}
#endif

}  // namespace

bool rcpss_measure(RcpssTable& table, std::string& why) {
  static RcpssTable measured;
  static std::string reason;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] { ok = measure(measured, reason); });
  table = measured;
  why = reason;
  return ok;
}

}  // namespace twinmaf
