// The seam every feature plugs into (DESIGN.md section 2):
//
//   compute (per backend)  ->  FrameTerms  ->  finish (shared, host)  ->  scores
//
// An Extractor is one registered, configured instance of a feature. compute()
// is the CPU reference and must be thread-safe for concurrent calls on
// different frames; finish() and flush() run on one thread, frames in
// increasing index order. A GPU twin produces the same FrameTerms subclass and
// the engine calls the same finish() on it, so both backends share every float
// step by construction.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "engine/twin.h"

namespace twinmaf {

struct FrameInput {
  unsigned index = 0;
  const Picture* ref = nullptr;
  const Picture* dis = nullptr;
  // Reference pictures of frames index-1 and index-2 (null where absent); only
  // filled for extractors whose spec asks for history.
  const Picture* prev_ref = nullptr;
  const Picture* prev_prev_ref = nullptr;
};

// Base of every feature's per-frame intermediates. Subclasses are plain data.
struct FrameTerms {
  virtual ~FrameTerms() = default;
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  // Called once with the stream format before the first frame. Unsupported
  // formats/sizes are a clear error naming the feature and the limit.
  virtual Status init(const VideoFormat& fmt) = 0;
  // Whether compute() reads chroma planes (decides chroma upload on GPUs).
  virtual bool reads_chroma() const = 0;
  virtual std::unique_ptr<FrameTerms> make_terms() const = 0;
  // CPU reference kernels: fills `terms` for one frame.
  virtual Status compute(const FrameInput& in, FrameTerms& terms) const = 0;
  // Shared host finish: scores of frame `index` from its terms.
  virtual Status finish(unsigned index, const FrameTerms& terms, Collector& out) = 0;
  // After the last frame: late scores (motion2/motion3) and aggregates.
  virtual Status flush(Collector& out) {
    (void)out;
    return ok_status();
  }
};

// Static description of a feature (what libvmaf calls an extractor).
struct FeatureSpec {
  std::string_view name;                // --feature name ("psnr")
  std::vector<OptionSpec> options;
  std::vector<std::string_view> provided;  // names a model may request
  // Previous reference pictures compute() reads: 0, 1 (index-1) or 2 (index-1
  // and index-2).
  int history = 0;
  // libvmaf TEMPORAL/PREV_REF: computed on every frame even under --subsample.
  bool every_frame = false;
  // Reads only reference pictures (motion): with several distorted inputs
  // against one reference it is computed once and finished in every lane.
  bool reference_only = false;
  std::function<Result<std::unique_ptr<Extractor>>(const Options&)> create;
  // The CUDA twin's factory; null where the feature has none (or the build
  // has no CUDA).
  TwinFactory cuda = nullptr;
};

// All features in libvmaf's registry order (lookup by provided name returns
// the first match, as libvmaf's does).
const std::vector<const FeatureSpec*>& feature_registry();
const FeatureSpec* find_feature(std::string_view name);
const FeatureSpec* find_feature_providing(std::string_view provided_name);

}  // namespace twinmaf
