// float_ssim / float_ms_ssim CUDA twin: the SsimSums of every scale on the
// device (ssim.cu), handed to the shared finish() as the CPU's terms. 32
// bytes per scale cross the bus.
//
// Device memory, allocated once for the format (the session runs a twin
// instance's frames in order on its bank): the pyramid's images (two floats
// per sample and level), the decimation kernel, the five horizontal maps of
// the largest SSIM level, and the sums' trees: terms (8 bytes per valid
// pixel and sum, the last leaf's tail zeroed once), infos and increment
// pairs (848 bytes per 64 terms). float_ms_ssim at 3840x2160: about 0.9 GB.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "features/ssim/ssim.h"
#include "features/ssim/ssim_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

constexpr int kTrees = cuda::kSsimSums * kMsSsimScales;

struct DeviceTerms {
  uint64_t ret[kTrees];  // double bits of sum q of SSIM scale i at 4 i + q
};

class SsimTwin final : public Twin {
 public:
  SsimTwin(const VideoFormat& fmt, bool multi_scale, const cuda::SsimLaunch& launch, gpu::DeviceBuffer buf)
      : fmt_(fmt), multi_scale_(multi_scale), launch_(launch), buf_(std::move(buf)) {}
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override {
    return std::string(multi_scale_ ? "float_ms_ssim" : "float_ssim") + (fmt_.bpc > 8 ? "_16bpc_cuda" : "_8bpc_cuda");
  }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    cuda::SsimLaunch l = launch_;
    if (l.levels > 0) {
      if (!f.ref.planes[0] || !f.dis.planes[0] || f.ref.pitch[0] != f.dis.pitch[0])
        TWINMAF_FAIL(kInternal, "{} twin: the luma of frame {} is not resident with one pitch", name(), f.index);
      l.ref = f.ref.planes[0];
      l.dis = f.dis.planes[0];
      l.pitch = f.ref.pitch[0];
    }
    TWINMAF_CUDA_TRY(
        cuda::ssim_enqueue(l, static_cast<DeviceTerms*>(device_terms)->ret, static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  // float_ms_ssim's scale 0 is float_ssim without decimation: the same
  // load, maps, ssim_pixel and sums (ssim.h), at ret[0..3] in both blocks.
  bool computes_for(const Twin& other) const override {
    const auto* o = dynamic_cast<const SsimTwin*>(&other);
    return o && multi_scale_ && !o->multi_scale_ && o->fmt_ == fmt_ && o->launch_.levels == 1;
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    const auto sums = [t](int i) {
      const uint64_t* r = t->ret + cuda::kSsimSums * i;
      return SsimSums{bits_double(r[0]), bits_double(r[1]), bits_double(r[2]), bits_double(r[3])};
    };
    if (multi_scale_) {
      auto& o = down_cast<FloatMsSsimTerms&>(out);
      for (int i = 0; i < kMsSsimScales; ++i) o.scale[i] = sums(i);
    } else {
      down_cast<FloatSsimTerms&>(out).sums = sums(0);
    }
  }

 private:
  VideoFormat fmt_;
  bool multi_scale_;
  cuda::SsimLaunch launch_;
  gpu::DeviceBuffer buf_;  // empty where nothing is computed
};

}  // namespace

// Every request the CPU extractors accept (init has checked depth and size).
Result<std::unique_ptr<Twin>> make_ssim_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  const SsimPyramid py = ssim_configured_pyramid(configured);
  cuda::SsimLaunch l;
  l.bpc = fmt.bpc;
  std::vector<float> kernel;
  if (py.multi_scale) {
    l.levels = kMsSsimScales;
    l.factor = 2;
    l.kw = l.kh = kMsSsimLpfTaps;
    kernel.assign(ms_ssim_lpf_kernel(), ms_ssim_lpf_kernel() + kMsSsimLpfTaps * kMsSsimLpfTaps);
  } else if (py.factor > 1) {
    l.levels = 2;
    l.factor = l.kw = l.kh = py.factor;
    kernel.resize(static_cast<std::size_t>(py.factor * py.factor));
    ssim_box_kernel(py.factor, kernel.data());
    l.first_ssim = 1;
  }
  int w = fmt.w, h = fmt.h;
  for (int i = 0; i < l.levels; ++i) {
    l.level[i].w = w;
    l.level[i].h = h;
    w = ssim_decimated_size(w, l.factor);
    h = ssim_decimated_size(h, l.factor);
  }
  // No valid area (float_ssim only): the sums are +0 whatever the pixels,
  // and nothing is read (the CPU decimates nothing there either).
  const cuda::SsimLevel& last = l.level[l.levels - 1];
  if (last.w < kSsimWindow || last.h < kSsimWindow) {
    l.levels = 0;
    return std::unique_ptr<Twin>(std::make_unique<SsimTwin>(fmt, py.multi_scale, l, gpu::DeviceBuffer{}));
  }
  gpu::ScratchLayout layout;
  std::size_t img[kMsSsimScales] = {};
  std::size_t most = 0;
  for (int i = 0; i < l.levels; ++i) {
    const cuda::SsimLevel& v = l.level[i];
    img[i] = layout.add(2 * static_cast<std::size_t>(v.w) * v.h * sizeof(float));
    if (i >= l.first_ssim) most = std::max(most, static_cast<std::size_t>(v.w - (kSsimWindow - 1)) * v.h);
  }
  const std::size_t hmaps = layout.add(5 * most * sizeof(float));
  const std::size_t kernel_at = layout.add(std::max<std::size_t>(1, kernel.size()) * sizeof(float));
  const int entries = cuda::ssim_layout(l);
  const std::size_t terms_at = layout.add(static_cast<std::size_t>(l.sums.leaves) * cuda::kSsimLeaf * sizeof(double));
  const std::size_t entries_at = layout.add(static_cast<std::size_t>(entries) * sizeof(OrderedSumEntry<double>));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  for (int i = 0; i < l.levels; ++i) {
    cuda::SsimLevel& v = l.level[i];
    v.ref = gpu::ScratchLayout::at<float>(buf, img[i]);
    v.dis = v.ref + static_cast<std::size_t>(v.w) * v.h;
  }
  l.hmaps = gpu::ScratchLayout::at<float>(buf, hmaps);
  if (!kernel.empty()) {
    TWINMAF_CUDA_TRY(cudaMemcpy(buf.get() + kernel_at, kernel.data(), kernel.size() * sizeof(float),
                                cudaMemcpyHostToDevice));
    l.kernel = gpu::ScratchLayout::at<const float>(buf, kernel_at);
  }
  l.sums.terms = gpu::ScratchLayout::at<double>(buf, terms_at);
  l.sums.entries = gpu::ScratchLayout::at<OrderedSumEntry<double>>(buf, entries_at);
  // The last leaf of each tree is padded with +0: the pixel kernel never
  // writes there.
  TWINMAF_CUDA_TRY(cudaMemset(l.sums.terms, 0, static_cast<std::size_t>(l.sums.leaves) * cuda::kSsimLeaf * sizeof(double)));
  return std::unique_ptr<Twin>(std::make_unique<SsimTwin>(fmt, py.multi_scale, l, std::move(buf)));
}

}  // namespace twinmaf
