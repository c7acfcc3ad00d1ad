#include "io/raw_source.h"

#include "io/planar.h"

namespace twinmaf {

Result<std::unique_ptr<VideoSource>> RawSource::open(const std::string& path, const RawParams& p) {
  VideoFormat f{p.w, p.h, p.fmt, p.bpc};
  TWINMAF_RETURN_IF_ERROR(validate_format(f));
  std::unique_ptr<RawSource> s(new RawSource(path, f));
  TWINMAF_RETURN_IF_ERROR(s->file_.open(path));
  if (s->file_.size() == 0) TWINMAF_FAIL(kBadInput, "{}: file is empty", path);
  return std::unique_ptr<VideoSource>(std::move(s));
}

Result<bool> RawSource::read(Picture& pic) {
  const uint64_t offset = uint64_t(next_) * packed_frame_bytes(format_);
  TWINMAF_ASSIGN_OR_RETURN(bool got, read_packed_frame(file_, offset, pic, planes_needed_, next_));
  if (got) ++next_;
  return got;
}

Status RawSource::skip(unsigned n) {
  next_ += n;
  return ok_status();
}

}  // namespace twinmaf
