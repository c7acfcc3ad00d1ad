// The session's frame ring: N device slots, each holding the (ref, dis)
// pictures of one frame in the host pictures' own layout (same plane offsets
// and strides), so each plane crosses the bus as one contiguous async copy.
// Chroma is allocated and uploaded only when `planes` is 3.
//
// Reuse contract: the upload into a slot is ordered on the device after an
// event recorded behind the last kernel that read the slot (wait_before_upload),
// so the host never blocks to recycle a slot.
#pragma once

#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "engine/twin.h"
#include "gpu/device.h"

namespace twinmaf::gpu {

class FrameRing {
 public:
  static Result<FrameRing> create(const Picture& layout, int planes, int slots);
  int slots() const { return static_cast<int>(slots_.size()); }
  DevicePicture ref(int slot) const { return view(slots_[size_t(slot)].ref); }
  DevicePicture dis(int slot) const { return view(slots_[size_t(slot)].dis); }
  // One cudaMemcpyAsync per plane and picture on `stream`.
  Status upload(int slot, const Picture& ref, const Picture& dis, void* stream) const;
  int planes() const { return planes_; }
  std::size_t plane_bytes(int p) const { return bytes_[p]; }

 private:
  struct Slot {
    DeviceBuffer ref, dis;
  };
  DevicePicture view(const DeviceBuffer& b) const;
  std::vector<Slot> slots_;
  int planes_ = 1;
  std::size_t offset_[3] = {};
  std::size_t pitch_[3] = {};
  std::size_t bytes_[3] = {};
};

}  // namespace twinmaf::gpu
