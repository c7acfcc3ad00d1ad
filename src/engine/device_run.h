// The device half of one run of the frame loop (engine/frame_loop.h),
// DESIGN.md section 4. Per frame n, with S ring slots and at most D frames in
// the loop at once (S = D + kMaxHistory + 1, so the slots of the frames a
// frame in flight reads as history stay resident):
//   admit:    after the device has finished every frame that last read slot
//             n % S (a device-side fence on the copy stream; the host does
//             not wait), one async copy per uploaded plane and picture (the
//             reference once, however many lanes), then the device pipeline
//             (gpu/device_pipeline.h): each lane's active twins, the terms
//             readback, above 8 bits the uploaded planes' range check
//   complete: wait for the frame's readback (the only host wait), check the
//             range, unpack each twin's terms into the frame's terms lists
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "engine/frame_loop.h"

namespace twinmaf {

namespace gpu {
class Context;
}

// A feature of one lane as the device run sees it.
struct DeviceFeature {
  Twin* twin = nullptr;         // null: the feature runs on the CPU
  const Extractor* configured;  // makes the pipeline's other bank instances
  TwinFactory factory = nullptr;
  FeatureNeeds needs;
  bool shared_with_lane0 = false;  // reference-only in a lane > 0
  unsigned state_from = 0;  // the first frame the twin computes (a segment's warm-up skips it before)
};

struct DeviceRunSetup {
  VideoFormat fmt;
  gpu::Context* ctx = nullptr;
  std::vector<std::vector<DeviceFeature>> lanes;  // [lane][feature]
  int ring_planes = 1;    // planes uploaded per picture
  int history_depth = 0;  // deepest history a twin reads
  int frames_in_loop = 4;  // D: frames admitted but not completed, at most
  unsigned subsample = 1;
  // A segment (Session::run_segment): frames below keep_from only warm up;
  // those are uploaded for the history of later frames.
  unsigned keep_from = 0;
  bool profile = false;
  // Above 8 bits: true when every feature runs on a twin and the inputs
  // read exactly the uploaded planes; the device then checks the sample
  // range of the uploads and the sources leave it to the device.
  bool device_range_check = false;
  // The host's range check of a frame set, for the error on a device alarm.
  std::function<Status(const FrameSet&)> host_range_check;
};

class DeviceRun {
 public:
  virtual ~DeviceRun() = default;
  // admit: uploads w.set and enqueues the twins active at its index; sets
  // w.device and w.slot. Called in index order.
  virtual Status submit(LoopFrame& w) = 0;
  // complete: waits for w's device work and unpacks the twins' terms into
  // w.terms (sized by the caller). Called in index order.
  virtual Status collect(LoopFrame& w) = 0;
  // After the last frame: waits for the copy stream.
  virtual Status finish() = 0;
  // --profile lines of the device side (ms per frame over `frames`).
  virtual void profile(unsigned frames, std::vector<std::string>& lines) const = 0;
};

// Defined in CUDA builds only.
Result<std::unique_ptr<DeviceRun>> make_device_run(DeviceRunSetup setup);

}  // namespace twinmaf
