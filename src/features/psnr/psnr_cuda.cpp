// psnr CUDA twin: fills the CPU's PsnrTerms (SSE per plane) from the ring's
// planes; psnr's finish() does the rest on the host.
#include "features/psnr/psnr.h"
#include "features/psnr/psnr_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

struct DeviceTerms {
  unsigned long long sse[3];
};

class PsnrTwin final : public Twin {
 public:
  PsnrTwin(const VideoFormat& fmt, int planes, int blocks) : fmt_(fmt), planes_(planes), blocks_(blocks) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "psnr_sse_16bpc_cuda" : "psnr_sse_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    auto* t = static_cast<DeviceTerms*>(device_terms);
    for (int p = 0; p < planes_; ++p) {
      const int w = fmt_.plane_w(p), h = fmt_.plane_h(p);
      if (w == 0 || h == 0) continue;
      TWINMAF_CUDA_TRY(cuda::psnr_sse(f.ref.planes[p], f.dis.planes[p], f.ref.pitch[p], w, h, fmt_.bpc, &t->sse[p],
                                      blocks_, static_cast<cudaStream_t>(stream)));
    }
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<PsnrTerms&>(out);
    for (int p = 0; p < 3; ++p) o.sse[p] = t->sse[p];
  }

 private:
  VideoFormat fmt_;
  int planes_;
  int blocks_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_psnr_twin(const Extractor& configured, const VideoFormat& fmt,
                                             gpu::Context& ctx) {
  int sms = 0;
  TWINMAF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device()));
  return std::unique_ptr<Twin>(std::make_unique<PsnrTwin>(fmt, psnr_planes(configured), sms * 8));
}

}  // namespace twinmaf
