#include "gpu/frame_ring.h"

#include "base/assert.h"
#include "gpu/cuda_check.h"

namespace twinmaf::gpu {

Result<FrameRing> FrameRing::create(const Picture& layout, int planes, int slots, int pictures) {
  FrameRing r;
  r.planes_ = planes;
  for (int p = 0; p < planes; ++p) {
    r.offset_[p] = layout.plane_offset(p);
    r.pitch_[p] = static_cast<std::size_t>(layout.stride(p));
    r.bytes_[p] = layout.plane_bytes(p);
  }
  // Picture packs its planes without gaps from offset 0.
  for (int p = 0; p < planes; ++p) TWINMAF_DASSERT(r.offset_[p] == (p ? r.offset_[p - 1] + r.bytes_[p - 1] : 0));
  r.total_ = r.offset_[planes - 1] + r.bytes_[planes - 1];
  for (int s = 0; s < slots; ++s) {
    std::vector<DeviceBuffer> slot;
    for (int k = 0; k < pictures; ++k) {
      TWINMAF_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::create(r.total_));
      slot.push_back(std::move(b));
    }
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

Status FrameRing::upload_picture(const DeviceBuffer& dev, const Picture& host, void* stream) const {
  TWINMAF_CUDA_TRY(
      cudaMemcpyAsync(dev.get(), host.base(), total_, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
  return ok_status();
}

Status FrameRing::upload(int slot, const Picture& ref, const std::vector<PicturePtr>& dis, void* stream) const {
  const auto& s = slots_[size_t(slot)];
  TWINMAF_RETURN_IF_ERROR(upload_picture(s[0], ref, stream));
  for (size_t k = 0; k < dis.size(); ++k) TWINMAF_RETURN_IF_ERROR(upload_picture(s[k + 1], *dis[k], stream));
  return ok_status();
}

}  // namespace twinmaf::gpu
