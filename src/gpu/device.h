// RAII wrappers over the CUDA runtime: the device context of a session,
// streams, events, device and pinned host buffers, the layout of a twin's
// device scratch, and the pinned picture allocator. All fallible calls return Status.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/assert.h"
#include "base/status.h"
#include "core/picture.h"

namespace twinmaf::gpu {

// n rounded up to a multiple of a (> 0).
constexpr std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  std::size_t memory = 0;
};

// Devices visible to this process; empty (not an error) without a driver.
std::vector<DeviceInfo> list_devices();

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(Stream&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stream& operator=(Stream&& o) noexcept;
  static Result<Stream> create();  // non-blocking with respect to the legacy stream
  void* get() const { return s_; }

 private:
  void* s_ = nullptr;
};

class Event {
 public:
  Event() = default;
  ~Event();
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Event& operator=(Event&& o) noexcept;
  static Result<Event> create(bool timing);
  void* get() const { return e_; }

 private:
  void* e_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  static Result<DeviceBuffer> create(std::size_t bytes);
  uint8_t* get() const { return static_cast<uint8_t*>(p_); }
  std::size_t size() const { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// A twin's device scratch as one allocation, in the style of CUB's
// AliasTemporaries: add() reserves each buffer's bytes and returns its offset,
// size() is the total to allocate, at<T>() carves a buffer's pointer from the
// allocation. Every offset is a multiple of kAlign (the allocation itself is
// cudaMalloc-aligned), so each buffer starts 256-byte aligned; a buffer's
// padding up to the next kAlign belongs to it.
class ScratchLayout {
 public:
  static constexpr std::size_t kAlign = 256;

  std::size_t add(std::size_t bytes) {
    const std::size_t at = size_;
    size_ += align_up(bytes, kAlign);
    return at;
  }
  std::size_t size() const { return size_; }

  // The buffer at `offset` (from add()) of `scratch`, which holds size() bytes.
  template <class T>
  static T* at(const DeviceBuffer& scratch, std::size_t offset) {
    TWINMAF_DASSERT(offset % kAlign == 0 && offset <= scratch.size());
    return reinterpret_cast<T*>(scratch.get() + offset);
  }

 private:
  std::size_t size_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  // `mapped`: kernels may read and write it too, through the same address
  // (unified addressing).
  static Result<PinnedBuffer> create(std::size_t bytes, bool mapped = false);
  uint8_t* get() const { return static_cast<uint8_t*>(p_); }
  std::size_t size() const { return n_; }

 private:
  // From this size on, pages faulted in on every core and then registered
  // (as PinnedAllocator's), not cudaHostAlloc's, which faults them on one
  // thread.
  static constexpr std::size_t kLargePinned = std::size_t(2) << 20;
  void release();
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked picture memory, so readers write straight into DMA-able
// memory: anonymous mappings in 2 MiB units advised as transparent huge
// pages, faulted in by the allocating thread, then registered with the
// driver (cudaHostRegister). H200 host, 512 MB in 8 MB pieces: 126-150 ms
// from one thread, 27-30 ms from six (registration alone is cheap; faulting
// is what parallelises), cudaHostAlloc 300-400 ms.
// Allocation failure aborts like operator new would (an out-of-memory
// condition, not an input error).
class PinnedAllocator final : public PictureAllocator {
 public:
  void* allocate(std::size_t bytes) override;
  void deallocate(void* p) override;
};

class Context;

// Device memory (cudaMalloc) of `ctx`, or of the calling thread's current
// device, for pictures that arrive on the GPU and go to the frame ring
// without touching the host.
class DeviceAllocator final : public PictureAllocator {
 public:
  explicit DeviceAllocator(const Context* ctx = nullptr) : ctx_(ctx) {}
  void* allocate(std::size_t bytes) override;
  void deallocate(void* p) override;
  bool host_readable() const override { return false; }

 private:
  const Context* ctx_;
};

// Starts creating the primary context of `device` on a thread of its own, so
// that the driver's start-up (0.2-0.3 s on the H200 host) overlaps the
// caller's own (models, inputs, extractors). Context::create(device) waits
// for it; calling it again does nothing. join_context_warm_up() waits for it
// too: a process must not exit while the driver is starting on that thread.
void begin_context(int device);
void join_context_warm_up();

// The device a session runs on: selected once, checked for a sticky error.
// Its primary context, or a CUcontext of the caller's (`cu_ctx`, on whatever
// device it was made for) in which every runtime call of the session runs.
class Context {
 public:
  static Result<std::unique_ptr<Context>> create(int device, void* cu_ctx = nullptr);
  int device() const { return device_; }
  const DeviceInfo& info() const { return info_; }
  // Makes this context current on the calling thread.
  Status bind() const;
  // The CUcontext every call runs in (for libraries that take one: NVDEC
  // through libavcodec, io/nvdec.h).
  Result<void*> cu_context() const;

 private:
  int device_ = 0;
  void* cu_ctx_ = nullptr;
  DeviceInfo info_;
};

}  // namespace twinmaf::gpu
