// Binary reads by offset from a file, a pipe or standard input.
//
// Regular files use positional I/O (pread): any offset, from any thread, so a
// frame of a fixed-size format can be read at a known offset. Anything else
// (a pipe, a FIFO, a character device, "-" for standard input) is a stream:
// offsets must not go back more than kStreamKeep bytes behind the furthest
// byte read (the bytes of the last kStreamKeep are kept, so a header read
// ahead can be read again), offsets ahead skip the bytes between, and calls
// come from one thread. Sources that need more random access than that say
// so (VideoSource::random_access is false on streams).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace twinmaf {

class FileReader {
 public:
  static constexpr size_t kStreamKeep = 64 * 1024;

  FileReader() = default;
  ~FileReader();
  FileReader(FileReader&& o) noexcept;
  FileReader& operator=(FileReader&&) = delete;
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // "-" reads standard input.
  Status open(const std::string& path);
  // Reads up to n bytes at offset; returns the count read (short at EOF).
  Result<size_t> read_at(uint64_t offset, void* dst, size_t n) const;
  // Whether the input holds bytes up to `end` (streams read ahead to know).
  Result<bool> holds(uint64_t end) const;
  bool seekable() const { return seekable_; }
  // Size of a regular file; none for streams.
  std::optional<uint64_t> size() const;
  const std::string& path() const { return path_; }

 private:
  // Streams: reads up to n bytes at the stream position into dst.
  Result<size_t> read_stream(uint8_t* dst, size_t n) const;

  int fd_ = -1;
  bool owned_ = false;  // not standard input
  bool seekable_ = false;
  uint64_t size_ = 0;
  std::string path_;
  // Streams: bytes [kept_from_, pos_) of the input, at most kStreamKeep.
  mutable std::vector<uint8_t> kept_;
  mutable uint64_t kept_from_ = 0;
  mutable uint64_t pos_ = 0;
  mutable bool eof_ = false;
};

}  // namespace twinmaf
