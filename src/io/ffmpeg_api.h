// FFmpeg's libraries, loaded on first use rather than with the program: with
// their dependencies (about 130 libraries in Debian's build) they cost every
// process about 40 ms of loading and relocation, and raw and Y4M inputs never
// need them. The sonames are those of the headers this build compiled
// against (each library's ABI major version), so the entry points have the
// types the headers declare.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "base/status.h"

namespace twinmaf {

// X(library, function): every FFmpeg function io/ calls.
#define TWINMAF_FFMPEG_FUNCTIONS(X)                                                                 \
  X(avutil, av_frame_alloc) X(avutil, av_frame_free) X(avutil, av_frame_unref) X(avutil, av_frame_move_ref) \
  X(avutil, av_get_pix_fmt) X(avutil, av_log_set_callback) X(avutil, av_pix_fmt_desc_get) \
  X(avutil, av_strerror) X(avutil, av_version_info) X(avutil, av_buffer_ref) X(avutil, av_buffer_unref) \
  X(avutil, av_hwdevice_ctx_alloc) X(avutil, av_hwdevice_ctx_init)                                  \
  X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) X(avcodec, av_packet_unref) X(avcodec, av_packet_clone) \
  X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2)    \
  X(avcodec, avcodec_parameters_to_context) X(avcodec, avcodec_receive_frame)                      \
  X(avcodec, avcodec_send_packet) X(avcodec, avcodec_version) X(avcodec, avcodec_get_hw_config)     \
  X(avformat, av_find_best_stream) X(avformat, av_read_frame) X(avformat, avformat_alloc_context) X(avformat, avformat_close_input)    \
  X(avformat, avformat_find_stream_info) X(avformat, avformat_open_input) X(avformat, avformat_version) \
  X(swscale, sws_freeContext) X(swscale, sws_getContext) X(swscale, sws_isSupportedInput)          \
  X(swscale, sws_isSupportedOutput) X(swscale, sws_scale) X(swscale, swscale_version)

struct FfmpegApi {
#define TWINMAF_FFMPEG_POINTER(lib, fn) decltype(&::fn) fn = nullptr;
  TWINMAF_FFMPEG_FUNCTIONS(TWINMAF_FFMPEG_POINTER)
#undef TWINMAF_FFMPEG_POINTER
};

// The libraries, loaded once (thread-safe); kUnsupported naming the library
// or function that could not be loaded, on every call after a failure too.
Result<const FfmpegApi*> ffmpeg_api();

}  // namespace twinmaf
