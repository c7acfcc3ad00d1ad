// NVDEC for FFmpeg inputs (io/ffmpeg_source.cpp): libavcodec's CUDA hwaccel
// decoding in the session's CUDA context on a stream of the decoder's own,
// its surfaces copied into device pictures of the input's planar layout.
// CUDA builds with FFmpeg: io/nvdec_cuda.cpp; others refuse (io/nvdec_none.cpp).
#pragma once

#include <memory>

#include "base/status.h"
#include "core/picture.h"

struct AVBufferRef;
struct AVFrame;

namespace twinmaf {

struct FfmpegApi;
struct NvdecContext;

class Nvdec {
 public:
  // A CUDA device context for libavcodec (AV_HWDEVICE_TYPE_CUDA) over
  // `ctx`'s CUcontext, with a stream of its own for the hwaccel's copies.
  static Result<std::unique_ptr<Nvdec>> create(const FfmpegApi& av, const NvdecContext& ctx);
  virtual ~Nvdec() = default;
  // The device context, for AVCodecContext::hw_device_ctx (the caller takes a reference).
  virtual AVBufferRef* device() const = 0;
  // Copies `frame` into `out`, a device picture (planes [0, planes) of its
  // format): a CUDA surface (NV12, P010, P016, YUV444P, YUV444P16: 16-bit
  // samples hold the value in their top bits) is relaid on the device, a
  // software frame (the hwaccel refused the stream) is uploaded. The samples
  // are moved, never computed on. Complete when it returns.
  virtual Status copy(const AVFrame& frame, int planes, Picture& out) = 0;
};

}  // namespace twinmaf
