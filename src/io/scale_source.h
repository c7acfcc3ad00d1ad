// A source scaled to another size by libswscale: what `ffmpeg -vf
// scale=W:H:flags=F` does to a file before it is scored, in memory.
//
// Contract: every plane of every frame equals, byte for byte, the output of
// FFmpeg's scale filter (same libswscale, same flags, default chroma siting
// and range) on the same frame; the layout and bit depth stay the input's.
// Scaling reads every plane of the input, whatever the features read.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "io/source.h"

namespace twinmaf {

// libswscale's algorithm flag for a scaler name (FFmpeg's spelling:
// "bicubic", "bilinear", "lanczos", "spline", "area", "neighbor", "gauss",
// "sinc", "bicublin", "fast_bilinear"); an error lists them.
Result<int> parse_scaler(std::string_view name);

// `src` scaled to w x h with the libswscale flags of parse_scaler. Errors:
// a bit depth or layout libswscale has no format for, a size whose chroma is
// empty.
Result<std::unique_ptr<VideoSource>> with_scale(std::unique_ptr<VideoSource> src, int w, int h, int sws_flags);

}  // namespace twinmaf
