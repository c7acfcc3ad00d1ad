// Pictures (public API): planar 8-16 bit samples, 4:0:0 / 4:2:0 / 4:2:2 / 4:4:4.
//
// Invariants:
// - Samples of bpc 8 are uint8_t, of bpc 9..16 native uint16_t.
// - Strides are bytes at every interface; `PlaneView::row<T>` is the one place
//   that turns a byte offset into an element pointer.
// - The scored chroma size is libvmaf's: floor(w/2) for 4:2:0 and 4:2:2 widths,
//   floor(h/2) for 4:2:0 heights. Storage holds the file's real plane,
//   ceil(w/2) x ceil(h/2), so a reader can fill it in one pass; the extra
//   column/row never enters a score.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "twinmaf/status.h"

namespace twinmaf {

enum class PixFmt : uint8_t { k400, k420, k422, k444 };

std::string_view pix_fmt_name(PixFmt fmt);  // "400", "420", "422", "444"
std::optional<PixFmt> parse_pix_fmt(std::string_view name);  // pix_fmt_name's inverse

struct VideoFormat {
  int w = 0;
  int h = 0;
  PixFmt fmt = PixFmt::k420;
  int bpc = 8;

  int planes() const { return fmt == PixFmt::k400 ? 1 : 3; }
  int bytes_per_sample() const { return bpc > 8 ? 2 : 1; }
  // Scored plane size (libvmaf's floor rule).
  int plane_w(int p) const;
  int plane_h(int p) const;
  // Stored plane size (what a file holds: ceil rule).
  int stored_w(int p) const;
  int stored_h(int p) const;

  bool operator==(const VideoFormat&) const = default;
};

// Validates w, h >= 1 and 8 <= bpc <= 16.
Status validate_format(const VideoFormat& f);

struct PlaneView {
  const uint8_t* data = nullptr;
  std::ptrdiff_t stride = 0;  // bytes
  int w = 0;
  int h = 0;

  template <typename T>
  const T* row(int y) const {
    return reinterpret_cast<const T*>(data + static_cast<std::ptrdiff_t>(y) * stride);
  }
};

// Where picture memory comes from: ordinary aligned host memory, pinned
// (page-locked) memory when a GPU backend uploads from it, or device memory
// for pictures that arrive on the GPU (Scorer::push_device). allocate()
// returns zeroed memory (so stride padding is deterministic: readers never
// write it) or aborts like operator new.
class PictureAllocator {
 public:
  virtual ~PictureAllocator() = default;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* p) = 0;
  // False for device memory: the host must not touch the samples.
  virtual bool host_readable() const { return true; }
};

PictureAllocator& host_allocator();

class Picture {
 public:
  // Storage for planes [0, planes) only (for inputs whose features read
  // luma alone); the others have none: data() null, plane_bytes() 0.
  Picture(const VideoFormat& fmt, PictureAllocator& alloc, int planes = 3);
  ~Picture();
  Picture(const Picture&) = delete;
  Picture& operator=(const Picture&) = delete;

  const VideoFormat& format() const { return fmt_; }
  bool host_readable() const { return alloc_.host_readable(); }
  PlaneView plane(int p) const;
  uint8_t* mutable_data(int p) { return data_[p]; }
  const uint8_t* data(int p) const { return data_[p]; }
  std::ptrdiff_t stride(int p) const { return stride_[p]; }
  // The whole allocation (all planes, contiguous in plane order), for uploads.
  const uint8_t* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  std::size_t plane_offset(int p) const { return static_cast<std::size_t>(data_[p] - base_); }
  std::size_t plane_bytes(int p) const {
    return data_[p] ? static_cast<std::size_t>(stride_[p]) * static_cast<std::size_t>(fmt_.stored_h(p)) : 0;
  }

 private:
  VideoFormat fmt_;
  PictureAllocator& alloc_;
  uint8_t* base_ = nullptr;
  std::size_t bytes_ = 0;
  uint8_t* data_[3] = {};
  std::ptrdiff_t stride_[3] = {};
};

using PicturePtr = std::shared_ptr<Picture>;

}  // namespace twinmaf
