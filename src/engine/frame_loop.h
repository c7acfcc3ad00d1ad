// The pieces of the session's one frame loop (engine/session.cpp), shared by
// its CPU half and its device half (engine/device_run.h):
//
//   admit     (serial, in order)  next frame set from the feed; history;
//                                 device: upload + enqueue the active twins
//   compute   (parallel)          CPU-assigned features, frames in parallel
//   ordered   (serial, in order)  CPU-assigned temporal features
//   complete  (serial, in order)  device: wait + unpack; finish every feature
//                                 of every lane in registration order
//
// With threads > 0 these are the stages of a oneTBB pipeline on the session's
// arena (so a GPU run's CPU features scale with --threads); with threads 0
// they run on the caller's thread, a window of frames apart. Output never
// depends on the schedule: finish() sees frames in index order and every
// terms list is complete before it.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
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

// A frame travelling through the loop.
struct FrameWork {
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
  // Set by the worker that settled the frame (the caller's loop).
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
  void fill(FrameWork& w) const;
  // Makes w the most recent frame (after the device took it).
  void push(const FrameWork& w);

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

}  // namespace twinmaf
