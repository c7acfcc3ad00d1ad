// Device-side sample range check of the CUDA path (above 8 and below 16
// bits): the planes a session uploads are OR-ed on the device instead of
// re-read on the host, so the host's only pass over them is the read itself.
// A frame whose OR exceeds 2^bpc - 1 is re-checked on the host pictures by
// check_sample_range (io/source.h), which gives the CPU path's exact error.
#pragma once

#include <memory>

#include "core/picture.h"
#include "engine/extractor.h"
#include "engine/twin.h"

namespace twinmaf {

// The OR of every sample of one lane's uploaded planes.
struct RangeTerms final : FrameTerms {
  uint32_t or_all = 0;
};

// `planes` uploaded planes of the distorted picture, and of the reference
// when `with_ref` (lane 0). Stateless: one instance serves every bank.
std::unique_ptr<Twin> make_range_check_twin(const VideoFormat& fmt, int planes, bool with_ref);

}  // namespace twinmaf
