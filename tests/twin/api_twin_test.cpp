// The public API on the GPU path: pictures pushed from device memory
// (push_device) and from host memory, on the CUDA and the CPU backends, give
// the same bits; the CPU features of a GPU run (--backend auto,psnr_hvs=cpu)
// give the CPU's bits at every thread count.
#if TWINMAF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "io/planar.h"
#include "tests/support/same_scores.h"
#include "tests/twin/twin_harness.h"
#include "twinmaf/twinmaf.h"

namespace twinmaf::test {
namespace {

// Fills `pic` from frame t of a packed clip.
void fill(Picture& pic, const std::vector<uint8_t>& packed, int t) {
  const VideoFormat& f = pic.format();
  const uint8_t* src = packed.data() + size_t(t) * packed_frame_bytes(f);
  for (int p = 0; p < f.planes(); ++p) {
    const size_t row = size_t(f.stored_w(p)) * size_t(f.bytes_per_sample());
    for (int y = 0; y < f.stored_h(p); ++y, src += row)
      std::memcpy(pic.mutable_data(p) + size_t(y) * size_t(pic.stride(p)), src, row);
  }
}

std::unique_ptr<Scorer> run_pushed(const Clip& c, int frames, ScorerConfig cfg, bool device) {
  auto s = Scorer::create(std::move(cfg));
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return nullptr;
  EXPECT_TRUE((*s)->open(c.f).ok());
  // Device copies of each frame, with a pitch that is not the host stride.
  std::vector<void*> buffers;
  for (int t = 0; t < frames; ++t) {
    auto ref = std::make_shared<Picture>(c.f, host_allocator());
    auto dis = std::make_shared<Picture>(c.f, host_allocator());
    fill(*ref, c.ref, t);
    fill(*dis, c.dis, t);
    Status st;
    if (!device) {
      st = (*s)->push(ref, {dis});
    } else {
      DevicePlanes d[2];
      for (int k = 0; k < 2; ++k) {
        const Picture& host = k == 0 ? *ref : *dis;
        for (int p = 0; p < c.f.planes(); ++p) {
          const size_t row = size_t(c.f.stored_w(p)) * size_t(c.f.bytes_per_sample()), pitch = row + 96;
          void* buf = nullptr;
          EXPECT_EQ(cudaSuccess, cudaMalloc(&buf, pitch * size_t(c.f.stored_h(p))));
          buffers.push_back(buf);
          EXPECT_EQ(cudaSuccess, cudaMemcpy2D(buf, pitch, host.data(p), size_t(host.stride(p)), row,
                                              size_t(c.f.stored_h(p)), cudaMemcpyHostToDevice));
          d[k].planes[p] = buf;
          d[k].pitch[p] = pitch;
        }
      }
      st = (*s)->push_device(d[0], {d[1]});
    }
    EXPECT_TRUE(st.ok()) << st.message();
  }
  const Status fl = (*s)->flush();
  EXPECT_TRUE(fl.ok()) << fl.message();
  for (void* b : buffers) cudaFree(b);
  return std::move(*s);
}

TEST(ApiTwin, DevicePicturesEqualHostPictures) {
  REQUIRE_GPU();
  for (const VideoFormat f : {VideoFormat{576, 324, PixFmt::k420, 8}, VideoFormat{357, 353, PixFmt::k444, 10}}) {
    SCOPED_TRACE(describe(f, {"vmaf_v0.6.1", "psnr", "psnr_hvs"}, 6, 1));
    const Clip c = ramp_clip(f, 6, 17);
    ScorerConfig cfg;
    cfg.models = {"version=vmaf_v0.6.1"};
    cfg.features = {"psnr=enable_apsnr=true", "psnr_hvs"};
    cfg.backend = Backend::kCpu;
    const auto cpu_host = run_pushed(c, 6, cfg, false);
    cfg.backend = Backend::kCuda;
    const auto gpu_host = run_pushed(c, 6, cfg, false);
    const auto gpu_device = run_pushed(c, 6, cfg, true);
    ASSERT_TRUE(cpu_host && gpu_host && gpu_device);
    for (const auto& [feature, backend] : gpu_device->info().backends) EXPECT_EQ(backend, "cuda") << feature;
    values_compared() += expect_same_scores(*cpu_host, *gpu_host);
    values_compared() += expect_same_scores(*cpu_host, *gpu_device);
  }
}

// Above 8 bits a GPU run checks the uploaded planes on the device: a pushed
// sample over the depth fails with the error the CPU run gives at push().
TEST(ApiTwin, PushedSamplesOverTheDepthFailAsOnTheCpu) {
  REQUIRE_GPU();
  const VideoFormat f{96, 64, PixFmt::k420, 10};
  const Clip c = ramp_clip(f, 5, 29);
  // CPU push, CUDA push, CUDA push_device (device pictures: the device range
  // check flags the frame, the error comes from a host copy).
  Status got[3];
  for (int mode = 0; mode < 3; ++mode) {
    ScorerConfig cfg;
    cfg.features = {"vif", "motion"};
    cfg.backend = mode == 0 ? Backend::kCpu : Backend::kCuda;
    auto s = Scorer::create(cfg);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->open(f).ok());
    std::vector<void*> buffers;
    Status st;
    for (int t = 0; t < 5 && st.ok(); ++t) {
      auto ref = std::make_shared<Picture>(f, host_allocator());
      auto dis = std::make_shared<Picture>(f, host_allocator());
      fill(*ref, c.ref, t);
      fill(*dis, c.dis, t);
      if (t == 3) reinterpret_cast<uint16_t*>(ref->mutable_data(0) + 7 * ref->stride(0))[11] = 1024;
      if (mode < 2) {
        st = (*s)->push(ref, {dis});
        continue;
      }
      DevicePlanes d[2];
      for (int k = 0; k < 2; ++k) {
        const Picture& host = k == 0 ? *ref : *dis;
        const size_t bytes = size_t(host.stride(0)) * size_t(f.stored_h(0));
        void* buf = nullptr;
        ASSERT_EQ(cudaSuccess, cudaMalloc(&buf, bytes));
        buffers.push_back(buf);
        ASSERT_EQ(cudaSuccess, cudaMemcpy(buf, host.data(0), bytes, cudaMemcpyHostToDevice));
        d[k].planes[0] = buf;
        d[k].pitch[0] = size_t(host.stride(0));
      }
      st = (*s)->push_device(d[0], {d[1]});
    }
    if (st.ok()) st = (*s)->flush();
    for (void* b : buffers) cudaFree(b);
    got[mode] = st;
  }
  ASSERT_FALSE(got[0].ok());
  EXPECT_NE(got[0].message().find("exceeds 10 bits"), std::string::npos) << got[0].message();
  for (int mode = 1; mode < 3; ++mode) {
    EXPECT_EQ(got[0].message(), got[mode].message()) << "mode " << mode;
    EXPECT_EQ(got[0].code(), got[mode].code()) << "mode " << mode;
  }
}

// Device pictures when a feature runs on the CPU: they go through host
// pictures, the same bits.
TEST(ApiTwin, DevicePicturesWithACpuFeature) {
  REQUIRE_GPU();
  const VideoFormat f{322, 180, PixFmt::k420, 8};
  const Clip c = ramp_clip(f, 5, 31);
  ScorerConfig cfg;
  cfg.features = {"psnr_hvs", "vif", "motion"};
  cfg.backend = Backend::kCpu;
  const auto cpu = run_pushed(c, 5, cfg, false);
  cfg.backend = Backend::kAuto;
  cfg.feature_backends = {{"psnr_hvs", Backend::kCpu}};
  const auto mixed = run_pushed(c, 5, cfg, true);
  ASSERT_TRUE(cpu && mixed);
  for (const auto& [feature, backend] : mixed->info().backends)
    EXPECT_EQ(backend, feature == "psnr_hvs" ? "cpu" : "cuda") << feature;
  values_compared() += expect_same_scores(*cpu, *mixed);
}

// A GPU run whose CPU-assigned features run on the worker threads: the same
// bits at every thread count.
TEST(ApiTwin, CpuFeaturesOfAGpuRunAtEveryThreadCount) {
  REQUIRE_GPU();
  const VideoFormat f{640, 360, PixFmt::k420, 8};
  const Clip c = ramp_clip(f, 12, 23);
  ScorerConfig cfg;
  cfg.features = {"psnr_hvs", "vif", "psnr", "motion"};
  cfg.backend = Backend::kCpu;
  const auto cpu = run_pushed(c, 12, cfg, false);
  ASSERT_TRUE(cpu);
  for (unsigned threads : {0u, 1u, 2u, 8u}) {
    SCOPED_TRACE(testing::Message() << "threads " << threads);
    cfg.backend = Backend::kAuto;
    cfg.feature_backends = {{"psnr_hvs", Backend::kCpu}, {"psnr", Backend::kCpu}};
    cfg.threads = threads;
    const auto mixed = run_pushed(c, 12, cfg, false);
    ASSERT_TRUE(mixed);
    for (const auto& [feature, backend] : mixed->info().backends)
      EXPECT_EQ(backend, feature == "psnr_hvs" || feature == "psnr" ? "cpu" : "cuda") << feature;
    values_compared() += expect_same_scores(*cpu, *mixed);
  }
}

// Split runs (compute_segment; Python's twinmaf.dask) on the GPU: segments
// computed on the device, each reading the frames before it that history and
// motion's five-frame window need, finish to the CPU's single run.
TEST(ApiTwin, SegmentsComputedOnTheDeviceEqualACpuRun) {
  REQUIRE_GPU();
  const VideoFormat f{576, 324, PixFmt::k420, 8};
  const int frames = 17;
  const Clip c = ramp_clip(f, frames, 31);
  const std::string rp = testing::TempDir() + "seg_ref.yuv", dp = testing::TempDir() + "seg_dis.yuv";
  for (const auto& [path, bytes] : {std::pair{rp, &c.ref}, std::pair{dp, &c.dis}}) {
    FILE* out = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(out);
    ASSERT_EQ(bytes->size(), std::fwrite(bytes->data(), 1, bytes->size(), out));
    std::fclose(out);
  }
  const RawParams raw{f.w, f.h, f.fmt, f.bpc};
  const InputFile ref{rp, raw};
  const std::vector<InputFile> dis{InputFile{dp, raw}};
  // The integer model with motion's five-frame window, and the float model
  // (float_motion's state and its twin's previous picture) with float_ssim.
  const std::pair<std::string, std::vector<std::string>> runs[] = {
      {"version=vmaf_v0.6.1", {"psnr", "motion=motion_five_frame_window=true:motion_moving_average=true"}},
      {"version=vmaf_float_v0.6.1", {"float_ssim", "float_psnr"}}};
  for (const auto& [model, features] : runs) {
    SCOPED_TRACE(model);
    ScorerConfig cfg;
    cfg.models = {model};
    cfg.features = features;
    cfg.backend = Backend::kCpu;
    auto single = Scorer::create(cfg);
    ASSERT_TRUE(single.ok());
    ASSERT_TRUE((*single)->score(ref, dis).ok());
    cfg.backend = Backend::kAuto;
    for (const unsigned seg : {5u, 7u}) {
      SCOPED_TRACE(testing::Message() << "segments of " << seg);
      std::vector<std::string> parts;
      for (unsigned first = 0;; first += seg) {
        auto worker = Scorer::create(cfg);
        ASSERT_TRUE(worker.ok());
        auto part = (*worker)->compute_segment(ref, dis, first, seg);
        ASSERT_TRUE(part.ok()) << part.status().message();
        for (const auto& [feature, backend] : (*worker)->info().backends) EXPECT_EQ(backend, "cuda") << feature;
        parts.push_back(std::move(*part));
        if ((*worker)->frames() < seg) break;
      }
      auto client = Scorer::create(cfg);
      ASSERT_TRUE(client.ok());
      const Status st = (*client)->finish_segments(std::vector<std::string_view>(parts.begin(), parts.end()));
      ASSERT_TRUE(st.ok()) << st.message();
      values_compared() += expect_same_scores(**single, **client);
    }
  }
}

}  // namespace
}  // namespace twinmaf::test
#endif  // TWINMAF_HAVE_CUDA
