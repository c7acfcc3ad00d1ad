// Device-side sample range check of the CUDA path (above 8 and below 16
// bits): the planes a session uploads are OR-ed on the device instead of
// re-read on the host, so the host's only pass over them is the read itself.
// A frame whose OR exceeds 2^bpc - 1 is re-checked on the host pictures by
// check_sample_range (io/source.h), which gives the CPU path's exact error.
#pragma once

#include <cstdint>
#include <memory>

#include "core/picture.h"
#include "gpu/device_frame.h"

namespace twinmaf::gpu {

// A stage ORing `planes` uploaded planes of one lane's distorted picture, and
// of the reference when `with_ref` (lane 0). Stateless: one instance serves
// every bank.
std::unique_ptr<DeviceStage> make_range_check(const VideoFormat& fmt, int planes, bool with_ref);

// The OR of every checked sample, from the stage's host terms.
uint32_t range_check_or(const void* host_terms);

}  // namespace twinmaf::gpu
