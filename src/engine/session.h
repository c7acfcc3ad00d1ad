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
#include "io/source.h"

namespace twinmaf {

struct SessionConfig {
  unsigned threads = 0;
  unsigned subsample = 1;  // 0 and 1: every frame
};

struct RunLimits {
  unsigned frame_cnt = 0;  // 0: all
  unsigned skip_ref = 0;
  unsigned skip_dis = 0;
};

struct RunReport {
  unsigned frames = 0;
  std::vector<std::string> warnings;
};

class Session {
 public:
  explicit Session(SessionConfig cfg);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --feature name=k=v:...: registers the feature called `name`.
  Status use_feature(std::string_view name, const OptionDict& opts);
  // A model's feature: registers the feature providing `provided_name`.
  Status use_feature_providing(std::string_view provided_name, const OptionDict& opts);

  Status run(VideoSource& ref, VideoSource& dis, const RunLimits& limits, RunReport* report);

  const Collector& collector() const { return collector_; }
  Collector& collector() { return collector_; }
  const SessionConfig& config() const { return cfg_; }
  // Registered features, in registration order.
  struct Registered {
    const FeatureSpec* spec;
    Options options;
    std::string key;  // dedup identity
    std::unique_ptr<Extractor> extractor;
  };
  const std::vector<Registered>& features() const { return features_; }

 private:
  Status add(const FeatureSpec& spec, const OptionDict& opts);

  SessionConfig cfg_;
  std::vector<Registered> features_;
  Collector collector_;
};

// Checks that two inputs can be compared: same size, layout and depth.
Status check_same_format(const VideoSource& ref, const VideoSource& dis);

}  // namespace twinmaf
