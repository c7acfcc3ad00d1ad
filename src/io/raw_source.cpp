#include "io/raw_source.h"

#include <algorithm>

#include "io/planar.h"

namespace twinmaf {

Result<std::unique_ptr<VideoSource>> RawSource::open(FileReader file, const RawParams& p) {
  VideoFormat f{p.w, p.h, p.fmt, p.bpc};
  TWINMAF_RETURN_IF_ERROR(validate_format(f));
  const std::string path = file.path();
  std::unique_ptr<RawSource> s(new RawSource(std::move(file), f));
  // Checked before any picture is allocated for it.
  if (const std::optional<uint64_t> size = s->file_.size()) {
    if (*size == 0) TWINMAF_FAIL(kBadInput, "{}: file is empty", path);
    if (*size < packed_frame_bytes(f))
      TWINMAF_FAIL(kBadInput, "{}: holds {} bytes, less than one {}x{} {} {}-bit frame ({} bytes)", path, *size, f.w,
                   f.h, pix_fmt_name(f.fmt), f.bpc, packed_frame_bytes(f));
  }
  return std::unique_ptr<VideoSource>(std::move(s));
}

Result<bool> RawSource::read_frame(unsigned index, Picture& pic) const {
  const unsigned frame = skipped_ + index;
  return read_packed_frame(file_, uint64_t(frame) * packed_frame_bytes(format_), pic, planes_needed_,
                           host_check_from_, frame);
}

std::optional<uint64_t> RawSource::frames_begun() const {
  const std::optional<uint64_t> size = file_.size();
  if (!size) return std::nullopt;
  const uint64_t bytes = packed_frame_bytes(format_);
  const uint64_t begun = (*size + bytes - 1) / bytes;
  return begun > skipped_ ? begun - skipped_ : 0;
}

Result<bool> RawSource::read(Picture& pic) {
  TWINMAF_ASSIGN_OR_RETURN(bool got, read_frame(next_, pic));
  if (got) ++next_;
  return got;
}

std::optional<unsigned> RawSource::frames_hint() const {
  const std::optional<uint64_t> size = file_.size();
  if (!size) return std::nullopt;
  return static_cast<unsigned>(std::min<uint64_t>(*size / packed_frame_bytes(format_), UINT32_MAX));
}

Status RawSource::skip(unsigned n) {
  skipped_ += n;
  return ok_status();
}

}  // namespace twinmaf
