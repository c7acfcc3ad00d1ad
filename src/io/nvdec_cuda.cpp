#include "io/nvdec.h"

extern "C" {
#include <libavutil/hwcontext_cuda.h>
}

#include <cuda_runtime_api.h>

#include "io/ffmpeg_api.h"
#include "io/nvdec_unpack.h"
#include "io/source.h"

namespace twinmaf {

namespace {

// io/ stands below gpu/ (DESIGN.md section 3): its own check of the runtime's calls.
#define TWINMAF_NVDEC_TRY(expr)                                                                             \
  do {                                                                                                      \
    const cudaError_t e_ = (expr);                                                                          \
    if (e_ != cudaSuccess) TWINMAF_FAIL(kInternal, "NVDEC: CUDA {} in {}", cudaGetErrorName(e_), #expr);     \
  } while (0)

class CudaNvdec final : public Nvdec {
 public:
  CudaNvdec(const FfmpegApi& api, const NvdecContext& ctx) : av(api), ctx_(ctx) {}
  ~CudaNvdec() override {
    av.av_buffer_unref(&device_);
    if (stream_ && ctx_.bind().ok()) cudaStreamDestroy(stream_);
  }

  Status init() {
    TWINMAF_RETURN_IF_ERROR(ctx_.bind());
    TWINMAF_NVDEC_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    device_ = av.av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!device_) TWINMAF_FAIL(kUnsupported, "the FFmpeg loaded has no CUDA device support");
    auto* hw = static_cast<AVCUDADeviceContext*>(reinterpret_cast<AVHWDeviceContext*>(device_->data)->hwctx);
    hw->cuda_ctx = static_cast<CUcontext>(ctx_.cu_context);
    hw->stream = static_cast<CUstream>(stream_);
    const int err = av.av_hwdevice_ctx_init(device_);
    if (err < 0) TWINMAF_FAIL(kUnsupported, "FFmpeg cannot use the GPU for decoding (error {})", err);
    return ok_status();
  }

  AVBufferRef* device() const override { return device_; }

  Status copy(const AVFrame& f, int planes, Picture& out) override {
    TWINMAF_RETURN_IF_ERROR(ctx_.bind());
    const VideoFormat& fmt = out.format();
    const cudaStream_t s = stream_;
    const int bytes = fmt.bytes_per_sample();
    if (f.format != AV_PIX_FMT_CUDA) {  // the hwaccel refused the stream: libavcodec decoded it on the CPU
      for (int p = 0; p < planes; ++p)
        TWINMAF_NVDEC_TRY(cudaMemcpy2DAsync(out.mutable_data(p), size_t(out.stride(p)), f.data[p], size_t(f.linesize[p]),
                                           size_t(fmt.stored_w(p)) * size_t(bytes), size_t(fmt.stored_h(p)),
                                           cudaMemcpyHostToDevice, s));
      TWINMAF_NVDEC_TRY(cudaStreamSynchronize(s));
      return ok_status();
    }
    const AVPixelFormat sw = reinterpret_cast<const AVHWFramesContext*>(f.hw_frames_ctx->data)->sw_format;
    const bool interleaved = sw == AV_PIX_FMT_NV12 || sw == AV_PIX_FMT_P010 || sw == AV_PIX_FMT_P016;
    const bool planar = sw == AV_PIX_FMT_YUV444P || sw == AV_PIX_FMT_YUV444P16;
    const int surface_bytes = sw == AV_PIX_FMT_NV12 || sw == AV_PIX_FMT_YUV444P ? 1 : 2;
    if (!(interleaved || planar) || surface_bytes != bytes || (interleaved && fmt.fmt != PixFmt::k420) ||
        (planar && fmt.fmt != PixFmt::k444))
      TWINMAF_FAIL(kInternal, "NVDEC surface {} for a {} {}-bit input", int(sw), pix_fmt_name(fmt.fmt), fmt.bpc);
    // 16-bit words hold the sample in their top bpc bits.
    const int shift = bytes == 2 ? 16 - fmt.bpc : 0;
    for (int p = 0; p < planes; ++p) {
      const int w = fmt.stored_w(p), h = fmt.stored_h(p);
      const bool gather = interleaved && p > 0;
      const int from = gather ? 1 : p;
      if (!gather && shift == 0) {
        TWINMAF_NVDEC_TRY(cudaMemcpy2DAsync(out.mutable_data(p), size_t(out.stride(p)), f.data[from],
                                           size_t(f.linesize[from]), size_t(w) * size_t(bytes), size_t(h),
                                           cudaMemcpyDeviceToDevice, s));
        continue;
      }
      const cuda::SurfacePlane src{f.data[from], size_t(f.linesize[from]), gather ? 2 : 1, gather ? p - 1 : 0, shift,
                                   bytes};
      TWINMAF_NVDEC_TRY(cuda::unpack_plane(src, out.mutable_data(p), size_t(out.stride(p)), w, h, s));
    }
    // libavcodec recycles the surface once the frame is unreferenced.
    TWINMAF_NVDEC_TRY(cudaStreamSynchronize(s));
    return ok_status();
  }

 private:
  const FfmpegApi& av;
  const NvdecContext& ctx_;
  cudaStream_t stream_ = nullptr;
  AVBufferRef* device_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<Nvdec>> Nvdec::create(const FfmpegApi& av, const NvdecContext& ctx) {
  auto n = std::make_unique<CudaNvdec>(av, ctx);
  TWINMAF_RETURN_IF_ERROR(n->init());
  return std::unique_ptr<Nvdec>(std::move(n));
}

}  // namespace twinmaf
