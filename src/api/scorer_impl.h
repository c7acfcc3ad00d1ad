// Scorer's state (twinmaf/twinmaf.h), shared by scorer.cpp and the CUDA
// half scorer_cuda.cpp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/session.h"
#include "io/source.h"
#include "model/model.h"
#include "output/writer.h"
#include "twinmaf/twinmaf.h"

namespace twinmaf {

// Pictures pushed by the caller, handed to the frame loop in order. push()
// blocks while `capacity` frames wait; a closed feed ends the loop.
using Clock = std::chrono::steady_clock;

class PushFeed final : public FrameFeed {
 public:
  explicit PushFeed(size_t capacity) : capacity_(capacity) {}

  // False when the loop has stopped taking frames (it failed).
  bool push(FrameSet set) {
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < capacity_ || stopped_; });
    if (stopped_) return false;
    set.index = pushed_++;
    queue_.push_back(std::move(set));
    ready_.notify_one();
    return true;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  // The loop is done (ended or failed): later pushes return false.
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    space_.notify_all();
  }
  Result<bool> next(FrameSet* out) override {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    *out = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return true;
  }
  std::string describe() const override { return "the pushed pictures"; }

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<FrameSet> queue_;
  unsigned pushed_ = 0;
  bool closed_ = false;
  bool stopped_ = false;
};

// A loaded model, or one part of a collection: its main model (key "0") or
// its members. Binding (the extractors and collector names of its features)
// is redone after every overload; a failure (a feature no extractor
// provides, a bad overloaded option) is kept and returned where the model
// is used, as libvmaf fails there and not at load.
struct ModelHandle::Impl {
  enum class Part { kModel, kMain, kMembers };
  LoadedModel model;
  Part part = Part::kModel;
  Status bound;
  std::vector<FeatureUse> uses;  // this part's features, in registration order

  const std::string& name() const {
    return part == Part::kMembers ? model.collection_name() : model.main().name();
  }
  void bind();
};

struct Scorer::Impl {
  ScorerConfig cfg;
  std::unique_ptr<Session> session;
  std::vector<LoadedModel> models;
  std::vector<std::string> labels;
  RunInfo info;
  RunReport report;
  Clock::time_point t0;
  bool used = false;
  bool done = false;
  // Push mode.
  VideoFormat fmt;
  InputPlan plan;
  std::unique_ptr<PicturePool> pool;
  std::unique_ptr<PicturePool> device_pool;  // push_device() when plan.device_input
  std::unique_ptr<PushFeed> feed;
  std::thread loop;
  Status loop_status;

  unsigned pushed = 0;
  unsigned total = 0;  // Progress::total
  std::string reference_path;                // score()'s inputs
  std::vector<std::string> distorted_paths;
  // import_score() while the loop runs, stored when it ends.
  struct Import {
    std::string name;
    unsigned frame;
    double value;
    unsigned lane;
  };
  std::vector<Import> pending_imports;

  // The loop thread owns the collectors between open() and flush().
  bool streaming() const { return loop.joinable(); }
  Status check_readable() const {
    if (streaming()) TWINMAF_FAIL(kInvalidArgument, "scores are read after flush() (pictures are being scored)");
    return ok_status();
  }
  // Closes the feed, waits for the loop and stores the pending imports.
  Status end_loop();

  // The inputs of a job as they are scored: scaled (cfg.scaling), then
  // converted to the common depth (cfg.common_bitdepth).
  struct Inputs {
    std::unique_ptr<VideoSource> ref;
    std::vector<std::unique_ptr<VideoSource>> dis;
    std::vector<VideoSource*> dis_ptrs;
    std::vector<ScaledInput> scaled;
  };
  // Marks the Scorer used by a job of `distorted` inputs.
  Status begin(size_t distorted);
  // score()'s and compute_segment()'s inputs, opened and checked; sets fmt.
  Result<Inputs> open_inputs(const InputFile& reference, const std::vector<InputFile>& distorted);
  // score()'s run on `distorted` (each with its skip) of the inputs, every
  // distorted input scored over its own length (info.lane_frames).
  Status run_files(const InputFile& reference, const std::vector<InputFile>& distorted, const RunLimits& limits,
                   const std::vector<unsigned>& skip_dis);
  // Distorted inputs that had frames left where the run stopped at a shorter
  // one (report.ended): run_files scores them again; a distributed run
  // (compute_segment) cannot, and fails naming one.
  std::vector<size_t> longer_lanes() const;
  Status check_one_length(const std::vector<InputFile>& distorted) const;
  Status predict();
  // Frames scored in distorted input `lane` (info.lane_frames, filled by
  // run_files and predict()).
  unsigned frames_of(unsigned lane) const {
    return lane < info.lane_frames.size() ? info.lane_frames[lane] : info.frames;
  }
  OutputInfo output_info(Precision precision, unsigned lane) const;
  Status check_done() const {
    if (!done) TWINMAF_FAIL(kInvalidArgument, "no results yet: call score(), or flush() after push()");
    return ok_status();
  }
  const Collector::Column* column(std::string_view metric, unsigned lane) const {
    for (const Collector::Column& c : session->collector(lane).columns())
      if (c.name == metric || feature_name_alias(c.name) == metric) return &c;
    return nullptr;
  }
};

// A host copy of a device picture (CUDA builds; the error path of the range
// check of pictures pushed on the device).
Result<PicturePtr> host_copy(const Picture& device_picture);

}  // namespace twinmaf
