#include "output/file_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace twinmaf {

namespace {

// Writes all of `text` to `fd`; false with errno set otherwise.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    text.remove_prefix(size_t(n));
  }
  return true;
}

Status write_failed(const std::string& path, int err) {
  return make_error(Code::kIo, "{}: write failed: {}", path, std::strerror(err));
}

}  // namespace

Result<StagedFile> StagedFile::stage(const std::string& path, std::string_view text) {
  struct stat target {};
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (path == "-" || (exists && !S_ISREG(target.st_mode))) {
    const int fd = path == "-" ? STDOUT_FILENO : ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
    const bool ok = write_all(fd, text);
    const int err = errno;
    if (fd != STDOUT_FILENO) ::close(fd);
    if (!ok) return write_failed(path, err);
    return StagedFile(path, "");
  }
  const std::filesystem::path p(path);
  static std::atomic<unsigned> serial{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp = (p.parent_path() / fmt::format(".{}.twinmaf-{}-{}", p.filename().string(), ::getpid(), serial++)).string();
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask applies, as to a new file
    if (fd < 0 && errno != EEXIST) TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
  }
  if (fd < 0) TWINMAF_FAIL(kIo, "{}: cannot write: no free temporary name", path);
  bool ok = write_all(fd, text) && (!exists || ::fchmod(fd, target.st_mode & 07777) == 0);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return write_failed(path, err);
  }
  return StagedFile(path, std::move(temp));
}

StagedFile::StagedFile(StagedFile&& other) noexcept : path_(std::move(other.path_)), temp_(std::move(other.temp_)) {
  other.temp_.clear();
}

StagedFile::~StagedFile() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Status StagedFile::commit() {
  if (temp_.empty()) return ok_status();
  if (::rename(temp_.c_str(), path_.c_str()) != 0) return write_failed(path_, errno);
  temp_.clear();
  return ok_status();
}

Status write_whole_file(const std::string& path, std::string_view text) {
  TWINMAF_ASSIGN_OR_RETURN(StagedFile f, StagedFile::stage(path, text));
  return f.commit();
}

}  // namespace twinmaf
