// float_vif CUDA twin: FloatVifTerms' row sums of every computed scale on the
// device (float_vif.cu), handed to the shared finish(). 8 bytes per row and
// scale cross the bus (32 KB per 4K frame). Every option and format the CPU
// accepts except vif_prescale with a size change (the resampling runs on the
// CPU: the twin refuses it, and --backend auto keeps the feature there).
//
// Device memory, allocated once for the format: two image pairs of scale 0's
// size (the scales' images alternate between them), the five vertical-pass
// planes and the two statistic planes of scale 0's size, and the taps.
#include "features/float_vif/float_vif.h"
#include "features/float_vif/float_vif_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

class FloatVifTwin final : public Twin {
 public:
  FloatVifTwin(const VideoFormat& fmt, const cuda::FloatVifLaunch& launch, std::size_t rows, gpu::DeviceBuffer buf)
      : fmt_(fmt), launch_(launch), rows_(rows), buf_(std::move(buf)) {}
  std::size_t terms_bytes() const override { return rows_ * sizeof(float); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_vif_16bpc_cuda" : "float_vif_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (!f.ref.planes[0] || !f.dis.planes[0] || f.ref.pitch[0] != f.dis.pitch[0])
      TWINMAF_FAIL(kInternal, "float_vif twin: the luma of frame {} is not resident with one pitch", f.index);
    cuda::FloatVifLaunch l = launch_;
    l.ref = f.ref.planes[0];
    l.dis = f.dis.planes[0];
    l.pitch = f.ref.pitch[0];
    TWINMAF_CUDA_TRY(cuda::float_vif_enqueue(l, static_cast<float*>(device_terms), static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* rows = static_cast<const float*>(host_terms);
    auto& o = down_cast<FloatVifTerms&>(out);
    for (int s = 0; s < kFloatVifScales; ++s) {
      if (s < launch_.first_scale) {
        o.num[s].clear();
        o.den[s].clear();
        continue;
      }
      const float* p = rows + launch_.rows_at[s];
      const int h = launch_.h[s];
      o.num[s].assign(p, p + h);
      o.den[s].assign(p + h, p + 2 * h);
    }
  }

 private:
  VideoFormat fmt_;
  cuda::FloatVifLaunch launch_;
  std::size_t rows_;
  gpu::DeviceBuffer buf_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_float_vif_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  const FloatVifKernelParams& p = float_vif_kernel_params(configured);
  if (p.scaled_w != p.w || p.scaled_h != p.h)
    TWINMAF_FAIL(kUnsupported, "float_vif twin: vif_prescale resamples {}x{} to {}x{} on the CPU (runs on the CPU)",
                 p.w, p.h, p.scaled_w, p.scaled_h);
  cuda::FloatVifLaunch l;
  l.bpc = p.bpc;
  l.first_scale = p.first_scale;
  l.stat = p.stat;
  int rows = 0;
  for (int s = 0; s < kFloatVifScales; ++s) {
    l.w[s] = s == 0 ? p.w : l.w[s - 1] / 2;
    l.h[s] = s == 0 ? p.h : l.h[s - 1] / 2;
    l.ntaps[s] = static_cast<int>(p.taps[s].size());
    if (s >= p.first_scale) {
      l.rows_at[s] = rows;
      rows += 2 * l.h[s];
    }
  }
  const std::size_t plane = static_cast<std::size_t>(p.w) * p.h * sizeof(float);
  gpu::ScratchLayout layout;
  std::size_t img[2][2], taps[kFloatVifScales];
  for (auto& b : img)
    for (std::size_t& q : b) q = layout.add(plane);
  const std::size_t vert = layout.add(5 * plane), num = layout.add(plane), den = layout.add(plane);
  for (int s = 0; s < kFloatVifScales; ++s) taps[s] = layout.add(p.taps[s].size() * sizeof(float));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  for (int b = 0; b < 2; ++b)
    for (int q = 0; q < 2; ++q) l.img[b][q] = gpu::ScratchLayout::at<float>(buf, img[b][q]);
  l.vert = gpu::ScratchLayout::at<float>(buf, vert);
  l.num = gpu::ScratchLayout::at<float>(buf, num);
  l.den = gpu::ScratchLayout::at<float>(buf, den);
  for (int s = 0; s < kFloatVifScales; ++s) {
    TWINMAF_CUDA_TRY(
        cudaMemcpy(buf.get() + taps[s], p.taps[s].data(), p.taps[s].size() * sizeof(float), cudaMemcpyHostToDevice));
    l.taps[s] = gpu::ScratchLayout::at<const float>(buf, taps[s]);
  }
  return std::unique_ptr<Twin>(
      std::make_unique<FloatVifTwin>(fmt, l, static_cast<std::size_t>(rows), std::move(buf)));
}

}  // namespace twinmaf
