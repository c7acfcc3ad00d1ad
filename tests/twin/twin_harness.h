// Twin test harness: the CPU path and the CUDA twin of the same binary on the
// same inputs, every output of every frame compared bitwise (==). Shared by
// every tests/twin/*_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/collector.h"
#include "core/picture.h"
#include "engine/session.h"

namespace twinmaf::test {

bool have_gpu();

// Skips where no GPU is found; fails instead under TWINMAF_REQUIRE_GPU=1
// (the GPU host's run.sh), so a broken device cannot pass as skipped.
bool gpu_required();
#define REQUIRE_GPU()                                                               \
  if (!::twinmaf::test::have_gpu()) {                                               \
    if (::twinmaf::test::gpu_required()) FAIL() << "no GPU, and TWINMAF_REQUIRE_GPU=1"; \
    GTEST_SKIP() << "skipped: no GPU";                                              \
  }

struct Clip {
  VideoFormat f;
  std::vector<uint8_t> ref, dis;  // packed planar frames, as raw files
};

// Seeded full-range noise (the golden set's noise clips; 4:0:0 keeps luma).
Clip noise_clip(const VideoFormat& f, int frames, uint64_t seed);
// A ramp moving 3 samples per frame; dis = ref plus small seeded noise.
Clip ramp_clip(const VideoFormat& f, int frames, uint64_t seed);

// One feature's terms of one frame, as the session finished them.
struct TermsRecord {
  unsigned index;
  unsigned lane;
  size_t feature;
  std::unique_ptr<FrameTerms> terms;
};

struct Outcome {
  Collector collector;
  std::vector<std::string> backends;
  std::vector<TermsRecord> terms;  // in finish order
  Status status;
};

// Scores clip with --feature texts on one backend.
Outcome score(const Clip& clip, const std::vector<std::string>& features, Backend backend, unsigned subsample);
std::string describe(const VideoFormat& f, const std::vector<std::string>& features, int frames, unsigned subsample);

// CPU vs CUDA: every feature's FrameTerms of every frame equal
// (FrameTerms::same_as), then same columns, same written frames,
// bitwise-equal values and aggregates, every feature on its twin. `nontrivial_expected`: some value
// must be finite and non-zero (false only where the definition gives zeros).
void expect_twin(const Clip& clip, const std::vector<std::string>& features, int frames, unsigned subsample = 1,
                 bool nontrivial_expected = true);

// The real clips listed in $TWINMAF_TWIN_CLIPS (lines "ref dis w h layout
// bpc frames", paths relative to the list), each cut to its frame count;
// empty when the variable is unset. Unreadable files are test failures.
std::vector<Clip> real_clips();
int clip_frames(const Clip& c);

// Values and terms compared so far (printed at exit).
size_t& values_compared();
size_t& terms_compared();

}  // namespace twinmaf::test
