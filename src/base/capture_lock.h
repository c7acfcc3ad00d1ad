// Graph capture against the CUDA work of other threads. While the device
// pipeline captures a CUDA graph (gpu/device_pipeline_cuda.cpp), a call on
// another thread that synchronises implicitly (libavcodec's NVDEC decoders
// being made or torn down, their surfaces allocated or freed) invalidates the
// capture. The capture holds this lock exclusively; NVDEC's decoding
// (io/ffmpeg_source.cpp) holds it shared around each call into libavcodec and
// each move of a surface into a picture, never while it waits for anything
// else.
#pragma once

#include <shared_mutex>

namespace twinmaf {

std::shared_mutex& capture_lock();

}  // namespace twinmaf
