#include "gpu/device.h"

#include <cstdio>
#include <cstdlib>

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

PinnedBuffer::~PinnedBuffer() {
  if (p_) cudaFreeHost(p_);
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) cudaFreeHost(p_);
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
  }
  return *this;
}

Result<PinnedBuffer> PinnedBuffer::create(std::size_t bytes) {
  PinnedBuffer b;
  TWINMAF_CUDA_TRY(cudaHostAlloc(&b.p_, bytes ? bytes : 1, cudaHostAllocPortable));
  b.n_ = bytes;
  return b;
}

void* PinnedAllocator::allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "twinmaf: error: pinned allocation of %zu bytes failed: %s\n", bytes,
                 cudaGetErrorString(e));
    std::abort();
  }
  return p;
}

void PinnedAllocator::deallocate(void* p) { cudaFreeHost(p); }

Result<std::unique_ptr<Context>> Context::create(int device) {
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) TWINMAF_FAIL(kUnsupported, "no CUDA device or driver is available");
  if (device < 0 || device >= static_cast<int>(devices.size()))
    TWINMAF_FAIL(kInvalidArgument, "--gpu {}: this machine has {} CUDA device(s)", device, devices.size());
  auto ctx = std::unique_ptr<Context>(new Context());
  ctx->device_ = device;
  ctx->info_ = devices[static_cast<size_t>(device)];
  TWINMAF_RETURN_IF_ERROR(ctx->bind());
  TWINMAF_CUDA_TRY(cudaFree(nullptr));  // create the primary context now
  return ctx;
}

Status Context::bind() const {
  TWINMAF_CUDA_TRY(cudaSetDevice(device_));
  return ok_status();
}

}  // namespace twinmaf::gpu
