// float_ansnr CUDA twin: libvmaf's two finished running float sums (sig,
// noise) computed on the device (float_ansnr.cu) and handed to the shared
// finish() as one-term sequences (the running sum of {s} from +0 is s). 8
// bytes per frame cross the bus. Device memory: four w x h float planes and
// the row sums, allocated once for the format.
#include "base/hd_math.h"
#include "features/float_ansnr/float_ansnr.h"
#include "features/float_ansnr/float_ansnr_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

class FloatAnsnrTwin final : public Twin {
 public:
  FloatAnsnrTwin(const VideoFormat& fmt, const cuda::FloatAnsnrLaunch& launch, gpu::DeviceBuffer buf)
      : fmt_(fmt), launch_(launch), buf_(std::move(buf)) {}
  std::size_t terms_bytes() const override { return 2 * sizeof(uint32_t); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_ansnr_16bpc_cuda" : "float_ansnr_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (!f.ref.planes[0] || !f.dis.planes[0] || f.ref.pitch[0] != f.dis.pitch[0])
      TWINMAF_FAIL(kInternal, "float_ansnr twin: the luma of frame {} is not resident with one pitch", f.index);
    cuda::FloatAnsnrLaunch l = launch_;
    l.ref = f.ref.planes[0];
    l.dis = f.dis.planes[0];
    l.pitch = f.ref.pitch[0];
    TWINMAF_CUDA_TRY(
        cuda::float_ansnr_enqueue(l, static_cast<uint32_t*>(device_terms), static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* s = static_cast<const uint32_t*>(host_terms);
    auto& o = down_cast<FloatAnsnrTerms&>(out);
    o.sig.assign(1, bits_float(s[0]));
    o.noise.assign(1, bits_float(s[1]));
  }

 private:
  VideoFormat fmt_;
  cuda::FloatAnsnrLaunch launch_;
  gpu::DeviceBuffer buf_;
};

}  // namespace

// Every format the CPU extractor's init accepts (it has no options).
Result<std::unique_ptr<Twin>> make_float_ansnr_twin(const Extractor&, const VideoFormat& fmt, gpu::Context&) {
  const FloatAnsnrFilters& f = float_ansnr_filters();
  TWINMAF_CUDA_TRY(cuda::float_ansnr_set_filters(f.ref, f.dis));
  cuda::FloatAnsnrLaunch l;
  l.w = fmt.w;
  l.h = fmt.h;
  l.bpc = fmt.bpc;
  const std::size_t plane = static_cast<std::size_t>(fmt.w) * fmt.h * sizeof(float);
  gpu::ScratchLayout layout;
  std::size_t at[4];
  for (std::size_t& a : at) a = layout.add(plane);
  const std::size_t rows = layout.add(2 * static_cast<std::size_t>(fmt.h) * sizeof(float));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  l.a = gpu::ScratchLayout::at<float>(buf, at[0]);
  l.b = gpu::ScratchLayout::at<float>(buf, at[1]);
  l.fa = gpu::ScratchLayout::at<float>(buf, at[2]);
  l.fb = gpu::ScratchLayout::at<float>(buf, at[3]);
  l.rows = gpu::ScratchLayout::at<float>(buf, rows);
  return std::unique_ptr<Twin>(std::make_unique<FloatAnsnrTwin>(fmt, l, std::move(buf)));
}

}  // namespace twinmaf
