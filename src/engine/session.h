// A scoring session: registered features, their backends, the frame loop
// (engine/frame_loop.h), flush.
//
// Registration follows libvmaf: a feature is identified by its extractor name
// plus the values of its feature-param options; registering an identical one
// again is a no-op (the first registration's non-param options win).
//
// A session scores one reference against one or more distorted inputs
// ("lanes"): the reference is read (and uploaded) once per frame, every lane
// has its own extractors and collector, and reference-only features (motion)
// are computed once and finished in every lane.
//
// Use: use_feature*() ..., prepare(format) (inits every extractor, decides
// each feature's backend, says what the inputs must provide), run(feed).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "core/options.h"
#include "engine/device_run.h"
#include "engine/frame_loop.h"
#include "engine/loop_plan.h"
#include "features/feature.h"
#include "io/source.h"
#include "twinmaf/types.h"

namespace twinmaf {

namespace gpu {
class Context;
}

struct SessionConfig {
  unsigned threads = 0;    // 0: the frame loop on the caller's thread
  unsigned subsample = 1;  // 0 and 1: every frame
  // kAuto: a feature runs on its CUDA twin when a device is present and the
  // twin supports the request exactly, else on the CPU. kCuda: on its twin,
  // or an error naming the feature and the reason. kCpu: on the CPU.
  Backend backend = Backend::kAuto;
  // Per extractor name ("vif"), overriding `backend` for that feature.
  std::vector<std::pair<std::string, Backend>> feature_backends;
  int gpu = 0;
  void* cuda_context = nullptr;  // ScorerConfig::cuda_context
  // Compressed inputs: one choice for all, or one per input (reference
  // first). engine/loop_plan.cpp: plan_decoders.
  std::vector<Decode> decode{Decode::kAuto};
  unsigned decoders = 0;  // decoders per compressed input (0: the plan's)
  bool profile = false;  // per-stage timings (RunReport::profile)
  // Input reader threads for random-access inputs (raw YUV) on the GPU path;
  // 0: the loop plan's choice (engine/loop_plan.cpp: the cores the loop
  // leaves, at most 12, or 10 for pictures under 6 MB when finishes settle).
  unsigned readers = 0;
  // Called after frame `index` is finished in every lane (frames in order, on
  // the loop's finishing thread).
  std::function<void(unsigned index)> on_frame;
  // Set from any thread: the run stops reading frames and fails with
  // Code::kCancelled (shared by the sessions of one job).
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  // Tests: every frame's terms of every feature just before finish().
  std::function<void(unsigned index, unsigned lane, size_t feature, const FrameTerms&)> on_terms;
};

struct RunReport {
  unsigned frames = 0;
  std::vector<InputDecoding> decoding;  // files that decode, reference first
  std::vector<std::string> warnings;
  // Files of different lengths: per input (the reference first), whether it
  // had ended where the run stopped (InputReader::ended()); else empty.
  std::vector<bool> ended;
  std::vector<std::string> profile;  // lines of the --profile table
  std::string device;                // GPU used, if any
  double loop_seconds = 0;           // first frame read to last frame finished
};

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

  // A new session of `lanes` lanes with this one's configuration (without
  // on_frame), features and GPU context, not prepared (a re-run of some of
  // the inputs).
  Result<std::unique_ptr<Session>> fresh(unsigned lanes) const;

  // Starts the GPU's start-up in the background (gpu::begin_context) when a
  // registered feature may run there. After registration.
  void begin_device() const;
  // Inits every extractor for `fmt`, assigns each feature's backend
  // (creating its twin) and plans the frame loop for inputs of which
  // `inputs` (files, reference first; none for pushed pictures). Once,
  // after registration.
  Result<InputPlan> prepare(const VideoFormat& fmt, std::vector<PlannedInput> inputs = {});
  // The loop plan, after prepare().
  const LoopPlan& plan() const { return plan_; }
  // Where input pictures should live (pinned when a GPU uploads them).
  PictureAllocator& allocator() const;
  // Device memory, for inputs NVDEC decodes (CUDA builds).
  PictureAllocator& device_allocator() const;
  // The context NVDEC decodes in (the session's GPU); null where no_nvdec().
  Result<const NvdecContext*> nvdec_context() const;
  // Why this session cannot decode on NVDEC; empty where it can.
  std::string no_nvdec() const;
  // The frame loop over `feed`, then every feature's flush. Once, after
  // prepare(). `host_range_check` gives the inputs' own error for a frame set
  // the device range check flags (null: none is needed).
  Status run(FrameFeed& feed, RunReport* report,
             std::function<Status(const FrameSet&)> host_range_check = nullptr);
  // Files: prepare, skip, read (engine/input_reader.h) and run. `skip_dis`,
  // when given, holds each distorted input's skip in place of
  // limits.skip_dis (--align's per-input offsets).
  Status run(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, RunReport* report,
             const std::vector<unsigned>& skip_dis = {});
  Status run(VideoSource& ref, VideoSource& dis, const RunLimits& limits, RunReport* report) {
    return run(ref, std::vector<VideoSource*>{&dis}, limits, report);
  }

  // Distributed runs (api: Scorer::compute_segment / finish_segments): the
  // frame loop split into segments of frames computed anywhere and finished
  // in one place in frame order, which gives run()'s results exactly.
  //
  // The terms of frames first .. first+count-1 of the files (frame numbers
  // after `limits`' skips), every lane's list per frame, go to `sink` in
  // order instead of finish(); the frames before `first` that history and
  // temporal state need are read first, computed only as far as that state
  // needs, and dropped. No flush. Fewer than `count` frames: the inputs end.
  using TermsSink = std::function<Status(unsigned index, const std::vector<FrameTermsList>& terms)>;
  Status run_segment(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, unsigned first,
                     unsigned count, const TermsSink& sink, RunReport* report);
  // The other end, after prepare(): frame `index`'s terms (frames in order
  // from 0), finished as run() finishes a frame; then end_terms() flushes.
  Status finish_terms(unsigned index, const std::vector<FrameTermsList>& terms);
  Status end_terms(RunReport* report);

  unsigned lanes() const { return static_cast<unsigned>(lanes_.size()); }
  const Collector& collector(unsigned lane = 0) const { return lanes_[lane].collector; }
  // After the last run: frees every twin (its device memory); the features'
  // backends stay recorded.
  void release_twins() {
    for (Lane& l : lanes_)
      for (Registered& r : l.features) r.twin.reset();
  }

  Collector& collector(unsigned lane = 0) { return lanes_[lane].collector; }
  const SessionConfig& config() const { return cfg_; }
  // Registered features, in registration order.
  struct Registered {
    const FeatureSpec* spec;
    Options options;
    std::string key;  // dedup identity
    std::unique_ptr<Extractor> extractor;
    FeatureNeeds needs;          // after prepare()
    std::unique_ptr<Twin> twin;  // set when the feature runs on the GPU
    std::string backend = "cpu";
  };
  const std::vector<Registered>& features(unsigned lane = 0) const { return lanes_[lane].features; }
  std::string device_name() const;  // the GPU used, or empty

 private:
  struct Lane {
    std::vector<Registered> features;
    Collector collector;
  };
  class Stages;  // the loop's stages over this session (session.cpp)
  Status add(const FeatureSpec& spec, const OptionDict& opts);
  Backend backend_of(const FeatureSpec& spec) const;
  Status assign_backends(const VideoFormat& fmt, std::vector<std::string>* notes);
  bool wants_device() const;  // some feature asks for or allows a twin (CUDA builds)
  void end_device() const;    // waits for begin_device()'s start-up (destruction)
  // Whether lane `lane` reuses lane 0's terms of feature i.
  bool shared_with_lane0(unsigned lane, size_t i) const {
    return lane > 0 && lanes_[0].features[i].needs.reference_only();
  }
  bool active(const Registered& r, unsigned index) const {
    return index >= state_from(r, keep_from_) && (index % cfg_.subsample == 0 || r.needs.every_frame());
  }
  // The first frame a run whose scores start at `keep_from` computes r on.
  unsigned state_from(const Registered& r, unsigned keep_from) const;
  // Frames such a run reads before keep_from.
  unsigned warm_up(unsigned keep_from) const;
  // CPU terms of w's frame for the CPU-assigned features of one pass.
  Status compute_cpu(LoopFrame& w, Pass pass) const;
  // Fills `settled` (per lane, sized like `terms`) with settle() of the terms
  // of every feature that settles (any thread).
  void settle_frame(const std::vector<FrameTermsList>& terms, std::vector<FrameTermsList>& settled) const;
  // finish() of every feature of every lane: settle()'s values where the
  // feature settles, else the terms; on_terms sees the terms.
  Status finish_frame(unsigned index, const std::vector<FrameTermsList>& terms,
                      const std::vector<FrameTermsList>& settled);
  Status flush_lanes();
  // The device half of run(), from the plan.
  DeviceRunSetup device_setup(std::function<Status(const FrameSet&)> host_range_check) const;
  // run() on files; a segment of them when sink_ is set (run_segment).
  Status run_files(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, unsigned first,
                   unsigned count, RunReport* report, const std::vector<unsigned>& skip_dis);

  SessionConfig cfg_;
  std::shared_ptr<gpu::Context> gpu_;
  mutable std::unique_ptr<PictureAllocator> device_alloc_;  // NVDEC's pictures, in gpu_
  mutable std::unique_ptr<NvdecContext> nvdec_ctx_;         // over gpu_
  std::vector<Lane> lanes_;
  VideoFormat fmt_;
  bool prepared_ = false;
  LoopPlan plan_;  // prepare()'s
  std::vector<std::string> notes_;  // backend decisions worth a warning
  // A segment run (run_segment): frames are numbered from run_first_, those
  // below keep_from_ only warm up, terms go to sink_.
  unsigned run_first_ = 0;
  unsigned keep_from_ = 0;
  const TermsSink* sink_ = nullptr;
};

// Checks that two inputs can be compared: same size, layout and depth.
Status check_same_format(const VideoSource& ref, const VideoSource& dis);

}  // namespace twinmaf
