#include "gpu/device.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <cuda.h>

#include "base/parallel.h"
#include "gpu/cuda_check.h"

namespace twinmaf::gpu {

std::vector<DeviceInfo> list_devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear: no driver or no device is not an error here
    return {};
  }
  std::vector<DeviceInfo> out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    out.push_back(DeviceInfo{i, p.name, p.major, p.minor, p.totalGlobalMem});
  }
  return out;
}

Stream::~Stream() {
  if (s_) cudaStreamDestroy(static_cast<cudaStream_t>(s_));
}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (s_) cudaStreamDestroy(static_cast<cudaStream_t>(s_));
    s_ = o.s_;
    o.s_ = nullptr;
  }
  return *this;
}

Result<Stream> Stream::create() {
  cudaStream_t s = nullptr;
  TWINMAF_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Stream out;
  out.s_ = s;
  return out;
}

Event::~Event() {
  if (e_) cudaEventDestroy(static_cast<cudaEvent_t>(e_));
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (e_) cudaEventDestroy(static_cast<cudaEvent_t>(e_));
    e_ = o.e_;
    o.e_ = nullptr;
  }
  return *this;
}

Result<Event> Event::create(bool timing) {
  cudaEvent_t e = nullptr;
  TWINMAF_CUDA_TRY(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  Event out;
  out.e_ = e;
  return out;
}

DeviceBuffer::~DeviceBuffer() {
  if (p_) cudaFree(p_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) cudaFree(p_);
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
  }
  return *this;
}

Result<DeviceBuffer> DeviceBuffer::create(std::size_t bytes) {
  DeviceBuffer b;
  TWINMAF_CUDA_TRY(cudaMalloc(&b.p_, bytes ? bytes : 1));
  b.n_ = bytes;
  return b;
}

namespace {

[[noreturn]] void allocation_failed(const char* what, std::size_t bytes, const char* why) {
  std::fprintf(stderr, "twinmaf: error: %s allocation of %zu bytes failed: %s\n", what, bytes, why);
  std::abort();
}

constexpr std::size_t kHugePage = std::size_t(2) << 20;

// Mapping sizes by address: munmap needs the length the mapping was made with.
struct Mappings {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> bytes;
};

Mappings& mappings() {
  static Mappings m;
  return m;
}

// Page-locked memory in 2 MiB units, registered with `flags`; faulted in by
// the calling thread, or on every core (`spread`) for a large buffer made
// once at set-up. Null, with *why, on failure.
void* lock_pages(std::size_t bytes, unsigned flags, bool spread, const char** why) {
  const std::size_t n = align_up(bytes ? bytes : 1, kHugePage);
  // Over-map by one huge page so the block can start on a 2 MiB boundary.
  void* raw = mmap(nullptr, n + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    *why = std::strerror(errno);
    return nullptr;
  }
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = align_up(start, kHugePage);
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::size_t tail = start + kHugePage - aligned; tail > 0)
    munmap(reinterpret_cast<void*>(aligned + n), tail);
  void* p = reinterpret_cast<void*>(aligned);
  (void)madvise(p, n, MADV_HUGEPAGE);  // advice only: small pages work too
  // Faulted in here, one 2 MiB band at a time: cudaHostRegister would fault
  // the pages itself, serialised with every other thread's registration.
  const BandScope scope(spread ? static_cast<int>(std::thread::hardware_concurrency()) : 1);
  run_bands(static_cast<int>(n / kHugePage), [p](int band) {
    const std::size_t from = static_cast<std::size_t>(band) * kHugePage;
    for (std::size_t off = from; off < from + kHugePage; off += 4096) static_cast<volatile uint8_t*>(p)[off] = 0;
  });
  if (const cudaError_t e = cudaHostRegister(p, n, flags); e != cudaSuccess) {
    munmap(p, n);
    *why = cudaGetErrorString(e);
    return nullptr;
  }
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.bytes.emplace(p, n);
  return p;
}

void unlock_pages(void* p) {
  std::size_t n = 0;
  {
    Mappings& m = mappings();
    std::lock_guard<std::mutex> lock(m.mutex);
    const auto it = m.bytes.find(p);
    if (it == m.bytes.end()) return;
    n = it->second;
    m.bytes.erase(it);
  }
  cudaHostUnregister(p);
  munmap(p, n);
}

}  // namespace

PinnedBuffer::~PinnedBuffer() { release(); }

void PinnedBuffer::release() {
  if (!p_) return;
  if (n_ >= kLargePinned)
    unlock_pages(p_);
  else
    cudaFreeHost(p_);
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
  }
  return *this;
}

Result<PinnedBuffer> PinnedBuffer::create(std::size_t bytes, bool mapped) {
  PinnedBuffer b;
  if (bytes >= kLargePinned) {
    const char* why = nullptr;
    b.p_ = lock_pages(bytes, cudaHostRegisterPortable | (mapped ? cudaHostRegisterMapped : 0u), true, &why);
    if (!b.p_) TWINMAF_FAIL(kInternal, "pinned allocation of {} bytes failed: {}", bytes, why);
    b.n_ = bytes;
    void* device = nullptr;
    if (mapped && (cudaHostGetDevicePointer(&device, b.p_, 0) != cudaSuccess || device != b.p_)) {
      (void)cudaGetLastError();  // not left for a later launch's check
      TWINMAF_FAIL(kUnsupported, "this GPU cannot address registered host memory at its host address");
    }
    return b;
  }
  TWINMAF_CUDA_TRY(
      cudaHostAlloc(&b.p_, bytes ? bytes : 1, cudaHostAllocPortable | (mapped ? cudaHostAllocMapped : 0u)));
  b.n_ = bytes;
  return b;
}

void* PinnedAllocator::allocate(std::size_t bytes) {
  const char* why = nullptr;
  void* p = lock_pages(bytes, cudaHostRegisterPortable, false, &why);
  if (!p) allocation_failed("pinned", bytes, why);
  return p;
}

void PinnedAllocator::deallocate(void* p) {
  if (p) unlock_pages(p);
}

void* DeviceAllocator::allocate(std::size_t bytes) {
  if (ctx_) {
    const Status bound = ctx_->bind();
    if (!bound.ok()) allocation_failed("device", bytes, bound.message().c_str());
  }
  void* p = nullptr;
  // Zeroed on this thread's own stream, not the legacy default stream: that
  // one is ordered with nothing of NVDEC's non-blocking streams (their copy
  // into a new picture could land before the zeros), and a legacy-stream call
  // while the device pipeline captures a graph on another thread breaks the capture.
  cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e == cudaSuccess) e = cudaMemsetAsync(p, 0, bytes, cudaStreamPerThread);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
  if (e != cudaSuccess) allocation_failed("device", bytes, cudaGetErrorString(e));
  return p;
}

void DeviceAllocator::deallocate(void* p) {
  if (ctx_) (void)ctx_->bind();
  cudaFree(p);
}

namespace {

// The context warm-up: one per process, for the first device asked.
struct WarmUp {
  std::mutex mutex;
  std::thread thread;
  int device = -1;
};

WarmUp& warm_up() {
  static WarmUp* w = new WarmUp();  // never destroyed: sessions join the thread before they end
  return *w;
}

}  // namespace

void begin_context(int device) {
  WarmUp& w = warm_up();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.thread.joinable() || w.device >= 0) return;
  w.device = device;
  w.thread = std::thread([device] {
    int n = 0;
    // Errors here are Context::create's to report: it repeats the calls.
    if (cudaGetDeviceCount(&n) == cudaSuccess && device >= 0 && device < n && cudaSetDevice(device) == cudaSuccess)
      (void)cudaFree(nullptr);
    (void)cudaGetLastError();
  });
}

namespace {

// cuCtxSetCurrent through the runtime (no link to libcuda: the library loads
// where no driver is installed); null if the driver lacks it.
void* driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  return cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) == cudaSuccess &&
                 q == cudaDriverEntryPointSuccess
             ? p
             : nullptr;
}

using SetCurrent = CUresult (*)(CUcontext);
SetCurrent set_current() {
  static const auto f = reinterpret_cast<SetCurrent>(driver_entry("cuCtxSetCurrent"));
  return f;
}

using GetCurrent = CUresult (*)(CUcontext*);
GetCurrent get_current() {
  static const auto f = reinterpret_cast<GetCurrent>(driver_entry("cuCtxGetCurrent"));
  return f;
}

}  // namespace

void join_context_warm_up() {
  WarmUp& w = warm_up();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.thread.joinable()) w.thread.join();
}

Result<std::unique_ptr<Context>> Context::create(int device, void* cu_ctx) {
  auto ctx = std::unique_ptr<Context>(new Context());
  if (cu_ctx) {
    ctx->cu_ctx_ = cu_ctx;
    TWINMAF_RETURN_IF_ERROR(ctx->bind());
    TWINMAF_CUDA_TRY(cudaGetDevice(&device));
  } else {
    join_context_warm_up();
  }
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) TWINMAF_FAIL(kUnsupported, "no CUDA device or driver is available");
  if (device < 0 || device >= static_cast<int>(devices.size()))
    TWINMAF_FAIL(kInvalidArgument, "--gpu {}: this machine has {} CUDA device(s)", device, devices.size());
  ctx->device_ = device;
  ctx->info_ = devices[static_cast<size_t>(device)];
  TWINMAF_RETURN_IF_ERROR(ctx->bind());
  TWINMAF_CUDA_TRY(cudaFree(nullptr));  // create the primary context now (or check the caller's)
  return ctx;
}

Result<void*> Context::cu_context() const {
  if (cu_ctx_) return cu_ctx_;
  TWINMAF_RETURN_IF_ERROR(bind());
  CUcontext c = nullptr;
  if (!get_current() || get_current()(&c) != CUDA_SUCCESS || !c)
    TWINMAF_FAIL(kInternal, "GPU {}: its primary context cannot be named", device_);
  return static_cast<void*>(c);
}

Status Context::bind() const {
  if (!cu_ctx_) {
    TWINMAF_CUDA_TRY(cudaSetDevice(device_));
    return ok_status();
  }
  if (!set_current() || set_current()(static_cast<CUcontext>(cu_ctx_)) != CUDA_SUCCESS)
    TWINMAF_FAIL(kInternal, "the caller's CUDA context cannot be made current");
  return ok_status();
}

}  // namespace twinmaf::gpu
