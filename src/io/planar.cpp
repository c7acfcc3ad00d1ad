#include "io/planar.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "io/source.h"

namespace twinmaf {

static_assert(std::endian::native == std::endian::little,
              "raw samples are little-endian; a big-endian host needs a byte swap here");

uint64_t packed_plane_bytes(const VideoFormat& f, int p) {
  return uint64_t(f.stored_w(p)) * uint64_t(f.stored_h(p)) * uint64_t(f.bytes_per_sample());
}

uint64_t packed_frame_bytes(const VideoFormat& f) {
  uint64_t n = 0;
  for (int p = 0; p < f.planes(); ++p) n += packed_plane_bytes(f, p);
  return n;
}

Result<bool> read_packed_frame(const FileReader& file, uint64_t offset, Picture& pic, int planes,
                               int check_from, unsigned frame) {
  const VideoFormat& f = pic.format();
  const uint64_t total = packed_frame_bytes(f);
  if (const std::optional<uint64_t> size = file.size()) {
    if (offset >= *size) return false;
    if (*size - offset < total)
      TWINMAF_FAIL(kBadInput, "{}: frame {} is truncated ({} of {} bytes)", file.path(), frame, *size - offset, total);
  }
  const auto truncated = [&](uint64_t have) -> Status {
    TWINMAF_FAIL(kBadInput, "{}: frame {} is truncated ({} of {} bytes)", file.path(), frame, have, total);
  };
  uint64_t pos = offset;
  // Planes whose rows are not the picture's rows, and a stream's planes no
  // feature needs, pass through a scratch of at most kChunkBytes (or one
  // row): memory follows the bytes that arrive, whatever size a header
  // declares.
  constexpr size_t kChunkBytes = size_t{4} << 20;
  thread_local std::vector<uint8_t> scratch;
  for (int p = 0; p < f.planes(); ++p) {
    const uint64_t bytes = packed_plane_bytes(f, p);
    // A stream reads the planes no feature needs too: they must be there.
    if (p < planes || !file.seekable()) {
      const size_t row = size_t(f.stored_w(p)) * size_t(f.bytes_per_sample());
      const size_t rows = size_t(f.stored_h(p));
      uint8_t* dst = pic.mutable_data(p);
      const bool direct = p < planes && static_cast<std::ptrdiff_t>(row) == pic.stride(p);
      const size_t chunk_rows = direct ? rows : std::max<size_t>(1, kChunkBytes / row);
      if (!direct) scratch.resize(std::min(rows, chunk_rows) * row);
      for (size_t y0 = 0; y0 < rows; y0 += chunk_rows) {
        const size_t n = std::min(rows - y0, chunk_rows) * row;
        const uint64_t at = pos + y0 * row;
        TWINMAF_ASSIGN_OR_RETURN(size_t got, file.read_at(at, direct ? dst + y0 * row : scratch.data(), n));
        if (got != n) {
          if (got == 0 && at == offset) return false;  // a stream that ends between frames
          return truncated(at - offset + got);
        }
        if (!direct && p < planes)
          for (size_t y = 0; y < n / row; ++y)
            std::memcpy(dst + (y0 + y) * size_t(pic.stride(p)), scratch.data() + y * row, row);
      }
    }
    pos += bytes;
  }
  if (f.bpc > 8 && f.bpc < 16)
    TWINMAF_RETURN_IF_ERROR(check_sample_range(pic, check_from, planes, file.path(), frame));
  return true;
}

}  // namespace twinmaf
