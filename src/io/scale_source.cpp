#include "io/scale_source.h"

#include <array>
#include <cstring>
#include <memory>

#include "core/picture.h"

#include "io/ffmpeg_api.h"

namespace twinmaf {

namespace {

struct ScalerName {
  std::string_view name;
  int flag;
};

constexpr std::array kScalers{
    ScalerName{"bicubic", SWS_BICUBIC},   ScalerName{"bilinear", SWS_BILINEAR},
    ScalerName{"lanczos", SWS_LANCZOS},   ScalerName{"spline", SWS_SPLINE},
    ScalerName{"area", SWS_AREA},         ScalerName{"neighbor", SWS_POINT},
    ScalerName{"gauss", SWS_GAUSS},       ScalerName{"sinc", SWS_SINC},
    ScalerName{"bicublin", SWS_BICUBLIN}, ScalerName{"fast_bilinear", SWS_FAST_BILINEAR},
};

// FFmpeg's name of a planar little-endian layout: yuv420p, yuv422p10le, gray12le.
std::string av_format_name(const VideoFormat& f) {
  std::string name = f.fmt == PixFmt::k400 ? "gray" : "yuv" + std::string(pix_fmt_name(f.fmt)) + "p";
  if (f.bpc > 8) name += std::to_string(f.bpc) + "le";
  return name;
}

class ScaleSource final : public VideoSource {
 public:
  ScaleSource(const FfmpegApi& api, std::unique_ptr<VideoSource> inner, const VideoFormat& to, SwsContext* sws)
      : VideoSource(inner->path()), av(api), inner_(std::move(inner)), format_(to), sws_(sws),
        scratch_(inner_->format(), host_allocator()) {}
  ~ScaleSource() override { av.sws_freeContext(sws_); }

  const VideoFormat& format() const override { return format_; }
  std::optional<unsigned> frames_hint() const override { return inner_->frames_hint(); }
  ColorRange color_range() const override { return inner_->color_range(); }
  bool decodes() const override { return inner_->decodes(); }
  // CPU decoding only: the pictures are converted on the host.
  Status set_decoder(const Decoder& d) override { return inner_->set_decoder({d.threads, nullptr, false}); }
  std::string nvdec_refusal() const override { return "it is scaled on the CPU"; }
  DecodeStats decode_stats() const override { return inner_->decode_stats(); }

  Result<bool> read(Picture& pic) override {
    forward();
    TWINMAF_ASSIGN_OR_RETURN(const bool got, inner_->read(scratch_));
    if (!got) return false;
    const uint8_t* src[4] = {};
    int src_stride[4] = {};
    uint8_t* dst[4] = {};
    int dst_stride[4] = {};
    // The scaler writes every plane: a picture holding fewer (luma only,
    // core/picture.h) gets them through a whole one.
    const bool whole = pic.data(format_.planes() - 1) != nullptr;
    if (!whole && !out_) out_ = std::make_unique<Picture>(format_, host_allocator());
    Picture& to = whole ? pic : *out_;
    for (int p = 0; p < format_.planes(); ++p) {
      src[p] = scratch_.data(p);
      src_stride[p] = static_cast<int>(scratch_.stride(p));
      dst[p] = to.mutable_data(p);
      dst_stride[p] = static_cast<int>(to.stride(p));
    }
    if (av.sws_scale(sws_, src, src_stride, 0, inner_->format().h, dst, dst_stride) != format_.h)
      TWINMAF_FAIL(kInternal, "{}: libswscale failed on frame {}", path(), index_);
    for (int p = 0; !whole && p < format_.planes() && pic.data(p); ++p)
      std::memcpy(pic.mutable_data(p), to.data(p), to.plane_bytes(p));
    ++index_;
    return true;
  }
  Status skip(unsigned n) override {
    forward();
    return inner_->skip(n);
  }

 private:
  // The scaler reads every plane; samples are range-checked at the file.
  void forward() {
    inner_->set_planes_needed(3);
    inner_->set_host_range_check_from(0);
  }

  const FfmpegApi& av;
  std::unique_ptr<VideoSource> inner_;
  VideoFormat format_;
  SwsContext* sws_;
  Picture scratch_;
  std::unique_ptr<Picture> out_;  // the scaler's output for pictures of fewer planes
  unsigned index_ = 0;  // frames read
};

}  // namespace

Result<int> parse_scaler(std::string_view name) {
  std::string names;
  for (const ScalerName& s : kScalers) {
    if (s.name == name) return s.flag;
    names += names.empty() ? "" : ", ";
    names += s.name;
  }
  TWINMAF_FAIL(kInvalidArgument, "unknown scaler '{}'; should be one of {}", name, names);
}

Result<std::unique_ptr<VideoSource>> with_scale(std::unique_ptr<VideoSource> src, int w, int h, int sws_flags) {
  const VideoFormat from = src->format();
  VideoFormat to = from;
  to.w = w;
  to.h = h;
  TWINMAF_RETURN_IF_ERROR(validate_format(to));
  if (from.fmt != PixFmt::k400 && (to.plane_w(1) == 0 || to.plane_h(1) == 0))
    TWINMAF_FAIL(kInvalidArgument, "cannot scale {} to {}x{}: its {} chroma planes would be empty", src->path(), w,
                 h, pix_fmt_name(from.fmt));
  TWINMAF_ASSIGN_OR_RETURN(const FfmpegApi* api, ffmpeg_api());
  const FfmpegApi& av = *api;
  const std::string name = av_format_name(from);
  const AVPixelFormat pf = av.av_get_pix_fmt(name.c_str());
  if (pf == AV_PIX_FMT_NONE || !av.sws_isSupportedInput(pf) || !av.sws_isSupportedOutput(pf))
    TWINMAF_FAIL(kUnsupported, "{}: libswscale cannot scale {}-bit {} pictures", src->path(), from.bpc,
                 pix_fmt_name(from.fmt));
  SwsContext* sws = av.sws_getContext(from.w, from.h, pf, w, h, pf, sws_flags, nullptr, nullptr, nullptr);
  if (!sws) TWINMAF_FAIL(kInternal, "{}: libswscale refused {}x{} -> {}x{} {}", src->path(), from.w, from.h, w, h, name);
  return std::unique_ptr<VideoSource>(std::make_unique<ScaleSource>(av, std::move(src), to, sws));
}

}  // namespace twinmaf
