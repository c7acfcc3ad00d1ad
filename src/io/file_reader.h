// Sequential binary reads with positional I/O (pread), so that a frame of a
// fixed-size format can be read at a known offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace twinmaf {

class FileReader {
 public:
  FileReader() = default;
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  Status open(const std::string& path);
  // Reads up to n bytes at offset; returns the count read (short at EOF).
  Result<size_t> read_at(uint64_t offset, void* dst, size_t n) const;
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

}  // namespace twinmaf
