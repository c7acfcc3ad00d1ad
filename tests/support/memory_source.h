// A VideoSource over frames held in memory (packed planar, as raw files), for
// tests that build their inputs.
#pragma once

#include <cstring>
#include <vector>

#include "io/planar.h"
#include "io/source.h"

namespace twinmaf::test {

class MemorySource final : public VideoSource {
 public:
  MemorySource(const VideoFormat& f, std::vector<uint8_t> packed, std::string name = "memory")
      : VideoSource(std::move(name)), format_(f), data_(std::move(packed)) {}
  const VideoFormat& format() const override { return format_; }
  Result<bool> read(Picture& pic) override {
    const uint64_t frame = packed_frame_bytes(format_);
    if ((next_ + 1) * frame > data_.size()) return false;
    const uint8_t* src = data_.data() + next_ * frame;
    for (int p = 0; p < format_.planes(); ++p) {
      const size_t row = size_t(format_.stored_w(p)) * size_t(format_.bytes_per_sample());
      for (int y = 0; y < format_.stored_h(p); ++y)
        if (p < planes_needed_) std::memcpy(pic.mutable_data(p) + y * pic.stride(p), src + size_t(y) * row, row);
      src += packed_plane_bytes(format_, p);
    }
    ++next_;
    return true;
  }

 private:
  VideoFormat format_;
  std::vector<uint8_t> data_;
  uint64_t next_ = 0;
};

}  // namespace twinmaf::test
