// checkasm-style harness for the SIMD kernels (tests/simd): every kernel
// runs on every Highway target this machine supports and the build
// generated, and must equal the scalar reference (==) on the same seeded
// inputs. Inputs are planes with an odd stride and a start offset, so every
// vector alignment is met.
//
// One registry (simd_main.cpp) lists every kernel: its check, run once per
// target by one loop (a gtest case per entry), and optionally its bench
// (`twinmaf_simd --bench [filter]`, never run by ctest). Adding a kernel:
// its check (and bench) in its feature's <feat>_simd_test.cpp and one row
// of the registry.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "core/picture.h"
#include "tests/support/noise_clip.h"

namespace twinmaf::test {

// The SIMD targets to test (the scalar static target is never dispatched to).
inline std::vector<int64_t> simd_targets() {
  std::vector<int64_t> out;
  for (int64_t t : hwy::SupportedAndGeneratedTargets())
    if (t != HWY_SCALAR && t != HWY_EMU128) out.push_back(t);
  return out;
}

// One kernel's check on the target forced now: every case runs the table's
// reference entry and its SIMD entry on the same inputs and compares them
// (gtest assertions, printing the kernel, target and parameters on a
// mismatch); `cases` counts the comparisons (the loop asserts > 0).
using CheckFn = void (*)(const char* target, int64_t& cases);

// One kernel's bench: inputs for a w x h (8-bit) plane prepared once; the
// function returned runs the reference entry (simd false) or the SIMD entry
// (on the target forced then) once.
using BenchFn = std::function<void(bool simd)> (*)(int w, int h);

struct SimdEntry {
  const char* name;  // the kernel, as printed
  CheckFn check;
  BenchFn bench;  // nullptr: not benchmarked
};

// Every entry, in order (simd_main.cpp).
const std::vector<SimdEntry>& simd_registry();

// Runs fn once per target with that target forced for dispatch, then
// restores normal dispatch.
inline void for_each_target(const std::function<void(const char* target)>& fn) {
  for (int64_t t : simd_targets()) {
    hwy::SetSupportedTargetsForTest(t);
    fn(hwy::TargetName(t));
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A plane of w x h samples (uint8 for bpc 8, else uint16) starting `offset`
// samples into its buffer, rows `pad` samples longer than w, plus a guard.
struct TestPlane {
  std::vector<uint16_t> buf16;
  std::vector<uint8_t> buf8;
  PlaneView view;
  int bpc = 8;

  TestPlane(int w, int h, int bpc_, int offset, int pad) : bpc(bpc_) {
    const size_t stride = static_cast<size_t>(w + pad);
    const size_t n = offset + stride * h + 64;
    if (bpc == 8) {
      buf8.assign(n, 0);
      view = {buf8.data() + offset, static_cast<std::ptrdiff_t>(stride), w, h};
    } else {
      buf16.assign(n, 0);
      view = {reinterpret_cast<const uint8_t*>(buf16.data() + offset),
              static_cast<std::ptrdiff_t>(stride * 2), w, h};
    }
  }
  void set(int x, int y, uint32_t v) {
    if (bpc == 8)
      const_cast<uint8_t*>(view.row<uint8_t>(y))[x] = static_cast<uint8_t>(v);
    else
      const_cast<uint16_t*>(view.row<uint16_t>(y))[x] = static_cast<uint16_t>(v);
  }
  uint32_t get(int x, int y) const {
    return bpc == 8 ? view.row<uint8_t>(y)[x] : view.row<uint16_t>(y)[x];
  }
};

// Natural-ish content that reaches every branch of the features: a flat
// left third, then per 8x8 block a ramp plus noise of a random amplitude
// (none, tiny, moderate, full range); dis is ref, ref plus block-wise
// noise, scaled (enhanced), independent or inverted.
inline void fill_pair(TestPlane& ref, TestPlane& dis, uint64_t seed) {
  SplitMix64 rng(seed);
  const int w = ref.view.w, h = ref.view.h;
  const int64_t top = (int64_t{1} << ref.bpc) - 1;
  const int bw = (w + 7) / 8;
  std::vector<int> amp_r(static_cast<size_t>(bw) * ((h + 7) / 8)), mode(amp_r.size());
  const int64_t amps[] = {0, 1, 3, top >> 4, top};
  for (size_t i = 0; i < amp_r.size(); ++i) {
    amp_r[i] = static_cast<int>(rng.next() % 5);
    mode[i] = static_cast<int>(rng.next() % 5);
  }
  const auto clampv = [top](int64_t v) { return static_cast<uint32_t>(std::clamp<int64_t>(v, 0, top)); };
  const auto noise = [&rng](int64_t a) {
    return a == 0 ? 0 : static_cast<int64_t>(rng.next() % static_cast<uint64_t>(2 * a + 1)) - a;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t b = static_cast<size_t>(y / 8) * bw + x / 8;
      // The left third is flat (low variance: the features' flat branches),
      // with dis equal or slightly noisy.
      const bool flat = x < w / 3;
      const int64_t base = flat ? top / 3 : (top * (x + 2 * y)) / (w + 2 * h);
      const int64_t r = flat ? base : clampv(base + noise(amps[amp_r[b]]));
      int64_t d = r;
      switch (flat ? mode[b] % 2 : mode[b]) {
        case 0: break;                                        // identical
        case 1: d = r + noise(std::max<int64_t>(1, top >> 6)); break;  // small error
        case 2: d = base + (r - base) * 3; break;             // enhanced contrast
        case 3: d = static_cast<int64_t>(rng.next() & static_cast<uint64_t>(top)); break;  // independent
        default: d = top - r; break;                          // inverted
      }
      ref.set(x, y, static_cast<uint32_t>(r));
      dis.set(x, y, clampv(d));
    }
}

// Keeps a bench's result alive (the compiler cannot drop its computation).
template <class T>
inline void keep(const T& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

// A seeded pair of w x h planes for the benches (bpc 8 unless given).
struct BenchPair {
  TestPlane a, b;
  BenchPair(int w, int h, int bpc = 8) : a(w, h, bpc, 1, 3), b(w, h, bpc, 1, 3) { fill_pair(a, b, 1); }
};

}  // namespace twinmaf::test
