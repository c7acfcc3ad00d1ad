// A scoring session: registered features, the frame loop, flush.
//
// Registration follows libvmaf: a feature is identified by its extractor name
// plus the values of its feature-param options; registering an identical one
// again is a no-op (the first registration's non-param options win).
//
// The frame loop reads (ref, dis) pairs in order, computes every feature's
// terms (frames in parallel on a oneTBB arena of `threads` workers; threads 0
// runs everything on the caller's thread), then finishes frames strictly in
// index order on one thread. Output is therefore independent of threading.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "core/options.h"
#include "engine/extractor.h"
#include "engine/twin.h"
#include "io/source.h"

namespace twinmaf {

enum class Backend { kCpu, kCuda, kAuto };

// "cpu", "cuda", "auto".
Result<Backend> parse_backend(std::string_view text);

struct SessionConfig {
  unsigned threads = 0;
  unsigned subsample = 1;  // 0 and 1: every frame
  // kAuto: each feature on its CUDA twin when a device is present and the twin
  // supports the request exactly, else on the CPU. kCuda: every feature on its
  // twin, or an error naming the feature and the reason.
  Backend backend = Backend::kAuto;
  int gpu = 0;
  bool profile = false;  // per-stage timings of the GPU frame path (RunReport)
  // Input reader threads for random-access inputs (raw YUV) on the GPU path;
  // 0: min(12, hardware threads - 2).
  unsigned readers = 0;
};

struct RunLimits {
  unsigned frame_cnt = 0;  // 0: all
  unsigned skip_ref = 0;
  unsigned skip_dis = 0;
};

struct RunReport {
  unsigned frames = 0;
  std::vector<std::string> warnings;
  std::vector<std::string> profile;  // lines of the --profile table
  std::string device;                // GPU used, if any
  double loop_seconds = 0;           // first frame read to last frame finished
};

// A session scores one reference against one or more distorted inputs
// ("lanes"): the reference is read (and uploaded) once per frame, every lane
// has its own extractors and collector, and reference-only features (motion)
// are computed once and finished in every lane.
class Session {
 public:
  explicit Session(SessionConfig cfg, unsigned lanes = 1);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --feature name=k=v:...: registers the feature called `name` (every lane).
  Status use_feature(std::string_view name, const OptionDict& opts);
  // A model's feature: registers the feature providing `provided_name`.
  Status use_feature_providing(std::string_view provided_name, const OptionDict& opts);

  // dis.size() must equal lanes().
  Status run(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, RunReport* report);
  Status run(VideoSource& ref, VideoSource& dis, const RunLimits& limits, RunReport* report) {
    return run(ref, std::vector<VideoSource*>{&dis}, limits, report);
  }

  unsigned lanes() const { return static_cast<unsigned>(lanes_.size()); }
  const Collector& collector(unsigned lane = 0) const { return lanes_[lane].collector; }
  Collector& collector(unsigned lane = 0) { return lanes_[lane].collector; }
  const SessionConfig& config() const { return cfg_; }
  // Registered features, in registration order.
  struct Registered {
    const FeatureSpec* spec;
    Options options;
    std::string key;  // dedup identity
    std::unique_ptr<Extractor> extractor;
    std::unique_ptr<Twin> twin;  // set when the feature runs on the GPU
    std::string backend = "cpu";
  };
  const std::vector<Registered>& features(unsigned lane = 0) const { return lanes_[lane].features; }
  // One lane's terms for one frame, indexed like features(); null: not
  // computed. Shared pointers: a reference-only feature's terms are lane 0's.
  using FrameTermsList = std::vector<std::shared_ptr<FrameTerms>>;

 private:
  struct Lane {
    std::vector<Registered> features;
    Collector collector;
  };
  Status add(const FeatureSpec& spec, const OptionDict& opts);
  // Decides each feature's backend for this format (creates the twins).
  Status assign_backends(const VideoFormat& fmt, std::vector<std::string>* notes);
  // Whether lane `lane` reuses lane 0's terms of feature i.
  bool shared_with_lane0(unsigned lane, size_t i) const { return lane > 0 && lanes_[0].features[i].spec->reference_only; }
  // CPU terms of every CPU-assigned feature active at in.index in `lane`
  // (`lane0`: lane 0's terms of the same frame, for reference-only features).
  Status compute_cpu(const FrameInput& in, unsigned lane, const FrameTermsList* lane0, FrameTermsList& terms) const;
  Status finish_frame(unsigned index, unsigned lane, const FrameTermsList& terms);
  Status run_cpu(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, int history,
                 RunReport& rep);
  Status run_cuda(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, int history,
                  RunReport& rep);

  SessionConfig cfg_;
  std::shared_ptr<gpu::Context> gpu_;
  std::vector<Lane> lanes_;
};

// Checks that two inputs can be compared: same size, layout and depth.
Status check_same_format(const VideoSource& ref, const VideoSource& dis);

}  // namespace twinmaf
