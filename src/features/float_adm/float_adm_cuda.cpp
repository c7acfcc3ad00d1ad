// float_adm CUDA twin: FloatAdmTerms' row sums of every computed scale on the
// device (float_adm.cu), handed to the shared finish(). 36 bytes per R2 row
// and scale cross the bus. Every option and format the CPU accepts, except
// adm_p_norm other than 3 (libm powf per sample: runs on the CPU) and, on x86,
// a processor whose RCPSS the table model does not reproduce (base/rcpss.h:
// runs on the CPU, with the reason).
//
// Device memory, allocated once for the format: the two pictures as floats,
// two band-a pairs (scales alternate), the h, v, d bands of both pictures, the
// twelve CSF planes and the nine term planes, each of scale 0's band size, and
// the RCPSS table.
#include <cstring>

#include "base/rcpss.h"
#include "features/float_adm/float_adm.h"
#include "features/float_adm/float_adm_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

class FloatAdmTwin final : public Twin {
 public:
  FloatAdmTwin(const VideoFormat& fmt, const FloatAdmKernelParams& p, const cuda::FloatAdmLaunch& launch,
               std::size_t rows, gpu::DeviceBuffer buf)
      : fmt_(fmt), p_(p), launch_(launch), rows_(rows), buf_(std::move(buf)) {}
  std::size_t terms_bytes() const override { return rows_ * sizeof(float); }
  std::string name() const override { return fmt_.bpc > 8 ? "float_adm_16bpc_cuda" : "float_adm_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    if (!f.ref.planes[0] || !f.dis.planes[0] || f.ref.pitch[0] != f.dis.pitch[0])
      TWINMAF_FAIL(kInternal, "float_adm twin: the luma of frame {} is not resident with one pitch", f.index);
    cuda::FloatAdmLaunch l = launch_;
    l.ref = f.ref.planes[0];
    l.dis = f.dis.planes[0];
    l.pitch = f.ref.pitch[0];
    TWINMAF_CUDA_TRY(cuda::float_adm_enqueue(l, static_cast<float*>(device_terms), static_cast<cudaStream_t>(stream)));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    const auto* rows = static_cast<const float*>(host_terms);
    auto& o = down_cast<FloatAdmTerms&>(out);
    for (int s = 0; s < 4; ++s) {
      const bool skip = s == 0 && p_.skip_scale0;
      const int n = p_.scale[s].sums.rows();
      for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 3; ++b) {
          std::vector<float>& v = o.rows[s][k][b];
          if (skip) {
            v.clear();
          } else {
            const float* r = rows + launch_.scale[s].rows_at + (3 * k + b) * n;
            v.assign(r, r + n);
          }
        }
    }
  }

 private:
  VideoFormat fmt_;
  FloatAdmKernelParams p_;
  cuda::FloatAdmLaunch launch_;
  std::size_t rows_;
  gpu::DeviceBuffer buf_;
};

cuda::FloatAdmRegionArgs region_args(const FloatAdmRegion& r) { return {r.top, r.bottom, r.left, r.right}; }

}  // namespace

Result<std::unique_ptr<Twin>> make_float_adm_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context&) {
  const FloatAdmKernelParams& p = float_adm_kernel_params(configured);
  if (p.p_norm != 3.0)
    TWINMAF_FAIL(kUnsupported, "float_adm twin: adm_p_norm {} pools with libm powf per sample (runs on the CPU)",
                 p.p_norm);
#if defined(__SSE2__)
  // The CPU path divides through this processor's RCPSS.
  RcpssTable table;
  std::string why;
  if (!rcpss_measure(table, why)) TWINMAF_FAIL(kUnsupported, "float_adm twin: {} (runs on the CPU)", why);
  constexpr bool kRcpss = true;
#else
  constexpr bool kRcpss = false;
#endif
  cuda::FloatAdmLaunch l;
  l.bpc = p.bpc;
  l.skip_scale0 = p.skip_scale0;
  l.bypass_cm = p.bypass_cm;
  l.enhn_gain_limit = p.enhn_gain_limit;
  l.cos_1deg_sq = p.cos_1deg_sq;
  std::size_t rows = 0;
  for (int s = 0; s < 4; ++s) {
    const FloatAdmScaleParams& sp = p.scale[s];
    cuda::FloatAdmScaleArgs& a = l.scale[s];
    a.in_w = sp.in_w;
    a.in_h = sp.in_h;
    a.w = sp.w;
    a.h = sp.h;
    a.decouple = region_args(sp.decouple);
    a.sums = region_args(sp.sums);
    for (int b = 0; b < 3; ++b) a.rfactor[b] = sp.rfactor[b];
    a.rows_at = static_cast<int>(rows);
    if (!(s == 0 && p.skip_scale0)) rows += 9 * static_cast<std::size_t>(std::max(0, sp.sums.rows()));
  }
  const std::size_t pic = static_cast<std::size_t>(p.scale[0].in_w) * p.scale[0].in_h * sizeof(float);
  const std::size_t band = static_cast<std::size_t>(p.scale[0].w) * p.scale[0].h * sizeof(float);
  gpu::ScratchLayout layout;
  std::size_t pic_at[2], a_at[2][2], hvd_at[2][3], csf_at[4][3], terms_at[9];
  for (std::size_t& x : pic_at) x = layout.add(pic);
  for (auto& q : a_at)
    for (std::size_t& x : q) x = layout.add(band);
  for (auto& q : hvd_at)
    for (std::size_t& x : q) x = layout.add(band);
  for (auto& q : csf_at)
    for (std::size_t& x : q) x = layout.add(band);
  for (std::size_t& x : terms_at) x = layout.add(band);
  const std::size_t table_at = layout.add(sizeof(RcpssTable::bits));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer buf, gpu::DeviceBuffer::create(layout.size()));
  const auto at = [&buf](std::size_t off) { return gpu::ScratchLayout::at<float>(buf, off); };
  for (int q = 0; q < 2; ++q) {
    l.pic[q] = at(pic_at[q]);
    for (int i = 0; i < 2; ++i) l.a[i][q] = at(a_at[i][q]);
    for (int b = 0; b < 3; ++b) l.hvd[q][b] = at(hvd_at[q][b]);
  }
  for (int c = 0; c < 4; ++c)
    for (int b = 0; b < 3; ++b) l.csf[c][b] = at(csf_at[c][b]);
  for (int k = 0; k < 9; ++k) l.terms[k] = at(terms_at[k]);
#if defined(__SSE2__)
  TWINMAF_CUDA_TRY(cudaMemcpy(buf.get() + table_at, table.bits, sizeof table.bits, cudaMemcpyHostToDevice));
#endif
  if (kRcpss) l.rcpss = gpu::ScratchLayout::at<const uint32_t>(buf, table_at);
  return std::unique_ptr<Twin>(std::make_unique<FloatAdmTwin>(fmt, p, l, rows, std::move(buf)));
}

}  // namespace twinmaf
