#include "core/picture.h"

#include "twinmaf/types.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>

namespace twinmaf {

std::string_view pix_fmt_name(PixFmt fmt) {
  switch (fmt) {
    case PixFmt::k400: return "400";
    case PixFmt::k420: return "420";
    case PixFmt::k422: return "422";
    case PixFmt::k444: return "444";
  }
  return "?";
}

std::optional<PixFmt> parse_pix_fmt(std::string_view name) {
  for (PixFmt f : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
    if (name == pix_fmt_name(f)) return f;
  return std::nullopt;
}

int VideoFormat::plane_w(int p) const {
  if (p == 0) return w;
  if (fmt == PixFmt::k400) return 0;
  return fmt == PixFmt::k444 ? w : w >> 1;
}

int VideoFormat::plane_h(int p) const {
  if (p == 0) return h;
  if (fmt == PixFmt::k400) return 0;
  return fmt == PixFmt::k420 ? h >> 1 : h;
}

int VideoFormat::stored_w(int p) const {
  if (p == 0) return w;
  if (fmt == PixFmt::k400) return 0;
  return fmt == PixFmt::k444 ? w : (w + 1) >> 1;
}

int VideoFormat::stored_h(int p) const {
  if (p == 0) return h;
  if (fmt == PixFmt::k400) return 0;
  return fmt == PixFmt::k420 ? (h + 1) >> 1 : h;
}

Status validate_format(const VideoFormat& f) {
  if (f.w < 1 || f.h < 1) TWINMAF_FAIL(kInvalidArgument, "picture size {}x{} is not positive", f.w, f.h);
  if (f.w > kMaxPictureSize || f.h > kMaxPictureSize)
    TWINMAF_FAIL(kInvalidArgument, "picture size {}x{} exceeds {}x{}", f.w, f.h, kMaxPictureSize, kMaxPictureSize);
  if (f.bpc < 8 || f.bpc > 16) TWINMAF_FAIL(kInvalidArgument, "bit depth {} is outside 8..16", f.bpc);
  return ok_status();
}

namespace {

// Zeroed pictures, 64-byte aligned, after a header holding the size of
// their mapping (0: the heap). Large ones are fresh anonymous pages: zero,
// and memory only once written, so a picture whose frame never arrives (a
// stream declaring a huge size, then ending) costs address space only.
class HostAllocator final : public PictureAllocator {
 public:
  void* allocate(std::size_t bytes) override {
    const std::size_t total = bytes + kHeader;
    void* m;
    if (bytes >= kMappedFrom) {
      m = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      *static_cast<std::size_t*>(m) = total;
    } else {
      m = ::operator new(total, std::align_val_t{kHeader});
      std::memset(m, 0, total);
    }
    return static_cast<uint8_t*>(m) + kHeader;
  }
  void deallocate(void* p) override {
    uint8_t* m = static_cast<uint8_t*>(p) - kHeader;
    const std::size_t mapped = *reinterpret_cast<std::size_t*>(m);
    if (mapped) ::munmap(m, mapped);
    else ::operator delete(m, std::align_val_t{kHeader});
  }

 private:
  static constexpr std::size_t kHeader = 64;
  static constexpr std::size_t kMappedFrom = std::size_t{64} << 20;
};

constexpr std::ptrdiff_t kStrideAlign = 64;

}  // namespace

PictureAllocator& host_allocator() {
  static HostAllocator alloc;
  return alloc;
}

Picture::Picture(const VideoFormat& fmt, PictureAllocator& alloc, int planes) : fmt_(fmt), alloc_(alloc) {
  std::size_t offset[3] = {};
  planes = std::clamp(planes, 1, fmt.planes());
  for (int p = 0; p < planes; ++p) {
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(fmt.stored_w(p)) * fmt.bytes_per_sample();
    stride_[p] = (row + kStrideAlign - 1) / kStrideAlign * kStrideAlign;
    offset[p] = bytes_;
    bytes_ += static_cast<std::size_t>(stride_[p]) * static_cast<std::size_t>(fmt.stored_h(p));
  }
  base_ = static_cast<uint8_t*>(alloc_.allocate(bytes_));
  for (int p = 0; p < planes; ++p) data_[p] = base_ + offset[p];
}

Picture::~Picture() { alloc_.deallocate(base_); }

PlaneView Picture::plane(int p) const {
  return PlaneView{data_[p], stride_[p], fmt_.plane_w(p), fmt_.plane_h(p)};
}

struct PicturePool::State {
  VideoFormat fmt;
  PictureAllocator* alloc;
  int planes;
  std::mutex mutex;
  std::vector<std::unique_ptr<Picture>> free;
};

PicturePool::PicturePool(const VideoFormat& fmt, PictureAllocator& alloc, int planes)
    : state_(std::make_shared<State>()) {
  state_->fmt = fmt;
  state_->alloc = &alloc;
  state_->planes = planes;
}

const VideoFormat& PicturePool::format() const { return state_->fmt; }

PicturePtr PicturePool::acquire() {
  std::unique_ptr<Picture> pic;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->free.empty()) {
      pic = std::move(state_->free.back());
      state_->free.pop_back();
    }
  }
  if (!pic) pic = std::make_unique<Picture>(state_->fmt, *state_->alloc, state_->planes);
  std::shared_ptr<State> state = state_;
  return PicturePtr(pic.release(), [state](Picture* p) {
    std::lock_guard lock(state->mutex);
    state->free.emplace_back(p);
  });
}

}  // namespace twinmaf
