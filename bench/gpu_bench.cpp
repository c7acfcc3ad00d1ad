// twinmaf_gpu_bench: the two GPU numbers the end-to-end benchmark is judged
// against.
//
//   twinmaf_gpu_bench ceiling FILE FRAME_BYTES READ_BYTES [THREADS...]
//     The host's read ceiling: THREADS threads pread the first READ_BYTES of
//     every FRAME_BYTES-sized frame of FILE (all of it, or the luma plane
//     alone) into pinned buffers, from the page cache after a warm-up pass;
//     prints frames/s and GB/s per thread count. Halve the frame rate for
//     (ref, dis) pairs.
//
//   twinmaf_gpu_bench ceiling_upload FILE FRAME_BYTES READ_BYTES [THREADS...]
//     The same reads, each followed by its upload to the device (one async
//     copy per frame, double-buffered per thread): the ceiling for bytes that
//     must also cross PCIe, which share the host's memory bandwidth with the
//     reads.
//
//   twinmaf_gpu_bench ceiling_mapped FILE FRAME_BYTES READ_BYTES GROUP [THREADS...]
//     Uploads without a host copy: FILE mapped read-only, GROUP frames' page
//     range page-locked in place (cudaHostRegister, read-only) and each
//     frame's READ_BYTES copied to the device straight from the page cache,
//     then unregistered; frames/s and GB/s per thread count, and the time
//     spent registering. GROUP 0: no registration (the driver's pageable
//     copy path from the mapping).
//
//   twinmaf_gpu_bench pinning TOTAL_MB CHUNK_MB
//     Start-up costs: the CUDA context (first runtime call), then TOTAL_MB of
//     page-locked memory in CHUNK_MB pieces three ways: cudaHostAlloc;
//     cudaHostAlloc from 4 threads; the pictures' gpu::PinnedAllocator
//     (huge-page mappings registered with the driver), from one thread and
//     from 6. Each freed again; ms for every step.
//
//   twinmaf_gpu_bench resident W H LAYOUT BPC FRAMES [--banks=N] [--graphs=0|1]
//                     FEATURE[=opts] [FEATURE...]
//     Kernel throughput with the inputs already on the device: 8 distinct
//     (ref, dis) pairs are uploaded once, then FRAMES frames cycle through them
//     through the session's DevicePipeline (terms zeroing, every twin's
//     kernels, the terms readback; 4 frames in flight), timed on the host
//     clock; also prints the host time spent enqueueing. Defaults: the
//     session's banks and graphs.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/feature_text.h"
#include "features/feature.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"
#include "gpu/device_pipeline.h"
#include "gpu/frame_ring.h"

namespace {

using namespace twinmaf;

int fail(const std::string& m) {
  std::fprintf(stderr, "twinmaf_gpu_bench: error: %s\n", m.c_str());
  return 2;
}

int ceiling(const std::string& path, size_t frame_stride, size_t frame_bytes, std::vector<int> threads, bool upload) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return fail("cannot open " + path);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const size_t frames = static_cast<size_t>(size) / frame_stride;
  if (frames == 0) return fail("file holds no whole frame");
  if (threads.empty()) threads = {1, 2, 4, 8, 12, 16};
  for (int t : threads) {
    std::vector<gpu::PinnedBuffer> bufs;
    std::vector<gpu::DeviceBuffer> dev;
    std::vector<gpu::Stream> streams;
    for (int i = 0; i < 2 * t; ++i) {
      auto b = gpu::PinnedBuffer::create(frame_bytes);
      if (!b.ok()) return fail(b.status().message());
      bufs.push_back(std::move(*b));
      if (!upload) continue;
      auto d = gpu::DeviceBuffer::create(frame_bytes);
      if (!d.ok()) return fail(d.status().message());
      dev.push_back(std::move(*d));
      if (i < t) {
        auto st = gpu::Stream::create();
        if (!st.ok()) return fail(st.status().message());
        streams.push_back(std::move(*st));
      }
    }
    for (int pass = 0; pass < 2; ++pass) {  // pass 0 warms the page cache
      std::atomic<size_t> next{0};
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (int i = 0; i < t; ++i)
        pool.emplace_back([&, i] {
          unsigned k = 0;
          cudaEvent_t ev[2] = {nullptr, nullptr};
          if (upload)
            for (auto& e : ev) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
          for (size_t f; (f = next.fetch_add(1)) < frames; k ^= 1) {
            const size_t b = size_t(2 * i) + k;
            if (upload) cudaEventSynchronize(ev[k]);  // this buffer's previous upload
            size_t done = 0;
            while (done < frame_bytes) {
              const ssize_t r = ::pread(fd, bufs[b].get() + done, frame_bytes - done,
                                        static_cast<off_t>(f * frame_stride + done));
              if (r <= 0) break;
              done += static_cast<size_t>(r);
            }
            if (!upload) continue;
            const auto st = static_cast<cudaStream_t>(streams[size_t(i)].get());
            cudaMemcpyAsync(dev[b].get(), bufs[b].get(), frame_bytes, cudaMemcpyHostToDevice, st);
            cudaEventRecord(ev[k], st);
          }
          if (upload)
            for (auto& e : ev) {
              cudaEventSynchronize(e);
              cudaEventDestroy(e);
            }
        });
      for (auto& th : pool) th.join();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (pass == 1)
        std::printf("%s: %2d threads: %8.1f frames/s  %6.2f GB/s  (%zu frames of %zu bytes)\n",
                    upload ? "ceiling_upload" : "ceiling", t, frames / s, frames * double(frame_bytes) / s / 1e9,
                    frames, frame_bytes);
    }
  }
  ::close(fd);
  return 0;
}

int ceiling_mapped(const std::string& path, size_t frame_stride, size_t frame_bytes, size_t group,
                   std::vector<int> threads) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return fail("cannot open " + path);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const size_t frames = static_cast<size_t>(size) / frame_stride;
  if (frames == 0) return fail("file holds no whole frame");
  const bool pageable = group == 0;
  if (pageable) group = 1;
  void* map = mmap(nullptr, size_t(size), PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return fail("mmap failed");
  const auto base = static_cast<const uint8_t*>(map);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  if (threads.empty()) threads = {1, 2, 4, 8, 12, 16};
  for (int t : threads) {
    std::vector<gpu::DeviceBuffer> dev;
    std::vector<gpu::Stream> streams;
    for (int i = 0; i < t; ++i) {
      auto d = gpu::DeviceBuffer::create(frame_bytes);
      auto st = gpu::Stream::create();
      if (!d.ok() || !st.ok()) return fail("device buffer or stream");
      dev.push_back(std::move(*d));
      streams.push_back(std::move(*st));
    }
    for (int pass = 0; pass < 2; ++pass) {
      std::atomic<size_t> next{0};
      std::atomic<int> errors{0};
      std::atomic<long long> reg_ns{0};
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (int i = 0; i < t; ++i)
        pool.emplace_back([&, i] {
          const auto st = static_cast<cudaStream_t>(streams[size_t(i)].get());
          for (size_t g; (g = next.fetch_add(group)) < frames;) {
            const size_t end = std::min(frames, g + group);
            const size_t lo = g * frame_stride / page * page;
            const size_t hi = std::min(size_t(size), ((end - 1) * frame_stride + frame_bytes + page - 1) / page * page);
            auto* p = const_cast<uint8_t*>(base + lo);
            const auto r0 = std::chrono::steady_clock::now();
            const unsigned flags = cudaHostRegisterReadOnly | cudaHostRegisterPortable;
            if (!pageable && cudaHostRegister(p, hi - lo, flags) != cudaSuccess) {
              (void)cudaGetLastError();
              errors.fetch_add(1);
              continue;
            }
            const auto reg = std::chrono::steady_clock::now() - r0;
            reg_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(reg).count());
            for (size_t f = g; f < end; ++f)
              cudaMemcpyAsync(dev[size_t(i)].get(), base + f * frame_stride, frame_bytes, cudaMemcpyHostToDevice, st);
            cudaStreamSynchronize(st);
            if (!pageable) cudaHostUnregister(p);
          }
        });
      for (auto& th : pool) th.join();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (errors.load()) std::printf("ceiling_mapped: %d registrations failed\n", errors.load());
      if (pass == 1)
        std::printf("ceiling_mapped: %2d threads, %zu frames per registration: %8.1f frames/s  %6.2f GB/s  "
                    "(registering %.1f ms of thread time)\n",
                    t, group, frames / s, frames * double(frame_bytes) / s / 1e9, double(reg_ns.load()) / 1e6);
    }
  }
  munmap(map, size_t(size));
  ::close(fd);
  return 0;
}

Status resident(const VideoFormat& fmt, int frames, const std::vector<std::string>& args) {
  TWINMAF_ASSIGN_OR_RETURN(auto ctx, gpu::Context::create(0));
  gpu::PipelineMode mode;  // the session's defaults unless overridden
  std::vector<std::string> features;
  for (const std::string& a : args) {
    if (a.rfind("--banks=", 0) == 0) mode.banks = std::atoi(a.c_str() + 8);
    else if (a.rfind("--graphs=", 0) == 0) mode.graphs = a.substr(9) != "0";
    else features.push_back(a);
  }
  std::vector<std::unique_ptr<Extractor>> extractors;
  std::vector<std::unique_ptr<gpu::DeviceStage>> owned;
  std::vector<gpu::PipelineStage> twins;
  std::size_t terms = 0;
  bool chroma = false;
  for (const std::string& text : features) {
    TWINMAF_ASSIGN_OR_RETURN(FeatureText req, parse_feature_text(text));
    const FeatureSpec* spec = find_feature(req.name);
    if (!spec) TWINMAF_FAIL(kInvalidArgument, "unknown feature {}", req.name);
    if (!spec->cuda) TWINMAF_FAIL(kUnsupported, "{} has no CUDA twin", req.name);
    TWINMAF_ASSIGN_OR_RETURN(Options o, Options::parse(spec->name, spec->options, req.options));
    TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec->create(o));
    TWINMAF_RETURN_IF_ERROR(ex->init(fmt));
    const FeatureNeeds needs = ex->needs();
    chroma = chroma || plane_count(needs.ref, fmt) > 1 || plane_count(needs.dis, fmt) > 1;
    gpu::PipelineStage t{{}, 0, terms};
    TWINMAF_RETURN_IF_ERROR(gpu::add_bank_instances(
        t, mode,
        [&]() -> Result<std::unique_ptr<gpu::DeviceStage>> {
          TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Twin> twin, spec->cuda(*ex, fmt, *ctx));
          return std::unique_ptr<gpu::DeviceStage>(std::move(twin));
        },
        owned));
    terms += gpu::align_up(t.banks[0]->terms_bytes(), gpu::kTermsAlign);
    twins.push_back(std::move(t));
    extractors.push_back(std::move(ex));
  }
  const std::size_t ntwins = twins.size();
  // 8 resident pairs in the session's frame ring: a moving ramp, dis = ref +
  // small noise.
  constexpr int kResident = 8;
  constexpr int kInFlight = 4;  // as the session
  const uint32_t max = (1u << fmt.bpc) - 1;
  std::optional<gpu::FrameRing> ring;
  for (int k = 0; k < kResident; ++k) {
    PicturePtr pic[2];
    for (int which = 0; which < 2; ++which) {
      pic[which] = std::make_shared<Picture>(fmt, host_allocator());
      for (int p = 0; p < fmt.planes(); ++p)
        for (int y = 0; y < fmt.stored_h(p); ++y)
          for (int x = 0; x < fmt.stored_w(p); ++x) {
            uint32_t v = static_cast<uint32_t>(((x + 3 * k) * 7 + y * 5) << (fmt.bpc - 8)) & max;
            if (which) v = std::min<uint32_t>(max, v + uint32_t((x * 13 + y * 7 + k) % 5));
            uint8_t* row = pic[which]->mutable_data(p) + size_t(y) * size_t(pic[which]->stride(p));
            if (fmt.bpc > 8) reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
            else row[x] = static_cast<uint8_t>(v);
          }
    }
    if (!ring) {
      TWINMAF_ASSIGN_OR_RETURN(gpu::FrameRing r, gpu::FrameRing::create(*pic[0], chroma ? fmt.planes() : 1, kResident, 2));
      ring.emplace(std::move(r));
    }
    TWINMAF_RETURN_IF_ERROR(ring->upload(k, *pic[0], {pic[1]}, nullptr));
  }
  TWINMAF_CUDA_TRY(cudaDeviceSynchronize());
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<gpu::DevicePipeline> pipe,
                           gpu::DevicePipeline::create(std::move(twins), terms, kResident, mode));
  std::vector<DeviceFrame> frame(1);
  const std::vector<bool> active(ntwins, true);
  double enqueue_ms = 0;
  const auto run = [&](int n) -> Status {
    enqueue_ms = 0;
    for (int i = 0; i < n; ++i) {
      const int k = i % kResident;
      if (i >= kInFlight) TWINMAF_RETURN_IF_ERROR(pipe->wait((i - kInFlight) % kResident));
      DeviceFrame& f = frame[0];
      f.index = static_cast<unsigned>(i);
      f.ref = ring->ref(k);
      f.dis = ring->dis(k, 0);
      for (int h = 0; h < kMaxHistory; ++h) {
        f.prev_ref[size_t(h)] = ring->ref((k + kResident - 1 - h) % kResident);
        f.prev_dis[size_t(h)] = ring->dis((k + kResident - 1 - h) % kResident, 0);
      }
      const auto t0 = std::chrono::steady_clock::now();
      TWINMAF_RETURN_IF_ERROR(pipe->enqueue(k, frame, active, nullptr));
      enqueue_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    for (int k = 0; k < kResident; ++k) TWINMAF_RETURN_IF_ERROR(pipe->wait(k));
    return ok_status();
  };
  TWINMAF_RETURN_IF_ERROR(run(kResident * 4));  // warm-up, captures every graph
  TWINMAF_CUDA_TRY(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  TWINMAF_RETURN_IF_ERROR(run(frames));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::string names;
  for (const auto& f : features) names += (names.empty() ? "" : "+") + f;
  std::printf("resident: %s | %dx%d %s %d-bit | %s | banks %d graphs %s | %d frames | %.1f fps (%.4f ms/frame, "
              "host enqueue %.4f ms/frame)\n",
              names.c_str(), fmt.w, fmt.h, std::string(pix_fmt_name(fmt.fmt)).c_str(), fmt.bpc,
              ctx->info().name.c_str(), pipe->banks(), mode.graphs ? "on" : "off", frames, frames * 1000.0 / ms,
              ms / frames, enqueue_ms / frames);
  return ok_status();
}

int pinning(size_t total_mb, size_t chunk_mb) {
  using Clock = std::chrono::steady_clock;
  auto t = Clock::now();
  const auto lap = [&t](const char* what) {
    const auto now = Clock::now();
    std::printf("pinning: %-44s %9.1f ms\n", what, std::chrono::duration<double, std::milli>(now - t).count());
    t = now;
  };
  if (cudaFree(nullptr) != cudaSuccess) return fail("no CUDA device");
  lap("context (first runtime call)");
  const size_t chunk = chunk_mb << 20, n = total_mb / chunk_mb;
  std::vector<void*> p(n);
  for (void*& q : p)
    if (cudaHostAlloc(&q, chunk, cudaHostAllocPortable) != cudaSuccess) return fail("cudaHostAlloc");
  lap("cudaHostAlloc");
  for (void* q : p) cudaFreeHost(q);
  lap("cudaFreeHost");
  {
    std::vector<std::thread> ts;
    for (int k = 0; k < 4; ++k)
      ts.emplace_back([&, k] {
        for (size_t i = size_t(k); i < n; i += 4) cudaHostAlloc(&p[i], chunk, cudaHostAllocPortable);
      });
    for (std::thread& th : ts) th.join();
  }
  lap("cudaHostAlloc, 4 threads");
  for (void* q : p) cudaFreeHost(q);
  lap("cudaFreeHost");
  gpu::PinnedAllocator pinned;
  for (void*& q : p) q = pinned.allocate(chunk);
  lap("PinnedAllocator (THP mmap + cudaHostRegister)");
  for (void* q : p) pinned.deallocate(q);
  lap("PinnedAllocator release");
  {
    std::vector<std::thread> ts;
    for (int k = 0; k < 6; ++k)
      ts.emplace_back([&, k] {
        for (size_t i = size_t(k); i < n; i += 6) p[i] = pinned.allocate(chunk);
      });
    for (std::thread& th : ts) th.join();
  }
  lap("PinnedAllocator, 6 threads");
  for (void* q : p) pinned.deallocate(q);
  lap("PinnedAllocator release");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() >= 4 && (a[0] == "ceiling" || a[0] == "ceiling_upload")) {
    std::vector<int> threads;
    for (size_t i = 4; i < a.size(); ++i) threads.push_back(std::atoi(a[i].c_str()));
    return ceiling(a[1], std::stoull(a[2]), std::stoull(a[3]), threads, a[0] == "ceiling_upload");
  }
  if (a.size() >= 5 && a[0] == "ceiling_mapped") {
    std::vector<int> threads;
    for (size_t i = 5; i < a.size(); ++i) threads.push_back(std::atoi(a[i].c_str()));
    return ceiling_mapped(a[1], std::stoull(a[2]), std::stoull(a[3]), std::stoull(a[4]), threads);
  }
  if (a.size() == 3 && a[0] == "pinning") return pinning(std::stoull(a[1]), std::stoull(a[2]));
  if (a.size() >= 7 && a[0] == "resident") {
    const PixFmt fmt = a[3] == "420" ? PixFmt::k420 : a[3] == "422" ? PixFmt::k422 : a[3] == "444" ? PixFmt::k444 : PixFmt::k400;
    const VideoFormat f{std::atoi(a[1].c_str()), std::atoi(a[2].c_str()), fmt, std::atoi(a[4].c_str())};
    const Status st = resident(f, std::atoi(a[5].c_str()), std::vector<std::string>(a.begin() + 6, a.end()));
    return st.ok() ? 0 : fail(st.message());
  }
  std::fprintf(stderr,
               "usage: twinmaf_gpu_bench ceiling|ceiling_upload FILE FRAME_BYTES READ_BYTES [THREADS...]\n"
               "       twinmaf_gpu_bench ceiling_mapped FILE FRAME_BYTES READ_BYTES GROUP [THREADS...]\n"
               "       twinmaf_gpu_bench pinning TOTAL_MB CHUNK_MB\n"
               "       twinmaf_gpu_bench resident W H LAYOUT BPC FRAMES [--banks=N] [--graphs=0|1] FEATURE[=opts]...\n");
  return 2;
}
