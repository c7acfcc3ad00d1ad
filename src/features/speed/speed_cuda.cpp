// speed_chroma / speed_temporal CUDA twins: the CPU's SpeedChromaTerms /
// SpeedTemporalTerms (per image the stage-5 band, its covariance sums, K's
// QR factors and the blocks' variances, speed.h) computed from the ring's
// planes by speed.cu; the shared finish (eigenvalues, log2 terms, scores)
// runs on the host unchanged. Raw terms per frame: a presence word (0 at
// speed_temporal's frame 0, which has no bands) and a word per image (1 when
// its QR ran dense), padded to 32 bytes; then per image its kSpeedPairs sums,
// then per image its factors (q, r), then the bands, then the variances,
// images in SpeedChromaTerms / SpeedTemporalTerms order: 4 x (325 doubles +
// 2 x 625 floats + 60 x 30 floats + 72 floats) (60 kB) per 1080p 4:2:0 frame
// for speed_chroma.
//
// Why the bands are the CPU's bits: each band value is a fixed expression
// of a bounded window of samples (speed.h, "Terms and finish"); speed.cu
// evaluates it with speed_math.h, the reference's float and double
// operations in its order as round-to-nearest intrinsics, with the
// extractor's own host-made taps passed by value (speed_twin_launch). The
// resampler's per-axis windows are computed once on the device. A resampling
// lanczos4 prescale is refused (libm sin; the feature runs on the CPU under
// --backend auto).
//
// Scratch, allocated once: the vertical pass (images x op_h x scaled_w
// floats), the 1/16 images, the means and the windows; about 2 MB for 4K
// 4:2:0 speed_chroma. The session runs one instance's frames in order on one
// stream, so one set serves every frame.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "features/speed/speed.h"
#include "features/speed/speed_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

// Raw terms: the presence word and the dense words, padded so that the sums
// start 16-aligned.
constexpr std::size_t kSumsOffset = 32;

// The QR of a rank-deficient K runs dense once a reflector's norm is 0 (or
// NaN): its factors are then NaNs whose sign and payload are the hardware's
// (an x86 0/0 is negative, the device's canonical NaN positive). For such an
// image the twin takes the factors the CPU computes from the device's sums
// (speed_qr) and the CPU's variances of those: the CPU's bits, whatever the
// finish then does with them. Variances: all +0 where a pivot fails (the
// CPU's; the device's are then arbitrary), and the CPU's wherever the
// device's hold a NaN, whose bits are the hardware's too.

class SpeedTwin final : public Twin {
 public:
  SpeedTwin(bool temporal, const VideoFormat& fmt, bool use_ref_diff, const SpeedLaunch& launch,
            gpu::DeviceBuffer scratch, gpu::DeviceBuffer windows)
      : temporal_(temporal),
        fmt_(fmt),
        use_ref_diff_(use_ref_diff),
        launch_(launch),
        scratch_(std::move(scratch)),
        windows_(std::move(windows)) {}

  std::size_t terms_bytes() const override {
    return variance_offset() + std::size_t(launch_.images) * blocks() * sizeof(float);
  }
  std::string name() const override {
    return fmt::format("{}_{}bpc_cuda", temporal_ ? "speed_temporal" : "speed_chroma", fmt_.bpc > 8 ? 16 : 8);
  }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    SpeedLaunch l = launch_;
    if (temporal_) {
      if (f.index == 0) return ok_status();  // no predecessor: no bands
      const DevicePicture& cur_dis = use_ref_diff_ ? f.ref : f.dis;
      l.image[0] = {f.prev_ref[0].planes[0], f.ref.planes[0], f.prev_ref[0].pitch[0], f.ref.pitch[0]};
      l.image[1] = {f.prev_dis[0].planes[0], cur_dis.planes[0], f.prev_dis[0].pitch[0], cur_dis.pitch[0]};
    } else {
      for (int c = 0; c < 2; ++c) {
        l.image[2 * c] = {f.ref.planes[1 + c], nullptr, f.ref.pitch[1 + c], 0};
        l.image[2 * c + 1] = {f.dis.planes[1 + c], nullptr, f.dis.pitch[1 + c], 0};
      }
    }
    for (int k = 0; k < l.images; ++k)
      if (!l.image[k].a || (l.difference && !l.image[k].b))
        TWINMAF_FAIL(kInternal, "{} twin: a plane of frame {} (or of its predecessor) is not resident", name(),
                     f.index);
    auto* terms = static_cast<uint8_t*>(device_terms);
    static_assert(kSumsOffset >= sizeof(uint32_t) * (1 + kSpeedMaxImages));
    TWINMAF_CUDA_TRY(cuda::speed_enqueue(l, reinterpret_cast<uint32_t*>(terms),
                                         reinterpret_cast<double*>(terms + kSumsOffset),
                                         reinterpret_cast<float*>(terms + factors_offset()),
                                         reinterpret_cast<float*>(terms + bands_offset()),
                                         reinterpret_cast<float*>(terms + variance_offset()),
                                         static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* raw = static_cast<const uint8_t*>(host_terms);
    uint32_t present = 0;
    std::memcpy(&present, raw, sizeof present);
    SpeedImageTerms* images = temporal_ ? down_cast<SpeedTemporalTerms&>(out).image.data()
                                        : down_cast<SpeedChromaTerms&>(out).image.data();
    SpeedGeometry g;
    g.trunc_w = launch_.trunc_w;
    g.trunc_h = launch_.trunc_h;
    for (int k = 0; k < launch_.images; ++k) {
      SpeedImageTerms& im = images[k];
      if (!present) {
        im = {};
        continue;
      }
      std::memcpy(im.sums.data(), raw + kSumsOffset + std::size_t(k) * sizeof(SpeedSums), sizeof(SpeedSums));
      uint32_t dense = 0;
      std::memcpy(&dense, raw + sizeof(uint32_t) * std::size_t(1 + k), sizeof dense);
      if (dense) {
        speed_qr(speed_covariance_matrix(g, im.sums), im.factors);
      } else {
        const uint8_t* f = raw + factors_offset() + std::size_t(k) * 2 * sizeof(SpeedMatrix);
        std::memcpy(im.factors.q.data(), f, sizeof(SpeedMatrix));
        std::memcpy(im.factors.r.data(), f + sizeof(SpeedMatrix), sizeof(SpeedMatrix));
      }
      im.band.resize(launch_.band_size());
      std::memcpy(im.band.data(), raw + bands_offset() + std::size_t(k) * launch_.band_size() * sizeof(float),
                  launch_.band_size() * sizeof(float));
      im.variance.resize(blocks());
      std::memcpy(im.variance.data(), raw + variance_offset() + std::size_t(k) * blocks() * sizeof(float),
                  blocks() * sizeof(float));
      if (!speed_solvable(im.factors.r.data()))
        std::fill(im.variance.begin(), im.variance.end(), 0.0f);
      else if (dense || std::any_of(im.variance.begin(), im.variance.end(), [](float v) { return std::isnan(v); }))
        speed_block_variances(g, im);
    }
  }

 private:
  std::size_t factors_offset() const { return kSumsOffset + std::size_t(launch_.images) * sizeof(SpeedSums); }
  std::size_t bands_offset() const { return factors_offset() + std::size_t(launch_.images) * 2 * sizeof(SpeedMatrix); }
  std::size_t variance_offset() const {
    return bands_offset() + std::size_t(launch_.images) * launch_.band_size() * sizeof(float);
  }
  std::size_t blocks() const {
    return std::size_t(launch_.trunc_w / kSpeedBlock) * std::size_t(launch_.trunc_h / kSpeedBlock);
  }

  bool temporal_;
  VideoFormat fmt_;
  bool use_ref_diff_;
  SpeedLaunch launch_;
  gpu::DeviceBuffer scratch_, windows_;
};

// The resampler's windows of both axes into `windows` (scaled_w column
// entries, then scaled_h row entries), checked on the host: every index the
// source reads lies inside the input (float_resample.h's size conditions,
// which init's limits imply).
Status make_windows(SpeedLaunch& l, gpu::DeviceBuffer& windows) {
  const std::size_t n = std::size_t(l.scaled_w) + std::size_t(l.scaled_h);
  TWINMAF_ASSIGN_OR_RETURN(windows, gpu::DeviceBuffer::create(n * sizeof(SpeedWindow)));
  auto* w = reinterpret_cast<SpeedWindow*>(windows.get());
  TWINMAF_CUDA_TRY(cuda::speed_resample_windows(l.source, l.w, l.scaled_w, w, nullptr));
  TWINMAF_CUDA_TRY(cuda::speed_resample_windows(l.source, l.h, l.scaled_h, w + l.scaled_w, nullptr));
  std::vector<SpeedWindow> host(n);
  TWINMAF_CUDA_TRY(cudaMemcpy(host.data(), w, n * sizeof(SpeedWindow), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) {
    const int limit = i < std::size_t(l.scaled_w) ? l.w : l.h;
    for (int j = 0; j < speed_window_taps(l.source); ++j)
      if (host[i].idx[j] < 0 || host[i].idx[j] >= limit)
        TWINMAF_FAIL(kInternal, "speed twin: resampling {}x{} to {}x{} reads index {} of {}", l.w, l.h, l.scaled_w,
                     l.scaled_h, host[i].idx[j], limit);
  }
  l.cols = w;
  l.rows = w + l.scaled_w;
  return ok_status();
}

Result<std::unique_ptr<Twin>> make_speed_twin(bool temporal, const Extractor& configured, const VideoFormat& fmt) {
  TWINMAF_ASSIGN_OR_RETURN(
      SpeedLaunch l,
      speed_twin_launch(temporal ? "speed_temporal" : "speed_chroma", speed_kernel_params(configured), temporal));
  const std::size_t vert = std::size_t(l.images) * std::size_t(l.op_h) * std::size_t(l.scaled_w);
  const std::size_t small = std::size_t(l.images) * std::size_t(l.op_h) * std::size_t(l.op_w);
  const std::size_t means = std::size_t(l.images) * kSpeedBlockSamples;
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer scratch,
                           gpu::DeviceBuffer::create((vert + small + means) * sizeof(float)));
  l.vert = reinterpret_cast<float*>(scratch.get());
  l.small = l.vert + vert;
  l.means = l.small + small;
  gpu::DeviceBuffer windows;
  if (l.source != SpeedSource::kDirect) TWINMAF_RETURN_IF_ERROR(make_windows(l, windows));
  return std::unique_ptr<Twin>(std::make_unique<SpeedTwin>(temporal, fmt, speed_params(configured).use_ref_diff, l,
                                                           std::move(scratch), std::move(windows)));
}

}  // namespace

// Every size, depth, layout and option the CPU extractors' init accepts,
// except a lanczos4 prescale.
Result<std::unique_ptr<Twin>> make_speed_chroma_twin(const Extractor& configured, const VideoFormat& fmt,
                                                     gpu::Context&) {
  return make_speed_twin(false, configured, fmt);
}

Result<std::unique_ptr<Twin>> make_speed_temporal_twin(const Extractor& configured, const VideoFormat& fmt,
                                                       gpu::Context&) {
  return make_speed_twin(true, configured, fmt);
}

}  // namespace twinmaf
