// Which SIMD targets the CPU kernels may use: Google Highway's runtime
// dispatch, restricted by libvmaf's --cpumask.
//
// Every SIMD kernel (src/features/<name>/<name>_simd.cpp) is one Highway
// source compiled for several targets (SSE4, AVX2, AVX-512 on x86; NEON/SVE
// on Arm) and dispatched at run time to the best target the CPU has and the
// mask allows. When no SIMD target is allowed (or the CPU has none), callers
// run the scalar reference (<name>_ref.cpp) itself: simd_enabled() is false.
// Every SIMD kernel equals its scalar reference bit for bit on every target
// (tests/simd), so the mask changes speed only.
//
// The mask is process-global, as libvmaf's vmaf_set_cpu_flags_mask.
#pragma once

#include <cstdint>
#include <string>

namespace twinmaf {

// libvmaf's x86 cpumask bits (a set bit disables that instruction set):
// 1 SSE2, 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512 ICL. The Highway
// targets they map to: SSE4 <- 4 (and 1, 2: SSE4 implies them), AVX2 <- 8,
// AVX3 <- 16, AVX3_DL <- 32. On Arm bit 1 is NEON (libvmaf's
// VMAF_ARM_CPU_FLAG_NEON) and disables NEON and SVE. Any other bit set
// (e.g. -1, libvmaf's "all off") disables every SIMD target.
void simd_set_cpumask(uint64_t cpumask);

// Whether a SIMD target is allowed and present: kernels dispatch through
// Highway then, else run the scalar reference.
bool simd_enabled();

// The target dispatch picks now ("scalar" when !simd_enabled()).
std::string simd_target_name();

}  // namespace twinmaf
