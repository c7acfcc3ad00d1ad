#include "gpu/frame_ring.h"

#include "gpu/cuda_check.h"

namespace twinmaf::gpu {

Result<FrameRing> FrameRing::create(const Picture& layout, int planes, int slots) {
  FrameRing r;
  r.planes_ = planes;
  std::size_t total = 0;
  for (int p = 0; p < planes; ++p) {
    r.offset_[p] = layout.plane_offset(p);
    r.pitch_[p] = static_cast<std::size_t>(layout.stride(p));
    r.bytes_[p] = layout.plane_bytes(p);
    total = r.offset_[p] + r.bytes_[p];
  }
  for (int s = 0; s < slots; ++s) {
    Slot slot;
    TWINMAF_ASSIGN_OR_RETURN(slot.ref, DeviceBuffer::create(total));
    TWINMAF_ASSIGN_OR_RETURN(slot.dis, DeviceBuffer::create(total));
    r.slots_.push_back(std::move(slot));
  }
  return r;
}

DevicePicture FrameRing::view(const DeviceBuffer& b) const {
  DevicePicture d;
  for (int p = 0; p < planes_; ++p) {
    d.planes[p] = b.get() + offset_[p];
    d.pitch[p] = pitch_[p];
  }
  return d;
}

Status FrameRing::upload(int slot, const Picture& ref, const Picture& dis, void* stream) const {
  const Slot& s = slots_[size_t(slot)];
  auto st = static_cast<cudaStream_t>(stream);
  for (const auto& [dev, host] : {std::pair{&s.ref, &ref}, std::pair{&s.dis, &dis}}) {
    for (int p = 0; p < planes_; ++p) {
      TWINMAF_CUDA_TRY(cudaMemcpyAsync(dev->get() + offset_[p], host->base() + offset_[p], bytes_[p],
                                       cudaMemcpyHostToDevice, st));
    }
  }
  return ok_status();
}

}  // namespace twinmaf::gpu
