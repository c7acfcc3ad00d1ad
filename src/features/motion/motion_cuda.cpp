// motion / motion_v2 CUDA twin: fills the CPU's MotionTerms (the SAD) from the
// ring; prev is the reference of frame i-1, or i-2 with
// motion_five_frame_window, both kept resident by the ring. The per-frame
// score and the motion2/motion3 window are the CPU's finish()/flush().
#include "features/motion/motion.h"
#include "features/motion/motion_kernels.h"
#include "gpu/cuda_check.h"

namespace twinmaf {

namespace {

class MotionTwin final : public Twin {
 public:
  MotionTwin(const VideoFormat& fmt, const MotionParams& p) : fmt_(fmt), p_(p) {}
  std::size_t terms_bytes() const override { return sizeof(unsigned long long); }
  std::string name() const override { return fmt_.bpc > 8 ? "motion_sad_16bpc_cuda" : "motion_sad_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    const unsigned min_index = p_.min_index();
    if (p_.force_zero || f.index < min_index) return ok_status();
    const DevicePicture& prev = f.prev_ref[min_index - 1];
    if (!prev.planes[0])
      TWINMAF_FAIL(kInternal, "motion twin: frame {} has no resident reference of frame {}", f.index,
                   f.index - min_index);
    TWINMAF_CUDA_TRY(cuda::motion_sad(prev.planes[0], f.ref.planes[0], f.ref.pitch[0], fmt_.w, fmt_.h, fmt_.bpc,
                                      static_cast<unsigned long long*>(device_terms),
                                      static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    down_cast<MotionTerms&>(out).sad = *static_cast<const unsigned long long*>(host_terms);
  }

 private:
  VideoFormat fmt_;
  MotionParams p_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_motion_twin(const Extractor& configured, const VideoFormat& fmt,
                                               gpu::Context&) {
  return std::unique_ptr<Twin>(std::make_unique<MotionTwin>(fmt, motion_params(configured)));
}

}  // namespace twinmaf
