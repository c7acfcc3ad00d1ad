#include "gpu/range_check.h"

#include "gpu/cuda_check.h"
#include "gpu/range_check_kernels.h"

namespace twinmaf::gpu {

namespace {

class RangeCheck final : public DeviceStage {
 public:
  RangeCheck(const VideoFormat& fmt, int planes, bool with_ref) : fmt_(fmt), planes_(planes), with_ref_(with_ref) {}
  std::size_t terms_bytes() const override { return sizeof(uint32_t); }
  std::string name() const override { return "range_or_16bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    cuda::RangePlanes rp{};
    for (const DevicePicture* pic : {with_ref_ ? &f.ref : nullptr, &f.dis}) {
      if (!pic) continue;
      for (int p = 0; p < planes_; ++p) {
        if (!pic->planes[p]) TWINMAF_FAIL(kInternal, "range check: plane {} of frame {} is not resident", p, f.index);
        rp.plane[rp.count] = pic->planes[p];
        rp.pitch[rp.count] = pic->pitch[p];
        rp.w[rp.count] = fmt_.stored_w(p);
        rp.h[rp.count] = fmt_.stored_h(p);
        ++rp.count;
      }
    }
    TWINMAF_CUDA_TRY(cuda::range_or(rp, static_cast<uint32_t*>(device_terms), static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

 private:
  VideoFormat fmt_;
  int planes_;
  bool with_ref_;
};

}  // namespace

std::unique_ptr<DeviceStage> make_range_check(const VideoFormat& fmt, int planes, bool with_ref) {
  return std::make_unique<RangeCheck>(fmt, planes, with_ref);
}

uint32_t range_check_or(const void* host_terms) {
  // Two samples per word: fold the halves.
  const uint32_t v = *static_cast<const uint32_t*>(host_terms);
  return (v | (v >> 16)) & 0xffffu;
}

}  // namespace twinmaf::gpu
