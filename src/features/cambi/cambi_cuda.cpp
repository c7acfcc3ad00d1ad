// cambi CUDA twin: fills the CPU's CambiTerms (per picture and scale: k and
// the pooled top-k sum) from the ring's luma planes (cambi.cu); cambi's
// finish() does the rest on the host. Every option the CPU accepts except
// heatmaps_path (the maps are written by the host), every depth and layout,
// pictures up to 2^25 samples (cambi.h, "CUDA twin").
//
// Device memory, allocated once here for the stream's format: the host's
// reciprocal table and resampling positions (uploaded once), and per picture
// the converted image, the zero-derivative flags, scale 0's mask and per
// scale the image, band rows (their bytes also the pool's scratch) and
// c-values, which each frame's kernels rewrite in stream order (one instance
// per pipeline bank).
#include <algorithm>
#include <utility>
#include <vector>

#include "features/cambi/cambi.h"
#include "features/cambi/cambi_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

constexpr long kMaxSamples = long{1} << 25;  // keeps the int64 unit totals exact (cambi.h)

struct DeviceTerms {
  cuda::CambiDeviceScale pic[2][kCambiScales];
};

struct PictureOffsets {
  std::size_t src_x = 0, src_y = 0, img0 = 0, zero = 0, mask0 = 0;
  std::size_t img[kCambiScales] = {}, band[kCambiScales] = {}, cval[kCambiScales] = {};
};

class CambiTwin final : public Twin {
 public:
  CambiTwin(const VideoFormat& fmt, gpu::DeviceBuffer buf, const cuda::CambiFrameArgs& base)
      : fmt_(fmt), buf_(std::move(buf)), base_(base) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "cambi_16bpc_cuda" : "cambi_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    cuda::CambiFrameArgs a = base_;
    auto* t = static_cast<DeviceTerms*>(device_terms);
    const DevicePicture* pictures[2] = {&f.dis, &f.ref};  // the reference only with full_ref
    for (int q = 0; q < a.pictures; ++q) {
      if (!pictures[q]->planes[0])
        TWINMAF_FAIL(kInternal, "cambi twin: the {} luma of frame {} is not resident", q == 0 ? "distorted" : "reference",
                     f.index);
      a.pic[q].plane = pictures[q]->planes[0];
      a.pic[q].pitch = pictures[q]->pitch[0];
      a.pic[q].terms = t->pic[q];
    }
    TWINMAF_CUDA_TRY(cuda::cambi_frame(a, static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<CambiTerms&>(out);
    std::array<CambiScaleTerms, kCambiScales>* pics[2] = {&o.dis, &o.src};
    for (int q = 0; q < 2; ++q)
      for (int s = 0; s < kCambiScales; ++s)
        (*pics[q])[static_cast<std::size_t>(s)] =
            q < base_.pictures ? CambiScaleTerms{t->pic[q][s].topk_sum, base_.pic[q].k[s]} : CambiScaleTerms{};
  }

 private:
  VideoFormat fmt_;
  gpu::DeviceBuffer buf_;
  cuda::CambiFrameArgs base_;
};

Status plan_offsets(const CambiPicturePlan& plan, gpu::ScratchLayout& layout, cuda::CambiPictureArgs& a,
                    PictureOffsets& o) {
  if (static_cast<long>(plan.w) * plan.h > kMaxSamples)
    TWINMAF_FAIL(kUnsupported, "cambi twin: a {}x{} picture has more than 2^25 samples (runs on the CPU)", plan.w,
                 plan.h);
  a.in_w = plan.in_w;
  a.in_h = plan.in_h;
  a.w = plan.w;
  a.h = plan.h;
  a.p = plan.window >> 1;
  a.speedup = plan.speedup ? 1 : 0;
  a.mask_threshold = cambi_mask_threshold(plan.w, plan.h);
  const auto area = [](int w, int h) { return static_cast<std::size_t>(w) * static_cast<std::size_t>(h); };
  if (!plan.src_x.empty()) {
    o.src_x = layout.add(plan.src_x.size() * sizeof(int));
    o.src_y = layout.add(plan.src_y.size() * sizeof(int));
  }
  o.img0 = layout.add(area(plan.w, plan.h) * sizeof(uint16_t));
  o.zero = layout.add(area(plan.w, plan.h));
  for (int s = 0; s < kCambiScales; ++s) {
    a.sw[s] = plan.scaled(plan.w, s);
    a.sh[s] = plan.scaled(plan.h, s);
    a.k[s] = 0;  // set by make_cambi_twin with the setup's topk
    const std::size_t n = area(a.sw[s], a.sh[s]);
    // The image and band rows of a scale, then (pooling runs after every
    // scale's c-values) the pool kernel's scratch.
    const std::size_t image = gpu::align_up(n * sizeof(uint16_t), gpu::ScratchLayout::kAlign);
    const auto pool = static_cast<std::size_t>(cuda::cambi_pool_scratch_ints(static_cast<long>(n))) * sizeof(int);
    o.img[s] = layout.add(std::max(image + n * sizeof(int16_t), pool));
    o.band[s] = o.img[s] + image;
    o.cval[s] = layout.add(n * sizeof(float));
  }
  o.mask0 = layout.add(area(a.sw[0], a.sh[0]));
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Twin>> make_cambi_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  if (cambi_writes_heatmaps(configured))
    TWINMAF_FAIL(kUnsupported, "cambi twin: heatmaps_path writes the c-value maps from the host (runs on the CPU)");
  const CambiSetup& st = cambi_configured_setup(configured);
  cuda::CambiFrameArgs base;
  base.bpc = fmt.bpc;
  base.anti_dither = st.anti_dither;
  base.num_diffs = st.num_diffs;
  for (int d = 0; d < kCambiMaxDiffs; ++d) {
    base.tvi[d] = st.tvi[static_cast<std::size_t>(d)];
    base.weight[d] = st.weight[static_cast<std::size_t>(d)];
  }
  base.vlt_luma = st.vlt_luma;
  base.band_base = st.band_base;
  base.band_size = st.band_size;
  base.pictures = st.full_ref ? 2 : 1;

  const CambiPicturePlan* plans[2] = {&st.dis, &st.src};
  const auto& recip = cambi_reciprocal_table();
  gpu::ScratchLayout layout;
  const std::size_t recip_at = layout.add(sizeof(recip));
  PictureOffsets off[2];
  for (int q = 0; q < base.pictures; ++q) {
    TWINMAF_RETURN_IF_ERROR(plan_offsets(*plans[q], layout, base.pic[q], off[q]));
    for (int s = 0; s < kCambiScales; ++s)
      base.pic[q].k[s] = cambi_topk_count(st.topk, base.pic[q].sw[s] * base.pic[q].sh[s]);
  }
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  uint8_t* d = buf.get();
  TWINMAF_CUDA_TRY(cudaMemcpy(d + recip_at, recip.data(), sizeof(recip), cudaMemcpyHostToDevice));
  base.recip = gpu::ScratchLayout::at<const float>(buf, recip_at);
  for (int q = 0; q < base.pictures; ++q) {
    const CambiPicturePlan& plan = *plans[q];
    cuda::CambiPictureArgs& a = base.pic[q];
    const PictureOffsets& o = off[q];
    if (!plan.src_x.empty()) {
      TWINMAF_CUDA_TRY(
          cudaMemcpy(d + o.src_x, plan.src_x.data(), plan.src_x.size() * sizeof(int), cudaMemcpyHostToDevice));
      TWINMAF_CUDA_TRY(
          cudaMemcpy(d + o.src_y, plan.src_y.data(), plan.src_y.size() * sizeof(int), cudaMemcpyHostToDevice));
      a.src_x = gpu::ScratchLayout::at<const int>(buf, o.src_x);
      a.src_y = gpu::ScratchLayout::at<const int>(buf, o.src_y);
    }
    a.img0 = gpu::ScratchLayout::at<uint16_t>(buf, o.img0);
    a.zero = gpu::ScratchLayout::at<uint8_t>(buf, o.zero);
    a.mask0 = gpu::ScratchLayout::at<uint8_t>(buf, o.mask0);
    for (int s = 0; s < kCambiScales; ++s) {
      a.img[s] = gpu::ScratchLayout::at<uint16_t>(buf, o.img[s]);
      a.band[s] = gpu::ScratchLayout::at<int16_t>(buf, o.band[s]);
      a.pool[s] = gpu::ScratchLayout::at<int>(buf, o.img[s]);
      a.cval[s] = gpu::ScratchLayout::at<float>(buf, o.cval[s]);
    }
  }
  return std::unique_ptr<Twin>(std::make_unique<CambiTwin>(fmt, std::move(buf), base));
}

}  // namespace twinmaf
