// What io/ needs FFmpeg for, where FFmpeg is not linked: builds without it,
// and libvmaf.so (src/capi), which takes pictures only and so does not load
// libavformat/libavcodec/libswscale into its clients (FFmpeg itself among
// them). The FFmpeg side: io/ffmpeg_source.cpp, io/scale_source.cpp.
#include "io/ffmpeg_source.h"
#include "io/scale_source.h"

namespace twinmaf {

Result<std::unique_ptr<VideoSource>> open_ffmpeg_source(const std::string& path) {
  TWINMAF_FAIL(kUnsupported, "{}: not a Y4M file; containers need FFmpeg, which this build lacks (raw YUV needs "
               "-w -h -p -b)", path);
}

std::string ffmpeg_version() { return {}; }

void print_ffmpeg_log(bool) {}

Result<int> parse_scaler(std::string_view) {
  TWINMAF_FAIL(kUnsupported, "scaling needs FFmpeg's libswscale, which this build lacks");
}

Result<std::unique_ptr<VideoSource>> with_scale(std::unique_ptr<VideoSource>, int, int, int) {
  TWINMAF_FAIL(kUnsupported, "scaling needs FFmpeg's libswscale, which this build lacks");
}

}  // namespace twinmaf
