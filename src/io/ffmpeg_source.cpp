#include "io/ffmpeg_source.h"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/capture_lock.h"
#include "base/stopwatch.h"
#include "io/access_points.h"
#include "io/ffmpeg_api.h"
#include "io/nvdec.h"
#include "io/planar.h"

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

std::optional<Bitstream> bitstream_of(AVCodecID id) {
  switch (id) {
    case AV_CODEC_ID_H264:
      return Bitstream::kH264;
    case AV_CODEC_ID_HEVC:
      return Bitstream::kHevc;
    case AV_CODEC_ID_VP9:
      return Bitstream::kVp9;
    default:
      return std::nullopt;
  }
}

class FfmpegSource;

// NVDEC's calls into libavcodec and CUDA, outside any graph capture
// (base/capture_lock.h); nothing for CPU decoders.
std::shared_lock<std::shared_mutex> nvdec_guard(bool nvdec) {
  return nvdec ? std::shared_lock(capture_lock()) : std::shared_lock<std::shared_mutex>();
}

// FFmpeg's log: printed where print_ffmpeg_log() asks; an error of a
// demuxer or decoder of a live source (its AVFormatContext's or
// AVCodecContext's opaque, which libavcodec copies into its frame threads'
// contexts) goes to that source. The hwaccel's refusals are not errors of the
// stream: libavcodec falls back to its software decoder.
struct LogRouter {
  std::mutex mutex;
  std::unordered_set<const void*> sources;
  std::atomic<bool> print{false};
};
LogRouter& log_router() {
  static LogRouter r;
  return r;
}
void route_log(void* avcl, int level, const char* fmt, va_list vl);

class FfmpegSource final : public VideoSource {
  friend void route_log(void* avcl, int level, const char* fmt, va_list vl);

 public:
  FfmpegSource(const FfmpegApi& api, std::string path) : VideoSource(std::move(path)), av(api) {
    std::lock_guard lock(log_router().mutex);
    log_router().sources.insert(this);
  }
  ~FfmpegSource() override {
    {
      std::lock_guard lock(log_router().mutex);
      log_router().sources.erase(this);
    }
    stop_stretches();
    av.av_frame_free(&frame_);
    av.av_packet_free(&packet_);
    const auto guard = nvdec_guard(nvdec_ != nullptr);
    av.avcodec_free_context(&codec_);  // before nvdec_: the decoder holds its device context
    nvdec_.reset();
    av.avformat_close_input(&fmt_ctx_);
  }

  Status open() {
    TWINMAF_RETURN_IF_ERROR(open_container(&fmt_ctx_));
    const AVCodec* dec = nullptr;
    stream_ = av.av_find_best_stream(fmt_ctx_, AVMEDIA_TYPE_VIDEO, -1, -1, &dec, 0);
    if (stream_ < 0 || !dec) TWINMAF_FAIL(kBadInput, "{}: no decodable video stream", path());
    decoder_ = dec;
    packet_ = av.av_packet_alloc();
    frame_ = av.av_frame_alloc();
    if (!packet_ || !frame_) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    // The decoder opens at the first read or skip, once set_decoder() has
    // said where it runs. FFmpeg leaves the pixel format unset when no
    // packet it probed decoded.
    if (par().format < 0)
      TWINMAF_FAIL(kBadInput, "{}: no frame of its {} stream decodes (a damaged stream)", path(), dec->name);
    auto f = map_format(av, par().width, par().height, static_cast<AVPixelFormat>(par().format));
    if (!f.ok()) return Status(f.status().code(), fmt::format("{}: {}", path(), f.status().message()));
    format_ = *f;
    return ok_status();
  }

  const VideoFormat& format() const override { return format_; }

  ColorRange color_range() const override {
    if (par().color_range == AVCOL_RANGE_JPEG) return ColorRange::kFull;
    const AVPixFmtDescriptor* d = av.av_pix_fmt_desc_get(static_cast<AVPixelFormat>(par().format));
    return d && std::string_view(d->name).starts_with("yuvj") ? ColorRange::kFull : ColorRange::kLimited;
  }
  bool decodes() const override { return true; }
  Status set_decoder(const Decoder& d) override {
    if (codec_ || started_) TWINMAF_FAIL(kInternal, "{}: decoder set after the first read", path());
    setup_ = d;
    setup_.decoders = std::max(1u, d.decoders);
    if (!d.nvdec) return ok_status();
    const std::string refusal = nvdec_refusal();
    if (!refusal.empty()) TWINMAF_FAIL(kUnsupported, "{}: NVDEC cannot decode it: {}", path(), refusal);
    const auto guard = nvdec_guard(true);
    TWINMAF_ASSIGN_OR_RETURN(nvdec_, make_nvdec());
    return ok_status();
  }
  bool h264() const override { return par().codec_id == AV_CODEC_ID_H264; }
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
    const std::string one = setup_.nvdec && !nvdec_refused_ ? std::string("nvdec")
                            : fmt::format("cpu, {}{}",
                                          setup_.threads == 0   ? std::string("a thread per core")
                                          : setup_.threads == 1 ? std::string("1 thread")
                                                                : fmt::format("{} threads", setup_.threads),
                                          nvdec_refused_ ? " (the driver refused NVDEC)" : "");
    if (stretches_.size() > 1) {
      std::lock_guard lock(mutex_);
      const auto end = decoded_all_ ? finished_ : Clock::now();
      return {fmt::format("{} decoders ({} each) over {} stretches", workers_.size(), one, stretches_.size()),
              std::chrono::duration<double>(end - started_at_).count(), frames_};
    }
    std::string decoder = one;
    if (!whole_why_.empty()) decoder += fmt::format("; one decoder: {}", whole_why_);
    return {decoder, seconds_.ms() / 1000.0, frames_};
  }

  Status skip(unsigned n) override {
    if (setup_.decoders > 1 && !started_) {  // applied when the stretches start
      pending_skip_ += n;
      return ok_status();
    }
    if (!nvdec_) return VideoSource::skip(n);
    const auto guard = nvdec_guard(true);
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
    if (setup_.decoders > 1 && !started_) TWINMAF_FAIL(kInternal, "{}: several decoders read through a pool", path());
    const auto guard = nvdec_guard(nvdec_ != nullptr);
    const auto t = Clock::now();
    Result<bool> got = read_whole(pic);
    seconds_.add(t);
    if (got.ok() && *got) ++frames_;
    return got;
  }

  Result<bool> read(PicturePool& pool, PicturePtr& pic) override {
    if (setup_.decoders > 1 && !started_) TWINMAF_RETURN_IF_ERROR(start_stretches(pool));
    if (stretches_.size() <= 1) {
      {
        const auto guard = nvdec_guard(nvdec_ != nullptr);
        pic = pool.acquire();
      }
      return read(*pic);
    }
    return read_stretched(pool, pic);
  }

 private:
  const AVCodecParameters& par() const { return *fmt_ctx_->streams[stream_]->codecpar; }

  // Called by route_log() with the lock held: the first error is kept.
  void report(const std::string& text) {
    std::lock_guard lock(error_mutex_);
    if (ffmpeg_error_.empty()) ffmpeg_error_ = text;
  }
  // The error FFmpeg reported for this input, as the read's error.
  Status ffmpeg_error() const {
    std::lock_guard lock(error_mutex_);
    if (ffmpeg_error_.empty()) return ok_status();
    return make_error(Code::kBadInput, "{}: FFmpeg: {} (a damaged stream)", path(), ffmpeg_error_);
  }

  Status open_container(AVFormatContext** ctx) const {
    *ctx = av.avformat_alloc_context();
    if (!*ctx) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    (*ctx)->opaque = const_cast<FfmpegSource*>(this);
    int err = av.avformat_open_input(ctx, path().c_str(), nullptr, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot open as a container: {}", path(), av_error(av, err));
    err = av.avformat_find_stream_info(*ctx, nullptr);
    if (err < 0) TWINMAF_FAIL(kBadInput, "{}: cannot read stream info: {}", path(), av_error(av, err));
    return ffmpeg_error();
  }

  Result<std::unique_ptr<Nvdec>> make_nvdec() const {
    auto n = Nvdec::create(av, *setup_.nvdec);
    if (!n.ok()) TWINMAF_FAIL(kUnsupported, "{}: NVDEC: {}", path(), n.status().message());
    return std::move(*n);
  }

  // A decoder of the stream: CPU threads, or NVDEC's when `nvdec`.
  Result<AVCodecContext*> open_codec(Nvdec* nvdec) const {
    AVCodecContext* c = av.avcodec_alloc_context3(decoder_);
    if (!c) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    const auto fail = [&](const Status& st) {
      av.avcodec_free_context(&c);
      return st;
    };
    c->opaque = const_cast<FfmpegSource*>(this);
    int err = av.avcodec_parameters_to_context(c, &par());
    if (err < 0) return fail(make_error(Code::kBadInput, "{}: bad codec parameters: {}", path(), av_error(av, err)));
    // NVDEC decodes frame by frame in its own engine: one thread feeds it.
    c->thread_count = nvdec ? 1 : int(setup_.threads);
    if (nvdec) {
      c->hw_device_ctx = av.av_buffer_ref(nvdec->device());
      if (!c->hw_device_ctx) return fail(make_error(Code::kInternal, "{}: out of memory", path()));
    }
    err = av.avcodec_open2(c, decoder_, nullptr);
    if (err < 0) return fail(make_error(Code::kBadInput, "{}: cannot open decoder: {}", path(), av_error(av, err)));
    return c;
  }

  // The decoded frame `f` (number `index`) into `pic`: NVDEC's surfaces and
  // the frames of a decoder that fell back from it through `nvdec`, CPU
  // frames copied plane by plane and range-checked.
  Status to_picture(const AVFrame& f, Picture& pic, Nvdec* nvdec, unsigned index) {
    const int planes = std::min(planes_needed_, format_.planes());
    if (f.format == AV_PIX_FMT_CUDA) {
      if (f.width != format_.w || f.height != format_.h)
        TWINMAF_FAIL(kBadInput, "{}: frame {} changes size mid-stream", path(), index);
      return nvdec->copy(f, planes, pic);
    }
    auto fmt = map_format(av, f.width, f.height, static_cast<AVPixelFormat>(f.format));
    if (!fmt.ok() || !(*fmt == format_))
      TWINMAF_FAIL(kBadInput, "{}: frame {} changes size or pixel format mid-stream", path(), index);
    if (nvdec) {  // libavcodec fell back to its software decoder
      if (setup_.nvdec_only)
        TWINMAF_FAIL(kUnsupported, "{}: NVDEC refused the stream (--decode nvdec; --decode auto decodes it on the CPU)",
                     path());
      nvdec_refused_ = true;
      return nvdec->copy(f, planes, pic);
    }
    const int bps = format_.bytes_per_sample();
    for (int p = 0; p < planes; ++p) {
      const size_t row = size_t(format_.stored_w(p)) * size_t(bps);
      for (int y = 0; y < format_.stored_h(p); ++y)
        std::memcpy(pic.mutable_data(p) + y * pic.stride(p), f.data[p] + std::ptrdiff_t(y) * f.linesize[p], row);
    }
    if (format_.bpc > 8 && format_.bpc < 16)
      TWINMAF_RETURN_IF_ERROR(check_sample_range(pic, host_check_from_, planes, path(), index));
    return ok_status();
  }

  // --- One decoder over the whole stream ------------------------------------

  Result<bool> read_whole(Picture& pic) {
    TWINMAF_ASSIGN_OR_RETURN(bool got, next_frame());
    if (!got) return false;
    const Status st = to_picture(*frame_, pic, nvdec_.get(), index_);
    av.av_frame_unref(frame_);
    TWINMAF_RETURN_IF_ERROR(st);
    ++index_;
    return true;
  }

  Result<bool> next_frame() {
    if (!codec_) {
      TWINMAF_ASSIGN_OR_RETURN(codec_, open_codec(nvdec_.get()));
    }
    for (;;) {
      int err = av.avcodec_receive_frame(codec_, frame_);
      TWINMAF_RETURN_IF_ERROR(ffmpeg_error());
      if (err == 0) return true;
      if (err == AVERROR_EOF) return false;
      if (err != AVERROR(EAGAIN))
        TWINMAF_FAIL(kBadInput, "{}: decoding frame {} failed: {}", path(), index_, av_error(av, err));
      if (draining_) return false;
      err = av.av_read_frame(fmt_ctx_, packet_);
      TWINMAF_RETURN_IF_ERROR(ffmpeg_error());
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

  // --- Several decoders over stretches --------------------------------------
  //
  // A demuxer thread reads the packets once and hands each stretch its own
  // (av_packet_clone); each of setup_.decoders workers decodes a stretch at
  // a time with a decoder of its own, in stretch order, at most as many
  // stretches at once as there are workers and `cap_` frames held per
  // stretch; read() takes the frames stretch by stretch. NVDEC's workers
  // move each frame into a picture of read()'s pool at once (libavcodec's
  // surfaces are few); the CPU's keep libavcodec's frames, which read()
  // copies.

  struct Decoded {
    AVFrame* frame = nullptr;  // a CPU frame
    PicturePtr pic;            // or NVDEC's, in a picture
  };
  struct StretchState {
    std::deque<AVPacket*> packets;
    bool packets_done = false;
    std::deque<Decoded> frames;
    bool frames_done = false;
    Status error;
  };

  // The stream's packets: their pts and kinds, or why it is decoded whole.
  Result<Stretches> scan() const {
    const std::optional<Bitstream> bs = bitstream_of(par().codec_id);
    if (!bs) return Stretches{{}, fmt::format("{} streams are not split", decoder_->name)};
    if (par().field_order != AV_FIELD_UNKNOWN && par().field_order != AV_FIELD_PROGRESSIVE)
      return Stretches{{}, "interlaced streams are not split"};
    const PacketSyntax syntax =
        packet_syntax(*bs, std::span<const uint8_t>(par().extradata, size_t(std::max(0, par().extradata_size))));
    AVFormatContext* ctx = nullptr;
    AVPacket* pkt = av.av_packet_alloc();
    const auto close = [&] {
      av.av_packet_free(&pkt);
      av.avformat_close_input(&ctx);
    };
    if (!pkt) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
    if (Status st = open_container(&ctx); !st.ok()) {
      close();
      return st;
    }
    std::vector<int64_t> pts;
    std::vector<Access> access;
    std::string whole;
    for (;;) {
      const int err = av.av_read_frame(ctx, pkt);
      if (err == AVERROR_EOF) break;
      if (err < 0) {
        close();
        TWINMAF_FAIL(kBadInput, "{}: reading failed near packet {}: {}", path(), pts.size(), av_error(av, err));
      }
      if (pkt->stream_index == stream_) {
        if (pkt->pts == AV_NOPTS_VALUE) whole = "some packet has no timestamp";
        if (pkt->flags & (AV_PKT_FLAG_DISCARD | AV_PKT_FLAG_CORRUPT)) whole = "some packet is marked discard or corrupt";
        pts.push_back(pkt->pts);
        access.push_back(classify_packet(syntax, std::span<const uint8_t>(pkt->data, size_t(pkt->size))));
      }
      av.av_packet_unref(pkt);
    }
    close();
    TWINMAF_RETURN_IF_ERROR(ffmpeg_error());
    if (!whole.empty()) return Stretches{{}, whole};
    return plan_stretches(pts, access);
  }

  Status start_stretches(PicturePool& pool) {
    started_ = true;
    TWINMAF_ASSIGN_OR_RETURN(Stretches plan, scan());
    if (plan.stretches.size() <= 1) {  // one decoder with the input's threads, after the skips asked for
      whole_why_ = plan.why;
      if (setup_.threads) setup_.threads *= setup_.decoders;
      if (nvdec_) return skip(pending_skip_);
      TWINMAF_RETURN_IF_ERROR(VideoSource::skip(pending_skip_));
      return ok_status();
    }
    stretches_ = std::move(plan.stretches);
    states_ = std::vector<StretchState>(stretches_.size());
    size_t first = 0;
    unsigned drop = pending_skip_;
    while (first < stretches_.size() && stretches_[first].frames <= drop) drop -= stretches_[first++].frames;
    first_stretch_ = current_ = claimed_ = first;
    drop_ = drop;
    index_ = first < stretches_.size() ? stretches_[first].first_frame : 0;
    unsigned longest = 1;
    for (const Stretch& s : stretches_) longest = std::max(longest, s.frames);
    uint64_t frame_bytes = 0;
    for (int p = 0; p < std::min(planes_needed_, format_.planes()); ++p) frame_bytes += packed_plane_bytes(format_, p);
    const uint64_t per_stretch = setup_.ahead_bytes / setup_.decoders / std::max<uint64_t>(1, frame_bytes);
    cap_ = setup_.ahead_bytes ? unsigned(std::clamp<uint64_t>(per_stretch, 2, longest)) : longest;
    pool_.emplace(pool);
    std::vector<std::unique_ptr<Nvdec>> nvdecs;
    for (unsigned w = 0; setup_.nvdec && w < setup_.decoders; ++w) {
      const auto guard = nvdec_guard(true);
      TWINMAF_ASSIGN_OR_RETURN(nvdecs.emplace_back(), make_nvdec());
    }
    started_at_ = Clock::now();
    demuxer_ = std::thread([this] { demux(); });
    for (unsigned w = 0; w < setup_.decoders; ++w)
      workers_.emplace_back([this, n = setup_.nvdec ? std::move(nvdecs[w]) : nullptr]() mutable {
        work(n.get());
        const auto guard = nvdec_guard(n != nullptr);
        n.reset();
      });
    return ok_status();
  }

  void stop_stretches() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (demuxer_.joinable()) demuxer_.join();
    for (std::thread& t : workers_) t.join();
    for (StretchState& s : states_) {
      for (AVPacket*& p : s.packets) av.av_packet_free(&p);
      for (Decoded& d : s.frames) av.av_frame_free(&d.frame);
    }
  }

  // Reads the packets once, in order: packet i goes to its own stretch and,
  // where it is the next point or one of its leading pictures, to the one
  // before, at most one stretch beyond those the workers may take.
  void demux() {
    AVPacket* pkt = av.av_packet_alloc();
    size_t own = 0;  // the stretch packet i starts in (first <= i < next's first)
    Status error = pkt ? ok_status() : make_error(Code::kInternal, "{}: out of memory", path());
    for (size_t i = 0; error.ok();) {
      const int err = av.av_read_frame(fmt_ctx_, pkt);
      if (error = ffmpeg_error(); !error.ok()) break;
      if (err == AVERROR_EOF) break;
      if (err < 0) {
        error = make_error(Code::kBadInput, "{}: reading failed near packet {}: {}", path(), i, av_error(av, err));
        break;
      }
      if (pkt->stream_index != stream_) {
        av.av_packet_unref(pkt);
        continue;
      }
      while (own + 1 < stretches_.size() && stretches_[own + 1].first <= i) ++own;
      {
        std::unique_lock lock(mutex_);
        // Packets for at most the stretches being decoded and the next.
        changed_.wait(lock, [&] { return stop_ || own <= current_ + setup_.decoders; });
        if (stop_) break;
        for (size_t j = own > 0 ? own - 1 : 0; j <= own; ++j) {
          if (j < first_stretch_ || i < stretches_[j].first || i >= stretches_[j].end) continue;
          states_[j].packets.push_back(av.av_packet_clone(pkt));
          if (!states_[j].packets.back()) error = make_error(Code::kInternal, "{}: out of memory", path());
          if (i + 1 == stretches_[j].end) states_[j].packets_done = true;
        }
      }
      changed_.notify_all();
      av.av_packet_unref(pkt);
      ++i;
    }
    av.av_packet_free(&pkt);
    {
      std::lock_guard lock(mutex_);
      for (StretchState& s : states_) {
        if (s.packets_done) continue;
        s.packets_done = true;
        if (!error.ok() && s.error.ok()) s.error = error;
      }
    }
    changed_.notify_all();
  }

  void work(Nvdec* nvdec) {
    for (;;) {
      size_t j;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return stop_ || claimed_ >= stretches_.size() || claimed_ < current_ + setup_.decoders;
        });
        if (stop_ || claimed_ >= stretches_.size()) return;
        j = claimed_++;
      }
      const Status st = decode_stretch(j, nvdec);
      {
        std::lock_guard lock(mutex_);
        StretchState& s = states_[j];
        if (!st.ok() && s.error.ok()) s.error = st;
        s.frames_done = true;
        if (++stretches_done_ == stretches_.size() - first_stretch_) {
          decoded_all_ = true;
          finished_ = Clock::now();
        }
      }
      changed_.notify_all();
    }
  }

  Status decode_stretch(size_t j, Nvdec* nvdec) {
    const Stretch& st = stretches_[j];
    StretchState& state = states_[j];
    AVCodecContext* c = nullptr;
    {
      const auto guard = nvdec_guard(nvdec != nullptr);
      TWINMAF_ASSIGN_OR_RETURN(c, open_codec(nvdec));
    }
    AVFrame* f = av.av_frame_alloc();
    unsigned got = 0;
    int64_t last = std::numeric_limits<int64_t>::min();
    // Frames of the stretch's range, in order, to read().
    const auto receive = [&]() -> Result<bool> {  // true: the decoder wants more input
      for (;;) {
        auto guard = nvdec_guard(nvdec != nullptr);  // released before waiting for room
        const int err = av.avcodec_receive_frame(c, f);
        TWINMAF_RETURN_IF_ERROR(ffmpeg_error());
        if (err == AVERROR(EAGAIN)) return true;
        if (err == AVERROR_EOF) return false;
        if (err < 0)
          TWINMAF_FAIL(kBadInput, "{}: decoding frame {} failed: {}", path(), st.first_frame + got, av_error(av, err));
        const int64_t pts = f->pts != AV_NOPTS_VALUE ? f->pts : f->best_effort_timestamp;
        if (pts < st.lo || pts >= st.hi) {
          av.av_frame_unref(f);
          continue;
        }
        if (pts <= last || got == st.frames)
          TWINMAF_FAIL(kBadInput, "{}: decoding from a random-access point gave frames out of order near frame {} "
                                  "(--decoders 1 decodes it whole)", path(), st.first_frame + got);
        last = pts;
        Decoded d;
        if (nvdec) {
          d.pic = pool_->acquire();
          TWINMAF_RETURN_IF_ERROR(to_picture(*f, *d.pic, nvdec, st.first_frame + got));
          av.av_frame_unref(f);
        } else {
          d.frame = av.av_frame_alloc();
          if (!d.frame) TWINMAF_FAIL(kInternal, "{}: out of memory", path());
          av.av_frame_move_ref(d.frame, f);
        }
        ++got;
        guard = {};
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || state.frames.size() < cap_; });
          if (stop_) {
            av.av_frame_free(&d.frame);
            return false;
          }
          state.frames.push_back(std::move(d));
        }
        changed_.notify_all();
      }
    };
    Status result;
    for (bool more = true; more && result.ok();) {
      AVPacket* pkt = nullptr;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || !state.packets.empty() || state.packets_done; });
        if (stop_) break;
        if (!state.packets.empty()) {
          pkt = state.packets.front();
          state.packets.pop_front();
        } else if (!state.error.ok()) {
          break;
        }
      }
      changed_.notify_all();
      for (;;) {  // a null packet drains the decoder
        int err;
        {
          const auto guard = nvdec_guard(nvdec != nullptr);
          err = av.avcodec_send_packet(c, pkt);
        }
        if (err == AVERROR(EAGAIN) || err == 0) {
          Result<bool> r = receive();
          if (!r.ok()) result = r.status();
          if (r.ok() && *r && err != 0) continue;  // the decoder took no packet: again
          more = r.ok() && *r && pkt;
          break;
        }
        if (err != AVERROR_EOF)
          result = make_error(Code::kBadInput, "{}: decoding failed near frame {}: {}", path(), st.first_frame + got,
                              av_error(av, err));
        more = false;
        break;
      }
      av.av_packet_free(&pkt);
    }
    av.av_frame_free(&f);
    {
      const auto guard = nvdec_guard(nvdec != nullptr);
      av.avcodec_free_context(&c);
    }
    TWINMAF_RETURN_IF_ERROR(result);
    bool stopped;
    {
      std::lock_guard lock(mutex_);
      stopped = stop_ || !state.error.ok();
    }
    if (!stopped && got != st.frames)
      TWINMAF_FAIL(kBadInput, "{}: decoding from a random-access point gave {} frames where its packets hold {} "
                              "(frames {}..; --decoders 1 decodes it whole)", path(), got, st.frames, st.first_frame);
    return ok_status();
  }

  Result<bool> read_stretched(PicturePool& pool, PicturePtr& pic) {
    for (;;) {
      Decoded d;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return current_ >= stretches_.size() || !states_[current_].frames.empty() || states_[current_].frames_done;
        });
        if (current_ >= stretches_.size()) return false;
        StretchState& s = states_[current_];
        if (s.frames.empty()) {
          if (!s.error.ok()) return s.error;
          ++current_;
          lock.unlock();
          changed_.notify_all();
          continue;
        }
        d = std::move(s.frames.front());
        s.frames.pop_front();
      }
      changed_.notify_all();
      const unsigned index = index_++;
      if (drop_ > 0) {
        --drop_;
        av.av_frame_free(&d.frame);
        continue;
      }
      ++frames_;
      if (d.pic) {
        pic = std::move(d.pic);
        return true;
      }
      pic = pool.acquire();
      const Status st = to_picture(*d.frame, *pic, nullptr, index);
      av.av_frame_free(&d.frame);
      TWINMAF_RETURN_IF_ERROR(st);
      return true;
    }
  }

  const FfmpegApi& av;
  VideoFormat format_;
  AVFormatContext* fmt_ctx_ = nullptr;
  const AVCodec* decoder_ = nullptr;
  int stream_ = -1;
  Decoder setup_;
  std::atomic<bool> nvdec_refused_ = false;  // libavcodec fell back to software decoding
  unsigned frames_ = 0;  // handed out (or skipped on NVDEC)
  unsigned index_ = 0;   // the next frame's number
  mutable std::mutex error_mutex_;
  std::string ffmpeg_error_;  // the first error FFmpeg logged for this input

  // One decoder.
  AVCodecContext* codec_ = nullptr;  // opened by the first read or skip
  std::unique_ptr<Nvdec> nvdec_;
  MsSum seconds_;  // in read() and skip()
  AVPacket* packet_ = nullptr;
  AVFrame* frame_ = nullptr;
  bool draining_ = false;
  std::string whole_why_;  // why several decoders were asked for and one decodes

  // Several decoders.
  bool started_ = false;
  unsigned pending_skip_ = 0;
  std::vector<Stretch> stretches_;
  std::vector<StretchState> states_;
  std::optional<PicturePool> pool_;
  unsigned cap_ = 0;
  size_t first_stretch_ = 0;  // the first stretch read (the skipped ones get no packets)
  unsigned drop_ = 0;          // frames of it read() skips
  std::thread demuxer_;
  std::vector<std::thread> workers_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  size_t current_ = 0;  // the stretch read() takes frames from
  size_t claimed_ = 0;  // stretches taken by workers
  size_t stretches_done_ = 0;
  bool decoded_all_ = false;
  Clock::time_point started_at_, finished_;
};

void route_log(void* avcl, int level, const char* fmt, va_list vl) {
  if (level > AV_LOG_WARNING) return;
  LogRouter& r = log_router();
  const AVClass* cls = avcl ? *static_cast<const AVClass* const*>(avcl) : nullptr;
  char text[1024];
  std::vsnprintf(text, sizeof text, fmt, vl);
  size_t n = std::strlen(text);
  while (n > 0 && std::isspace(static_cast<unsigned char>(text[n - 1]))) text[--n] = 0;
  if (n == 0) return;
  if (r.print) std::fprintf(stderr, "twinmaf: ffmpeg: [%s] %s\n", cls ? cls->item_name(avcl) : "ffmpeg", text);
  if (level > AV_LOG_ERROR || !cls) return;
  const std::string_view name = cls->class_name;
  void* owner = name == "AVCodecContext"    ? static_cast<AVCodecContext*>(avcl)->opaque
                : name == "AVFormatContext" ? static_cast<AVFormatContext*>(avcl)->opaque
                                            : nullptr;
  std::string lower(text);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* hw : {"hwaccel", "hardware", "nvdec", "cuda", "cuvid"})
    if (lower.find(hw) != std::string::npos) return;
  std::lock_guard lock(r.mutex);
  if (owner && r.sources.count(owner)) static_cast<FfmpegSource*>(owner)->report(text);
}

}  // namespace

void print_ffmpeg_log(bool print) { log_router().print = print; }

Result<std::unique_ptr<VideoSource>> open_ffmpeg_source(const std::string& path) {
  TWINMAF_ASSIGN_OR_RETURN(const FfmpegApi* av, ffmpeg_api());
  static std::once_flag routed;
  std::call_once(routed, [av] { av->av_log_set_callback(route_log); });
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
