#include "io/y4m_source.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "io/planar.h"

namespace twinmaf {

namespace {

constexpr std::string_view kMagic = "YUV4MPEG2";
constexpr size_t kMaxHeader = 1024;

bool parse_int(std::string_view s, int* out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_ratio(std::string_view s) {
  const size_t colon = s.find(':');
  int a = 0, b = 0;
  return colon != std::string_view::npos && parse_int(s.substr(0, colon), &a) &&
         parse_int(s.substr(colon + 1), &b);
}

// "420p10" -> (k420, 10); "mono" -> (k400, 8).
bool parse_colour_space(std::string_view c, PixFmt* fmt, int* bpc, bool* alpha) {
  *alpha = false;
  *bpc = 8;
  if (c == "420" || c == "420jpeg" || c == "420mpeg2" || c == "420paldv") {
    *fmt = PixFmt::k420;
    return true;
  }
  if (c == "444alpha") {
    *fmt = PixFmt::k444;
    *alpha = true;
    return true;
  }
  std::string_view rest;
  if (c.starts_with("mono")) {
    *fmt = PixFmt::k400;
    rest = c.substr(4);
  } else if (c.starts_with("420") || c.starts_with("422") || c.starts_with("444")) {
    *fmt = c[2] == '0' ? PixFmt::k420 : c[2] == '2' ? PixFmt::k422 : PixFmt::k444;
    rest = c.substr(3);
    if (!rest.empty()) {
      if (rest[0] != 'p') return false;
      rest = rest.substr(1);
    }
  } else {
    return false;
  }
  if (rest.empty()) return true;
  return parse_int(rest, bpc) && *bpc >= 9 && *bpc <= 16;
}

}  // namespace

Result<VideoFormat> parse_y4m_header(std::string_view line, uint64_t* alpha_plane_bytes, ColorRange* range) {
  *range = ColorRange::kLimited;
  if (!line.starts_with(kMagic) || (line.size() > kMagic.size() && line[kMagic.size()] != ' '))
    TWINMAF_FAIL(kBadInput, "not a Y4M file (no YUV4MPEG2 signature)");
  bool got_w = false, got_h = false, got_f = false, alpha = false;
  VideoFormat f;
  f.fmt = PixFmt::k420;
  std::string_view tags = line.substr(kMagic.size());
  while (!tags.empty()) {
    if (tags[0] == ' ') {
      tags.remove_prefix(1);
      continue;
    }
    const size_t end = std::min(tags.find(' '), tags.size());
    const std::string_view tag = tags.substr(0, end);
    tags.remove_prefix(end);
    const std::string_view v = tag.substr(1);
    switch (tag[0]) {
      case 'W':
        if (!parse_int(v, &f.w) || f.w < 1) TWINMAF_FAIL(kBadInput, "bad Y4M width '{}'", tag);
        got_w = true;
        break;
      case 'H':
        if (!parse_int(v, &f.h) || f.h < 1) TWINMAF_FAIL(kBadInput, "bad Y4M height '{}'", tag);
        got_h = true;
        break;
      case 'F':
        if (!parse_ratio(v)) TWINMAF_FAIL(kBadInput, "bad Y4M frame rate '{}'", tag);
        got_f = true;
        break;
      case 'A':
        if (!parse_ratio(v)) TWINMAF_FAIL(kBadInput, "bad Y4M aspect ratio '{}'", tag);
        break;
      case 'I':
        // libvmaf reads progressive Y4M only.
        if (v != "p")
          TWINMAF_FAIL(kUnsupported, "interlaced Y4M ('{}') is not supported; deinterlace it first", tag);
        break;
      case 'X':  // extensions: only the range is read
        if (v == "COLORRANGE=FULL") *range = ColorRange::kFull;
        break;
      case 'C':
        if (!parse_colour_space(v, &f.fmt, &f.bpc, &alpha))
          TWINMAF_FAIL(kUnsupported, "unsupported Y4M colour space '{}'", v);
        break;
      default:
        TWINMAF_FAIL(kBadInput, "unknown Y4M header field '{}'", tag);
    }
  }
  if (!got_w) TWINMAF_FAIL(kBadInput, "Y4M header lacks the width (W)");
  if (!got_h) TWINMAF_FAIL(kBadInput, "Y4M header lacks the height (H)");
  if (!got_f) TWINMAF_FAIL(kBadInput, "Y4M header lacks the frame rate (F)");
  TWINMAF_RETURN_IF_ERROR(validate_format(f));
  *alpha_plane_bytes = alpha ? uint64_t(f.w) * uint64_t(f.h) : 0;
  return f;
}

Result<std::unique_ptr<VideoSource>> Y4mSource::open(FileReader file) {
  const std::string path = file.path();
  std::unique_ptr<Y4mSource> s(new Y4mSource(std::move(file)));
  char buf[kMaxHeader];
  TWINMAF_ASSIGN_OR_RETURN(size_t n, s->file_.read_at(0, buf, sizeof buf));
  const std::string_view head(buf, n);
  const size_t nl = head.find('\n');
  if (!head.starts_with(kMagic)) TWINMAF_FAIL(kBadInput, "{}: not a Y4M file", path);
  if (nl == std::string_view::npos) TWINMAF_FAIL(kBadInput, "{}: Y4M header is not terminated", path);
  auto f = parse_y4m_header(head.substr(0, nl), &s->alpha_bytes_, &s->range_);
  if (!f.ok()) return Status(f.status().code(), fmt::format("{}: {}", path, f.status().message()));
  s->format_ = *f;
  s->offset_ = nl + 1;
  s->header_bytes_ = s->offset_;
  // Checked before any picture is allocated for it.
  const uint64_t first_end = s->offset_ + 6 + packed_frame_bytes(*f) + s->alpha_bytes_;
  if (const std::optional<uint64_t> size = s->file_.size(); size && *size > s->offset_ && *size < first_end)
    TWINMAF_FAIL(kBadInput, "{}: holds {} bytes, less than the header and one {}x{} {} {}-bit frame ({} bytes)", path,
                 *size, f->w, f->h, pix_fmt_name(f->fmt), f->bpc, first_end);
  return std::unique_ptr<VideoSource>(std::move(s));
}

std::optional<unsigned> Y4mSource::frames_hint() const {
  const std::optional<uint64_t> size = file_.size();
  if (!size) return std::nullopt;
  const uint64_t frame = 6 + packed_frame_bytes(format_) + alpha_bytes_;
  return static_cast<unsigned>(std::min<uint64_t>((*size - header_bytes_) / frame, UINT32_MAX));
}

Result<bool> Y4mSource::read(Picture& pic) {
  char buf[256];
  TWINMAF_ASSIGN_OR_RETURN(size_t n, file_.read_at(offset_, buf, sizeof buf));
  if (n == 0) return false;
  const std::string_view head(buf, n);
  if (!head.starts_with("FRAME"))
    TWINMAF_FAIL(kBadInput, "{}: frame {}: lost framing (no FRAME marker)", path(), next_);
  const size_t nl = head.find('\n');
  if (nl == std::string_view::npos)
    TWINMAF_FAIL(kBadInput, "{}: frame {}: FRAME header is not terminated", path(), next_);
  const uint64_t data = offset_ + nl + 1;
  TWINMAF_ASSIGN_OR_RETURN(bool got, read_packed_frame(file_, data, pic, planes_needed_, host_check_from_, next_));
  if (!got) TWINMAF_FAIL(kBadInput, "{}: frame {} is truncated (header only)", path(), next_);
  const uint64_t end = data + packed_frame_bytes(format_) + alpha_bytes_;
  TWINMAF_ASSIGN_OR_RETURN(const bool whole, file_.holds(end));
  if (!whole) TWINMAF_FAIL(kBadInput, "{}: frame {} is truncated (alpha plane)", path(), next_);
  offset_ = end;
  ++next_;
  return true;
}

}  // namespace twinmaf
