// adm CUDA twin: fills the CPU's AdmTerms from the ring's luma planes
// (adm.cu); adm's finish() turns them into scores on the host. Every option
// and format the CPU extractor accepts is supported: the options only change
// host-computed kernel parameters (adm_kernel_params, shared with the CPU).
#include <algorithm>

#include "features/adm/adm.h"
#include "features/adm/adm_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

constexpr int kRows = cuda::kAdmRowTerms;

struct DeviceTerms {
  unsigned long long v[4][kRows];  // per scale: den h v d, num h v d, aim h v d
};

class AdmTwin final : public Twin {
 public:
  AdmTwin(const VideoFormat& fmt, const AdmKernelParams& kp, gpu::DeviceBuffer buf, const cuda::AdmScratch& scratch)
      : fmt_(fmt), kp_(kp), buf_(std::move(buf)), scratch_(scratch) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "adm_16bpc_cuda" : "adm_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    TWINMAF_CUDA_TRY(cuda::adm_terms(f.ref.planes[0], f.ref.pitch[0], f.dis.planes[0], f.dis.pitch[0], kp_, scratch_,
                                     static_cast<DeviceTerms*>(device_terms)->v[0],
                                     static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<AdmTerms&>(out);
    for (int s = 0; s < 4; ++s)
      for (int b = 0; b < 3; ++b) {
        o.scale[s].den[b] = t->v[s][b];
        o.scale[s].num[b] = static_cast<int64_t>(t->v[s][3 + b]);
        o.scale[s].aim[b] = static_cast<int64_t>(t->v[s][6 + b]);
      }
  }

 private:
  VideoFormat fmt_;
  AdmKernelParams kp_;
  gpu::DeviceBuffer buf_;  // owns the scratch below
  cuda::AdmScratch scratch_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_adm_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  const AdmKernelParams& kp = adm_kernel_params(configured);
  // Layout: band a [scale 0-2][ref, dis], then the row sums of scales 0-3.
  gpu::ScratchLayout layout;
  std::size_t band_off[3][2], rows_off[4];
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 2; ++k)
      band_off[s][k] = layout.add(std::size_t(kp.scale[s].w) * std::size_t(kp.scale[s].h) * sizeof(int32_t));
  for (int s = 0; s < 4; ++s) rows_off[s] = layout.add(std::size_t(kp.scale[s].h) * kRows * sizeof(unsigned long long));
  const std::size_t rows_begin = rows_off[0], bytes = layout.size();
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(bytes));
  cuda::AdmScratch scratch;
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 2; ++k) scratch.band_a[s][k] = gpu::ScratchLayout::at<int32_t>(buf, band_off[s][k]);
  for (int s = 0; s < 4; ++s) scratch.rows[s] = gpu::ScratchLayout::at<unsigned long long>(buf, rows_off[s]);
  // The row sums start at zero; the session's non-blocking streams do not
  // order after the legacy stream, so wait for the memset here (once).
  TWINMAF_CUDA_TRY(cudaMemsetAsync(buf.get() + rows_begin, 0, bytes - rows_begin, nullptr));
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(nullptr));
  return std::unique_ptr<Twin>(std::make_unique<AdmTwin>(fmt, kp, std::move(buf), scratch));
}

}  // namespace twinmaf
