#include "io/ffmpeg_source.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "base/stopwatch.h"
#include "io/ffmpeg_api.h"
#include "io/nvdec.h"

namespace twinmaf {

namespace {

std::string av_error(const FfmpegApi& av, int err) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av.av_strerror(err, buf, sizeof buf);
  return buf;
}

Result<VideoFormat> map_format(const FfmpegApi& av, int w, int h, AVPixelFormat pf) {
  const AVPixFmtDescriptor* d = av.av_pix_fmt_desc_get(pf);
  if (!d) TWINMAF_FAIL(kUnsupported, "unknown pixel format");
  const char* name = d->name;
  if (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                  AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_FLOAT))
    TWINMAF_FAIL(kUnsupported, "pixel format {} is not planar little-endian YUV", name);
  VideoFormat f{w, h, PixFmt::k420, d->comp[0].depth};
  const int comps = d->nb_components - ((d->flags & AV_PIX_FMT_FLAG_ALPHA) ? 1 : 0);
  if (comps == 1) {
    f.fmt = PixFmt::k400;
  } else if (comps == 3 && (d->flags & AV_PIX_FMT_FLAG_PLANAR)) {
    if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1) f.fmt = PixFmt::k420;
    else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0) f.fmt = PixFmt::k422;
    else if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0) f.fmt = PixFmt::k444;
    else TWINMAF_FAIL(kUnsupported, "pixel format {}: chroma subsampling is not 4:2:0/4:2:2/4:4:4", name);
  } else {
    TWINMAF_FAIL(kUnsupported, "pixel format {} is not planar YUV or gray", name);
  }
  for (int c = 0; c < comps; ++c) {
    const int step = d->comp[c].step;
    if (d->comp[c].shift != 0 || d->comp[c].depth != f.bpc || step != (f.bpc > 8 ? 2 : 1) ||
        d->comp[c].offset != 0)
      TWINMAF_FAIL(kUnsupported, "pixel format {} has packed or shifted samples", name);
  }
  TWINMAF_RETURN_IF_ERROR(validate_format(f));
  return f;
}

class FfmpegSource final : public VideoSource {
 public:
  FfmpegSource(const FfmpegApi& api, std::string path) : VideoSource(std::move(path)), av(api) {}
  ~FfmpegSource() override {
    av.av_frame_free(&frame_);
    av.av_packet_free(&packet_);
    av.avcodec_free_context(&codec_);  // before nvdec_: the decoder holds its device context
    nvdec_.reset();
    av.avformat_close_input(&fmt_ctx_);
  }

  Status open() {
    int err = av.avformat_open_input(&fmt_ctx_, path().c_str(), nullptr, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot open as a container: {}", path(), av_error(av, err));
    err = av.avformat_find_stream_info(fmt_ctx_, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot read stream info: {}", path(), av_error(av, err));
    const AVCodec* dec = nullptr;
    stream_ = av.av_find_best_stream(fmt_ctx_, AVMEDIA_TYPE_VIDEO, -1, -1, &dec, 0);
    if (stream_ < 0 || !dec) TWINMAF_FAIL(kBadInput, "{}: no decodable video stream", path());
    decoder_ = dec;
    packet_ = av.av_packet_alloc();
    frame_ = av.av_frame_alloc();
    if (!packet_ || !frame_) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    // The decoder opens at the first read or skip, once set_decoder() has
    // said where it runs.
    const AVCodecParameters* par = fmt_ctx_->streams[stream_]->codecpar;
    auto f = map_format(av, par->width, par->height, static_cast<AVPixelFormat>(par->format));
    if (!f.ok()) return Status(f.status().code(), fmt::format("{}: {}", path(), f.status().message()));
    format_ = *f;
    return ok_status();
  }

  const VideoFormat& format() const override { return format_; }

  ColorRange color_range() const override {
    const AVCodecParameters* par = fmt_ctx_->streams[stream_]->codecpar;
    if (par->color_range == AVCOL_RANGE_JPEG) return ColorRange::kFull;
    const AVPixFmtDescriptor* d = av.av_pix_fmt_desc_get(static_cast<AVPixelFormat>(par->format));
    return d && std::string_view(d->name).starts_with("yuvj") ? ColorRange::kFull : ColorRange::kLimited;
  }
  bool decodes() const override { return true; }
  Status set_decoder(const Decoder& d) override {
    if (codec_) TWINMAF_FAIL(kInternal, "{}: decoder set after the first read", path());
    setup_ = d;
    if (!d.nvdec) return ok_status();
    const std::string refusal = nvdec_refusal();
    if (!refusal.empty()) TWINMAF_FAIL(kUnsupported, "{}: NVDEC cannot decode it: {}", path(), refusal);
    auto n = Nvdec::create(av, *d.nvdec);
    if (!n.ok()) TWINMAF_FAIL(kUnsupported, "{}: NVDEC: {}", path(), n.status().message());
    nvdec_ = std::move(*n);
    return ok_status();
  }
  std::string nvdec_refusal() const override {
    bool hwaccel = false;
    for (int i = 0;; ++i) {
      const AVCodecHWConfig* c = av.avcodec_get_hw_config(decoder_, i);
      if (!c) break;
      hwaccel = hwaccel || (c->device_type == AV_HWDEVICE_TYPE_CUDA && (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX));
    }
    if (!hwaccel) return fmt::format("libavcodec's {} decoder has no CUDA hwaccel", decoder_->name);
    if (format_.fmt != PixFmt::k420 && format_.fmt != PixFmt::k444)
      return fmt::format("NVDEC decodes 4:2:0 and 4:4:4, not {}", pix_fmt_name(format_.fmt));
    return {};
  }
  DecodeStats decode_stats() const override {
    DecodeStats s{"", seconds_.ms() / 1000.0, frames_};
    if (nvdec_ && !nvdec_refused_) s.decoder = "nvdec";
    else s.decoder = fmt::format("cpu, {}{}",
                                 setup_.threads == 0   ? std::string("a thread per core")
                                 : setup_.threads == 1 ? std::string("1 thread")
                                                       : fmt::format("{} threads", setup_.threads),
                                 nvdec_refused_ ? " (the driver refused NVDEC)" : "");
    return s;
  }

  Status skip(unsigned n) override {
    if (!nvdec_) return VideoSource::skip(n);
    const auto t = Clock::now();
    for (unsigned i = 0; i < n; ++i) {
      TWINMAF_ASSIGN_OR_RETURN(bool got, next_frame());
      if (!got) break;
      av.av_frame_unref(frame_);
      ++frames_;
    }
    seconds_.add(t);
    return ok_status();
  }

  std::optional<unsigned> frames_hint() const override {
    const AVStream* st = fmt_ctx_->streams[stream_];
    if (st->nb_frames > 0) return static_cast<unsigned>(std::min<int64_t>(st->nb_frames, UINT32_MAX));
    const AVRational rate = st->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) return std::nullopt;
    double seconds = 0;
    if (st->duration != AV_NOPTS_VALUE) seconds = double(st->duration) * av_q2d(st->time_base);
    else if (fmt_ctx_->duration != AV_NOPTS_VALUE) seconds = double(fmt_ctx_->duration) / AV_TIME_BASE;
    const double frames = seconds * av_q2d(rate) + 0.5;
    if (!(frames >= 1) || frames > UINT32_MAX) return std::nullopt;
    return static_cast<unsigned>(frames);
  }

  Result<bool> read(Picture& pic) override {
    const auto t = Clock::now();
    Result<bool> got = read_frame(pic);
    seconds_.add(t);
    if (got.ok() && *got) ++frames_;
    return got;
  }

 private:
  Result<bool> read_frame(Picture& pic) {
    TWINMAF_ASSIGN_OR_RETURN(bool got, next_frame());
    if (!got) return false;
    const int planes = std::min(planes_needed_, format_.planes());
    if (frame_->format == AV_PIX_FMT_CUDA) {
      if (frame_->width != format_.w || frame_->height != format_.h)
        TWINMAF_FAIL(kBadInput, "{}: frame {} changes size mid-stream", path(), index_);
      TWINMAF_RETURN_IF_ERROR(nvdec_->copy(*frame_, planes, pic));
      av.av_frame_unref(frame_);
      ++index_;
      return true;
    }
    auto f = map_format(av, frame_->width, frame_->height, static_cast<AVPixelFormat>(frame_->format));
    if (!f.ok() || !(*f == format_))
      TWINMAF_FAIL(kBadInput, "{}: frame {} changes size or pixel format mid-stream", path(), index_);
    if (nvdec_) {  // libavcodec fell back to its software decoder
      if (setup_.nvdec_only)
        TWINMAF_FAIL(kUnsupported, "{}: NVDEC refused the stream (--decode nvdec; --decode auto decodes it on the CPU)",
                     path());
      nvdec_refused_ = true;
      TWINMAF_RETURN_IF_ERROR(nvdec_->copy(*frame_, planes, pic));
      av.av_frame_unref(frame_);
      ++index_;
      return true;
    }
    const int bps = format_.bytes_per_sample();
    for (int p = 0; p < planes; ++p) {
      const size_t row = size_t(format_.stored_w(p)) * size_t(bps);
      for (int y = 0; y < format_.stored_h(p); ++y)
        std::memcpy(pic.mutable_data(p) + y * pic.stride(p),
                    frame_->data[p] + std::ptrdiff_t(y) * frame_->linesize[p], row);
    }
    av.av_frame_unref(frame_);
    if (format_.bpc > 8 && format_.bpc < 16)
      TWINMAF_RETURN_IF_ERROR(check_sample_range(pic, host_check_from_, planes, path(), index_));
    ++index_;
    return true;
  }

  Status open_decoder() {
    codec_ = av.avcodec_alloc_context3(decoder_);
    if (!codec_) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    int err = av.avcodec_parameters_to_context(codec_, fmt_ctx_->streams[stream_]->codecpar);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: bad codec parameters: {}", path(), av_error(av, err));
    // NVDEC decodes frame by frame in its own engine: one thread feeds it.
    codec_->thread_count = nvdec_ ? 1 : int(setup_.threads);
    if (nvdec_) {
      codec_->hw_device_ctx = av.av_buffer_ref(nvdec_->device());
      if (!codec_->hw_device_ctx) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    }
    err = av.avcodec_open2(codec_, decoder_, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot open decoder: {}", path(), av_error(av, err));
    return ok_status();
  }

  Result<bool> next_frame() {
    if (!codec_) TWINMAF_RETURN_IF_ERROR(open_decoder());
    for (;;) {
      int err = av.avcodec_receive_frame(codec_, frame_);
      if (err == 0) return true;
      if (err == AVERROR_EOF) return false;
      if (err != AVERROR(EAGAIN))
        TWINMAF_FAIL(kBadInput, "{}: decoding frame {} failed: {}", path(), index_, av_error(av, err));
      if (draining_) return false;
      err = av.av_read_frame(fmt_ctx_, packet_);
      if (err == AVERROR_EOF) {
        draining_ = true;
        err = av.avcodec_send_packet(codec_, nullptr);
      } else if (err < 0) {
        TWINMAF_FAIL(kBadInput, "{}: reading failed near frame {}: {}", path(), index_, av_error(av, err));
      } else {
        if (packet_->stream_index == stream_) err = av.avcodec_send_packet(codec_, packet_);
        av.av_packet_unref(packet_);
      }
      if (err < 0 && err != AVERROR_EOF)
        TWINMAF_FAIL(kBadInput, "{}: decoding failed near frame {}: {}", path(), index_, av_error(av, err));
    }
  }

  const FfmpegApi& av;
  VideoFormat format_;
  AVFormatContext* fmt_ctx_ = nullptr;
  const AVCodec* decoder_ = nullptr;
  AVCodecContext* codec_ = nullptr;  // opened by the first read or skip
  Decoder setup_;
  std::unique_ptr<Nvdec> nvdec_;
  bool nvdec_refused_ = false;  // libavcodec fell back to software decoding
  MsSum seconds_;  // in read() and skip()
  unsigned frames_ = 0;
  AVPacket* packet_ = nullptr;
  AVFrame* frame_ = nullptr;
  int stream_ = -1;
  bool draining_ = false;
  unsigned index_ = 0;
};

}  // namespace

Result<std::unique_ptr<VideoSource>> open_ffmpeg_source(const std::string& path) {
  TWINMAF_ASSIGN_OR_RETURN(const FfmpegApi* av, ffmpeg_api());
  av->av_log_set_level(AV_LOG_ERROR);
  auto s = std::make_unique<FfmpegSource>(*av, path);
  TWINMAF_RETURN_IF_ERROR(s->open());
  return std::unique_ptr<VideoSource>(std::move(s));
}

std::string ffmpeg_version() {
  const Result<const FfmpegApi*> api = ffmpeg_api();
  if (!api.ok()) return api.status().message();
  const FfmpegApi& av = **api;
  const auto v = [](unsigned x) { return fmt::format("{}.{}.{}", x >> 16, (x >> 8) & 0xff, x & 0xff); };
  return fmt::format("{} (libavformat {}, libavcodec {}, libswscale {})", av.av_version_info(), v(av.avformat_version()),
                     v(av.avcodec_version()), v(av.swscale_version()));
}

}  // namespace twinmaf
