// cpumask -> Highway targets (simd.h).
#include "base/simd.h"

#include <hwy/targets.h>

#include <atomic>

namespace twinmaf {

namespace {

// The targets that count as SIMD (the emulated/scalar fallbacks do not: the
// scalar reference is the fallback).
constexpr int64_t kSimdTargets = ~(int64_t{HWY_EMU128} | int64_t{HWY_SCALAR});

int64_t disabled_targets(uint64_t mask) {
#if HWY_ARCH_X86
  constexpr uint64_t kKnown = 0x3f;
  if (mask & ~kKnown) return kSimdTargets;
  int64_t off = 0;
  if (mask & 0x7) off |= HWY_SSSE3 | HWY_SSE4;  // SSE2/SSSE3/SSE4.1: the SSE4 target needs all
  if (mask & 0x8) off |= HWY_AVX2;
  if (mask & 0x10) off |= HWY_AVX3;
  if (mask & 0x20) off |= HWY_AVX3_DL;
  return off;
#elif HWY_ARCH_ARM
  return mask ? kSimdTargets : 0;
#else
  return mask ? kSimdTargets : 0;
#endif
}

// simd_enabled()'s answer, -1 until asked: Highway 1.0.3's SupportedTargets()
// runs CPUID on every call (15-20 us where a hypervisor traps it), and the
// kernels ask once per call. Reset by simd_set_cpumask.
std::atomic<int> g_enabled{-1};

}  // namespace

void simd_set_cpumask(uint64_t cpumask) {
  hwy::DisableTargets(0);
  const int64_t off = disabled_targets(cpumask);
  if (off) hwy::DisableTargets(off);
  g_enabled.store(-1, std::memory_order_relaxed);
}

bool simd_enabled() {
  int e = g_enabled.load(std::memory_order_relaxed);
  if (e < 0) {
    e = (hwy::SupportedTargets() & HWY_TARGETS & kSimdTargets) != 0 ? 1 : 0;
    g_enabled.store(e, std::memory_order_relaxed);
  }
  return e != 0;
}

std::string simd_target_name() {
  if (!simd_enabled()) return "scalar";
  const int64_t t = hwy::SupportedTargets() & HWY_TARGETS & kSimdTargets;
  return hwy::TargetName(t & -t);
}

}  // namespace twinmaf
