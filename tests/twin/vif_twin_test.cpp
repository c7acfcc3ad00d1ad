// vif twin tests: the CUDA twin against the CPU path of the same binary, with
// == on every output (expect_twin) and on the raw VifTerms (every int64 sum
// of every scale, against vif_terms_ref).
//
// Matrix: seeded full-range noise and the moving ramp at 8/10/12/16 bit,
// layouts 400/420/422/444, sizes from the 16x16 minimum (the CPU's; both
// refuse smaller sizes) through widths and heights on either side of the
// kernels' 224x8 tiles to 1920x1080 and 3840x2160; every option
// (vif_enhn_gain_limit, vif_skip_scale0, debug) and combinations; the
// vmaf_v0.6.1/neg feature set (vif, vif with egl 1, motion, adm when it has
// a twin); plane pitches and offsets that turn the kernels' word loads off;
// identical and constant inputs; real clips from $TWINMAF_TWIN_CLIPS.
#include <cstring>
#include <fstream>
#include <sstream>

#include "features/feature.h"
#include "api/feature_text.h"
#include "features/vif/vif.h"
#include "io/planar.h"
#include "tests/support/noise_clip.h"
#include "tests/twin/twin_harness.h"
#if TWINMAF_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu/device.h"
#endif

namespace twinmaf::test {
namespace {

const int kDepths[] = {8, 10, 12, 16};

TEST(VifTwin, EveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{16, 16}, {17, 19}, {31, 16}, {64, 48}, {225, 16}, {226, 17}, {449, 90}};
  for (int bpc : kDepths)
    for (PixFmt fmt : {PixFmt::k400, PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        expect_twin(noise_clip(f, 2, uint64_t(w * 131 + h * 7 + bpc)), {"vif"}, 2);
        expect_twin(ramp_clip(f, 2, uint64_t(w + h + bpc)), {"vif=debug=true"}, 2);
      }
}

TEST(VifTwin, EveryOption) {
  REQUIRE_GPU();
  const char* option_sets[] = {
      "vif",
      "vif=vif_enhn_gain_limit=1",
      "vif=vif_enhn_gain_limit=1.5:debug=true",
      "vif=vif_skip_scale0=true",
      "vif=vif_skip_scale0=true:debug=true",
      "vif=debug=true:vif_skip_scale0=true:vif_enhn_gain_limit=1",
      "vif=vif_enhn_gain_limit=37.25:vif_skip_scale0=false:debug=true",
  };
  for (int bpc : kDepths)
    for (const char* opts : option_sets) {
      const VideoFormat f{357, 353, PixFmt::k420, bpc};
      expect_twin(noise_clip(f, 3, 11 + uint64_t(bpc)), {opts}, 3);
      expect_twin(ramp_clip(f, 3, 12 + uint64_t(bpc)), {opts}, 3);
    }
}

TEST(VifTwin, ModelFeatureSet) {
  REQUIRE_GPU();
  // vmaf_v0.6.1 and vmaf_v0.6.1neg: vif, vif at egl 1, motion (and adm once
  // it has a twin: expect_twin requires every feature on its twin).
  std::vector<std::string> features = {"vif", "vif=vif_enhn_gain_limit=1", "motion"};
  const FeatureSpec* adm = find_feature("adm");
  if (adm && adm->cuda) {
    features.push_back("adm");
    features.push_back("adm=adm_enhn_gain_limit=1");
  }
  for (int bpc : {8, 10}) {
    expect_twin(ramp_clip({640, 360, PixFmt::k420, bpc}, 6, 21), features, 6);
    expect_twin(noise_clip({357, 353, PixFmt::k420, bpc}, 4, 22), features, 4);
  }
}

TEST(VifTwin, LargeFrames) {
  REQUIRE_GPU();
  for (auto [w, h, frames] : {std::tuple{1920, 1080, 3}, std::tuple{3840, 2160, 2}})
    for (int bpc : {8, 10}) {
      const VideoFormat f{w, h, PixFmt::k420, bpc};
      expect_twin(ramp_clip(f, frames, 31), {"vif=debug=true"}, frames);
    }
  expect_twin(noise_clip({3840, 2160, PixFmt::k444, 16}, 2, 32), {"vif=vif_enhn_gain_limit=1"}, 2);
}

TEST(VifTwin, IdenticalInputs) {
  REQUIRE_GPU();
  for (int bpc : kDepths) {
    Clip c = noise_clip({233, 67, PixFmt::k420, bpc}, 2, 41);
    c.dis = c.ref;
    expect_twin(c, {"vif=debug=true"}, 2);
    Clip flat = c;  // constant planes: every pixel takes the non-log branch
    const uint32_t v = (1u << (bpc - 1)) - 3;
    for (size_t i = 0; i < flat.ref.size(); i += bpc > 8 ? 2 : 1) {
      flat.ref[i] = uint8_t(v & 0xff);
      if (bpc > 8) flat.ref[i + 1] = uint8_t(v >> 8);
    }
    flat.dis = flat.ref;
    expect_twin(flat, {"vif=debug=true"}, 2);
  }
}

#if TWINMAF_HAVE_CUDA
// The raw terms: planes placed on the device with `extra` samples of row
// padding and an `offset`-sample start (pitches and offsets that are not
// 4-byte multiples turn the word loads off), the twin's terms block read
// back and unpacked, == against vif_terms_ref for every sum.
void expect_terms(int w, int h, int bpc, const char* options, std::size_t extra, std::size_t offset_samples,
                  uint64_t seed) {
  SCOPED_TRACE(fmt::format("{}x{} {}-bit {} pitch +{} offset {} (samples)", w, h, bpc, options, extra, offset_samples));
  const FeatureSpec* spec = find_feature("vif");
  ASSERT_NE(spec, nullptr);
  auto req = parse_feature_text(options);
  ASSERT_TRUE(req.ok());
  auto opts = Options::parse(spec->name, spec->options, req->options);
  ASSERT_TRUE(opts.ok()) << opts.status().message();
  const VideoFormat f{w, h, PixFmt::k400, bpc};
  auto ctx = gpu::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  auto ex = spec->create(*opts);
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  ASSERT_TRUE((*ex)->init(f).ok());
  auto twin = make_vif_twin(**ex, f, **ctx);
  ASSERT_TRUE(twin.ok()) << twin.status().message();

  const Clip clip = seed % 2 ? noise_clip(f, 1, seed) : ramp_clip(f, 1, seed);
  const std::size_t bps = bpc > 8 ? 2 : 1, pitch = (std::size_t(w) + extra) * bps, offset = offset_samples * bps;
  std::vector<uint8_t> host[2];
  const std::vector<uint8_t>* src[2] = {&clip.ref, &clip.dis};
  for (int p = 0; p < 2; ++p) {
    host[p].assign(offset + pitch * std::size_t(h), 0);
    for (int y = 0; y < h; ++y)
      std::memcpy(host[p].data() + offset + pitch * std::size_t(y), src[p]->data() + std::size_t(y) * w * bps, w * bps);
  }
  const PlaneView pr{host[0].data() + offset, std::ptrdiff_t(pitch), w, h};
  const PlaneView pd{host[1].data() + offset, std::ptrdiff_t(pitch), w, h};
  const VifParams& params = vif_params(**ex);
  VifTerms cpu;
  vif_terms_ref(pr, pd, bpc, params, cpu);

  auto dref = gpu::DeviceBuffer::create(host[0].size());
  auto ddis = gpu::DeviceBuffer::create(host[1].size());
  auto dterms = gpu::DeviceBuffer::create((*twin)->terms_bytes());
  ASSERT_TRUE(dref.ok() && ddis.ok() && dterms.ok());
  ASSERT_EQ(cudaSuccess, cudaMemcpy(dref->get(), host[0].data(), host[0].size(), cudaMemcpyHostToDevice));
  ASSERT_EQ(cudaSuccess, cudaMemcpy(ddis->get(), host[1].data(), host[1].size(), cudaMemcpyHostToDevice));
  std::vector<uint8_t> back((*twin)->terms_bytes());
  for (int frame = 0; frame < 2; ++frame) {  // twice: the scratch images are rewritten per frame
    ASSERT_EQ(cudaSuccess, cudaMemset(dterms->get(), 0, back.size()));
    DeviceFrame df;
    df.index = unsigned(frame);
    df.ref.planes[0] = dref->get() + offset;
    df.dis.planes[0] = ddis->get() + offset;
    df.ref.pitch[0] = df.dis.pitch[0] = pitch;
    const Status st = (*twin)->enqueue(df, dterms->get(), nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    ASSERT_EQ(cudaSuccess, cudaMemcpy(back.data(), dterms->get(), back.size(), cudaMemcpyDeviceToHost));
    VifTerms gpu;
    (*twin)->unpack(back.data(), gpu);
    bool nontrivial = false;
    for (int s = 0; s < kVifScales; ++s) {
      const VifScaleSums& a = cpu.scale[s];
      const VifScaleSums& b = gpu.scale[s];
      EXPECT_EQ(a.num_log, b.num_log) << "scale " << s;
      EXPECT_EQ(a.den_log, b.den_log) << "scale " << s;
      EXPECT_EQ(a.num_non_log, b.num_non_log) << "scale " << s;
      EXPECT_EQ(a.den_non_log, b.den_non_log) << "scale " << s;
      nontrivial = nontrivial || a.den_log != 0 || a.den_non_log != 0;
      values_compared() += 4;
    }
    EXPECT_TRUE(nontrivial);
  }
}

// The configured extractor's init is the one place that refuses a format; a
// --backend cuda run fails with the CPU's own error.
TEST(VifTwin, RefusesWhatTheCpuRefuses) {
  REQUIRE_GPU();
  for (const VideoFormat f : {VideoFormat{15, 16, PixFmt::k420, 8}, VideoFormat{16, 15, PixFmt::k420, 10},
                              VideoFormat{8, 8, PixFmt::k444, 8}}) {
    const Clip c = noise_clip(f, 2, 5);
    const Outcome cpu = score(c, {"vif"}, Backend::kCpu, 1);
    const Outcome gpu = score(c, {"vif"}, Backend::kCuda, 1);
    ASSERT_FALSE(cpu.status.ok());
    EXPECT_EQ(cpu.status.code(), Code::kUnsupported) << cpu.status.message();
    EXPECT_EQ(gpu.status.code(), cpu.status.code());
    EXPECT_EQ(gpu.status.message(), cpu.status.message());
  }
}

TEST(VifTwin, TermsAtEveryPitchAndOffset) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{16, 16}, {23, 17}, {224, 16}, {225, 24}, {450, 31}, {1003, 77}};
  for (int bpc : kDepths)
    for (auto [w, h] : sizes)
      for (auto [extra, offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {64, 0}, {3, 1}, {1, 2}, {6, 3}})
        for (const char* opts : {"vif", "vif=vif_skip_scale0=true:vif_enhn_gain_limit=1", "vif=vif_enhn_gain_limit=2.5"})
          expect_terms(w, h, bpc, opts, extra, offset, uint64_t(w * 3 + h + bpc + extra + offset));
}
#endif

TEST(VifTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, {"vif=debug=true", "vif=vif_enhn_gain_limit=1", "vif=vif_skip_scale0=true", "motion"}, clip_frames(c));
}

}  // namespace
}  // namespace twinmaf::test
