// Scorer::push_device (CUDA builds): device pictures into the scorer's
// pictures, then the ordinary push.
#include <cuda_runtime_api.h>

#include "api/scorer_impl.h"
#include "gpu/cuda_check.h"

namespace twinmaf {

Status Scorer::push_device(const DevicePlanes& reference, const std::vector<DevicePlanes>& distorted, void* stream) {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "push_device() before open()");
  if (distorted.size() != m.session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "push_device(): {} distorted pictures for a scorer configured for {}",
                 distorted.size(), m.session->lanes());
  const auto copy = [&](const DevicePlanes& src, int planes) -> Result<PicturePtr> {
    TWINMAF_ASSIGN_OR_RETURN(PicturePtr pic, new_picture());
    for (int p = 0; p < planes; ++p) {
      if (!src.planes[p]) TWINMAF_FAIL(kInvalidArgument, "push_device(): plane {} is null", p);
      const std::size_t row = std::size_t(m.fmt.stored_w(p)) * std::size_t(m.fmt.bytes_per_sample());
      TWINMAF_CUDA_TRY(cudaMemcpy2DAsync(pic->mutable_data(p), std::size_t(pic->stride(p)), src.planes[p],
                                         src.pitch[p], row, std::size_t(m.fmt.stored_h(p)), cudaMemcpyDeviceToHost,
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

}  // namespace twinmaf
