// YUV4MPEG2: "YUV4MPEG2 W.. H.. F..:.. [I.] [A..:..] [C...] [X...]\n", then
// frames of "FRAME[ params]\n" + packed planes.
// Colour spaces: 420, 420jpeg, 420mpeg2, 420paldv, 422, 444, 444alpha (alpha
// skipped), mono, and the 9..16 bit forms 420pN, 422pN, 444pN, monoN.
#pragma once

#include "io/file_reader.h"
#include "io/source.h"

namespace twinmaf {

class Y4mSource final : public VideoSource {
 public:
  // `file` opened by open_source (a regular file or a stream).
  static Result<std::unique_ptr<VideoSource>> open(FileReader file);
  const VideoFormat& format() const override { return format_; }
  Result<bool> read(Picture& pic) override;
  std::optional<unsigned> frames_hint() const override;
  ColorRange color_range() const override { return range_; }

 private:
  explicit Y4mSource(FileReader file) : VideoSource(file.path()), file_(std::move(file)) {}
  VideoFormat format_;
  ColorRange range_ = ColorRange::kLimited;
  FileReader file_;
  uint64_t header_bytes_ = 0;  // the stream header line
  uint64_t offset_ = 0;       // start of the next frame header
  uint64_t alpha_bytes_ = 0;  // 444alpha: trailing plane to skip
  unsigned next_ = 0;
};

// Parses a Y4M stream header line (without the trailing newline).
Result<VideoFormat> parse_y4m_header(std::string_view line, uint64_t* alpha_plane_bytes, ColorRange* range);

}  // namespace twinmaf
