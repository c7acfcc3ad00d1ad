// GPU twins: the device half of a feature (DESIGN.md sections 2 and 4).
//
// A twin reads the planes the session uploaded into its frame ring (it never
// uploads), launches kernels on the session's stream, and writes its raw
// per-frame terms into a device block that the session zeroes before the
// frame and reads back to pinned host memory in one copy per frame. unpack()
// turns that block into the feature's FrameTerms, and the engine then calls the
// same Extractor::finish() the CPU path calls: the twin's output equals the
// CPU's by construction as long as the terms are equal, which the twin tests
// check with ==.
//
// This header is CUDA-free so that FeatureSpec can name twins in builds
// without CUDA (where no twin is ever created).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "core/options.h"
#include "core/picture.h"

namespace twinmaf {

struct FrameTerms;

namespace gpu {
class Context;
}

// Device planes of one picture in the ring: planes[p] of pitch[p] bytes per
// row, in the picture's stored layout (core/picture.h), scored size as
// VideoFormat::plane_w/plane_h. Chroma pointers are null unless some twin of
// the session reads chroma.
struct DevicePicture {
  const uint8_t* planes[3] = {};
  std::size_t pitch[3] = {};
};

// Frame indices at or above this launch the same kernels (temporal twins
// only skip the first frames).
constexpr unsigned kReplayIndex = 2;

struct DeviceFrame {
  unsigned index = 0;
  DevicePicture ref, dis;
  // Reference pictures of frames index-1 and index-2 (null planes where the
  // frame does not exist), still resident in the ring.
  DevicePicture prev_ref, prev_prev_ref;
};

class Twin {
 public:
  virtual ~Twin() = default;
  // Bytes of raw terms per frame on the device (the block is zeroed before
  // every frame, so integer sums may be accumulated with atomics).
  virtual std::size_t terms_bytes() const = 0;
  virtual bool reads_chroma() const = 0;
  // Launches the frame's kernels on `stream` (a cudaStream_t). Must not block
  // the host, and must be a pure function of this instance, the frame's
  // plane pointers and pitches, min(frame.index, kReplayIndex) and the
  // arguments: the session captures the launches once per distinct input
  // and replays them as a CUDA graph (engine/device_pipeline.h).
  virtual Status enqueue(const DeviceFrame& frame, void* device_terms, void* stream) = 0;
  // Raw terms (host copy of the device block) -> the feature's FrameTerms.
  virtual void unpack(const void* host_terms, FrameTerms& out) const = 0;
  // Kernel names for profiles ("psnr_sse_8bpc_cuda").
  virtual std::string name() const = 0;
};

// What a feature's CUDA factory gets: its parsed options and the stream
// format. It returns kUnsupported with the reason when the twin cannot do the
// request exactly (the session then runs that feature on the CPU under
// --backend auto, or fails under --backend cuda).
using TwinFactory =
    Result<std::unique_ptr<Twin>> (*)(const Options& options, const VideoFormat& fmt, gpu::Context& ctx);

}  // namespace twinmaf
