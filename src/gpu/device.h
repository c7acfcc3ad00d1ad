// RAII wrappers over the CUDA runtime: the device context of a session,
// streams, events, device and pinned host buffers, and the pinned picture
// allocator. All fallible calls return Status.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

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

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  static Result<PinnedBuffer> create(std::size_t bytes);
  uint8_t* get() const { return static_cast<uint8_t*>(p_); }
  std::size_t size() const { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked picture memory (cudaHostAlloc), so readers write straight into
// DMA-able memory. Allocation failure aborts like operator new would (an
// out-of-memory condition, not an input error).
class PinnedAllocator final : public PictureAllocator {
 public:
  void* allocate(std::size_t bytes) override;
  void deallocate(void* p) override;
};

// The device a session runs on: selected once, checked for a sticky error.
class Context {
 public:
  static Result<std::unique_ptr<Context>> create(int device);
  int device() const { return device_; }
  const DeviceInfo& info() const { return info_; }
  // Makes this context's device current on the calling thread.
  Status bind() const;

 private:
  int device_ = 0;
  DeviceInfo info_;
};

}  // namespace twinmaf::gpu
