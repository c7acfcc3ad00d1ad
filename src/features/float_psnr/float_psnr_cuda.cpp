// float_psnr CUDA twin: N as an integer number of units (float_psnr.h), 8
// bytes per frame across the bus, where that integer sum is the CPU's running
// double sum for every input: a term is at most 2^(2 bpc) units, so frames of
// w h 2^(2 bpc) < 2^53 keep every partial sum exact. Larger 12- and 16-bit
// frames (16 bit from 2^21 samples, 4K included) stay on the CPU.
#include <cmath>

#include "features/common/float_picture.h"
#include "features/float_psnr/float_psnr.h"
#include "features/float_psnr/float_psnr_kernels.h"
#include "gpu/cuda_check.h"

namespace twinmaf {

namespace {

class FloatPsnrTwin final : public Twin {
 public:
  explicit FloatPsnrTwin(const VideoFormat& fmt) : fmt_(fmt) {}
  std::size_t terms_bytes() const override { return sizeof(unsigned long long); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_psnr_16bpc_cuda" : "float_psnr_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (!f.ref.planes[0] || !f.dis.planes[0] || f.ref.pitch[0] != f.dis.pitch[0])
      TWINMAF_FAIL(kInternal, "float_psnr twin: the luma of frame {} is not resident with one pitch", f.index);
    const cuda::FloatPsnrLaunch l{f.ref.planes[0], f.dis.planes[0], f.ref.pitch[0], fmt_.w, fmt_.h, fmt_.bpc};
    TWINMAF_CUDA_TRY(cuda::float_psnr_enqueue(l, static_cast<unsigned long long*>(device_terms),
                                              static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto units = *static_cast<const unsigned long long*>(host_terms);
    down_cast<FloatPsnrTerms&>(out).noise = std::ldexp(static_cast<double>(units), -2 * (fmt_.bpc - 8));
  }

 private:
  VideoFormat fmt_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_float_psnr_twin(const Extractor&, const VideoFormat& fmt, gpu::Context&) {
  if (!float_picture_square_sums_exact(fmt.w, fmt.h, fmt.bpc))
    TWINMAF_FAIL(kUnsupported,
                 "float_psnr twin: at {} bit the sum of a {}x{} frame may pass 2^53 units, where its order counts "
                 "(runs on the CPU)",
                 fmt.bpc, fmt.w, fmt.h);
  return std::unique_ptr<Twin>(std::make_unique<FloatPsnrTwin>(fmt));
}

}  // namespace twinmaf
