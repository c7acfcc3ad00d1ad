// The session's one frame loop (engine/session.cpp), its pieces shared by the
// CPU half and the device half (engine/device_run.h). A frame passes five
// stages (LoopStages):
//
//   admit     (serial, in order)  next frame set from the feed; history;
//                                 device: upload + enqueue the active twins
//   compute   (parallel, then     CPU-assigned features, frames in parallel;
//              serial in order)   then the CPU-assigned temporal features
//   collect   (serial, in order)  device: wait for the frame, unpack its terms
//   settle    (parallel)          the finishes' per-frame part (Extractor::settle)
//   complete  (serial, in order)  finish every feature of every lane in
//                                 registration order
//
// Two drivers carry frames through them, as the loop plan says
// (engine/loop_plan.h): drive_pipeline, a oneTBB pipeline on an arena of the
// session's threads (so a GPU run's CPU features scale with --threads), and
// drive_inline, on the caller's thread a window of frames apart (settling on
// a worker arena or inline). Output never depends on the schedule: finish()
// sees frames in index order and every terms list is complete before it.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "engine/loop_plan.h"
#include "features/feature.h"

namespace twinmaf {

// One frame of the reference and of each distorted input ("lane").
struct FrameSet {
  unsigned index = 0;
  PicturePtr ref;
  std::vector<PicturePtr> dis;  // one per lane
};

// Where a run's frames come from: files (engine/input_reader.h) or pictures a
// caller pushes (api/). Frames come in index order from 0.
class FrameFeed {
 public:
  virtual ~FrameFeed() = default;
  // The next frame set; false at the end.
  virtual Result<bool> next(FrameSet* out) = 0;
  // The inputs, for messages ("ref.yuv and dis.yuv").
  virtual std::string describe() const = 0;
};

// One lane's terms of one frame, indexed like the session's features; null:
// not computed at this frame. Shared: a reference-only feature's terms in
// lanes > 0 are lane 0's.
using FrameTermsList = std::vector<std::shared_ptr<FrameTerms>>;

// A frame travelling through the loop's stages.
struct LoopFrame {
  FrameSet set;
  // Frames index-1-k (k < the session's history depths); null before frame 0.
  std::array<PicturePtr, kMaxHistory> prev_ref{};
  std::vector<std::array<PicturePtr, kMaxHistory>> prev_dis;  // per lane
  // Device: the frame's ring slot, and the slots of its history (-1: the
  // frame was not uploaded).
  bool device = false;
  int slot = -1;
  std::array<int, kMaxHistory> prev_slot{};
  std::vector<FrameTermsList> terms;  // per lane
  // Per lane: Extractor::settle() of the terms, where the loop settled them.
  std::vector<FrameTermsList> settled;
  // Set by the worker that settled the frame (the inline driver).
  std::atomic<bool> settle_done{false};
  Status status;

  FrameInput input(unsigned lane) const;
  // Drops the frame's pictures and its history's (back to their pool) once
  // only its terms are read.
  void release_pictures();
};

// The previous frames the registered features read, one object for the CPU
// and the device: the last `ref_depth` reference pictures and `dis_depth`
// distorted pictures of every lane, with their ring slots.
class FrameHistory {
 public:
  FrameHistory(int ref_depth, int dis_depth) : ref_depth_(ref_depth), dis_depth_(dis_depth) {}
  int ref_depth() const { return ref_depth_; }
  int dis_depth() const { return dis_depth_; }
  int depth() const { return ref_depth_ > dis_depth_ ? ref_depth_ : dis_depth_; }
  // Gives w its predecessors (before the device sees it).
  void fill(LoopFrame& w) const;
  // Makes w the most recent frame (after the device took it).
  void push(const LoopFrame& w);

 private:
  struct Entry {
    PicturePtr ref;
    std::vector<PicturePtr> dis;
    int slot = -1;
  };
  int ref_depth_;
  int dis_depth_;
  std::deque<Entry> last_;  // most recent first
};

enum class Pass { kParallel, kOrdered };

// The stages of one run (engine/session.cpp implements them over a session).
// Each records its failure in the frame's status or in the run's; failed()
// tells the drivers to stop admitting.
class LoopStages {
 public:
  virtual ~LoopStages() = default;
  // The next frame, uploaded and enqueued on the device; null at the end of
  // the feed or after a failure.
  virtual std::unique_ptr<LoopFrame> admit() = 0;
  virtual void compute(LoopFrame& w, Pass pass) = 0;
  virtual void collect(LoopFrame& w) = 0;
  // Thread-safe: frames in any order.
  virtual void settle(LoopFrame& w) = 0;
  virtual void complete(LoopFrame& w) = 0;
  virtual bool failed() const = 0;
};

// Run every frame of the feed through `stages` as `plan` says.
void drive_pipeline(LoopStages& stages, const LoopPlan& plan);
void drive_inline(LoopStages& stages, const LoopPlan& plan);

}  // namespace twinmaf
