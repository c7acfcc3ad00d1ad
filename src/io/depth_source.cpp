#include "io/depth_source.h"

#include "core/picture.h"

namespace twinmaf {

namespace {

class DepthSource final : public VideoSource {
 public:
  DepthSource(std::unique_ptr<VideoSource> inner, int bpc)
      : VideoSource(inner->path()),
        inner_(std::move(inner)),
        format_{inner_->format().w, inner_->format().h, inner_->format().fmt, bpc},
        pool_(inner_->format(), host_allocator()) {}

  const VideoFormat& format() const override { return format_; }
  bool random_access() const override { return inner_->random_access(); }
  std::optional<unsigned> frames_hint() const override { return inner_->frames_hint(); }
  ColorRange color_range() const override { return inner_->color_range(); }
  bool decodes() const override { return inner_->decodes(); }
  // CPU decoding only: the pictures are converted on the host.
  Status set_decoder(const Decoder& d) override { return inner_->set_decoder({d.threads, nullptr, false}); }
  std::string nvdec_refusal() const override { return "its samples are shifted to a common depth on the CPU"; }
  DecodeStats decode_stats() const override { return inner_->decode_stats(); }

  Result<bool> read(Picture& pic) override {
    forward();
    PicturePtr src = pool_.acquire();
    TWINMAF_ASSIGN_OR_RETURN(const bool got, inner_->read(*src));
    if (got) convert(*src, pic);
    return got;
  }
  Status skip(unsigned n) override {
    forward();
    return inner_->skip(n);
  }
  Result<bool> read_frame(unsigned index, Picture& pic) const override {
    PicturePtr src = pool_.acquire();
    TWINMAF_ASSIGN_OR_RETURN(const bool got, inner_->read_frame(index, *src));
    if (got) convert(*src, pic);
    return got;
  }

 private:
  // The reader's settings reach the file's source (every plane read is
  // range-checked there, at the file's depth).
  void forward() {
    inner_->set_planes_needed(planes_needed_);
    inner_->set_host_range_check_from(0);
  }
  void convert(const Picture& src, Picture& dst) const {
    const VideoFormat& from = src.format();
    const int shift = format_.bpc - from.bpc;
    for (int p = 0; p < std::min(planes_needed_, from.planes()); ++p)
      for (int y = 0; y < from.stored_h(p); ++y) {
        auto* out = reinterpret_cast<uint16_t*>(dst.mutable_data(p) + y * dst.stride(p));
        if (from.bpc == 8) {
          const uint8_t* in = src.data(p) + y * src.stride(p);
          for (int x = 0; x < from.stored_w(p); ++x) out[x] = static_cast<uint16_t>(in[x] << shift);
        } else {
          const auto* in = reinterpret_cast<const uint16_t*>(src.data(p) + y * src.stride(p));
          for (int x = 0; x < from.stored_w(p); ++x) out[x] = static_cast<uint16_t>(in[x] << shift);
        }
      }
  }

  std::unique_ptr<VideoSource> inner_;
  VideoFormat format_;
  mutable PicturePool pool_;
};

}  // namespace

std::unique_ptr<VideoSource> with_bit_depth(std::unique_ptr<VideoSource> src, int bpc) {
  return std::make_unique<DepthSource>(std::move(src), bpc);
}

}  // namespace twinmaf
