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
//   twinmaf_gpu_bench resident W H LAYOUT BPC FRAMES FEATURE[=opts] [FEATURE...]
//     Kernel throughput with the inputs already on the device: 8 distinct
//     (ref, dis) pairs are uploaded once, then FRAMES frames cycle through them
//     with the whole per-frame device sequence (terms zeroing, every twin's
//     kernels, the terms readback), timed with CUDA events.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/job.h"
#include "engine/session.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"

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

Status resident(const VideoFormat& fmt, int frames, const std::vector<std::string>& features) {
  TWINMAF_ASSIGN_OR_RETURN(auto ctx, gpu::Context::create(0));
  struct Item {
    const FeatureSpec* spec;
    std::unique_ptr<Twin> twin;
    size_t offset;
  };
  std::vector<Item> items;
  size_t terms = 0;
  bool chroma = false;
  for (const std::string& text : features) {
    TWINMAF_ASSIGN_OR_RETURN(FeatureRequest req, parse_feature_request(text));
    const FeatureSpec* spec = find_feature(req.name);
    if (!spec) TWINMAF_FAIL(kInvalidArgument, "unknown feature {}", req.name);
    if (!spec->cuda) TWINMAF_FAIL(kUnsupported, "{} has no CUDA twin", req.name);
    TWINMAF_ASSIGN_OR_RETURN(Options o, Options::parse(spec->name, spec->options, req.options));
    TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Twin> twin, spec->cuda(o, fmt, *ctx));
    chroma = chroma || twin->reads_chroma();
    items.push_back({spec, std::move(twin), terms});
    terms += 256 * ((items.back().twin->terms_bytes() + 255) / 256);
  }
  // 8 resident pairs: a moving ramp, dis = ref + small noise.
  constexpr int kResident = 8;
  Picture layout(fmt, host_allocator());
  std::vector<gpu::DeviceBuffer> ref(kResident), dis(kResident);
  std::vector<uint8_t> host(layout.bytes());
  const uint32_t max = (1u << fmt.bpc) - 1;
  for (int k = 0; k < kResident; ++k)
    for (int which = 0; which < 2; ++which) {
      for (int p = 0; p < fmt.planes(); ++p)
        for (int y = 0; y < fmt.stored_h(p); ++y)
          for (int x = 0; x < fmt.stored_w(p); ++x) {
            uint32_t v = static_cast<uint32_t>(((x + 3 * k) * 7 + y * 5) << (fmt.bpc - 8)) & max;
            if (which) v = std::min<uint32_t>(max, v + uint32_t((x * 13 + y * 7 + k) % 5));
            uint8_t* row = host.data() + layout.plane_offset(p) + size_t(y) * size_t(layout.stride(p));
            if (fmt.bpc > 8) reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
            else row[x] = static_cast<uint8_t>(v);
          }
      auto& buf = which ? dis[size_t(k)] : ref[size_t(k)];
      TWINMAF_ASSIGN_OR_RETURN(buf, gpu::DeviceBuffer::create(host.size()));
      TWINMAF_CUDA_TRY(cudaMemcpy(buf.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    }
  const auto view = [&](const gpu::DeviceBuffer& b) {
    DevicePicture d;
    for (int p = 0; p < (chroma ? fmt.planes() : 1); ++p) {
      d.planes[p] = b.get() + layout.plane_offset(p);
      d.pitch[p] = static_cast<size_t>(layout.stride(p));
    }
    return d;
  };
  TWINMAF_ASSIGN_OR_RETURN(gpu::Stream stream, gpu::Stream::create());
  // As the session does: each twin on its own stream, forked after the
  // zeroing and joined before the readback.
  std::vector<gpu::Stream> twin_streams;
  std::vector<gpu::Event> zeroed, twin_done;
  for (size_t k = 0; k < items.size(); ++k) {
    TWINMAF_ASSIGN_OR_RETURN(gpu::Stream ts, gpu::Stream::create());
    twin_streams.push_back(std::move(ts));
  }
  for (size_t k = 0; k < size_t(kResident) * (items.size() + 1); ++k) {
    TWINMAF_ASSIGN_OR_RETURN(gpu::Event e, gpu::Event::create(false));
    (k < size_t(kResident) ? zeroed : twin_done).push_back(std::move(e));
  }
  TWINMAF_ASSIGN_OR_RETURN(gpu::DeviceBuffer dterms, gpu::DeviceBuffer::create(terms * kResident));
  TWINMAF_ASSIGN_OR_RETURN(gpu::PinnedBuffer hterms, gpu::PinnedBuffer::create(terms * kResident));
  TWINMAF_ASSIGN_OR_RETURN(gpu::Event start, gpu::Event::create(true));
  TWINMAF_ASSIGN_OR_RETURN(gpu::Event stop, gpu::Event::create(true));
  const auto s = static_cast<cudaStream_t>(stream.get());
  const auto run = [&](int n) -> Status {
    for (int i = 0; i < n; ++i) {
      const int k = i % kResident;
      DeviceFrame f;
      f.index = static_cast<unsigned>(i);
      f.ref = view(ref[size_t(k)]);
      f.dis = view(dis[size_t(k)]);
      f.prev_ref = view(ref[size_t((k + kResident - 1) % kResident)]);
      f.prev_prev_ref = view(ref[size_t((k + kResident - 2) % kResident)]);
      uint8_t* t = dterms.get() + size_t(k) * terms;
      TWINMAF_CUDA_TRY(cudaMemsetAsync(t, 0, terms, s));
      const auto z = static_cast<cudaEvent_t>(zeroed[size_t(k)].get());
      TWINMAF_CUDA_TRY(cudaEventRecord(z, s));
      for (size_t j = 0; j < items.size(); ++j) {
        const auto ts = static_cast<cudaStream_t>(twin_streams[j].get());
        const auto d = static_cast<cudaEvent_t>(twin_done[size_t(k) * items.size() + j].get());
        TWINMAF_CUDA_TRY(cudaStreamWaitEvent(ts, z, 0));
        TWINMAF_RETURN_IF_ERROR(items[j].twin->enqueue(f, t + items[j].offset, ts));
        TWINMAF_CUDA_TRY(cudaEventRecord(d, ts));
        TWINMAF_CUDA_TRY(cudaStreamWaitEvent(s, d, 0));
      }
      TWINMAF_CUDA_TRY(cudaMemcpyAsync(hterms.get() + size_t(k) * terms, t, terms, cudaMemcpyDeviceToHost, s));
    }
    return ok_status();
  };
  TWINMAF_RETURN_IF_ERROR(run(kResident * 4));  // warm-up
  TWINMAF_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(start.get()), s));
  TWINMAF_RETURN_IF_ERROR(run(frames));
  TWINMAF_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(stop.get()), s));
  TWINMAF_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(stop.get())));
  float ms = 0;
  TWINMAF_CUDA_TRY(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.get()), static_cast<cudaEvent_t>(stop.get())));
  std::string names;
  for (const auto& f : features) names += (names.empty() ? "" : "+") + f;
  std::printf("resident: %s | %dx%d %s %d-bit | %s | %d frames | %.1f fps (%.4f ms/frame)\n", names.c_str(), fmt.w,
              fmt.h, std::string(pix_fmt_name(fmt.fmt)).c_str(), fmt.bpc, ctx->info().name.c_str(), frames,
              frames * 1000.0 / ms, ms / frames);
  return ok_status();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() >= 4 && (a[0] == "ceiling" || a[0] == "ceiling_upload")) {
    std::vector<int> threads;
    for (size_t i = 4; i < a.size(); ++i) threads.push_back(std::atoi(a[i].c_str()));
    return ceiling(a[1], std::stoull(a[2]), std::stoull(a[3]), threads, a[0] == "ceiling_upload");
  }
  if (a.size() >= 7 && a[0] == "resident") {
    const PixFmt fmt = a[3] == "420" ? PixFmt::k420 : a[3] == "422" ? PixFmt::k422 : a[3] == "444" ? PixFmt::k444 : PixFmt::k400;
    const VideoFormat f{std::atoi(a[1].c_str()), std::atoi(a[2].c_str()), fmt, std::atoi(a[4].c_str())};
    const Status st = resident(f, std::atoi(a[5].c_str()), std::vector<std::string>(a.begin() + 6, a.end()));
    return st.ok() ? 0 : fail(st.message());
  }
  std::fprintf(stderr,
               "usage: twinmaf_gpu_bench ceiling|ceiling_upload FILE FRAME_BYTES READ_BYTES [THREADS...]\n"
               "       twinmaf_gpu_bench resident W H LAYOUT BPC FRAMES FEATURE[=opts]...\n");
  return 2;
}
