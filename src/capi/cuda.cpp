// The CUDA part of the C API (libvmaf/libvmaf_cuda.h; CUDA builds only):
// CUDA states, pinned and device picture buffers, device pictures scored
// through Scorer::push_device (docs/capi.md, "CUDA").
//
// Contexts: a state names the caller's CUcontext (or none: the primary
// context). Device and pinned buffers are allocated in it and device pictures
// are read in it, with it pushed current for the runtime calls, so the
// caller's CUDA code can write them. The driver functions come through the
// runtime (cudaGetDriverEntryPointByVersion): no link to libcuda, and the
// library loads on machines without a GPU driver.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

#include "capi/capi.h"

namespace twinmaf::capi {

namespace {

struct Driver {
  CUresult (*push)(CUcontext) = nullptr;
  CUresult (*pop)(CUcontext*) = nullptr;
  bool ok = false;
};

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    void* push = nullptr;
    void* pop = nullptr;
    cudaDriverEntryPointQueryResult q1{}, q2{};
    if (cudaGetDriverEntryPointByVersion("cuCtxPushCurrent", &push, 12000, cudaEnableDefault, &q1) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuCtxPopCurrent", &pop, 12000, cudaEnableDefault, &q2) == cudaSuccess &&
        q1 == cudaDriverEntryPointSuccess && q2 == cudaDriverEntryPointSuccess) {
      r.push = reinterpret_cast<CUresult (*)(CUcontext)>(push);
      r.pop = reinterpret_cast<CUresult (*)(CUcontext*)>(pop);
      r.ok = true;
    }
    return r;
  }();
  return d;
}

// Makes cu_ctx current on this thread for the scope (nothing for null).
class ContextScope {
 public:
  explicit ContextScope(void* cu_ctx) {
    if (!cu_ctx) return;
    ok_ = driver().ok && driver().push(static_cast<CUcontext>(cu_ctx)) == CUDA_SUCCESS;
    pushed_ = ok_;
  }
  ~ContextScope() {
    if (pushed_) {
      CUcontext ignored = nullptr;
      driver().pop(&ignored);
    }
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_ = true;
  bool pushed_ = false;
};

void* allocate(Memory kind, size_t bytes, void* cu_ctx) {
  ContextScope scope(cu_ctx);
  if (!scope.ok()) return nullptr;
  void* p = nullptr;
  if (kind == Memory::kPinned) {
    if (cudaMallocHost(&p, bytes) != cudaSuccess) return nullptr;
    std::memset(p, 0, bytes);
  } else {
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    if (cudaMemset(p, 0, bytes) != cudaSuccess || cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess) {
      cudaFree(p);
      return nullptr;
    }
  }
  return p;
}

void release(Memory kind, void* p, void* cu_ctx) {
  ContextScope scope(cu_ctx);
  if (kind == Memory::kPinned)
    cudaFreeHost(p);
  else
    cudaFree(p);
}

Status push(Scorer& s, const DevicePlanes& ref, const DevicePlanes& dis, void* cu_ctx) {
  ContextScope scope(cu_ctx);
  if (!scope.ok()) return invalid("the CUDA context of the device pictures cannot be made current");
  // The scorer runs in this context too: its copies on the legacy stream
  // follow the caller's writes there and on its blocking streams (FFmpeg's
  // cuMemcpy2D). No device-wide synchronisation: it would break the frame
  // loop's graph capture.
  return s.push_device(ref, {dis}, nullptr);
}

}  // namespace

const DeviceMemory& device_memory() {
  static constexpr DeviceMemory m{allocate, release, push};
  return m;
}

}  // namespace twinmaf::capi

using namespace twinmaf;
using namespace twinmaf::capi;

extern "C" int vmaf_cuda_state_init(VmafCudaState** cu_state, VmafCudaConfiguration cfg) {
  return guarded("vmaf_cuda_state_init", [&] {
    constexpr std::string_view kWhere = "vmaf_cuda_state_init";
    if (!cu_state) return -EINVAL;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return fail(kWhere, "no CUDA device is usable");
    int device = 0;
    if (cfg.cu_ctx) {
      ContextScope scope(cfg.cu_ctx);
      if (!scope.ok() || cudaGetDevice(&device) != cudaSuccess)
        return fail(kWhere, "cu_ctx is not a usable CUDA context");
    }
    auto state = std::make_unique<VmafCudaState>(VmafCudaState{device, cfg.cu_ctx});
    live<VmafCudaState>().add(state.get());
    *cu_state = state.release();
    return 0;
  });
}

extern "C" int vmaf_cuda_import_state(VmafContext* vmaf, VmafCudaState* cu_state) {
  return guarded("vmaf_cuda_import_state", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafCudaState>().contains(cu_state)) return -EINVAL;
    if (vmaf->cuda == cu_state) return 0;
    if (vmaf->cuda) return fail("vmaf_cuda_import_state", "the context has a CUDA state already");
    // The backend is decided when the context's scorer is made, by its first
    // registration: libvmaf too keeps extractors registered before the
    // import on the CPU.
    if (vmaf->scorer)
      twinmaf::capi::log(VMAF_LOG_LEVEL_WARNING,
                         "vmaf_cuda_import_state: features were registered before: all run on the CPU");
    vmaf->cuda = cu_state;
    ++cu_state->imports;
    return 0;
  });
}

extern "C" int vmaf_cuda_preallocate_pictures(VmafContext* vmaf, VmafCudaPictureConfiguration cfg) {
  return guarded("vmaf_cuda_preallocate_pictures", [&] {
    constexpr std::string_view kWhere = "vmaf_cuda_preallocate_pictures";
    const ContextUse use(vmaf);
    if (!use) return -EINVAL;
    const VmafCudaPicturePreallocationMethod method = cfg.pic_prealloc_method;
    if (method < VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE || method > VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED)
      return fail(kWhere, fmt::format("preallocation method {} is unknown", static_cast<int>(method)));
    if (vmaf->cuda_method != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE)
      return fail(kWhere, "pictures were configured already");
    if (method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE) return 0;
    const bool device = method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    const auto layout = picture_layout(cfg.pic_params.pix_fmt, cfg.pic_params.bpc, cfg.pic_params.w,
                                       cfg.pic_params.h, device);
    if (!layout.ok()) return fail(kWhere, layout.status());
    if (device) {
      if (!vmaf->cuda) return fail(kWhere, "device pictures need an imported CUDA state");
      // libvmaf's ring holds four pictures.
      for (int i = 0; i < 4; ++i) {
        VmafRef* b = new_buffer(*layout, Memory::kDevice, vmaf->cuda->cu_ctx);
        if (!b) return fail(kWhere, "out of device memory");
        vmaf->cuda_ring.push_back(b);
      }
    }
    vmaf->cuda_method = method;
    vmaf->cuda_layout = *layout;
    return 0;
  });
}

extern "C" int vmaf_cuda_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
  return guarded("vmaf_cuda_fetch_preallocated_picture", [&] {
    constexpr std::string_view kWhere = "vmaf_cuda_fetch_preallocated_picture";
    const ContextUse use(vmaf);
    if (!use || !pic) return -EINVAL;
    VmafRef* b = nullptr;
    switch (vmaf->cuda_method) {
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
        b = vmaf->cuda_ring[vmaf->cuda_next++ % vmaf->cuda_ring.size()];
        b->refs.fetch_add(1);
        break;
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
        b = new_buffer(vmaf->cuda_layout, Memory::kHost);
        break;
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED:
        b = new_buffer(vmaf->cuda_layout, Memory::kPinned, vmaf->cuda ? vmaf->cuda->cu_ctx : nullptr);
        break;
      default: return fail(kWhere, "no pictures were configured (vmaf_cuda_preallocate_pictures)");
    }
    if (!b) return -ENOMEM;
    expose(b, pic);
    return 0;
  });
}
