// What a device stage sees of a frame, and the stage interface the device
// pipeline runs (gpu/device_pipeline.h). CUDA-free, so that code naming
// stages builds without CUDA.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "core/picture.h"

namespace twinmaf::gpu {

// Device planes of one picture in the frame ring: planes[p] of pitch[p] bytes
// per row, in the picture's stored layout (core/picture.h), scored size as
// VideoFormat::plane_w/plane_h. Planes the session does not upload are null.
struct DevicePicture {
  const uint8_t* planes[3] = {};
  std::size_t pitch[3] = {};
};

// Frame indices at or above this launch the same kernels (temporal stages
// only skip the first frames).
constexpr unsigned kReplayIndex = 2;

// One lane's view of a frame. prev_ref[k] / prev_dis[k]: the pictures of
// frame index-1-k, still resident in the ring, up to the depths the
// features declared (null planes beyond them or before frame 0).
struct DeviceFrame {
  unsigned index = 0;
  DevicePicture ref, dis;
  std::array<DevicePicture, kMaxHistory> prev_ref{}, prev_dis{};
};

// Device work of one frame that writes raw per-frame terms into a block the
// pipeline zeroes before the frame and reads back to pinned host memory.
class DeviceStage {
 public:
  virtual ~DeviceStage() = default;
  // Bytes of raw terms per frame (zeroed before every frame, so integer sums
  // may be accumulated with atomics).
  virtual std::size_t terms_bytes() const = 0;
  // Launches the frame's kernels on `stream` (a cudaStream_t). Must not block
  // the host, and must be a pure function of this instance, the frame's
  // plane pointers and pitches, min(frame.index, kReplayIndex) and the
  // arguments: the pipeline captures the launches once per distinct input
  // and replays them as a CUDA graph.
  virtual Status enqueue(const DeviceFrame& frame, void* device_terms, void* stream) = 0;
  // Kernel names for profiles ("psnr_sse_8bpc_cuda").
  virtual std::string name() const = 0;
};

}  // namespace twinmaf::gpu
