// float_motion CUDA twin: FloatMotionTerms' SAD row sums on the device
// (float_motion.cu) from the resident references of frames i-1 and i, handed
// to the shared finish()/flush(). Every option and format the CPU accepts.
// Frame 0 has no previous reference: its terms stay empty, as the CPU's (a
// flag in the terms block says whether rows were written).
//
// Device memory, allocated once for the format: two vertical passes, two
// blurred pictures and, with motion_add_scale1, two half-size pictures, each
// of the luma plane's size.
#include "features/float_motion/float_motion.h"
#include "features/float_motion/float_motion_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

class FloatMotionTwin final : public Twin {
 public:
  FloatMotionTwin(const VideoFormat& fmt, const FloatMotionParams& p, const cuda::FloatMotionLaunch& launch,
                  std::size_t rows, gpu::DeviceBuffer buf)
      : fmt_(fmt), p_(p), launch_(launch), rows_(rows), buf_(std::move(buf)) {}
  // A float flag (1: frame i >= 1, rows written), then the rows.
  std::size_t terms_bytes() const override { return (1 + rows_) * sizeof(float); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_motion_16bpc_cuda" : "float_motion_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    // Without frame i-1 (frame 0, or a segment's warm-up frame, whose terms
    // are dropped) the terms stay empty, as the CPU's on the first frame it
    // computes.
    if (p_.force_zero || f.index == 0 || !f.prev_ref[0].planes[0]) return ok_status();
    cuda::FloatMotionLaunch l = launch_;
    const DevicePicture* pics[2] = {&f.prev_ref[0], &f.ref};
    for (int pl = 0; pl < l.planes; ++pl)
      for (int q = 0; q < 2; ++q) {
        if (!pics[q]->planes[pl])
          TWINMAF_FAIL(kInternal, "float_motion twin: plane {} of the reference of frame {} is not resident", pl,
                       f.index - 1 + static_cast<unsigned>(q));
        l.plane[pl].pic[q] = pics[q]->planes[pl];
        l.plane[pl].pitch[q] = pics[q]->pitch[pl];
      }
    TWINMAF_CUDA_TRY(
        cuda::float_motion_enqueue(l, static_cast<float*>(device_terms), static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const float*>(host_terms);
    auto& o = down_cast<FloatMotionTerms&>(out);
    for (int pl = 0; pl < 3; ++pl) {
      o.rows[pl].clear();
      o.rows_scale1[pl].clear();
    }
    if (t[0] == 0.0f) return;
    for (int pl = 0; pl < launch_.planes; ++pl) {
      const cuda::FloatMotionPlane& p = launch_.plane[pl];
      o.rows[pl].assign(t + 1 + p.rows_at, t + 1 + p.rows_at + p.h);
      if (launch_.add_scale1) o.rows_scale1[pl].assign(t + 1 + p.rows1_at, t + 1 + p.rows1_at + p.h1);
    }
  }

 private:
  VideoFormat fmt_;
  FloatMotionParams p_;
  cuda::FloatMotionLaunch launch_;
  std::size_t rows_;
  gpu::DeviceBuffer buf_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_float_motion_twin(const Extractor& configured, const VideoFormat& fmt,
                                                     gpu::Context&) {
  const FloatMotionParams& p = float_motion_params(configured);
  cuda::FloatMotionLaunch l;
  std::size_t rows = 0;
  gpu::DeviceBuffer buf;
  if (!p.force_zero) {
    const std::vector<float> taps = float_motion_filter(p.filter_size);
    l.ntaps = static_cast<int>(taps.size());
    for (int k = 0; k < l.ntaps; ++k) l.taps[k] = taps[static_cast<std::size_t>(k)];
    l.bpc = p.bpc;
    l.planes = p.planes;
    l.add_scale1 = p.add_scale1;
    for (int pl = 0; pl < p.planes; ++pl) {
      cuda::FloatMotionPlane& q = l.plane[pl];
      q.w = p.w[pl];
      q.h = p.h[pl];
      q.w1 = p.w1[pl];
      q.h1 = p.h1[pl];
      q.ratio_x = static_cast<float>(q.w) / static_cast<float>(q.w1);
      q.ratio_y = static_cast<float>(q.h) / static_cast<float>(q.h1);
      q.rows_at = static_cast<int>(rows);
      rows += static_cast<std::size_t>(q.h);
      if (p.add_scale1) {
        q.rows1_at = static_cast<int>(rows);
        rows += static_cast<std::size_t>(q.h1);
      }
    }
    const std::size_t plane = static_cast<std::size_t>(fmt.w) * fmt.h * sizeof(float);
    gpu::ScratchLayout layout;
    std::size_t at[6];
    for (int i = 0; i < (p.add_scale1 ? 6 : 4); ++i) at[i] = layout.add(plane);
    TWINMAF_ASSIGN_OR_RETURN(buf, gpu::DeviceBuffer::create(layout.size()));
    for (int q = 0; q < 2; ++q) {
      l.tmp[q] = gpu::ScratchLayout::at<float>(buf, at[q]);
      l.blur[q] = gpu::ScratchLayout::at<float>(buf, at[2 + q]);
      if (p.add_scale1) l.half[q] = gpu::ScratchLayout::at<float>(buf, at[4 + q]);
    }
  }
  return std::unique_ptr<Twin>(std::make_unique<FloatMotionTwin>(fmt, p, l, rows, std::move(buf)));
}

}  // namespace twinmaf
