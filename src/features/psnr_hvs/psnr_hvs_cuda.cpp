// psnr_hvs CUDA twin: computes each plane's libvmaf running sum ret on the
// device (psnr_hvs.cu, exact by base/ordered_sum.h's tree) and hands it to the
// shared finish() as PsnrHvsTerms whose only term is ret (the ordered sum of
// {ret} from +0 is ret). 12 bytes per frame cross the bus.
//
// Scratch, allocated once for the format: the blocks' terms (256 bytes per
// block), the tree's infos (4 bytes per entry) and increment pairs (192
// bytes per entry): about 115 MB at 3840x2160 4:2:0. The session runs a
// twin's frames in order on one stream, so one set serves every frame.
#include "features/psnr_hvs/psnr_hvs.h"
#include "features/psnr_hvs/psnr_hvs_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

struct DeviceTerms {
  uint32_t ret[3];  // float bits of ret per plane
};

class PsnrHvsTwin final : public Twin {
 public:
  PsnrHvsTwin(const VideoFormat& fmt, const cuda::PsnrHvsLaunch& launch, gpu::DeviceBuffer terms,
              gpu::DeviceBuffer entries)
      : fmt_(fmt), launch_(launch), terms_(std::move(terms)), entries_(std::move(entries)) {
    launch_.sums.terms = reinterpret_cast<float*>(terms_.get());
    launch_.sums.entries = reinterpret_cast<OrderedSumEntry<float>*>(entries_.get());
  }
  std::size_t terms_bytes() const override { return sizeof(DeviceTerms); }
  std::string name() const override { return fmt_.bpc > 8 ? "psnr_hvs_16bpc_cuda" : "psnr_hvs_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    cuda::PsnrHvsLaunch l = launch_;
    for (int p = 0; p < 3; ++p) {
      if (l.sums.tree[p].levels == 0) continue;
      if (!f.ref.planes[p] || !f.dis.planes[p] || f.ref.pitch[p] != f.dis.pitch[p])
        TWINMAF_FAIL(kInternal, "psnr_hvs twin: plane {} of frame {} is not resident with one pitch", p, f.index);
      l.plane[p].ref = f.ref.planes[p];
      l.plane[p].dis = f.dis.planes[p];
      l.plane[p].pitch = f.ref.pitch[p];
    }
    TWINMAF_CUDA_TRY(cuda::psnr_hvs_enqueue(l, static_cast<DeviceTerms*>(device_terms)->ret,
                                            static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* t = static_cast<const DeviceTerms*>(host_terms);
    auto& o = down_cast<PsnrHvsTerms&>(out);
    for (int p = 0; p < 3; ++p) {
      const cuda::PsnrHvsPlaneGeometry& g = launch_.plane[p];
      o.plane[p].blocks = g.nbx * g.nby;
      o.plane[p].terms.clear();
      if (o.plane[p].blocks) o.plane[p].terms.push_back(bits_float(t->ret[p]));
    }
  }

 private:
  VideoFormat fmt_;
  cuda::PsnrHvsLaunch launch_;
  gpu::DeviceBuffer terms_, entries_;
};

}  // namespace

// Every format the CPU extractor's init accepts (it has no options).
Result<std::unique_ptr<Twin>> make_psnr_hvs_twin(const Extractor&, const VideoFormat& fmt, gpu::Context&) {
  const PsnrHvsTables& tab = psnr_hvs_tables();
  TWINMAF_CUDA_TRY(cuda::psnr_hvs_set_tables(tab.csf, tab.mask));

  cuda::PsnrHvsLaunch l;
  l.bpc = fmt.bpc;
  for (int p = 0; p < 3; ++p) {
    l.plane[p].nbx = psnr_hvs_blocks_1d(fmt.plane_w(p));
    l.plane[p].nby = psnr_hvs_blocks_1d(fmt.plane_h(p));
  }
  const int entries = cuda::psnr_hvs_layout(l);
  const auto bytes = [](std::size_t n) { return n ? n : 1; };  // no zero-sized allocations
  TWINMAF_ASSIGN_OR_RETURN(
      gpu::DeviceBuffer terms,
      gpu::DeviceBuffer::create(bytes(std::size_t(l.sums.leaves) * kPsnrHvsTerms * sizeof(float))));
  TWINMAF_ASSIGN_OR_RETURN(
      gpu::DeviceBuffer entry_buf,
      gpu::DeviceBuffer::create(bytes(std::size_t(entries) * sizeof(OrderedSumEntry<float>))));
  return std::unique_ptr<Twin>(std::make_unique<PsnrHvsTwin>(fmt, l, std::move(terms), std::move(entry_buf)));
}

}  // namespace twinmaf
