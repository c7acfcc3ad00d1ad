// Video sources: raw planar YUV, Y4M, and (when built with FFmpeg) any
// container/codec libavformat reads (mp4, mkv, ...).
//
// Every source yields pictures in the layout of core/picture.h: the file's
// real plane sizes (ceil chroma for odd sizes) are read into storage, the
// scored picture is libvmaf's floor chroma. Errors are one line naming the
// file: unknown header fields, unsupported colour spaces, truncated frames,
// samples above the declared bit depth.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "core/picture.h"
#include "twinmaf/types.h"

namespace twinmaf {

// The sample range of an input: full where it says so (FFmpeg's color_range
// pc, a yuvj pixel format, Y4M's XCOLORRANGE=FULL), else limited (the
// convention for unmarked YUV); raw files cannot say (unknown).
enum class ColorRange : uint8_t { kUnknown, kLimited, kFull };

// The CUDA context NVDEC decodes in (the session's): its CUcontext, and what
// makes it current on a thread.
struct NvdecContext {
  void* cu_context = nullptr;
  std::function<Status()> bind;
};

class VideoSource {
 public:
  virtual ~VideoSource() = default;
  virtual const VideoFormat& format() const = 0;
  const std::string& path() const { return path_; }
  // Reads the next frame into `pic` (of format()). false at the end of the
  // stream; an error for a partial frame.
  virtual Result<bool> read(Picture& pic) = 0;
  // The same for a reader holding pictures of `pool` (InputReader's stream
  // mode): `pic` becomes the next frame's picture, one of `pool`'s. A source
  // with decoders working ahead hands over a picture they filled.
  virtual Result<bool> read(PicturePool& pool, PicturePtr& pic) {
    pic = pool.acquire();
    return read(*pic);
  }
  // Skips n frames (read and discarded where the format cannot seek). Running
  // out of frames while skipping is not an error; later reads return false.
  virtual Status skip(unsigned n);
  // Random access (fixed-size frames): read_frame(i) reads the i-th frame
  // after the skipped ones, from any thread, without moving read()'s position.
  virtual bool random_access() const { return false; }
  virtual Result<bool> read_frame(unsigned index, Picture& pic) const;
  // Random access: the frames that begin in the file (after the skipped
  // ones); read_frame(i) at or past it returns false without reading.
  // nullopt where unknown.
  virtual std::optional<uint64_t> frames_begun() const { return std::nullopt; }
  // Frames the input holds from its start, for progress estimates only: exact
  // for raw files, from the size for Y4M files (bare FRAME headers assumed),
  // the container's count or duration for FFmpeg inputs; none for streams.
  virtual std::optional<unsigned> frames_hint() const { return std::nullopt; }
  virtual ColorRange color_range() const { return ColorRange::kUnknown; }
  // Inputs that decode (FFmpeg). set_decoder(), before the first read or
  // skip: CPU decoding on `threads` (0: libavcodec's choice, a thread per
  // core), or NVDEC in `nvdec`, after which read() fills device pictures
  // (of the session's device allocator) and no host check reads them.
  // With `decoders` > 1, that many decoders of that kind decode stretches of
  // the stream between random-access points at once (io/access_points.h),
  // holding at most `ahead_bytes` of decoded pictures, when the stream
  // allows it; read(pool, pic) hands out their frames in order.
  virtual bool decodes() const { return false; }
  struct Decoder {
    unsigned threads = 0;
    const NvdecContext* nvdec = nullptr;
    bool nvdec_only = false;  // a stream the driver refuses is an error, not a CPU decode
    unsigned decoders = 1;
    uint64_t ahead_bytes = 0;
  };
  virtual Status set_decoder(const Decoder& /*decoder*/) { return ok_status(); }
  // Why NVDEC cannot decode this input; empty where libavcodec has a CUDA
  // hwaccel for its codec and layout (the driver may still refuse the
  // stream: read() then decodes on the CPU, or fails where nvdec_only).
  virtual std::string nvdec_refusal() const { return "not a compressed input"; }
  // An H.264 stream: where CPU decoders share the inputs with NVDEC, they
  // take these first (NVDEC decodes H.264 at about two thirds of its HEVC
  // rate, CPU decoders at about the same rate: engine/loop_plan.h).
  virtual bool h264() const { return false; }
  // Decoding so far: the decoder ("nvdec", "cpu, 8 threads", "4 decoders
  // (nvdec each) over 12 stretches"), the time spent decoding (in read() and
  // skip(); with several decoders, from their start to their last frame),
  // frames decoded. Empty decoder: the input does not decode.
  struct DecodeStats {
    std::string decoder;
    double seconds = 0;
    unsigned frames = 0;
  };
  virtual DecodeStats decode_stats() const { return {}; }
  // Planes to read: 1 reads luma only and leaves chroma storage untouched
  // (for feature sets that never read chroma). Default: all planes.
  void set_planes_needed(int planes) { planes_needed_ = planes; }
  int planes_needed() const { return planes_needed_; }
  // Above 8 bits (and below 16) every sample read is checked against the
  // depth; planes below `first` are left to the caller (the CUDA path checks
  // the planes it uploads on the device, exactly). Default: all checked here.
  void set_host_range_check_from(int first) { host_check_from_ = first; }

 protected:
  explicit VideoSource(std::string path) : path_(std::move(path)) {}
  int planes_needed_ = 3;
  int host_check_from_ = 0;

 private:
  std::string path_;
};

// Opens `path`: Y4M by its signature, raw when `raw` is given (and the name is
// not a known container), otherwise through FFmpeg.
Result<std::unique_ptr<VideoSource>> open_source(const std::string& path,
                                                 const std::optional<RawParams>& raw);

// The FFmpeg libraries this build reads and scales with ("5.1.9 (libavformat
// 59.27.100, ...)"); empty without FFmpeg.
std::string ffmpeg_version();
// FFmpeg's own log lines (warnings and errors) on stderr, as
// "twinmaf: ffmpeg: [component] text"; by default none. Either way an error
// FFmpeg reports while reading or decoding an input fails that input's read
// with its text.
void print_ffmpeg_log(bool print);

// Checks that every sample of stored planes [first, planes) is below 2^bpc
// (bpc > 8); the error names the first one that is not.
Status check_sample_range(const Picture& pic, int first, int planes, const std::string& path, unsigned frame);

}  // namespace twinmaf
