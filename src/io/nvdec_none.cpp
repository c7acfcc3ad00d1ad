// NVDEC where the build has no CUDA backend (io/nvdec.h): refused.
#include "io/nvdec.h"

namespace twinmaf {

Result<std::unique_ptr<Nvdec>> Nvdec::create(const FfmpegApi&, const NvdecContext&) {
  TWINMAF_FAIL(kUnsupported, "this build of twinmaf has no CUDA backend");
}

}  // namespace twinmaf
