// vif CUDA twin: fills the CPU's VifTerms (per scale: num_log, den_log,
// num_non_log, den_non_log) from the ring's luma planes; vif's finish() does
// the rest on the host. Every option (debug only changes finish), bit depth
// and layout the CPU accepts, from its minimum size up.
//
// Device memory, allocated once here for the stream's format: the host's
// log2 table (uploaded once) and the scale 1..3 images of ref and dis, which
// each frame's kernels rewrite in stream order.
#include <utility>

#include "features/vif/vif.h"
#include "features/vif/vif_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

struct DeviceTerms {
  unsigned long long sums[kVifScales][4];
};

class VifTwin final : public Twin {
 public:
  VifTwin(const VideoFormat& fmt, gpu::DeviceBuffer buf, const cuda::VifFrameArgs& base)
      : fmt_(fmt), buf_(std::move(buf)), base_(base) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "vif_scale_16bpc_cuda" : "vif_scale_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (f.ref.pitch[0] != f.dis.pitch[0])
      TWINMAF_FAIL(kInternal, "vif twin: ref and dis luma pitches differ ({} and {})", f.ref.pitch[0], f.dis.pitch[0]);
    cuda::VifFrameArgs a = base_;
    a.ref = f.ref.planes[0];
    a.dis = f.dis.planes[0];
    a.pitch = f.ref.pitch[0];
    a.sums = static_cast<DeviceTerms*>(device_terms)->sums[0];
    TWINMAF_CUDA_TRY(cuda::vif_frame(a, static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<VifTerms&>(out);
    for (int s = 0; s < kVifScales; ++s) {
      // int64 sums accumulated as two's complement uint64.
      o.scale[s].num_log = static_cast<int64_t>(t->sums[s][0]);
      o.scale[s].den_log = static_cast<int64_t>(t->sums[s][1]);
      o.scale[s].num_non_log = static_cast<int64_t>(t->sums[s][2]);
      o.scale[s].den_non_log = static_cast<int64_t>(t->sums[s][3]);
    }
  }

 private:
  VideoFormat fmt_;
  gpu::DeviceBuffer buf_;
  cuda::VifFrameArgs base_;
};

}  // namespace

Result<std::unique_ptr<Twin>> make_vif_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  const VifParams& p = vif_params(configured);
  cuda::VifFrameArgs base;
  base.w = fmt.w;
  base.h = fmt.h;
  base.bpc = fmt.bpc;
  base.skip_scale0 = p.skip_scale0;
  base.egl = p.enhn_gain_limit;

  // Layout: the table, then per scale 1..3 the ref and dis images (rows of a
  // 64-byte multiple, so the kernels' word loads stay aligned).
  const VifLog2Table& table = vif_log2_table();
  gpu::ScratchLayout layout;
  const std::size_t table_at = layout.add(sizeof(table));
  std::size_t offset[kVifScales][2] = {};
  for (int s = 1; s < kVifScales; ++s) {
    base.scratch_pitch[s] = gpu::align_up(static_cast<std::size_t>(fmt.w >> s) * sizeof(uint16_t), 64);
    const std::size_t image = base.scratch_pitch[s] * static_cast<std::size_t>(fmt.h >> s);
    for (int k = 0; k < 2; ++k) offset[s][k] = layout.add(image);
  }
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  TWINMAF_CUDA_TRY(cudaMemcpy(buf.get() + table_at, table.data(), sizeof(table), cudaMemcpyHostToDevice));
  base.log2_table = gpu::ScratchLayout::at<const uint16_t>(buf, table_at);
  for (int s = 1; s < kVifScales; ++s)
    for (int k = 0; k < 2; ++k) base.scratch[s][k] = gpu::ScratchLayout::at<uint16_t>(buf, offset[s][k]);
  return std::unique_ptr<Twin>(std::make_unique<VifTwin>(fmt, std::move(buf), base));
}

}  // namespace twinmaf
