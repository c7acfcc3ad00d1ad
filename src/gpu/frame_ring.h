// The session's frame ring: N device slots, each holding the reference and
// every distorted picture of one frame in the host pictures' own layout (same plane offsets
// and strides), so each picture's planes cross the bus as one contiguous async copy: a
// copy per plane costs the calling thread an API call and the copy engine a gap each.
// Chroma is allocated and uploaded only when `planes` is 3.
//
// Reuse contract: the caller orders each upload into a slot after every frame
// that last read it, with a device-side fence on the copy stream (the engine
// waits there on those frames' `done` events, engine/device_run.h), so the
// host never blocks to recycle a slot.
#pragma once

#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "gpu/device.h"
#include "gpu/device_frame.h"

namespace twinmaf::gpu {

class FrameRing {
 public:
  // `pictures` per slot: the reference and one per distorted input.
  static Result<FrameRing> create(const Picture& layout, int planes, int slots, int pictures);
  int slots() const { return static_cast<int>(slots_.size()); }
  DevicePicture ref(int slot) const { return view(slots_[size_t(slot)][0]); }
  DevicePicture dis(int slot, unsigned lane) const { return view(slots_[size_t(slot)][lane + 1]); }
  // One cudaMemcpyAsync per picture on `stream`: ref, then dis[]
  // (host pictures cross the bus; device pictures are copied on the device).
  Status upload(int slot, const Picture& ref, const std::vector<PicturePtr>& dis, void* stream) const;
  int planes() const { return planes_; }
  std::size_t plane_bytes(int p) const { return bytes_[p]; }

 private:
  DevicePicture view(const DeviceBuffer& b) const;
  Status upload_picture(const DeviceBuffer& dev, const Picture& host, void* stream) const;
  std::vector<std::vector<DeviceBuffer>> slots_;
  int planes_ = 1;
  std::size_t offset_[3] = {};
  std::size_t pitch_[3] = {};
  std::size_t bytes_[3] = {};
  std::size_t total_ = 0;  // planes 0 .. planes_ - 1, contiguous from offset 0
};

}  // namespace twinmaf::gpu
