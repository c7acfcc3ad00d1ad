// Fuzzes the inputs a user hands the CLI: the bytes become a file (memfd)
// read through open_source as Y4M (by its signature) or, by the first byte's
// choice, as raw YUV of a small size; every frame is read. Other files go to
// FFmpeg (container_fuzzer) and are skipped here. Any input must give
// frames or a Status, never a crash, hang or unbounded allocation.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/picture.h"
#include "io/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace twinmaf;
  if (size == 0) return 0;
  const int fd = memfd_create("fuzz", 0);
  if (fd < 0) return 0;
  const uint8_t mode = data[0];
  if (write(fd, data + 1, size - 1) != static_cast<ssize_t>(size - 1)) {
    close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  std::optional<RawParams> raw;
  // Neither Y4M nor raw: open_source hands it to FFmpeg (container_fuzzer's).
  if (!(mode & 1) && (size < 10 || std::memcmp(data + 1, "YUV4MPEG2", 9) != 0)) {
    close(fd);
    return 0;
  }
  if (mode & 1) {
    static constexpr PixFmt kFmt[] = {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444};
    raw = RawParams{1 + (mode >> 1 & 15), 1 + (mode >> 5 & 7), kFmt[mode >> 3 & 3], (mode & 0x80) ? 10 : 8};
  }
  auto src = open_source(path, raw);
  if (src.ok()) {
    VideoSource& s = **src;
    // Bounded by the file: open_source refuses a header whose first frame
    // the file cannot hold.
    s.set_planes_needed(3);
    Picture pic(s.format(), host_allocator());
    for (int i = 0; i < 64; ++i) {
      auto got = s.read(pic);
      if (!got.ok() || !*got) break;
    }
  }
  close(fd);
  return 0;
}
