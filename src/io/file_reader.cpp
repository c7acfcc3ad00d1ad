#include "io/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace twinmaf {

FileReader::~FileReader() {
  if (fd_ >= 0 && owned_) ::close(fd_);
}

FileReader::FileReader(FileReader&& o) noexcept
    : fd_(o.fd_),
      owned_(o.owned_),
      seekable_(o.seekable_),
      size_(o.size_),
      path_(std::move(o.path_)),
      kept_(std::move(o.kept_)),
      kept_from_(o.kept_from_),
      pos_(o.pos_),
      eof_(o.eof_) {
  o.fd_ = -1;
}

Status FileReader::open(const std::string& path) {
  path_ = path;
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) TWINMAF_FAIL(kIo, "{}: cannot open: {}", path, std::strerror(errno));
    owned_ = true;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) TWINMAF_FAIL(kIo, "{}: cannot stat: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) TWINMAF_FAIL(kIo, "{}: is a directory", path);
  seekable_ = S_ISREG(st.st_mode);
  size_ = seekable_ ? static_cast<uint64_t>(st.st_size) : 0;
  return ok_status();
}

std::optional<uint64_t> FileReader::size() const {
  if (!seekable_) return std::nullopt;
  return size_;
}

Result<size_t> FileReader::read_stream(uint8_t* dst, size_t n) const {
  size_t done = 0;
  while (done < n && !eof_) {
    const ssize_t r = ::read(fd_, dst + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      TWINMAF_FAIL(kIo, "{}: read error: {}", path_, std::strerror(errno));
    }
    if (r == 0) eof_ = true;
    done += static_cast<size_t>(r);
  }
  pos_ += done;
  // kept_ stays bytes [kept_from_, pos_), at most kStreamKeep of them.
  if (done >= kStreamKeep) {
    kept_.assign(dst + done - kStreamKeep, dst + done);
  } else {
    kept_.insert(kept_.end(), dst, dst + done);
    if (kept_.size() > kStreamKeep) kept_.erase(kept_.begin(), kept_.end() - std::ptrdiff_t(kStreamKeep));
  }
  kept_from_ = pos_ - kept_.size();
  return done;
}

Result<size_t> FileReader::read_at(uint64_t offset, void* dst, size_t n) const {
  auto* out = static_cast<uint8_t*>(dst);
  if (seekable_) {
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        TWINMAF_FAIL(kIo, "{}: read error: {}", path_, std::strerror(errno));
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }
  if (offset < kept_from_)
    TWINMAF_FAIL(kInternal, "{}: a stream cannot go back to byte {} (kept from {})", path_, offset, kept_from_);
  // Ahead of the stream: skip to offset.
  uint8_t skip[4096];
  while (pos_ < offset && !eof_) {
    TWINMAF_ASSIGN_OR_RETURN(const size_t got, read_stream(skip, size_t(std::min<uint64_t>(sizeof skip, offset - pos_))));
    if (got == 0) break;
  }
  if (offset > pos_) return size_t{0};  // the stream ended before offset
  // Kept bytes first, then the stream.
  const size_t from_kept = size_t(std::min<uint64_t>(n, pos_ - offset));
  if (from_kept) std::memcpy(out, kept_.data() + (offset - kept_from_), from_kept);
  size_t done = from_kept;
  if (done < n) {
    TWINMAF_ASSIGN_OR_RETURN(const size_t got, read_stream(out + done, n - done));
    done += got;
  }
  return done;
}

Result<bool> FileReader::holds(uint64_t end) const {
  if (seekable_) return end <= size_;
  if (end <= pos_) return true;
  // Read ahead (the bytes stay readable from kept_ when within kStreamKeep).
  std::vector<uint8_t> buf(size_t(std::min<uint64_t>(end - pos_, 1 << 20)));
  while (pos_ < end && !eof_) {
    TWINMAF_ASSIGN_OR_RETURN(const size_t got,
                             read_at(pos_, buf.data(), size_t(std::min<uint64_t>(buf.size(), end - pos_))));
    if (got == 0) break;
  }
  return pos_ >= end;
}

}  // namespace twinmaf
