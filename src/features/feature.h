// The contract every feature implements (DESIGN.md section 2):
//
//   compute (per backend)  ->  FrameTerms  ->  finish (shared, host)  ->  scores
//
// A FeatureSpec describes a feature (what libvmaf calls an extractor): its
// name, options, provided names, how to create a configured instance, and its
// CUDA twin's factory. An Extractor is one registered, configured instance.
// After init() it declares what it reads (FeatureNeeds); the engine's reader,
// frame ring, device graph key and frame loop all follow that one
// declaration. compute() is the CPU reference; a twin (features/twin.h)
// produces the same FrameTerms subclass on a device, and the engine calls the
// same finish() on either, so every float step is shared by construction.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "base/assert.h"
#include "base/bytes.h"
#include "base/status.h"
#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "features/twin.h"

namespace twinmaf {

// Planes of a picture a feature reads: none, luma, or every plane of the
// format (4:0:0 has luma only).
enum class Planes : uint8_t { kNone, kLuma, kAll };

// Number of planes `p` covers in `fmt`.
int plane_count(Planes p, const VideoFormat& fmt);

// What a configured feature reads, declared once (Extractor::needs()).
struct FeatureNeeds {
  Planes ref = Planes::kLuma;
  Planes dis = Planes::kLuma;
  // Previous pictures compute() reads: FrameInput::prev_ref[k] is the
  // reference of frame index-1-k for k < prev_ref (same for prev_dis), with
  // the planes of `ref` (`dis`). At most kMaxHistory.
  int prev_ref = 0;
  int prev_dis = 0;
  // libvmaf's TEMPORAL: compute() runs on every frame, in increasing index
  // order, one frame at a time, so it may keep state from frame to frame.
  bool temporal = false;
  // Temporal features: compute()'s state at frame i comes from its calls on
  // frames i-state_frames .. i-1 alone (kAllFrames: on every frame before).
  // A run that starts at frame f > 0 (a segment of a distributed run) calls
  // compute() from frame f-state_frames on and drops the terms before f.
  static constexpr int kAllFrames = -1;
  int state_frames = kAllFrames;

  // Computed on every frame even under --subsample: temporal features and
  // features with history (libvmaf's TEMPORAL and PREV_REF).
  bool every_frame() const { return temporal || prev_ref > 0 || prev_dis > 0; }
  // Reads no distorted picture: with several distorted inputs against one
  // reference it is computed once and finished in every lane.
  bool reference_only() const { return dis == Planes::kNone && prev_dis == 0; }
};

struct FrameInput {
  unsigned index = 0;
  const Picture* ref = nullptr;
  const Picture* dis = nullptr;
  // Frames index-1, index-2, ... up to the depths of FeatureNeeds; null where
  // the frame does not exist (or is deeper than the feature asked for).
  std::array<const Picture*, kMaxHistory> prev_ref{};
  std::array<const Picture*, kMaxHistory> prev_dis{};
  // The first frame this run calls compute() on for this feature: 0, or a
  // later frame in a segment of a distributed run (FeatureNeeds::state_frames).
  unsigned state_from = 0;
};

// Base of every feature's per-frame intermediates: plain data, derived through
// FrameTermsOf so that terms can be copied and compared generically.
struct FrameTerms {
  virtual ~FrameTerms() = default;
  virtual std::unique_ptr<FrameTerms> clone() const = 0;
  // Same type and same values (bitwise for floats): the twin tests compare
  // every twin's terms with the CPU's through this.
  virtual bool same_as(const FrameTerms& other) const = 0;
  // The values as bytes and back, between processes of the same build (a
  // distributed run's segments): load(save()) is same_as the original.
  virtual void save(ByteWriter& out) const = 0;
  virtual Status load(ByteReader& in) = 0;
};

// T declares `bool operator==(const T&) const` (defaulted for integers; a
// bitwise comparison where it holds floats) and lists every member once in
// `template <class Self, class F> static void fields(Self& s, F&& f)`
// (base/bytes.h), which save() and load() follow.
template <class T>
struct FrameTermsOf : FrameTerms {
  std::unique_ptr<FrameTerms> clone() const final {
    return std::make_unique<T>(static_cast<const T&>(*this));
  }
  bool same_as(const FrameTerms& other) const final {
    return typeid(other) == typeid(T) && static_cast<const T&>(*this) == static_cast<const T&>(other);
  }
  void save(ByteWriter& out) const final { T::fields(static_cast<const T&>(*this), [&](const auto& f) { out.put(f); }); }
  Status load(ByteReader& in) final {
    T::fields(static_cast<T&>(*this), [&](auto& f) { in.get(f); });
    if (!in.ok()) TWINMAF_FAIL(kBadInput, "truncated or corrupt terms");
    return ok_status();
  }
  // The base holds no values: a defaulted T::operator== compares T's members.
  bool operator==(const FrameTermsOf&) const { return true; }
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  // Called once with the stream format before the first frame. Unsupported
  // formats/sizes are a clear error naming the feature and the limit; the
  // resolved parameters (options, format, limits) then serve compute(),
  // finish() and the twin's factory alike.
  virtual Status init(const VideoFormat& fmt) = 0;
  // What compute() (and the twin) read, after init().
  virtual FeatureNeeds needs() const = 0;
  virtual std::unique_ptr<FrameTerms> make_terms() const = 0;
  // CPU reference kernels: fills `terms` for one frame. Thread-safe for
  // concurrent calls on different frames unless needs().temporal (then calls
  // come one at a time, in index order).
  virtual Status compute(const FrameInput& in, FrameTerms& terms) const = 0;
  // Shared host finish: scores of frame `index` from its terms, or from
  // settle()'s values of them where the feature settles. Runs on one thread,
  // frames in increasing index order.
  virtual Status finish(unsigned index, const FrameTerms& terms, Collector& out) = 0;
  // A finish too costly for the frame loop's one ordered thread splits off
  // the part that reads one frame's terms alone: settles() is true, settle()
  // returns those values as a FrameTerms of their own (thread-safe, any
  // thread, frames in any order), and finish() always receives them, never
  // the terms. The engine settles wherever its loop plan says
  // (engine/loop_plan.h); settle_and_finish() below does both in one place.
  virtual bool settles() const { return false; }
  virtual std::unique_ptr<FrameTerms> settle(const FrameTerms& terms) const {
    (void)terms;
    return nullptr;
  }
  // After the last frame: late scores (motion2/motion3) and aggregates.
  virtual Status flush(Collector& out) {
    (void)out;
    return ok_status();
  }
};

// finish() of one frame's terms, settled first where the feature settles
// (callers outside the frame loop: tests, tools).
inline Status settle_and_finish(Extractor& e, unsigned index, const FrameTerms& terms, Collector& out) {
  if (!e.settles()) return e.finish(index, terms, out);
  const std::unique_ptr<FrameTerms> settled = e.settle(terms);
  return e.finish(index, *settled, out);
}

struct FeatureSpec {
  std::string_view name;  // --feature name ("psnr")
  std::vector<OptionSpec> options;
  std::vector<std::string_view> provided;  // names a model may request
  Result<std::unique_ptr<Extractor>> (*create)(const Options& options) = nullptr;
  // The CUDA twin's factory; null where the feature has none (or the build
  // has no CUDA).
  TwinFactory cuda = nullptr;
};

// Every feature, in libvmaf's registry order (lookup by provided name returns
// the first match, as libvmaf's does).
const std::vector<const FeatureSpec*>& feature_registry();
const FeatureSpec* find_feature(std::string_view name);
const FeatureSpec* find_feature_providing(std::string_view provided_name);
// find_feature_providing as the model layer sees it (a FindProvider).
std::optional<ExtractorRef> registry_provider(std::string_view provided_name);

}  // namespace twinmaf
