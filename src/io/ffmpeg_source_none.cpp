// open_ffmpeg_source where FFmpeg is not linked: builds without it, and
// libvmaf.so (src/capi), which takes pictures only and so does not load
// libavformat/libavcodec into its clients (FFmpeg itself among them).
#include "io/ffmpeg_source.h"

namespace twinmaf {

Result<std::unique_ptr<VideoSource>> open_ffmpeg_source(const std::string& path) {
  TWINMAF_FAIL(kUnsupported, "{}: not a Y4M file; containers need FFmpeg, which this build lacks (raw YUV needs "
               "-w -h -p -b)", path);
}

}  // namespace twinmaf
