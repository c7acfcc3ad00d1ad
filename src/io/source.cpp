#include "io/source.h"

#include <algorithm>
#include <cstring>

#include "io/ffmpeg_source.h"
#include "io/file_reader.h"
#include "io/raw_source.h"
#include "io/y4m_source.h"

namespace twinmaf {

Status VideoSource::skip(unsigned n) {
  if (n == 0) return ok_status();
  Picture scratch(format(), host_allocator());
  for (unsigned i = 0; i < n; ++i) {
    TWINMAF_ASSIGN_OR_RETURN(bool got, read(scratch));
    if (!got) break;
  }
  return ok_status();
}

Result<bool> VideoSource::read_frame(unsigned, Picture&) const {
  TWINMAF_FAIL(kInternal, "{}: this source has no random access", path());
}

Status check_sample_range(const Picture& pic, int first, int planes, const std::string& path, unsigned frame) {
  const VideoFormat& f = pic.format();
  if (f.bpc >= 16) return ok_status();  // every 16-bit value is in range
  const uint16_t limit = static_cast<uint16_t>((1u << f.bpc) - 1);
  for (int p = first; p < std::min(planes, f.planes()); ++p) {
    const int w = f.stored_w(p), h = f.stored_h(p);  // hoisted: the OR loop vectorizes
    for (int y = 0; y < h; ++y) {
      const auto* row = reinterpret_cast<const uint16_t*>(pic.data(p) + y * pic.stride(p));
      uint16_t acc = 0;
      for (int x = 0; x < w; ++x) acc |= row[x];
      if (acc > limit) {
        for (int x = 0; x < w; ++x)
          if (row[x] > limit)
            TWINMAF_FAIL(kBadInput, "{}: frame {}: sample {} at plane {} ({}, {}) exceeds {} bits",
                         path, frame, row[x], p, x, y, f.bpc);
      }
    }
  }
  return ok_status();
}

namespace {

bool has_extension(const std::string& path, std::initializer_list<const char*> exts) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(exts.begin(), exts.end(), [&](const char* e) { return ext == e; });
}

}  // namespace

Result<std::unique_ptr<VideoSource>> open_source(const std::string& path,
                                                 const std::optional<RawParams>& raw) {
  FileReader file;
  TWINMAF_RETURN_IF_ERROR(file.open(path));
  if (file.size() == std::optional<uint64_t>(0)) TWINMAF_FAIL(kBadInput, "{}: file is empty", path);
  char magic[9] = {};
  TWINMAF_ASSIGN_OR_RETURN(size_t n, file.read_at(0, magic, sizeof magic));
  if (n == sizeof magic && std::memcmp(magic, "YUV4MPEG2", 9) == 0) return Y4mSource::open(std::move(file));
  if (has_extension(path, {"y4m"})) TWINMAF_FAIL(kBadInput, "{}: not a Y4M file (no YUV4MPEG2 signature)", path);
  if (n == 0) TWINMAF_FAIL(kBadInput, "{}: the input is empty", path);
  const bool container = has_extension(
      path, {"mp4", "mkv", "mov", "webm", "avi", "ivf", "ts", "m2ts", "mts", "mxf", "h264", "264",
             "h265", "265", "hevc", "obu", "flv", "nut", "m4v"});
  if (raw && !container) return RawSource::open(std::move(file), *raw);
  // Raw YUV named as such, or any stream that is not Y4M: the size flags are
  // what is missing (FFmpeg reads containers from regular files only).
  const bool stream = !file.seekable() || path == "-";
  if (has_extension(path, {"yuv"}) || stream)
    TWINMAF_FAIL(kBadInput, "{}: {} needs -w/--width, -h/--height, -p/--pixel_format and -b/--bitdepth{}", path,
                 stream ? "a stream that is not Y4M (raw YUV)" : "raw YUV",
                 stream ? " (an mp4/mkv/... is read from a file, not a stream)" : "");
  return open_ffmpeg_source(path);
}

}  // namespace twinmaf
