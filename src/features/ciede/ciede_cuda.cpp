// ciede CUDA twin: the device computes each pixel's dE00 where ciede_bounds.h
// pins it to one float (all but about 0.05-0.1% of the differing pixels of
// real or random content) and lists the others; a host function on the
// frame's stream computes those with the CPU's own ciede_lab and ciede_de00
// (glibc), the device puts them in place and sums every term in order
// (gpu/ordered_sum.cuh). So CiedeTerms' single term is the CPU's running sum,
// bit for bit.
//
// Per instance (one per pipeline bank; a bank's frames run in order): the
// terms and the tree (about 73 MB of device memory at 3840x2160), and w h
// entries of 16 bytes plus their results in mapped host memory, so that a
// frame whose every pixel is left to the host still fits. Per CUDA context,
// shared by every 8-bit instance: the Lab table (256 MiB).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/parallel.h"
#include "features/ciede/ciede.h"
#include "features/ciede/ciede_kernels.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

namespace twinmaf {

namespace {

// What the host function reads and writes; lives as long as the twin.
struct HostSide {
  const unsigned* count = nullptr;  // pinned copy of the device's count
  const cuda::CiedeEntry* entries = nullptr;
  float* results = nullptr;
  CiedeLevels levels{};
};

// results[k] = the CPU's dE00 of entries[k], k in [begin, end). A pair seen
// in the last 1024 slots' worth is not computed again (a flat area of one
// colour pair may leave every pixel to the host).
void resolve_range(const HostSide& s, unsigned begin, unsigned end) {
  struct Memo {
    uint64_t ref = ~uint64_t{0}, dis = 0;  // no triple packs to all ones
    float de00 = 0;
  };
  std::vector<Memo> memo(1024);
  const auto pack = [](const uint16_t (&t)[3]) {
    return uint64_t{t[0]} | uint64_t{t[1]} << 16 | uint64_t{t[2]} << 32;
  };
  for (unsigned k = begin; k < end; ++k) {
    const cuda::CiedeEntry& e = s.entries[k];
    const uint64_t r = pack(e.ref), d = pack(e.dis);
    Memo& m = memo[((r * 0x9E3779B97F4A7C15ull) ^ (d * 0xC2B2AE3D27D4EB4Full)) >> 54];
    if (m.ref != r || m.dis != d) {
      m = {r, d,
           ciede_de00(ciede_lab(e.ref[0], e.ref[1], e.ref[2], s.levels),
                      ciede_lab(e.dis[0], e.dis[1], e.dis[2], s.levels))};
    }
    s.results[k] = m.de00;
  }
}

// fn(begin, end) over [0, n) in chunks of `chunk`, on every core of the
// machine (callers run on driver or setup threads, outside the run's workers).
template <class Fn>
void on_all_cores(unsigned n, unsigned chunk, Fn fn) {
  if (n <= chunk) {
    fn(0u, n);
    return;
  }
  const BandScope scope(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  run_bands(static_cast<int>((n + chunk - 1) / chunk), [&](int band) {
    const unsigned begin = static_cast<unsigned>(band) * chunk;
    fn(begin, std::min(n, begin + chunk));
  });
}

// The host function of a frame: its entries, in chunks on the machine's cores
// (the driver runs the host functions of every stream one after another: a
// frame's few thousand entries on one core would bound the whole pipeline's
// frame rate).
void CUDART_CB resolve(void* user) {
  const auto* s = static_cast<const HostSide*>(user);
  on_all_cores(*s->count, 256, [s](unsigned begin, unsigned end) { resolve_range(*s, begin, end); });
}

// The 8-bit Lab table: the device's bounds where they pin a colour, the
// CPU's ciede_lab for the others (a few hundred of the 2^24).
Result<gpu::DeviceBuffer> build_lab_table() {
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer table,
                           gpu::DeviceBuffer::create(std::size_t{cuda::kCiedeLabEntries} * sizeof(cuda::CiedeLabEntry)));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer list,
                           gpu::DeviceBuffer::create((std::size_t{cuda::kCiedeLabEntries} + 1) * sizeof(uint32_t)));
  TWINMAF_ASSIGN_OR_RETURN(gpu::Stream stream, gpu::Stream::create());
  const auto s = static_cast<cudaStream_t>(stream.get());
  auto* const entries = reinterpret_cast<cuda::CiedeLabEntry*>(table.get());
  auto* const listed = reinterpret_cast<uint32_t*>(list.get());
  auto* const count = reinterpret_cast<unsigned*>(listed + cuda::kCiedeLabEntries);
  const ciede::Levels k = ciede_levels(8);
  TWINMAF_CUDA_TRY(cuda::ciede_enqueue_lab_table(entries, listed, count, k, s));
  unsigned n = 0;
  TWINMAF_CUDA_TRY(cudaMemcpyAsync(&n, count, sizeof n, cudaMemcpyDeviceToHost, s));
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(s));
  if (n == 0) return table;
  std::vector<uint32_t> open(n);
  TWINMAF_CUDA_TRY(cudaMemcpyAsync(open.data(), listed, n * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(s));
  std::vector<cuda::CiedeLabFix> fixes(n);
  on_all_cores(n, 4096, [&](unsigned begin, unsigned end) {
    for (unsigned i = begin; i < end; ++i) {
      const uint32_t t = open[i];
      const CiedeLab c =
          ciede_lab(cuda::ciede_lab_sample(t, 0), cuda::ciede_lab_sample(t, 1), cuda::ciede_lab_sample(t, 2), k);
      fixes[i] = {t, {c.l, c.a, c.b, 0.0f}};
    }
  });
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer upload, gpu::DeviceBuffer::create(n * sizeof(cuda::CiedeLabFix)));
  auto* const at = reinterpret_cast<cuda::CiedeLabFix*>(upload.get());
  TWINMAF_CUDA_TRY(cudaMemcpyAsync(at, fixes.data(), n * sizeof(cuda::CiedeLabFix), cudaMemcpyHostToDevice, s));
  TWINMAF_CUDA_TRY(cuda::ciede_enqueue_lab_fixes(entries, at, n, s));
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(s));
  return table;
}

class CiedeTwin final : public Twin {
 public:
  CiedeTwin(const VideoFormat& fmt, const cuda::CiedeLaunch& launch, std::shared_ptr<const gpu::DeviceBuffer> lab8,
            gpu::DeviceBuffer scratch, gpu::PinnedBuffer mapped, gpu::PinnedBuffer count)
      : fmt_(fmt),
        launch_(launch),
        lab8_(std::move(lab8)),
        scratch_(std::move(scratch)),
        mapped_(std::move(mapped)),
        count_(std::move(count)),
        host_{reinterpret_cast<const unsigned*>(count_.get()), launch.entries, const_cast<float*>(launch.results),
              launch.levels} {}
  std::size_t terms_bytes() const override { return sizeof(uint64_t); }
  std::string name() const override { return fmt_.bpc > 8 ? "ciede_16bpc_cuda" : "ciede_8bpc_cuda"; }

  Status enqueue(const DeviceFrame& f, void* device_terms, void* stream) override {
    cuda::CiedeLaunch l = launch_;
    for (int p = 0; p < 3; ++p) {
      if (!f.ref.planes[p] || !f.dis.planes[p] || f.ref.pitch[p] != f.dis.pitch[p])
        TWINMAF_FAIL(kInternal, "ciede twin: plane {} of frame {} is not resident with one pitch", p, f.index);
      l.ref[p] = f.ref.planes[p];
      l.dis[p] = f.dis.planes[p];
      l.pitch[p] = f.ref.pitch[p];
    }
    const auto s = static_cast<cudaStream_t>(stream);
    TWINMAF_CUDA_TRY(cuda::ciede_enqueue_pixels(l, s));
    TWINMAF_CUDA_TRY(cudaMemcpyAsync(count_.get(), l.count, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    TWINMAF_CUDA_TRY(cudaLaunchHostFunc(s, &resolve, &host_));
    TWINMAF_CUDA_TRY(cuda::ciede_enqueue_sum(l, static_cast<uint64_t*>(device_terms), s));
    return ok_status();
  }

  void unpack(const void* host_terms, FrameTerms& out) const override {
    down_cast<CiedeTerms&>(out).de00_sum = bits_double(*static_cast<const uint64_t*>(host_terms));
  }

 private:
  VideoFormat fmt_;
  cuda::CiedeLaunch launch_;
  std::shared_ptr<const gpu::DeviceBuffer> lab8_;
  gpu::DeviceBuffer scratch_;
  gpu::PinnedBuffer mapped_, count_;
  HostSide host_;
};

}  // namespace

Result<std::shared_ptr<const gpu::DeviceBuffer>> ciede_lab_table(gpu::Context& ctx) {
  static std::mutex mutex;
  static std::map<void*, std::weak_ptr<const gpu::DeviceBuffer>> tables;  // by CUcontext
  TWINMAF_ASSIGN_OR_RETURN(void* key, ctx.cu_context());
  const std::lock_guard lock(mutex);
  std::shared_ptr<const gpu::DeviceBuffer> table = tables[key].lock();
  if (!table) {
    TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer built, build_lab_table());
    table = std::make_shared<const gpu::DeviceBuffer>(std::move(built));
    tables[key] = table;
  }
  return table;
}

// Every format the CPU extractor's init accepts (it has no options).
Result<std::unique_ptr<Twin>> make_ciede_twin(const Extractor&, const VideoFormat& fmt, gpu::Context& ctx) {
  if (!ciede_powf_model_holds())
    TWINMAF_FAIL(kUnsupported, "ciede twin: this host's powf is not the one ciede_bounds.h models (runs on the CPU)");
  if (static_cast<uint64_t>(fmt.w) * static_cast<uint64_t>(fmt.h) > UINT32_MAX)
    TWINMAF_FAIL(kUnsupported, "ciede twin: {}x{} has more pixels than 32-bit indices count (runs on the CPU)", fmt.w,
                 fmt.h);
  cuda::CiedeLaunch l;
  l.w = fmt.w;
  l.h = fmt.h;
  l.bpc = fmt.bpc;
  l.cw = fmt.plane_w(1);
  l.ch = fmt.plane_h(1);
  l.chroma_full = fmt.fmt == PixFmt::k444;
  l.half_cols = fmt.fmt == PixFmt::k420;
  l.levels = ciede_levels(fmt.bpc);
  const int entries = cuda::ciede_layout(l);
  const std::size_t pixels = static_cast<std::size_t>(fmt.w) * static_cast<std::size_t>(fmt.h);
  gpu::ScratchLayout layout;
  const std::size_t at_terms = layout.add(std::size_t(l.sums.leaves) * cuda::kCiedeLeaf * sizeof(double));
  const std::size_t at_entries = layout.add(std::size_t(entries) * sizeof(OrderedSumEntry<double>));
  const std::size_t at_count = layout.add(sizeof(unsigned));
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer scratch, gpu::DeviceBuffer::create(layout.size()));
  l.sums.terms = gpu::ScratchLayout::at<double>(scratch, at_terms);
  l.sums.entries = gpu::ScratchLayout::at<OrderedSumEntry<double>>(scratch, at_entries);
  l.count = gpu::ScratchLayout::at<unsigned>(scratch, at_count);
  // The last leaf's padding stays +0 (the kernel writes the w h terms only).
  TWINMAF_CUDA_TRY(cudaMemset(l.sums.terms, 0, std::size_t(l.sums.leaves) * cuda::kCiedeLeaf * sizeof(double)));
  TWINMAF_ASSIGN_OR_RETURN(gpu::PinnedBuffer mapped,
                           gpu::PinnedBuffer::create(pixels * (sizeof(cuda::CiedeEntry) + sizeof(float)), true));
  l.entries = reinterpret_cast<cuda::CiedeEntry*>(mapped.get());
  l.results = reinterpret_cast<const float*>(mapped.get() + pixels * sizeof(cuda::CiedeEntry));
  TWINMAF_ASSIGN_OR_RETURN(gpu::PinnedBuffer count, gpu::PinnedBuffer::create(sizeof(unsigned)));
  std::shared_ptr<const gpu::DeviceBuffer> lab8;
  if (fmt.bpc == 8) {
    TWINMAF_ASSIGN_OR_RETURN(lab8, ciede_lab_table(ctx));
    l.lab8 = reinterpret_cast<const cuda::CiedeLabEntry*>(lab8->get());
  }
  return std::unique_ptr<Twin>(std::make_unique<CiedeTwin>(fmt, l, std::move(lab8), std::move(scratch),
                                                           std::move(mapped), std::move(count)));
}

}  // namespace twinmaf
