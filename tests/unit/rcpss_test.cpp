// The RCPSS model (base/rcpss.h) against this processor's RCPSS on every one
// of the 2^32 float inputs, where rcpss_measure accepts the processor (the
// float_adm twin's division then equals the CPU path's for every input).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "base/rcpss.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace twinmaf {
namespace {

TEST(Rcpss, ModelIsThisProcessorsRcpssOnEveryInput) {
#if !defined(__SSE2__)
  RcpssTable t;
  std::string why;
  EXPECT_FALSE(rcpss_measure(t, why));
  EXPECT_FALSE(why.empty());
#else
  RcpssTable t;
  std::string why;
  if (!rcpss_measure(t, why)) GTEST_SKIP() << "the float_adm twin refuses this processor: " << why;
  std::atomic<uint64_t> bad{0}, first{~0ull};
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < n; ++w)
    workers.emplace_back([&, w] {
      const uint64_t begin = (uint64_t{1} << 32) * w / n, end = (uint64_t{1} << 32) * (w + 1) / n;
      for (uint64_t u = begin; u < end; ++u) {
        const auto x = static_cast<uint32_t>(u);
        const float v = bits_float(x);
        if (float_bits(_mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(v)))) != float_bits(rcpss_model(v, t.bits))) {
          ++bad;
          uint64_t f = first.load();
          while (u < f && !first.compare_exchange_weak(f, u)) {
          }
        }
      }
    });
  for (auto& w : workers) w.join();
  EXPECT_EQ(bad.load(), 0u) << "first input that differs: " << std::hex << first.load();
#endif
}

}  // namespace
}  // namespace twinmaf
