// speed_chroma and speed_temporal twin tests.
//
// Host (no GPU needed): the twin's arithmetic (speed_math.h, which speed.cu
// runs value by value) evaluated on the host over the same launch the twin
// builds (speed_twin_launch, windows from speed_window) equals the CPU
// reference's bands bit for bit: every depth and layout, every kernel scale,
// every prescale method the twin runs up and down at the narrowest and
// widest filter, sides rounded within 1e-3 of 1, a lanczos4 copy, the
// v1.0.16 prescales at 1080p (152 requests, 82550 values, about 2 s), and
// the covariance sums of every band (speed_math.h, thread by thread) and
// every block's variance from the CPU's factors (speed_block_variance, block
// by block) equal the CPU's terms (476 images, 154,700 sums, 3,302
// variances).
//
// GPU: (1) the twin through its interface on the same 152 requests (frame 1,
// frame 0 resident as its predecessor; speed_temporal's frame 0 too), every
// band value, covariance sum, entry of K's QR factors and block variance
// bitwise against the CPU's terms; (2) the CPU path against the
// CUDA path through the session (expect_twin:
// every band of every frame with FrameTerms::same_as, then every output
// with ==), over 8/10/12/16 bit x 4:2:0/4:2:2/4:4:4, the minimum and odd
// sizes, 1-5 and 48 frames, --subsample 3, every option value the v1.0.16
// models use (ks 1; ps 0.5 and 0.6 bilinear; nnf 0.1, snn 0.19, wvm 5, mxv 45)
// and the other kernel scales, prescale methods, weighting modes and
// speed_use_ref_diff; sizes the CPU refuses get the same refusal on CUDA; a
// resampling lanczos4 prescale is the twin's one refusal (the CPU runs it
// under --backend auto).
//
// Non-trivial values: a channel whose 1/16 image is at least 10x10 (chroma
// 160x160 after prescale) has 36 samples per shifted sub-image, enough for a
// regular covariance on noise, so some score is finite and non-zero; smaller
// ones may be singular (0 everywhere), as the CPU's own tests record. Ramps
// (smooth, nearly their own local mean) are compared without that claim.
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/feature_text.h"
#include "base/hd_math.h"
#include "features/speed/speed.h"
#include "tests/support/noise_clip.h"
#include "tests/twin/twin_harness.h"
#if TWINMAF_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu/device.h"
#endif

namespace twinmaf::test {
namespace {

const int kDepths[] = {8, 10, 12, 16};
const PixFmt kLayouts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};

// The v1.0.16 models' speed_chroma options (models/vmaf_v1.0.16*.json).
const char* const kV1016Chroma[] = {
    "speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
    "speed_max_val=45.0",
    "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_prescale=0.5:"
    "speed_prescale_method=bilinear:speed_max_val=45.0",
    "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_prescale=0.6:"
    "speed_prescale_method=bilinear:speed_max_val=45.0",
};

// Whether a plane of w x h, resized by ps, has a 1/16 image of 10x10 or more.
bool regular(int w, int h, double ps) {
  return int(w * ps + 0.5) >= 160 && int(h * ps + 0.5) >= 160;
}

// Uniform noise in every plane of a picture.
void fill_noise(Picture& p, SplitMix64& rng) {
  const VideoFormat& f = p.format();
  for (int c = 0; c < f.planes(); ++c)
    for (int y = 0; y < f.stored_h(c); ++y) {
      uint8_t* row = p.mutable_data(c) + y * p.stride(c);
      for (int x = 0; x < f.stored_w(c); ++x) {
        const auto v = static_cast<uint16_t>(rng.next() >> (64 - f.bpc));
        if (f.bpc > 8)
          std::memcpy(row + 2 * x, &v, 2);
        else
          row[x] = static_cast<uint8_t>(v);
      }
    }
}

// The twin's three passes on the host, in speed.cu's layout.
template <typename T, bool kDiff, SpeedSource kSource>
void host_vertical(const SpeedLaunch& l) {
  for (int k = 0; k < l.images; ++k)
    for (int oy = 0; oy < l.op_h; ++oy)
      for (int x = 0; x < l.scaled_w; ++x)
        l.vert[(size_t(k) * l.op_h + oy) * l.scaled_w + x] = speed_vertical_value<T, kDiff, kSource>(l, k, oy, x);
}

template <typename T, bool kDiff>
void host_vertical(const SpeedLaunch& l) {
  switch (l.source) {
    case SpeedSource::kDirect: return host_vertical<T, kDiff, SpeedSource::kDirect>(l);
    case SpeedSource::kNearest: return host_vertical<T, kDiff, SpeedSource::kNearest>(l);
    case SpeedSource::kBilinear: return host_vertical<T, kDiff, SpeedSource::kBilinear>(l);
    case SpeedSource::kBicubic: return host_vertical<T, kDiff, SpeedSource::kBicubic>(l);
  }
}

std::vector<float> host_bands(SpeedLaunch l) {
  std::vector<SpeedWindow> windows;
  if (l.source != SpeedSource::kDirect) {
    for (int x = 0; x < l.scaled_w; ++x) windows.push_back(speed_window(l.source, l.w, l.scaled_w, x));
    for (int y = 0; y < l.scaled_h; ++y) windows.push_back(speed_window(l.source, l.h, l.scaled_h, y));
    for (size_t i = 0; i < windows.size(); ++i)
      for (int j = 0; j < speed_window_taps(l.source); ++j) {
        const int limit = i < size_t(l.scaled_w) ? l.w : l.h;
        EXPECT_TRUE(windows[i].idx[j] >= 0 && windows[i].idx[j] < limit) << "window " << i;
      }
    l.cols = windows.data();
    l.rows = windows.data() + l.scaled_w;
  }
  std::vector<float> vert(size_t(l.images) * l.op_h * l.scaled_w), small(size_t(l.images) * l.op_h * l.op_w);
  l.vert = vert.data();
  l.small = small.data();
  if (l.bpc == 8)
    l.difference ? host_vertical<uint8_t, true>(l) : host_vertical<uint8_t, false>(l);
  else
    l.difference ? host_vertical<uint16_t, true>(l) : host_vertical<uint16_t, false>(l);
  for (int k = 0; k < l.images; ++k)
    for (int oy = 0; oy < l.op_h; ++oy)
      for (int ox = 0; ox < l.op_w; ++ox)
        l.small[(size_t(k) * l.op_h + oy) * l.op_w + ox] = speed_horizontal_value(l, k, oy, ox);
  std::vector<float> bands(size_t(l.images) * l.band_size());
  for (int k = 0; k < l.images; ++k)
    for (int y = 0; y < l.trunc_h; ++y)
      for (int x = 0; x < l.trunc_w; ++x)
        bands[k * l.band_size() + size_t(y) * l.trunc_w + x] = speed_band_value(l, k, x, y);
  return bands;
}

// A speed request as the session makes it: the initialised extractor and
// two frames of noise (r0, d0 then r1, d1); null when init refuses it.
struct Request {
  bool temporal = false;
  std::unique_ptr<Extractor> ex;
  std::unique_ptr<Picture> r0, d0, r1, d1;
};

std::unique_ptr<Request> configure(const VideoFormat& f, const std::string& text, uint64_t seed) {
  auto q = std::make_unique<Request>();
  q->temporal = text.rfind("speed_temporal", 0) == 0;
  const FeatureSpec& spec = q->temporal ? speed_temporal_feature_spec() : speed_chroma_feature_spec();
  auto req = parse_feature_text(text);
  EXPECT_TRUE(req.ok()) << req.status().message();
  if (!req.ok()) return nullptr;
  auto opts = Options::parse(spec.name, spec.options, req->options);
  EXPECT_TRUE(opts.ok()) << opts.status().message();
  if (!opts.ok()) return nullptr;
  auto ex = spec.create(*opts);
  EXPECT_TRUE(ex.ok()) << ex.status().message();
  if (!ex.ok() || !(*ex)->init(f).ok()) return nullptr;
  q->ex = std::move(*ex);
  SplitMix64 rng(seed);
  for (auto* p : {&q->r0, &q->d0, &q->r1, &q->d1}) {
    *p = std::make_unique<Picture>(f, host_allocator());
    fill_noise(**p, rng);
  }
  return q;
}

// The CPU's terms of frame 1 (frame 0 its predecessor).
std::unique_ptr<FrameTerms> cpu_terms(const Request& q) {
  FrameInput in;
  in.index = 1;
  in.ref = q.r1.get();
  in.dis = q.d1.get();
  in.prev_ref[0] = q.r0.get();
  in.prev_dis[0] = q.d0.get();
  std::unique_ptr<FrameTerms> t = q.ex->make_terms();
  const Status st = q.ex->compute(in, *t);
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

const SpeedImageTerms* images_of(const FrameTerms& t, bool temporal) {
  return temporal ? down_cast<const SpeedTemporalTerms&>(t).image.data()
                  : down_cast<const SpeedChromaTerms&>(t).image.data();
}

template <typename T>
std::string hex(T v) {
  return fmt::format("{:a}", v);
}

// Bitwise equality of n images' terms (bands and sums; with `factors` also
// q and r), the first difference reported; counts the values (0 on a
// difference) and asserts that noise bands are not zero.
size_t expect_same_images(const SpeedImageTerms* want, const SpeedImageTerms* got, int n, int trunc_w,
                          bool factors, const char* what) {
  size_t values = 0, band_values = 0, nonzero = 0;
  for (int k = 0; k < n; ++k) {
    const SpeedBand& wb = want[k].band;
    const SpeedBand& gb = got[k].band;
    EXPECT_EQ(wb.size(), gb.size()) << what << " image " << k;
    if (wb.size() != gb.size()) return 0;
    for (size_t i = 0; i < wb.size(); ++i) {
      if (float_bits(wb[i]) != float_bits(gb[i])) {
        ADD_FAILURE() << what << " image " << k << " value " << i % size_t(trunc_w) << "," << i / size_t(trunc_w)
                      << ": cpu " << hex(wb[i]) << " " << what << " " << hex(gb[i]);
        return 0;
      }
      nonzero += wb[i] != 0;
    }
    for (int t = 0; t < kSpeedPairs; ++t)
      if (double_bits(want[k].sums[size_t(t)]) != double_bits(got[k].sums[size_t(t)])) {
        ADD_FAILURE() << what << " image " << k << " covariance sum " << t << ": cpu " << hex(want[k].sums[size_t(t)])
                      << " " << what << " " << hex(got[k].sums[size_t(t)]);
        return 0;
      }
    const SpeedVariance& wv = want[k].variance;
    const SpeedVariance& gv = got[k].variance;
    EXPECT_EQ(wv.size(), gv.size()) << what << " image " << k;
    if (wv.size() != gv.size()) return 0;
    for (size_t b = 0; b < wv.size(); ++b)
      if (float_bits(wv[b]) != float_bits(gv[b])) {
        ADD_FAILURE() << what << " image " << k << " block " << b << " variance: cpu " << hex(wv[b]) << " " << what
                      << " " << hex(gv[b]);
        return 0;
      }
    values += wb.size() + kSpeedPairs + wv.size();
    band_values += wb.size();
    if (!factors) continue;
    for (int m = 0; m < 2; ++m) {
      const SpeedMatrix& wf = m ? want[k].factors.r : want[k].factors.q;
      const SpeedMatrix& gf = m ? got[k].factors.r : got[k].factors.q;
      for (int e = 0; e < kSpeedMatrix; ++e)
        if (float_bits(wf[size_t(e)]) != float_bits(gf[size_t(e)])) {
          ADD_FAILURE() << what << " image " << k << (m ? " r" : " q") << " entry " << e / kSpeedBlockSamples << ","
                        << e % kSpeedBlockSamples << ": cpu " << hex(wf[size_t(e)]) << " " << what << " "
                        << hex(gf[size_t(e)]);
          return 0;
        }
    }
    values += 2 * kSpeedMatrix;
  }
  EXPECT_GT(nonzero, band_values / 2) << what << ": noise bands are not zero";
  return values;
}

// Images of the arithmetic test whose pivots pass, and their non-zero
// variances.
struct VarianceCounts {
  size_t solvable_images = 0;
  size_t nonzero = 0;
};

// The twin's arithmetic on the host vs the CPU's terms (compute(): the
// SIMD bands where enabled, which tests/simd holds equal to speed_band_ref /
// speed_difference_band_ref); counts the compared values (0 when init
// refuses the request).
size_t expect_host_bands(const VideoFormat& f, const std::string& text, uint64_t seed, VarianceCounts& counts) {
  SCOPED_TRACE(describe(f, {text}, 2, 1));
  const std::unique_ptr<Request> q = configure(f, text, seed);
  if (!q) return 0;
  auto launch = speed_twin_launch(q->temporal ? "speed_temporal" : "speed_chroma", speed_kernel_params(*q->ex),
                                  q->temporal);
  EXPECT_TRUE(launch.ok()) << launch.status().message();
  if (!launch.ok()) return 0;
  SpeedLaunch l = *launch;
  const auto bytes = [](const std::unique_ptr<Picture>& p, int c) { return p->plane(c).data; };
  const auto pitch = [](const std::unique_ptr<Picture>& p, int c) { return size_t(p->stride(c)); };
  if (q->temporal) {
    l.image[0] = {bytes(q->r0, 0), bytes(q->r1, 0), pitch(q->r0, 0), pitch(q->r1, 0)};
    l.image[1] = {bytes(q->d0, 0), bytes(q->d1, 0), pitch(q->d0, 0), pitch(q->d1, 0)};
  } else {
    for (int c = 0; c < 2; ++c) {
      l.image[2 * c] = {bytes(q->r1, 1 + c), nullptr, pitch(q->r1, 1 + c), 0};
      l.image[2 * c + 1] = {bytes(q->d1, 1 + c), nullptr, pitch(q->d1, 1 + c), 0};
    }
  }
  const std::vector<float> flat = host_bands(l);
  std::vector<SpeedImageTerms> got(size_t(l.images));
  for (int k = 0; k < l.images; ++k) {
    SpeedImageTerms& im = got[size_t(k)];
    im.band.assign(flat.begin() + std::ptrdiff_t(k * l.band_size()),
                   flat.begin() + std::ptrdiff_t((k + 1) * l.band_size()));
    // speed.cu's means and covariance kernels, thread by thread.
    float mean[kSpeedBlockSamples];
    for (int a = 0; a < kSpeedBlockSamples; ++a)
      mean[a] = speed_shifted_mean(speed_shifted_sum(im.band.data(), l.trunc_w, l.trunc_h, a), l.trunc_w, l.trunc_h);
    for (int t = 0; t < kSpeedPairs; ++t) {
      int a, c;
      speed_pair(t, &a, &c);
      im.sums[size_t(t)] = speed_covariance_sum(im.band.data(), l.trunc_w, l.trunc_h, a, mean[a], c, mean[c]);
    }
  }
  const std::unique_ptr<FrameTerms> want = cpu_terms(*q);
  const SpeedImageTerms* w = images_of(*want, q->temporal);
  // speed.cu's variance kernel, block by block, from the CPU's factors.
  const int nbx = l.trunc_w / kSpeedBlock, nb = nbx * (l.trunc_h / kSpeedBlock);
  for (int k = 0; k < l.images; ++k) {
    SpeedImageTerms& im = got[size_t(k)];
    im.variance.assign(size_t(nb), 0.0f);
    if (!speed_solvable(w[k].factors.r.data())) continue;
    ++counts.solvable_images;
    for (int b = 0; b < nb; ++b) {
      im.variance[size_t(b)] = speed_block_variance(w[k].factors.q.data(), w[k].factors.r.data(), im.band.data(),
                                                    l.trunc_w, b % nbx, b / nbx);
      counts.nonzero += im.variance[size_t(b)] != 0;
    }
  }
  return expect_same_images(w, got.data(), l.images, l.trunc_w, false, "twin arithmetic");
}

// The requests of the arithmetic tests: every depth and layout, every
// kernel scale, every prescale method the twin runs up and down at the
// narrowest and widest filter, |ps - 1| < 1e-3 both ways, a lanczos4 copy,
// the v1.0.16 prescales at 1080p.
std::vector<std::pair<VideoFormat, std::string>> arithmetic_requests() {
  std::vector<std::pair<VideoFormat, std::string>> out;
  for (int bpc : kDepths)
    for (PixFmt fmt : kLayouts)
      for (const char* feature : {"speed_chroma", "speed_temporal"}) out.push_back({{161, 163, fmt, bpc}, feature});
  for (const char* ks : {"1", "0.5", "1.5", "2", "0.666667", "2.4", "3.71134", "3", "0.444444", "1.111111", "1.4746"})
    for (const char* feature : {"speed_chroma", "speed_temporal"})
      out.push_back({{181, 167, PixFmt::k444, 10}, std::string(feature) + "=speed_kernelscale=" + ks});
  struct Case {
    VideoFormat f;
    const char* ps;
  };
  const Case cases[] = {
      {{181, 167, PixFmt::k444, 8}, "0.5"},  {{331, 323, PixFmt::k444, 10}, "0.6"},
      {{181, 167, PixFmt::k444, 12}, "0.75"}, {{181, 167, PixFmt::k444, 16}, "0.93"},
      {{181, 167, PixFmt::k420, 8}, "1.5"},  {{257, 181, PixFmt::k422, 8}, "2"},
      {{91, 87, PixFmt::k444, 10}, "3.7"},   {{1200, 100, PixFmt::k444, 8}, "0.9991"},
      {{1200, 100, PixFmt::k444, 8}, "1.0009"}, {{1023, 96, PixFmt::k444, 8}, "1.0009"},
      {{331, 323, PixFmt::k444, 8}, "1.0015"},
  };
  for (const Case& c : cases)
    for (const char* method : {"nearest", "bilinear", "bicubic"})
      for (const char* ks : {"1", "3.71134"})
        for (const char* feature : {"speed_chroma", "speed_temporal"})
          out.push_back({c.f, std::string(feature) + "=speed_prescale=" + c.ps + ":speed_prescale_method=" + method +
                                  ":speed_kernelscale=" + ks});
  for (const char* feature : {"speed_chroma", "speed_temporal"})
    out.push_back({{331, 323, PixFmt::k444, 8}, std::string(feature) + "=speed_prescale=1.0015:speed_prescale_method=lanczos4"});
  for (const char* ps : {"0.5", "0.6"})
    out.push_back({{1920, 1080, PixFmt::k420, 8},
                   std::string("speed_chroma=speed_prescale=") + ps + ":speed_prescale_method=bilinear"});
  return out;
}

// 182 requests; init refuses 30: speed_temporal with ps 1.5, 2, 3.7 (18), and
// the 35-tap filter reading past a side that 1.0009 rounds up (12). The
// number of band values follows from the geometry.
constexpr int kArithmeticRuns = 152;
// 82,550 band values, 476 x 325 sums, 3,302 block variances.
constexpr size_t kArithmeticValues = 240552;
// The device's terms also hold each image's q and r.
constexpr size_t kDeviceValues = kArithmeticValues + 476 * 2 * kSpeedMatrix;

TEST(SpeedTwinArithmetic, EqualsTheCpuReferenceOnTheHost) {
  size_t values = 0;
  int runs = 0;
  VarianceCounts counts;
  for (const auto& [f, text] : arithmetic_requests()) {
    const size_t n = expect_host_bands(f, text, uint64_t(f.w * 7 + f.h + f.bpc + runs), counts);
    values += n;
    runs += n > 0;
  }
  EXPECT_EQ(runs, kArithmeticRuns);
  EXPECT_EQ(values, kArithmeticValues);
  // Noise gives a regular K almost everywhere: 426 of the 476 images reach
  // the variances, and 3,202 of the 3,302 are non-zero.
  EXPECT_GT(counts.solvable_images, size_t(400));
  EXPECT_GT(counts.nonzero, size_t(3000));
  values_compared() += values;
}

#if TWINMAF_HAVE_CUDA

// The twin through its interface on frame 1 (frame 0 resident as its
// predecessor) vs the CPU's terms of the same frames; counts the compared
// values (0 when init refuses the request). Temporal requests also check
// frame 0 (no bands).
size_t expect_device_bands(gpu::Context& ctx, const VideoFormat& f, const std::string& text, uint64_t seed) {
  SCOPED_TRACE(describe(f, {text}, 2, 1));
  const std::unique_ptr<Request> q = configure(f, text, seed);
  if (!q) return 0;
  const FeatureSpec& spec = q->temporal ? speed_temporal_feature_spec() : speed_chroma_feature_spec();
  auto twin = spec.cuda(*q->ex, f, ctx);
  EXPECT_TRUE(twin.ok()) << twin.status().message();
  if (!twin.ok()) return 0;
  std::vector<gpu::DeviceBuffer> uploads;
  DeviceFrame frame;
  frame.index = 1;
  const std::pair<DevicePicture*, const Picture*> pictures[] = {
      {&frame.prev_ref[0], q->r0.get()}, {&frame.prev_dis[0], q->d0.get()}, {&frame.ref, q->r1.get()},
      {&frame.dis, q->d1.get()}};
  for (auto [dp, p] : pictures) {
    auto b = gpu::DeviceBuffer::create(p->bytes());
    EXPECT_TRUE(b.ok());
    if (!b.ok()) return 0;
    EXPECT_EQ(cudaSuccess, cudaMemcpy(b->get(), p->base(), p->bytes(), cudaMemcpyHostToDevice));
    for (int c = 0; c < 3; ++c)
      if (p->data(c)) {
        dp->planes[c] = b->get() + p->plane_offset(c);
        dp->pitch[c] = size_t(p->stride(c));
      }
    uploads.push_back(std::move(*b));
  }
  const size_t bytes = (*twin)->terms_bytes();
  auto dterms = gpu::DeviceBuffer::create(bytes);
  EXPECT_TRUE(dterms.ok());
  if (!dterms.ok()) return 0;
  std::vector<uint8_t> host(bytes);
  std::unique_ptr<FrameTerms> got = q->ex->make_terms();
  for (unsigned index : {0u, 1u}) {
    if (index == 0 && !q->temporal) continue;
    frame.index = index;
    EXPECT_EQ(cudaSuccess, cudaMemset(dterms->get(), 0, bytes));
    const Status st = (*twin)->enqueue(frame, dterms->get(), nullptr);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(cudaSuccess, cudaMemcpy(host.data(), dterms->get(), bytes, cudaMemcpyDeviceToHost));
    (*twin)->unpack(host.data(), *got);
    if (index == 0) {
      const SpeedImageTerms* im = images_of(*got, true);
      EXPECT_TRUE(im[0] == SpeedImageTerms{} && im[1] == SpeedImageTerms{}) << "frame 0 has terms";
    }
  }
  const std::unique_ptr<FrameTerms> want = cpu_terms(*q);
  const size_t values = expect_same_images(images_of(*want, q->temporal), images_of(*got, q->temporal),
                                           q->temporal ? 2 : 4, speed_kernel_params(*q->ex).g.trunc_w, true, "cuda");
  EXPECT_TRUE(want->same_as(*got));
  return values;
}

TEST(SpeedTwin, DeviceBandsEqualTheCpuReference) {
  REQUIRE_GPU();
  auto ctx = gpu::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  size_t values = 0;
  int runs = 0;
  for (const auto& [f, text] : arithmetic_requests()) {
    const size_t n = expect_device_bands(**ctx, f, text, uint64_t(f.w * 5 + f.h + f.bpc + runs));
    values += n;
    runs += n > 0;
  }
  EXPECT_EQ(runs, kArithmeticRuns);
  EXPECT_EQ(values, kDeviceValues);
  values_compared() += values;
}

#endif  // TWINMAF_HAVE_CUDA

TEST(SpeedTwinArithmetic, Lanczos4IsRefusedOnlyWhenItResamples) {
  for (const char* ps : {"0.5", "1.0015"}) {
    auto opts = Options::parse("speed_chroma", speed_chroma_feature_spec().options,
                               [&] {
                                 OptionDict d;
                                 d.set("speed_prescale", ps);
                                 d.set("speed_prescale_method", "lanczos4");
                                 return d;
                               }());
    ASSERT_TRUE(opts.ok());
    auto ex = speed_chroma_feature_spec().create(*opts);
    ASSERT_TRUE(ex.ok());
    ASSERT_TRUE((*ex)->init({331, 323, PixFmt::k444, 8}).ok());
    auto l = speed_twin_launch("speed_chroma", speed_kernel_params(**ex), false);
    if (std::string(ps) == "0.5") {
      ASSERT_FALSE(l.ok());
      EXPECT_EQ(l.status().code(), Code::kUnsupported);
      EXPECT_EQ(l.status().message().rfind("speed_chroma: speed_prescale_method lanczos4", 0), 0u);
    } else {
      ASSERT_TRUE(l.ok()) << l.status().message();  // 331 and 323 round back: a copy
      EXPECT_EQ(l->source, SpeedSource::kDirect);
    }
  }
}

// The CPU refuses the request at init; CUDA gives the same status.
void expect_same_refusal(const Clip& clip, const std::vector<std::string>& features) {
  SCOPED_TRACE(describe(clip.f, features, 2, 1));
  const Outcome cpu = score(clip, features, Backend::kCpu, 1);
  const Outcome gpu = score(clip, features, Backend::kCuda, 1);
  ASSERT_FALSE(cpu.status.ok()) << "the CPU accepted it";
  ASSERT_FALSE(gpu.status.ok()) << "CUDA accepted it";
  EXPECT_EQ(cpu.status.code(), gpu.status.code());
  EXPECT_EQ(cpu.status.message(), gpu.status.message());
  EXPECT_EQ(cpu.status.message().find('\n'), std::string::npos);
}

TEST(SpeedTwin, EveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  // Luma sizes: chroma at the 80x80 minimum (one block: singular, zeros) in
  // each layout, odd sizes dropping a chroma row/column, and 10x10 or more
  // at 1/16 scale.
  const std::pair<int, int> sizes[] = {{160, 160}, {161, 163}, {80, 80}, {81, 97}, {357, 353}, {331, 323}};
  int runs = 0;
  for (int bpc : kDepths)
    for (PixFmt fmt : kLayouts)
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        const int cw = f.plane_w(1), ch = f.plane_h(1);
        if (cw < 80 || ch < 80) continue;  // refused: SameRefusalBelowTheMinimum
        const uint64_t seed = uint64_t(w * 131 + h + bpc);
        expect_twin(noise_clip(f, 3, seed), {"speed_chroma"}, 3, 1, regular(cw, ch, 1));
        expect_twin(noise_clip(f, 3, seed), {"speed_temporal"}, 3, 1, regular(w, h, 1));
        expect_twin(ramp_clip(f, 2, seed + 1), {"speed_chroma", "speed_temporal=speed_use_ref_diff=true"}, 2, 1,
                    false);
        ++runs;
      }
  EXPECT_GE(runs, 50);
}

TEST(SpeedTwin, SameRefusalBelowTheMinimum) {
  REQUIRE_GPU();
  // Below 80x80 after prescale (the chroma plane for speed_chroma), a
  // prescale adding rows for speed_temporal, and |ps - 1| < 1e-3 rounding a
  // side up into samples a kept output reads (speed_test.cpp's cases).
  const std::pair<VideoFormat, std::string> cases[] = {
      {{159, 160, PixFmt::k420, 8}, "speed_chroma"},
      {{158, 160, PixFmt::k422, 10}, "speed_chroma"},  // 4:2:2 chroma 79x160
      {{79, 80, PixFmt::k444, 12}, "speed_chroma"},
      {{79, 80, PixFmt::k444, 16}, "speed_temporal"},
      {{64, 48, PixFmt::k420, 8}, "speed_temporal"},
      {{3, 3, PixFmt::k444, 8}, "speed_chroma"},
      {{1, 1, PixFmt::k444, 8}, "speed_chroma=speed_prescale=4"},
      {{158, 158, PixFmt::k444, 8}, "speed_temporal=speed_prescale=0.5"},
      {{40, 40, PixFmt::k444, 8}, "speed_temporal=speed_prescale=2"},
      {{1023, 96, PixFmt::k444, 8}, "speed_chroma=speed_prescale=1.0009:speed_kernelscale=3.71134"},
  };
  for (const auto& [f, feature] : cases) expect_same_refusal(noise_clip(f, 2, 7), {feature});
}

TEST(SpeedTwin, SequencesAndSubsampling) {
  REQUIRE_GPU();
  const VideoFormat f{357, 353, PixFmt::k420, 10};
  for (int frames : {1, 2, 3, 4, 5}) {
    // One frame: speed_temporal is 0 by definition (frame 0).
    expect_twin(noise_clip(f, frames, uint64_t(frames)), {"speed_temporal"}, frames, 1, frames > 1);
    expect_twin(noise_clip(f, frames, uint64_t(frames) + 10), {"speed_chroma", "speed_temporal"}, frames);
    expect_twin(ramp_clip(f, frames, uint64_t(frames)), {"speed_chroma", "speed_temporal"}, frames, 1, false);
  }
  expect_twin(noise_clip(f, 48, 48), {"speed_chroma", "speed_temporal", "speed_temporal=speed_use_ref_diff=true"},
              48);
  expect_twin(ramp_clip(f, 48, 49), {"speed_chroma", "speed_temporal"}, 48, 1, false);
  for (int frames : {5, 10})
    expect_twin(noise_clip({331, 323, PixFmt::k444, 8}, frames, 3), {"speed_chroma", "speed_temporal"}, frames, 3);
  // With other twins reading the same ring (luma, chroma, previous frames).
  expect_twin(noise_clip(f, 6, 6), {"speed_chroma", "speed_temporal", "psnr", "motion", "psnr_hvs"}, 6);
}

TEST(SpeedTwin, V1016ChromaOptions) {
  REQUIRE_GPU();
  // 576x324 leaves one block per channel at ps 0.5 (zeros, the model's
  // documented case); 1080p and 2160p are the models' sizes.
  for (const char* opts : kV1016Chroma) {
    for (int bpc : {8, 10}) expect_twin(ramp_clip({576, 324, PixFmt::k420, bpc}, 3, 4), {opts}, 3, 1, false);
    expect_twin(noise_clip({1920, 1080, PixFmt::k420, 8}, 3, 5), {opts}, 3);
    expect_twin(ramp_clip({1920, 1080, PixFmt::k420, 10}, 2, 6), {opts}, 2, 1, false);
    expect_twin(noise_clip({3840, 2160, PixFmt::k420, 10}, 2, 7), {opts}, 2);
    expect_twin(noise_clip({357, 353, PixFmt::k444, 12}, 2, 8), {opts}, 2, 1, false);
  }
  // All three configurations in one session, with subsampling.
  expect_twin(noise_clip({1920, 1080, PixFmt::k420, 8}, 7, 9),
              {kV1016Chroma[0], kV1016Chroma[1], kV1016Chroma[2]}, 7, 3);
}

TEST(SpeedTwin, KernelScalesPrescalesAndWeightModes) {
  REQUIRE_GPU();
  const VideoFormat f{331, 323, PixFmt::k444, 8};
  const Clip clip = noise_clip(f, 2, 11);
  for (const char* ks : {"1", "0.5", "1.5", "2", "0.666667", "2.4", "3.71134", "3", "0.444444", "1.111111"})
    for (const char* feature : {"speed_chroma", "speed_temporal"})
      expect_twin(clip, {std::string(feature) + "=speed_kernelscale=" + ks}, 2);
  // Prescale up and down with the three methods the twin runs, and the
  // |ps - 1| < 1e-3 cases (no resampling, a side rounded down or up).
  struct Case {
    VideoFormat f;
    const char* ps;
    bool temporal;  // speed_temporal refuses added rows
  };
  const Case cases[] = {
      {{331, 323, PixFmt::k444, 8}, "0.5", true},   {{331, 323, PixFmt::k444, 10}, "0.6", true},
      {{331, 323, PixFmt::k444, 12}, "0.75", true}, {{331, 323, PixFmt::k444, 16}, "0.93", true},
      {{331, 323, PixFmt::k420, 8}, "1.5", false},  {{257, 181, PixFmt::k422, 8}, "2", false},
      {{91, 87, PixFmt::k444, 10}, "3.7", false},   {{1200, 200, PixFmt::k444, 8}, "0.9991", true},
      {{1200, 200, PixFmt::k444, 8}, "1.0009", true}, {{1023, 96, PixFmt::k444, 8}, "1.0009", true},
  };
  for (const Case& c : cases) {
    const Clip cl = noise_clip(c.f, 2, 12);
    for (const char* method : {"nearest", "bilinear", "bicubic"}) {
      const std::string o = std::string("speed_prescale=") + c.ps + ":speed_prescale_method=" + method;
      const double ps = std::stod(c.ps);
      expect_twin(cl, {"speed_chroma=" + o}, 2, 1, regular(c.f.plane_w(1), c.f.plane_h(1), ps));
      if (c.temporal) expect_twin(cl, {"speed_temporal=" + o}, 2, 1, regular(c.f.w, c.f.h, ps));
    }
  }
  for (int wvm = 0; wvm <= 6; ++wvm)
    expect_twin(clip, {"speed_chroma=speed_weight_var_mode=" + std::to_string(wvm) + ":speed_nn_floor=0.3"}, 2);
  expect_twin(clip, {"speed_chroma=speed_sigma_nn=1.5:speed_max_val=0.01", "speed_temporal=speed_sigma_nn=0.1",
                     "speed_temporal=speed_use_ref_diff=true:speed_prescale=0.7:speed_prescale_method=bicubic"},
              2);
  // Identical inputs: zeros in modes 0..3, small non-zero values in 4..6.
  Clip same = noise_clip(f, 3, 13);
  same.dis = same.ref;
  expect_twin(same, {"speed_chroma", "speed_chroma=speed_weight_var_mode=5", "speed_temporal"}, 3);
}

TEST(SpeedTwin, Lanczos4RunsOnTheCpu) {
  REQUIRE_GPU();
  const Clip clip = noise_clip({331, 323, PixFmt::k444, 8}, 2, 14);
  for (const char* feature : {"speed_chroma", "speed_temporal"}) {
    const std::string text = std::string(feature) + "=speed_prescale=0.5:speed_prescale_method=lanczos4";
    SCOPED_TRACE(text);
    const Outcome gpu = score(clip, {text}, Backend::kCuda, 1);
    ASSERT_FALSE(gpu.status.ok());
    EXPECT_EQ(gpu.status.code(), Code::kUnsupported);
    EXPECT_NE(gpu.status.message().find("lanczos4"), std::string::npos) << gpu.status.message();
    const Outcome cpu = score(clip, {text}, Backend::kCpu, 1);
    const Outcome automatic = score(clip, {text}, Backend::kAuto, 1);
    ASSERT_TRUE(cpu.status.ok() && automatic.status.ok());
    ASSERT_EQ(automatic.backends, std::vector<std::string>{"cpu"});
    ASSERT_EQ(cpu.terms.size(), automatic.terms.size());
    for (size_t k = 0; k < cpu.terms.size(); ++k) EXPECT_TRUE(cpu.terms[k].terms->same_as(*automatic.terms[k].terms));
  }
  // lanczos4 at equal sizes (331 * 1.0015 and 323 * 1.0015 round back) copies:
  // no weights, the twin runs it.
  expect_twin(clip, {"speed_chroma=speed_prescale=1.0015:speed_prescale_method=lanczos4"}, 2);
}

TEST(SpeedTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) {
    std::vector<std::string> features(std::begin(kV1016Chroma), std::end(kV1016Chroma));
    features.push_back("speed_temporal");
    // Every configuration must be accepted; tiny clips (< 160x160 chroma)
    // would be refused by the CPU too.
    expect_twin(c, features, clip_frames(c), 1, regular(c.f.plane_w(1), c.f.plane_h(1), 0.5));
  }
}

}  // namespace
}  // namespace twinmaf::test
