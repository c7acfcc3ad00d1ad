// The tests' one seeded generator: splitmix64, as shared/golden/noiseclip.py
// and the scratch generator that fed libvmaf draw it. Recorded libvmaf values
// (tests/data, golden noise clips, seeded_pair.h) depend on its exact
// sequence. Depends on nothing else, so tests of the public API use it too.
#pragma once

#include <cstdint>

namespace twinmaf::test {

// splitmix64: advances state s and returns the next output.
inline uint64_t splitmix64(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t next() { return splitmix64(s_); }

 private:
  uint64_t s_;
};

}  // namespace twinmaf::test
