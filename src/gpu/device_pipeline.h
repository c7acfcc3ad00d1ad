// The per-frame device sequence of a CUDA session (DESIGN.md section 4),
// shared with twinmaf_gpu_bench's resident mode so that the benchmark times
// exactly what a run enqueues.
//
// Frame n goes to bank b = (its GPU-frame counter) % banks. A bank is a launch
// stream plus one instance of every stage (a feature's twin, a range check;
// their scratch buffers are private to the instance) and, when forking, one
// stream per stage. On its launch stream, after the caller's `ready` event
// (the upload):
//   zero the terms block of the frame's slot; each active stage on its bank
//   stream (forked from and joined back to the launch stream); one async copy
//   of the block to pinned host memory; record done(slot).
// A stage instance's frames stay in order on its bank's streams, so scratch is
// never shared by two frames in flight, while frames of different banks run
// concurrently: the small kernels of one frame fill the SMs the other leaves
// idle.
//
// Graph replay: the sequence is a pure function of (slot, bank, the active
// stages, every plane pointer of every lane's DeviceFrame, min(index,
// kReplayIndex)) (DeviceStage::enqueue's contract), so the first frame with a given
// key is captured into a CUDA graph and every later one replays it: one
// launch per frame instead of one per kernel, event and copy.
//
// Profile mode: one bank, no fork, no graphs, and timing events around every
// stage (marks()).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "gpu/device.h"
#include "gpu/device_frame.h"

namespace twinmaf::gpu {

// Each stage's raw terms start at a multiple of this in a frame's terms block.
inline constexpr std::size_t kTermsAlign = 256;

struct PipelineStage {
  std::vector<DeviceStage*> banks;  // one instance per bank, same configuration
  unsigned lane = 0;         // index into the per-lane frames of enqueue()
  std::size_t offset = 0;    // of its raw terms in the frame's terms block
};

struct PipelineMode {
  int banks = 3;
  bool graphs = true;
  bool profile = false;  // forces one bank, no fork and no graphs
  int bank_count() const { return profile ? 1 : std::max(1, banks); }
};

// Completes t.banks to mode.bank_count() instances, each made by `make` (the
// first instance's configuration); `owned` keeps the new ones.
Status add_bank_instances(PipelineStage& t, const PipelineMode& mode,
                          const std::function<Result<std::unique_ptr<DeviceStage>>()>& make,
                          std::vector<std::unique_ptr<DeviceStage>>& owned);

class DevicePipeline {
 public:
  // `slots` terms blocks of `terms_bytes` each (device and pinned host).
  static Result<std::unique_ptr<DevicePipeline>> create(std::vector<PipelineStage> stages, std::size_t terms_bytes,
                                                        int slots, PipelineMode mode);
  ~DevicePipeline();
  DevicePipeline(const DevicePipeline&) = delete;
  DevicePipeline& operator=(const DevicePipeline&) = delete;

  int banks() const { return static_cast<int>(banks_.size()); }
  // Enqueues one frame into `slot`; `frames` per lane (one frame index),
  // `active` per stage; `ready` (a cudaEvent_t, or null) orders it after the
  // caller's upload.
  Status enqueue(int slot, const std::vector<DeviceFrame>& frames, const std::vector<bool>& active, void* ready);
  // The event recorded behind the last enqueue into `slot` (cudaEvent_t).
  void* done(int slot) const { return slots_[std::size_t(slot)].done.get(); }
  // Host wait for the last frame of `slot`; its raw terms are then readable.
  Status wait(int slot) const;
  const uint8_t* host_terms(int slot) const { return slots_[std::size_t(slot)].host.get(); }
  // Profile mode only: timing events of the slot's last frame, [0] when it
  // started on the device, [k + 1] after stage k, [stages + 1] after the
  // readback.
  const std::vector<Event>& marks(int slot) const { return slots_[std::size_t(slot)].marks; }
  // Distinct captured sequences so far (graph mode).
  std::size_t graphs() const { return graphs_.size(); }

 private:
  struct Bank {
    Stream launch;
    std::vector<Stream> stage;  // fork mode: one per stage
  };
  struct Slot {
    DeviceBuffer terms;
    PinnedBuffer host;
    Event done;
    std::vector<Event> marks;
  };
  struct Graph;
  DevicePipeline() = default;
  // The direct sequence on bank b's streams (also what a capture records).
  Status launch(int slot, int b, const std::vector<DeviceFrame>& frames, const std::vector<bool>& active);
  // The frame's graph key into `k` (its capacity is reused frame to frame).
  void key(int slot, int b, const std::vector<DeviceFrame>& frames, const std::vector<bool>& active,
           std::string& k) const;

  std::vector<PipelineStage> stages_;
  std::size_t terms_bytes_ = 0;
  PipelineMode mode_;
  bool fork_ = false;
  std::vector<Bank> banks_;
  std::vector<Slot> slots_;
  Event fork_event_;               // fork/join points; reused, stream order
  std::vector<Event> join_events_;  // one per stage
  std::map<std::string, std::unique_ptr<Graph>> graphs_;
  std::string key_;  // enqueue's key buffer
  unsigned long long frames_ = 0;
};

}  // namespace twinmaf::gpu
