// Fuzzes the container path: the bytes become a file (memfd) opened through
// FFmpeg (io/ffmpeg_source.cpp: the demuxer and decoder are Debian's,
// uninstrumented; twinmaf's side is the format mapping, the frame copies and
// range checks, the error routing from FFmpeg's log, and the several-decoder
// reader: the pre-scan that classifies H.264/HEVC/VP9 packets
// (io/access_points.cpp) and the demuxer and decoder threads over stretches).
// Each input is read twice: every frame with one decoder (read(pic)), then
// with three decoders through a picture pool (read(pool, pic)), after a skip
// and with a small look-ahead on some inputs, as the CLI's --decoders does.
// Any input must give frames or a Status, never a crash, hang, leak or race.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/picture.h"
#include "io/ffmpeg_source.h"

namespace {

using namespace twinmaf;

// Pictures beyond this many samples are not decoded: a header may declare
// up to 32768x32768, which a run may legitimately allocate, but not in 4 GB.
constexpr int64_t kMaxSamples = int64_t(1) << 22;
constexpr unsigned kMaxFrames = 1000;

void read_all(const std::string& path, unsigned decoders, unsigned skip, uint64_t ahead_bytes) {
  auto opened = open_ffmpeg_source(path);
  if (!opened.ok()) return;
  VideoSource& s = **opened;
  (void)s.frames_hint();
  (void)s.color_range();
  (void)s.nvdec_refusal();
  (void)s.h264();
  const VideoFormat f = s.format();
  if (int64_t(f.w) * f.h > kMaxSamples) return;
  VideoSource::Decoder d;
  d.threads = 1;  // deterministic and within the fuzzing machine's cores
  d.decoders = decoders;
  d.ahead_bytes = ahead_bytes;
  if (!s.set_decoder(d).ok()) return;
  if (skip && !s.skip(skip).ok()) return;
  if (decoders == 1) {
    Picture pic(f, host_allocator());
    for (unsigned i = 0; i < kMaxFrames; ++i) {
      auto got = s.read(pic);
      if (!got.ok() || !*got) break;
    }
  } else {
    PicturePool pool(f, host_allocator());
    for (unsigned i = 0; i < kMaxFrames; ++i) {
      PicturePtr pic;
      auto got = s.read(pool, pic);
      if (!got.ok() || !*got) break;
    }
  }
  (void)s.decode_stats();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int fd = memfd_create("fuzz", 0);
  if (fd < 0) return 0;
  if (write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  // FFmpeg opens a path: this one reopens the memfd from its start.
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  read_all(path, 1, 0, 0);
  // The size picks a skip (0 or a few frames) and a look-ahead (none, or two
  // pictures per stretch): mutations change it without rewriting headers.
  read_all(path, 3, size & 1 ? unsigned(size % 61) : 0, size & 2 ? 1 : 0);
  close(fd);
  return 0;
}
