// Scorer::push_device (CUDA builds): device pictures into the frame loop.
// When every feature runs on a twin (InputPlan::device_input) the planes are
// copied device to device into pictures of the scorer's device pool, which
// the frame ring uploads from without touching the host; otherwise into its
// host pictures, as the CPU features read them.
#include <cuda_runtime_api.h>

#include "api/scorer_impl.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

gpu::DeviceAllocator& device_allocator() {
  static gpu::DeviceAllocator alloc;
  return alloc;
}

}  // namespace

Status Scorer::push_device(const DevicePlanes& reference, const std::vector<DevicePlanes>& distorted, void* stream) {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "push_device() before open()");
  if (distorted.size() != m.session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "push_device(): {} distorted pictures for a scorer configured for {}",
                 distorted.size(), m.session->lanes());
  if (m.plan.device_input && !m.device_pool)
    m.device_pool = std::make_unique<PicturePool>(m.fmt, device_allocator(), std::max(m.plan.ref_planes, m.plan.dis_planes));
  PicturePool& pool = m.plan.device_input ? *m.device_pool : *m.pool;
  const auto copy = [&](const DevicePlanes& src, int planes) -> Result<PicturePtr> {
    PicturePtr pic = pool.acquire();
    for (int p = 0; p < planes; ++p) {
      if (!src.planes[p]) TWINMAF_FAIL(kInvalidArgument, "push_device(): plane {} is null", p);
      const std::size_t row = std::size_t(m.fmt.stored_w(p)) * std::size_t(m.fmt.bytes_per_sample());
      // cudaMemcpyDefault: the source may belong to another context of the
      // device (unified addressing tells the copy's direction).
      TWINMAF_CUDA_TRY(cudaMemcpy2DAsync(pic->mutable_data(p), std::size_t(pic->stride(p)), src.planes[p],
                                         src.pitch[p], row, std::size_t(m.fmt.stored_h(p)), cudaMemcpyDefault,
                                         static_cast<cudaStream_t>(stream)));
    }
    return pic;
  };
  TWINMAF_ASSIGN_OR_RETURN(PicturePtr ref, copy(reference, m.plan.ref_planes));
  std::vector<PicturePtr> dis;
  for (const DevicePlanes& d : distorted) {
    TWINMAF_ASSIGN_OR_RETURN(PicturePtr pic, copy(d, m.plan.dis_planes));
    dis.push_back(std::move(pic));
  }
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  return push(std::move(ref), std::move(dis));
}

Result<PicturePtr> host_copy(const Picture& device_picture) {
  const VideoFormat& f = device_picture.format();
  int planes = 0;
  while (planes < f.planes() && device_picture.data(planes)) ++planes;
  auto host = std::make_shared<Picture>(f, host_allocator(), planes);
  TWINMAF_CUDA_TRY(cudaMemcpy(host->mutable_data(0), device_picture.base(), device_picture.bytes(),
                              cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace twinmaf
