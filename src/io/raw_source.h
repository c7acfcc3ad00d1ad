// Raw planar YUV (-w -h -p -b): fixed-size frames, frame i at i * frame_bytes.
#pragma once

#include "io/file_reader.h"
#include "io/source.h"

namespace twinmaf {

class RawSource final : public VideoSource {
 public:
  // `file` opened by open_source (a regular file or a stream).
  static Result<std::unique_ptr<VideoSource>> open(FileReader file, const RawParams& p);
  const VideoFormat& format() const override { return format_; }
  Result<bool> read(Picture& pic) override;
  Status skip(unsigned n) override;
  bool random_access() const override { return file_.seekable(); }
  Result<bool> read_frame(unsigned index, Picture& pic) const override;
  std::optional<uint64_t> frames_begun() const override;
  std::optional<unsigned> frames_hint() const override;

 private:
  RawSource(FileReader file, const VideoFormat& f)
      : VideoSource(file.path()), format_(f), file_(std::move(file)) {}
  VideoFormat format_;
  FileReader file_;
  unsigned skipped_ = 0;
  unsigned next_ = 0;
};

}  // namespace twinmaf
