#include "io/ffmpeg_source.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "io/ffmpeg_api.h"

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
    av.avcodec_free_context(&codec_);
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
    TWINMAF_RETURN_IF_ERROR(open_decoder(0));
    packet_ = av.av_packet_alloc();
    frame_ = av.av_frame_alloc();
    if (!packet_ || !frame_) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    auto f = map_format(av, codec_->width, codec_->height, codec_->pix_fmt);
    if (!f.ok()) return Status(f.status().code(), fmt::format("{}: {}", path(), f.status().message()));
    format_ = *f;
    return ok_status();
  }

  const VideoFormat& format() const override { return format_; }

  ColorRange color_range() const override {
    if (codec_->color_range == AVCOL_RANGE_JPEG) return ColorRange::kFull;
    const AVPixFmtDescriptor* d = av.av_pix_fmt_desc_get(codec_->pix_fmt);
    return d && std::string_view(d->name).starts_with("yuvj") ? ColorRange::kFull : ColorRange::kLimited;
  }
  bool decodes() const override { return true; }
  Status set_decode_threads(unsigned threads) override {
    if (threads == threads_) return ok_status();
    if (started_) TWINMAF_FAIL(kInternal, "{}: decoder threads set after the first read", path());
    return open_decoder(threads);
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
    TWINMAF_ASSIGN_OR_RETURN(bool got, next_frame());
    if (!got) return false;
    auto f = map_format(av, frame_->width, frame_->height, static_cast<AVPixelFormat>(frame_->format));
    if (!f.ok() || !(*f == format_))
      TWINMAF_FAIL(kBadInput, "{}: frame {} changes size or pixel format mid-stream", path(), index_);
    const int bps = format_.bytes_per_sample();
    for (int p = 0; p < std::min(planes_needed_, format_.planes()); ++p) {
      const size_t row = size_t(format_.stored_w(p)) * size_t(bps);
      for (int y = 0; y < format_.stored_h(p); ++y)
        std::memcpy(pic.mutable_data(p) + y * pic.stride(p),
                    frame_->data[p] + std::ptrdiff_t(y) * frame_->linesize[p], row);
    }
    av.av_frame_unref(frame_);
    if (format_.bpc > 8 && format_.bpc < 16)
      TWINMAF_RETURN_IF_ERROR(
          check_sample_range(pic, host_check_from_, std::min(planes_needed_, format_.planes()), path(), index_));
    ++index_;
    return true;
  }

 private:
  Status open_decoder(unsigned threads) {
    av.avcodec_free_context(&codec_);
    codec_ = av.avcodec_alloc_context3(decoder_);
    if (!codec_) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    int err = av.avcodec_parameters_to_context(codec_, fmt_ctx_->streams[stream_]->codecpar);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: bad codec parameters: {}", path(), av_error(av, err));
    codec_->thread_count = int(threads);
    err = av.avcodec_open2(codec_, decoder_, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot open decoder: {}", path(), av_error(av, err));
    threads_ = threads;
    return ok_status();
  }

  Result<bool> next_frame() {
    started_ = true;
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
  AVCodecContext* codec_ = nullptr;
  unsigned threads_ = 0;
  bool started_ = false;  // the decoder has been fed
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
