#include "io/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace twinmaf {

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileReader::open(const std::string& path) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) TWINMAF_FAIL(kIo, "{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) TWINMAF_FAIL(kIo, "{}: cannot stat: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) TWINMAF_FAIL(kIo, "{}: is a directory", path);
  size_ = static_cast<uint64_t>(st.st_size);
  return ok_status();
}

Result<size_t> FileReader::read_at(uint64_t offset, void* dst, size_t n) const {
  size_t done = 0;
  auto* out = static_cast<uint8_t*>(dst);
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

}  // namespace twinmaf
