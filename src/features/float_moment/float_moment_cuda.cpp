// float_moment CUDA twin: the four sums as integer numbers of units
// (float_moment.h), 32 bytes per frame across the bus, where those integer
// sums are the CPU's running double sums for every input: a square is at
// most 2^(2 bpc) units, so frames of w h 2^(2 bpc) < 2^53 keep every partial
// sum exact (S1 always). Larger 12- and 16-bit frames (16 bit from 2^21
// samples, 4K included) stay on the CPU.
#include <cmath>

#include "features/common/float_picture.h"
#include "features/float_moment/float_moment.h"
#include "features/float_moment/float_moment_kernels.h"
#include "gpu/cuda_check.h"

namespace twinmaf {

namespace {

struct DeviceTerms {
  unsigned long long units[4];  // S1 ref, S1 dis, S2 ref, S2 dis
};

class FloatMomentTwin final : public Twin {
 public:
  explicit FloatMomentTwin(const VideoFormat& fmt) : fmt_(fmt) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_moment_16bpc_cuda" : "float_moment_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (!f.ref.planes[0] || !f.dis.planes[0])
      TWINMAF_FAIL(kInternal, "float_moment twin: the luma of frame {} is not resident", f.index);
    cuda::FloatMomentLaunch l;
    l.plane[0] = f.ref.planes[0];
    l.plane[1] = f.dis.planes[0];
    l.pitch[0] = f.ref.pitch[0];
    l.pitch[1] = f.dis.pitch[0];
    l.w = fmt_.w;
    l.h = fmt_.h;
    l.bpc = fmt_.bpc;
    TWINMAF_CUDA_TRY(cuda::float_moment_enqueue(l, static_cast<DeviceTerms*>(device_terms)->units,
                                                static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<FloatMomentTerms&>(out);
    for (int q = 0; q < 2; ++q) {
      o.sum1[q] = std::ldexp(static_cast<double>(t->units[q]), -(fmt_.bpc - 8));
      o.sum2[q] = std::ldexp(static_cast<double>(t->units[2 + q]), -2 * (fmt_.bpc - 8));
    }
  }

 private:
  VideoFormat fmt_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_float_moment_twin(const Extractor&, const VideoFormat& fmt, gpu::Context&) {
  if (!float_picture_square_sums_exact(fmt.w, fmt.h, fmt.bpc))
    TWINMAF_FAIL(kUnsupported,
                 "float_moment twin: at {} bit the squares of a {}x{} frame may pass 2^53 units, where the sum's "
                 "order counts (runs on the CPU)",
                 fmt.bpc, fmt.w, fmt.h);
  return std::unique_ptr<Twin>(std::make_unique<FloatMomentTwin>(fmt));
}

}  // namespace twinmaf
