// Pictures of the C API (libvmaf/picture.h) and the picture pool of
// vmaf_preallocate_pictures(): buffers in libvmaf's layout, reference
// counted, validated on every use.
#include <cstdlib>
#include <cstring>

#include "capi/capi.h"

namespace twinmaf::capi {

namespace {

constexpr size_t kAlign = 32;  // bytes; rows are padded to 32 samples

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

Result<Layout> picture_layout(VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h, bool room) {
  if (fmt < VMAF_PIX_FMT_YUV420P || fmt > VMAF_PIX_FMT_YUV400P)
    return invalid(fmt::format("pixel format {} is not one of 1..4", static_cast<int>(fmt)));
  if (bpc < 8 || bpc > 16) return invalid(fmt::format("bit depth {} is outside 8..16", bpc));
  if (w < 1 || h < 1 || w > unsigned(kMaxPictureSize) || h > unsigned(kMaxPictureSize))
    return invalid(fmt::format("picture size {}x{} is outside 1x1..{}x{}", w, h, kMaxPictureSize, kMaxPictureSize));
  Layout l;
  l.fmt = fmt;
  l.bpc = bpc;
  const bool sub_w = fmt != VMAF_PIX_FMT_YUV444P, sub_h = fmt == VMAF_PIX_FMT_YUV420P;
  l.w[0] = w;
  l.h[0] = h;
  if (fmt != VMAF_PIX_FMT_YUV400P) {
    l.w[1] = l.w[2] = sub_w ? w >> 1 : w;
    l.h[1] = l.h[2] = sub_h ? h >> 1 : h;
  }
  const size_t bytes_per_sample = bpc > 8 ? 2 : 1;
  size_t offset = 0;
  for (int p = 0; p < 3; ++p) {
    const size_t alloc_w = room && p > 0 && sub_w ? (w + 1) >> 1 : l.w[p];
    const size_t alloc_h = room && p > 0 && sub_h ? (h + 1) >> 1 : l.h[p];
    if (p > 0 && fmt == VMAF_PIX_FMT_YUV400P) break;
    l.stride[p] = static_cast<ptrdiff_t>(round_up(alloc_w, kAlign) * bytes_per_sample);
    l.offset[p] = offset;
    offset += static_cast<size_t>(l.stride[p]) * alloc_h;
  }
  l.bytes = round_up(offset, kAlign);
  return l;
}

VideoFormat video_format(const Layout& l) {
  static constexpr PixFmt kFormats[] = {PixFmt::k420, PixFmt::k420, PixFmt::k422, PixFmt::k444, PixFmt::k400};
  return VideoFormat{int(l.w[0]), int(l.h[0]), kFormats[l.fmt], int(l.bpc)};
}

VmafRef* new_buffer(const Layout& layout, Memory memory, void* cu_ctx) {
  void* base = nullptr;
  if (memory == Memory::kHost) {
    base = std::aligned_alloc(kAlign, layout.bytes);
    if (base) std::memset(base, 0, layout.bytes);
  } else {
    base = device_memory().allocate(memory, layout.bytes, cu_ctx);
  }
  if (!base) return nullptr;
  auto* b = new (std::nothrow) VmafRef;
  if (!b) {
    if (memory == Memory::kHost)
      std::free(base);
    else
      device_memory().release(memory, base, cu_ctx);
    return nullptr;
  }
  b->layout = layout;
  b->memory = memory;
  b->base = static_cast<uint8_t*>(base);
  b->cu_ctx = cu_ctx;
  live<VmafRef>().add(b);
  return b;
}

void free_buffer(VmafRef* b) {
  live<VmafRef>().remove(b);
  if (b->memory == Memory::kHost)
    std::free(b->base);
  else
    device_memory().release(b->memory, b->base, b->cu_ctx);
  delete b;
}

#if !TWINMAF_HAVE_CUDA
namespace {

void* no_allocate(Memory, size_t, void*) { return nullptr; }
void no_release(Memory, void*, void*) {}
Status no_push(Scorer&, const DevicePlanes&, const DevicePlanes&, void*) {
  return Status(Code::kUnsupported, "device pictures need twinmaf's CUDA build");
}

}  // namespace

const DeviceMemory& device_memory() {
  static constexpr DeviceMemory m{no_allocate, no_release, no_push};
  return m;
}
#endif

void expose(VmafRef* b, VmafPicture* pic) {
  const Layout& l = b->layout;
  std::memset(pic, 0, sizeof *pic);
  pic->pix_fmt = l.fmt;
  pic->bpc = l.bpc;
  for (int p = 0; p < 3; ++p) {
    pic->w[p] = l.w[p];
    pic->h[p] = l.h[p];
    if (p < l.planes()) {
      pic->stride[p] = l.stride[p];
      pic->data[p] = b->base + l.offset[p];
    }
  }
  pic->ref = b;
  pic->priv = b;
}

VmafRef* buffer_of(const VmafPicture* pic) {
  if (!pic || !pic->ref || pic->priv != pic->ref || !live<VmafRef>().contains(pic->ref)) return nullptr;
  VmafRef* b = pic->ref;
  const Layout& l = b->layout;
  if (pic->pix_fmt != l.fmt || pic->bpc != l.bpc) return nullptr;
  for (int p = 0; p < 3; ++p) {
    const bool present = p < l.planes();
    if (pic->w[p] != l.w[p] || pic->h[p] != l.h[p]) return nullptr;
    if (present && (pic->stride[p] != l.stride[p] || pic->data[p] != b->base + l.offset[p])) return nullptr;
  }
  return b;
}

int unref(VmafPicture* pic) {
  if (!pic || !pic->ref) return -EINVAL;
  VmafRef* b = pic->ref;
  if (!live<VmafRef>().contains(b)) return -EINVAL;
  std::memset(pic, 0, sizeof *pic);
  if (b->refs.fetch_sub(1) != 1) return 0;
  if (b->pool) {
    std::shared_ptr<PicturePool> pool = std::move(b->pool);
    pool->give_back(b);
  } else {
    free_buffer(b);
  }
  return 0;
}

Result<std::shared_ptr<PicturePool>> PicturePool::create(const Layout& layout, unsigned count) {
  std::shared_ptr<PicturePool> pool(new PicturePool);
  pool->free_.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    VmafRef* b = new_buffer(layout, Memory::kHost);
    if (!b) return Status(Code::kInternal, fmt::format("out of memory for {} pictures of {} bytes", count, layout.bytes));
    pool->free_.push_back(b);
  }
  return pool;
}

PicturePool::~PicturePool() {
  for (VmafRef* b : free_) free_buffer(b);
}

void PicturePool::fetch(VmafPicture* pic) {
  std::unique_lock lock(mutex_);
  available_.wait(lock, [&] { return !free_.empty(); });
  VmafRef* b = free_.back();
  free_.pop_back();
  lock.unlock();
  b->refs.store(1);
  b->pool = shared_from_this();
  expose(b, pic);
}

void PicturePool::give_back(VmafRef* b) {
  std::lock_guard lock(mutex_);
  free_.push_back(b);
  available_.notify_one();
}

}  // namespace twinmaf::capi

using twinmaf::capi::guarded;

extern "C" int vmaf_picture_alloc(VmafPicture* pic, VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h) {
  return guarded("vmaf_picture_alloc", [&] {
    if (!pic) return -EINVAL;
    const auto layout = twinmaf::capi::picture_layout(pix_fmt, bpc, w, h);
    if (!layout.ok()) return twinmaf::capi::fail("vmaf_picture_alloc", layout.status());
    VmafRef* b = twinmaf::capi::new_buffer(*layout, twinmaf::capi::Memory::kHost);
    if (!b) return -ENOMEM;
    twinmaf::capi::expose(b, pic);
    return 0;
  });
}

extern "C" int vmaf_picture_unref(VmafPicture* pic) {
  return guarded("vmaf_picture_unref", [&] { return twinmaf::capi::unref(pic); });
}
