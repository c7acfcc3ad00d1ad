// libvmaf's C API on twinmaf's public C++ API (docs/capi.md): the objects
// behind the C handles, and what the C API's files share.
//
// Invariants:
// - Every handle the API hands out (contexts, models, collections,
//   dictionaries, CUDA states, picture buffers) is registered live from
//   creation to destruction; a call with a handle that is not live (NULL,
//   closed, freed, never ours) gets -EINVAL instead of touching it.
// - A context is used by one call at a time (ContextUse): calls on it from
//   several threads run in turn, and vmaf_close waits for the call in
//   progress instead of destroying the scorer under it.
// - No C++ exception crosses the C ABI: every entry point runs its body
//   through guarded(), which maps bad_alloc to -ENOMEM and anything else to
//   -EINVAL.
// - A picture buffer (VmafRef, also the picture's `priv`) owns its memory in
//   libvmaf's layout and its reference count; a VmafPicture struct is only
//   accepted while its fields equal the buffer's.
// - The C layer sees include/twinmaf/ and include/libvmaf/ only.
#pragma once

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "twinmaf/twinmaf.h"

namespace twinmaf::capi {

// A Status of the C layer's own checks.
inline Status invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

// ---- Logging (libvmaf's: one process-wide level, set by vmaf_init) --------

void set_log_level(VmafLogLevel level);
void log(VmafLogLevel level, std::string_view message);
// Logs "<where>: <message>" as an error and returns -EINVAL.
int fail(std::string_view where, std::string_view message);
int fail(std::string_view where, const Status& status);

// Runs an entry point's body: its int result, or -ENOMEM / -EINVAL for an
// exception (logged).
template <typename F>
int guarded(std::string_view where, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    try {
      log(VMAF_LOG_LEVEL_ERROR, std::string(where) + ": out of memory");
    } catch (...) {
    }
    return -ENOMEM;
  } catch (...) {
    try {
      log(VMAF_LOG_LEVEL_ERROR, std::string(where) + ": internal error");
    } catch (...) {
    }
    return -EINVAL;
  }
}

// ---- Live handles ---------------------------------------------------------

template <typename T>
class Registry {
 public:
  void add(const T* p) {
    std::lock_guard lock(mutex_);
    live_.insert(p);
  }
  // False when p was not live.
  bool remove(const T* p) {
    std::lock_guard lock(mutex_);
    return live_.erase(p) == 1;
  }
  bool contains(const T* p) const {
    if (!p) return false;
    std::lock_guard lock(mutex_);
    return live_.count(p) == 1;
  }
  // Counts a user of p (T::users) if p is live, atomically with the check:
  // remove() and the wait for no users that follows it cannot come between.
  bool hold(T* p) {
    if (!p) return false;
    std::lock_guard lock(mutex_);
    if (live_.count(p) == 0) return false;
    p->users.fetch_add(1);
    return true;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const T*> live_;
};

template <typename T>
Registry<T>& live() {
  static Registry<T>* r = new Registry<T>;  // never destroyed: handles may outlive static destruction
  return *r;
}

// ---- Pictures -------------------------------------------------------------

// Where a picture buffer's samples are.
enum class Memory : uint8_t { kHost, kPinned, kDevice };

// libvmaf's picture layout (picture.c): plane sizes round down, rows are the
// plane width rounded up to 32 samples (times 2 bytes above 8 bits), planes
// Y | U | V in one allocation. `room` grows chroma planes to the rounded-up
// size (device buffers: twinmaf copies the stored, rounded-up planes).
struct Layout {
  VmafPixelFormat fmt = VMAF_PIX_FMT_UNKNOWN;
  unsigned bpc = 0;
  unsigned w[3] = {}, h[3] = {};
  ptrdiff_t stride[3] = {};
  size_t offset[3] = {};
  size_t bytes = 0;
  int planes() const { return fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3; }
};
// Checks pix_fmt, bpc (8..16) and the size (1..kMaxPictureSize).
Result<Layout> picture_layout(VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h, bool room = false);
VideoFormat video_format(const Layout& layout);

class PicturePool;

// Pinned and device memory (cuda.cpp; without CUDA, allocation fails and
// nothing is ever released or pushed). Buffers are allocated in `cu_ctx` (a
// CUcontext; null: the primary context of the current device), where the
// caller's CUDA code writes them.
struct DeviceMemory {
  void* (*allocate)(Memory kind, size_t bytes, void* cu_ctx);
  void (*release)(Memory kind, void* p, void* cu_ctx);
  // Scores a pair of device pictures of cu_ctx (Scorer::push_device).
  Status (*push)(Scorer& s, const DevicePlanes& ref, const DevicePlanes& dis, void* cu_ctx);
};
const DeviceMemory& device_memory();

}  // namespace twinmaf::capi

// The buffer behind VmafPicture::ref and ::priv.
struct VmafRef {
  std::atomic<long> refs{1};
  twinmaf::capi::Layout layout;
  twinmaf::capi::Memory memory = twinmaf::capi::Memory::kHost;
  uint8_t* base = nullptr;
  void* cu_ctx = nullptr;  // pinned/device memory: the CUcontext it belongs to
  // Set while the buffer is out of a pool; its last reference returns it.
  std::shared_ptr<twinmaf::capi::PicturePool> pool;
};

namespace twinmaf::capi {

// A new buffer of `layout` (zero-filled in host memory); null when out of
// memory.
VmafRef* new_buffer(const Layout& layout, Memory memory, void* cu_ctx = nullptr);
// Frees a buffer (its last reference is gone, it is in no pool).
void free_buffer(VmafRef* buffer);
// Fills `pic` with a new reference to `buffer`.
void expose(VmafRef* buffer, VmafPicture* pic);
// The buffer of a picture the library handed out, if `pic` is one unchanged.
VmafRef* buffer_of(const VmafPicture* pic);
// Drops one reference of pic's buffer and zeroes pic.
int unref(VmafPicture* pic);

// vmaf_preallocate_pictures(): `count` buffers handed out one at a time;
// fetch waits while all are out. Outstanding pictures keep the pool alive.
class PicturePool : public std::enable_shared_from_this<PicturePool> {
 public:
  static Result<std::shared_ptr<PicturePool>> create(const Layout& layout, unsigned count);
  ~PicturePool();
  void fetch(VmafPicture* pic);
  void give_back(VmafRef* buffer);

 private:
  PicturePool() = default;
  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<VmafRef*> free_;
};

}  // namespace twinmaf::capi

// ---- The C handles --------------------------------------------------------

struct VmafFeatureDictionary {
  twinmaf::OptionList entries;
};

struct VmafModel {
  twinmaf::ModelHandle model;
};

struct VmafModelCollection {
  twinmaf::ModelHandle members;
};

// Freed by the vmaf_close() of the last context it was imported into (one
// never imported lives on, as in libvmaf, which has no call to free it).
struct VmafCudaState {
  int device = 0;          // CUDA device index
  void* cu_ctx = nullptr;  // the caller's CUcontext (null: the primary one)
  unsigned imports = 0;    // contexts it is imported into
};

struct VmafContext {
  VmafConfiguration cfg{};
  // Created by the first call that registers, imports, reads or scores, so
  // that an imported CUDA state decides the backend.
  std::unique_ptr<twinmaf::Scorer> scorer;
  VmafCudaState* cuda = nullptr;  // the imported state
  bool opened = false;  // pictures were read: registration is over
  bool flushed = false;
  unsigned read = 0;  // picture pairs read
  twinmaf::VideoFormat format;
  std::shared_ptr<twinmaf::capi::PicturePool> pool;  // vmaf_preallocate_pictures
  // vmaf_cuda_preallocate_pictures: how fetched pictures are made; for
  // device pictures, the ring of buffers handed out in turn (one reference
  // each held here).
  VmafCudaPicturePreallocationMethod cuda_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE;
  twinmaf::capi::Layout cuda_layout;
  std::vector<VmafRef*> cuda_ring;
  unsigned cuda_next = 0;
  // ContextUse: the calls holding the context, and the one running.
  std::atomic<unsigned> users{0};
  std::mutex idle_mutex;
  std::condition_variable idle;
  std::recursive_mutex call;  // recursive: pooled scores call the per-index entry points

  ~VmafContext();
};

namespace twinmaf::capi {

// An entry point's use of a context: false where the context is not live;
// else the call runs alone on it, and vmaf_close waits until it returns.
class ContextUse {
 public:
  explicit ContextUse(VmafContext* v) : v_(live<VmafContext>().hold(v) ? v : nullptr) {
    if (v_) v_->call.lock();
  }
  ~ContextUse() {
    if (!v_) return;
    v_->call.unlock();
    std::lock_guard lock(v_->idle_mutex);
    if (v_->users.fetch_sub(1) == 1) v_->idle.notify_all();
  }
  ContextUse(const ContextUse&) = delete;
  ContextUse& operator=(const ContextUse&) = delete;
  explicit operator bool() const { return v_ != nullptr; }

 private:
  VmafContext* v_;
};

}  // namespace twinmaf::capi
