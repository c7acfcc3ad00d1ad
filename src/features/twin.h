// GPU twins: the device half of a feature (DESIGN.md sections 2 and 4).
//
// A twin is a device stage (gpu/device_frame.h): it reads the planes the
// session uploaded into its frame ring (it never uploads) and writes its raw
// per-frame terms into the frame's device block. unpack() turns the host copy
// of that block into the feature's FrameTerms, and the engine then calls the
// same Extractor::finish() the CPU path calls: the twin's output equals the
// CPU's as long as the terms are equal, which the twin tests check with ==.
//
// A twin is made from the configured, initialised extractor (its resolved
// parameters: options, limits, plane choice), never from raw options, so
// nothing the CPU decides is decided twice.
#pragma once

#include <memory>

#include "base/status.h"
#include "core/picture.h"
#include "gpu/device_frame.h"

namespace twinmaf {

struct FrameTerms;
class Extractor;

namespace gpu {
class Context;
}

using gpu::DeviceFrame;
using gpu::DevicePicture;

class Twin : public gpu::DeviceStage {
 public:
  // Raw terms (host copy of the device block) -> the feature's FrameTerms.
  virtual void unpack(const void* host_terms, FrameTerms& out) const = 0;
  // True where this twin's raw terms block, read by other.unpack, gives
  // other's terms on every frame both compute (one computation two features
  // make: the session then enqueues only this twin and unpacks both from its
  // block).
  virtual bool computes_for(const Twin& other) const {
    (void)other;
    return false;
  }
};

// A feature's CUDA factory: its configured extractor (after init) and the
// stream format. kUnsupported with the reason when the twin cannot do the
// request exactly (the session then runs that feature on the CPU under
// --backend auto, or fails under --backend cuda).
using TwinFactory = Result<std::unique_ptr<Twin>> (*)(const Extractor& configured, const VideoFormat& fmt,
                                                      gpu::Context& ctx);

}  // namespace twinmaf
