// Containers and codecs through FFmpeg's libavformat/libavcodec: the best
// video stream, decoded frame by frame into pictures (one copy per plane).
// Planar YUV/gray pixel formats of 8..16 bits are accepted; the decoder's
// output must keep one pixel format and size for the whole stream.
#pragma once

#include "io/source.h"

namespace twinmaf {

Result<std::unique_ptr<VideoSource>> open_ffmpeg_source(const std::string& path);

}  // namespace twinmaf
