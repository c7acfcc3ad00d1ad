#include "tests/support/rcpss.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace twinmaf::test {

std::string rcpss_fingerprint() {
#if defined(__SSE__)
  uint64_t h = 0xcbf29ce484222325u;
  for (uint32_t bits = 0x3f800000u; bits < 0x40000000u; ++bits) {
    float x, y;
    std::memcpy(&x, &bits, 4);
    y = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
    uint32_t r;
    std::memcpy(&r, &y, 4);
    for (int k = 0; k < 4; ++k) h = (h ^ ((r >> (8 * k)) & 0xffu)) * 0x100000001b3u;
  }
  return fmt::format("{:016x}", h);
#else
  return "none";
#endif
}

}  // namespace twinmaf::test
