// psnr_hvs twin tests.
//
// Host (no GPU needed): the tree sum of base/ordered_sum.h, the algorithm the
// twin runs, and a host emulation of the twin's warp scanner, against the
// plain running float sum on every block term of real block-kernel output
// (zeros included, as the device has them). The tree on arbitrary sequences
// is tested in tests/unit/ordered_sum_test.cpp.
//
// GPU: (1) the device reduction alone (psnr_hvs_sum_terms) on the same
// adversarial sequences, bits compared with the plain loop; (2) the twin's
// per-plane ret against the CPU's ordered sum of its terms, bitwise, through
// the Twin interface; (3) the CPU path against the CUDA path with == on every
// output (expect_twin): 8..12 bit, every layout the CPU accepts, sizes from
// 1x1 (no blocks: NaN) to 3840x2160, noise, ramps, identical pairs (+inf),
// together with other twins, --subsample 3 and real clips.
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/ordered_sum.h"
#include "features/psnr_hvs/psnr_hvs.h"
#include "io/planar.h"
#include "tests/support/float_sequences.h"
#include "tests/support/noise_clip.h"
#include "tests/support/warp_scan_emulation.h"
#include "tests/twin/twin_harness.h"
#if TWINMAF_HAVE_CUDA
#include <cuda_runtime.h>

#include "features/psnr_hvs/psnr_hvs_kernels.h"
#include "gpu/device.h"
#endif

namespace twinmaf::test {
namespace {

void expect_same_bits(float naive, float other, const std::string& what) {
  if (std::isnan(naive)) {
    EXPECT_TRUE(std::isnan(other)) << what;
  } else {
    EXPECT_EQ(std::bit_cast<uint32_t>(naive), std::bit_cast<uint32_t>(other))
        << what << ": " << naive << " vs " << other;
  }
}

// Every term of every block of a plane pair, zeros included, as the device has
// them (raster blocks, raster coefficients).
std::vector<float> all_block_terms(const Picture& ref, const Picture& dis, int p) {
  const PlaneView a = ref.plane(p), b = dis.plane(p);
  const int bpc = ref.format().bpc;
  const PsnrHvsTables& tab = psnr_hvs_tables();
  std::vector<float> out;
  for (int by = 0; by < psnr_hvs_blocks_1d(a.h); ++by)
    for (int bx = 0; bx < psnr_hvs_blocks_1d(a.w); ++bx) {
      int32_t s[64], d[64];
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          const int x = bx * kPsnrHvsStep + j, y = by * kPsnrHvsStep + i;
          s[8 * i + j] = bpc > 8 ? a.row<uint16_t>(y)[x] : a.row<uint8_t>(y)[x];
          d[8 * i + j] = bpc > 8 ? b.row<uint16_t>(y)[x] : b.row<uint8_t>(y)[x];
        }
      float t[64];
      psnr_hvs_block_terms_ref(s, d, tab.csf[p], tab.mask[p], t);
      out.insert(out.end(), t, t + 64);
    }
  return out;
}

// ref uniform noise; dis = ref + delta in [-amp, amp] (amp = 0: identical).
void fill_pair(Picture& ref, Picture& dis, int amp, uint64_t seed) {
  const VideoFormat& f = ref.format();
  SplitMix64 s(seed);
  const int top = (1 << f.bpc) - 1;
  for (int p = 0; p < f.planes(); ++p)
    for (int y = 0; y < f.stored_h(p); ++y)
      for (int x = 0; x < f.stored_w(p); ++x) {
        const int r = static_cast<int>(s.next() >> (64 - f.bpc));
        const int d = amp ? std::clamp(r + static_cast<int>(s.next() % uint64_t(2 * amp + 1)) - amp, 0, top) : r;
        for (auto [pic, v] : {std::pair{&ref, r}, std::pair{&dis, d}}) {
          uint8_t* row = pic->mutable_data(p) + y * pic->stride(p);
          if (f.bpc > 8) {
            const uint16_t u = static_cast<uint16_t>(v);
            std::memcpy(row + 2 * x, &u, 2);
          } else {
            row[x] = static_cast<uint8_t>(v);
          }
        }
      }
}

TEST(PsnrHvsTreeSum, EqualsThePlainLoopOnBlockTerms) {
  // Every term of real block-kernel output (noise of small and full amplitude
  // at 8 and 12 bit), zeros included, and the CPU's compacted terms: the tree
  // sum equals both ordered sums (which must agree).
  int checked = 0;
  for (int bpc : {8, 12})
    for (int amp : {1, 8, 1 << (bpc - 3), 1 << bpc}) {
      const VideoFormat f{357, 353, PixFmt::k420, bpc};
      Picture ref(f, host_allocator()), dis(f, host_allocator());
      fill_pair(ref, dis, amp, uint64_t(bpc * 100 + amp));
      for (int p = 0; p < 3; ++p) {
        const std::vector<float> all = all_block_terms(ref, dis, p);
        PsnrHvsPlaneTerms cpu;
        psnr_hvs_plane_terms_ref(ref.plane(p), dis.plane(p), bpc, p, cpu);
        const float want = ordered_sum(cpu.terms);
        ASSERT_GT(want, 0.0f);
        expect_same_bits(want, ordered_sum_naive(all), "naive over all terms");
        OrderedSumHostTree<float> tree;
        ordered_sum_build_tree(all, kPsnrHvsTerms, tree);
        expect_same_bits(want, ordered_sum_tree_sum(all, kPsnrHvsTerms), "tree");
        expect_same_bits(want, emulated_warp_sum(tree.tree), "tree (warp)");
        ++checked;
      }
    }
  EXPECT_EQ(checked, 24);
}

#if TWINMAF_HAVE_CUDA

const size_t kLengths[] = {1, 63, 64, 65, 2048, 2049, 70000, 300000};

// The device reduction alone on three sequences at once (one per "plane").
void device_sums(const std::vector<float>* seqs[3], float out[3]) {
  cuda::PsnrHvsLaunch l;
  for (int p = 0; p < 3; ++p) {
    l.plane[p].nbx = static_cast<int>((seqs[p]->size() + 63) / 64);
    l.plane[p].nby = 1;
  }
  const int entries = cuda::psnr_hvs_layout(l);
  std::vector<float> terms;
  for (int p = 0; p < 3; ++p) {
    terms.insert(terms.end(), seqs[p]->begin(), seqs[p]->end());
    terms.resize(terms.size() + (64 - seqs[p]->size() % 64) % 64, 0.0f);
  }
  ASSERT_EQ(terms.size(), size_t(l.sums.leaves) * 64);
  auto t = gpu::DeviceBuffer::create(terms.size() * 4 + 4);
  auto e = gpu::DeviceBuffer::create(size_t(entries) * sizeof(OrderedSumEntry<float>) + 8);
  auto r = gpu::DeviceBuffer::create(16);
  ASSERT_TRUE(t.ok() && e.ok() && r.ok());
  l.sums.terms = reinterpret_cast<float*>(t->get());
  l.sums.entries = reinterpret_cast<OrderedSumEntry<float>*>(e->get());
  ASSERT_EQ(cudaSuccess, cudaMemcpy(l.sums.terms, terms.data(), terms.size() * 4, cudaMemcpyHostToDevice));
  ASSERT_EQ(cudaSuccess, cudaMemset(r->get(), 0, 16));
  ASSERT_EQ(cudaSuccess, cuda::psnr_hvs_sum_terms(l, reinterpret_cast<uint32_t*>(r->get()), nullptr));
  uint32_t bits[3];
  ASSERT_EQ(cudaSuccess, cudaMemcpy(bits, r->get(), 12, cudaMemcpyDeviceToHost));
  for (int p = 0; p < 3; ++p) out[p] = bits_float(bits[p]);
}

TEST(PsnrHvsTwin, DeviceReductionEqualsThePlainLoop) {
  REQUIRE_GPU();
  size_t cases = 0;
  for (int kind = 0; kind < kFloatSequenceKinds; ++kind)
    for (size_t k = 0; k + 2 < std::size(kLengths); k += 3) {
      std::vector<float> v[3];
      const std::vector<float>* seqs[3];
      for (int p = 0; p < 3; ++p) {
        v[p] = float_sequence(kind, kLengths[k + size_t(p)], uint64_t(kind) * 77 + k + size_t(p));
        seqs[p] = &v[p];
      }
      float got[3];
      device_sums(seqs, got);
      for (int p = 0; p < 3; ++p)
        expect_same_bits(ordered_sum_naive(v[p]), got[p],
                         "kind " + std::to_string(kind) + " n " + std::to_string(v[p].size()));
      cases += 3;
    }
  EXPECT_EQ(cases, 72u);
}

// ret per plane through the Twin interface vs the CPU's ordered sum; *positive
// counts the planes with ret > 0 (small deltas on a few blocks may all be
// masked).
void expect_twin_ret(const VideoFormat& f, int amp, uint64_t seed, int* positive) {
  *positive = 0;
  SCOPED_TRACE(describe(f, {"psnr_hvs"}, 1, 1) + " amp " + std::to_string(amp));
  Picture ref(f, host_allocator()), dis(f, host_allocator());
  fill_pair(ref, dis, amp, seed);
  auto ctx = gpu::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  auto opts = Options::parse("psnr_hvs", psnr_hvs_feature_spec().options, OptionDict{});
  ASSERT_TRUE(opts.ok());
  auto ex = psnr_hvs_feature_spec().create(*opts);
  ASSERT_TRUE(ex.ok());
  ASSERT_TRUE((*ex)->init(f).ok());
  auto twin = psnr_hvs_feature_spec().cuda(**ex, f, **ctx);
  ASSERT_TRUE(twin.ok()) << twin.status().message();
  auto dref = gpu::DeviceBuffer::create(ref.bytes()), ddis = gpu::DeviceBuffer::create(dis.bytes());
  auto dterms = gpu::DeviceBuffer::create((*twin)->terms_bytes());
  ASSERT_TRUE(dref.ok() && ddis.ok() && dterms.ok());
  ASSERT_EQ(cudaSuccess, cudaMemcpy(dref->get(), ref.base(), ref.bytes(), cudaMemcpyHostToDevice));
  ASSERT_EQ(cudaSuccess, cudaMemcpy(ddis->get(), dis.base(), dis.bytes(), cudaMemcpyHostToDevice));
  ASSERT_EQ(cudaSuccess, cudaMemset(dterms->get(), 0, (*twin)->terms_bytes()));
  DeviceFrame frame;
  for (int p = 0; p < 3; ++p) {
    frame.ref.planes[p] = dref->get() + ref.plane_offset(p);
    frame.dis.planes[p] = ddis->get() + dis.plane_offset(p);
    frame.ref.pitch[p] = frame.dis.pitch[p] = static_cast<size_t>(ref.stride(p));
  }
  const Status st = (*twin)->enqueue(frame, dterms->get(), nullptr);
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<uint8_t> host((*twin)->terms_bytes());
  ASSERT_EQ(cudaSuccess, cudaMemcpy(host.data(), dterms->get(), host.size(), cudaMemcpyDeviceToHost));
  PsnrHvsTerms got;
  (*twin)->unpack(host.data(), got);
  for (int p = 0; p < 3; ++p) {
    PsnrHvsPlaneTerms cpu;
    psnr_hvs_plane_terms_ref(ref.plane(p), dis.plane(p), f.bpc, p, cpu);
    ASSERT_EQ(cpu.blocks, got.plane[p].blocks) << "plane " << p;
    const float want = ordered_sum(cpu.terms), have = ordered_sum(got.plane[p].terms);
    ASSERT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(have))
        << "plane " << p << ": cpu " << want << " cuda " << have;
    if (amp == 0 || cpu.blocks == 0) EXPECT_EQ(want, 0.0f);
    *positive += want > 0 ? 1 : 0;
    ++values_compared();
  }
}

TEST(PsnrHvsTwin, RetEqualsTheCpuOrderedSum) {
  REQUIRE_GPU();
  const std::pair<int, int> sizes[] = {{7, 7}, {8, 8}, {15, 9}, {16, 16}, {64, 48}, {357, 353}, {1920, 1080}};
  int positive = 0, planes = 0;
  for (int bpc : {8, 9, 10, 11, 12})
    for (PixFmt fmt : {PixFmt::k420, PixFmt::k422, PixFmt::k444})
      for (auto [w, h] : sizes)
        for (int amp : {0, 2, 1 << (bpc - 3), 1 << bpc}) {
          if (w == 1920 && (amp == 0 || bpc == 9 || bpc == 11)) continue;
          int p = 0;
          expect_twin_ret({w, h, fmt, bpc}, amp, uint64_t(w + h * 3 + bpc * 7 + amp), &p);
          // Full-range noise on a plane of 64x48 or more always leaves unmasked terms.
          if (amp == 1 << bpc && w >= 64) EXPECT_EQ(p, 3);
          positive += p;
          planes += 3;
        }
  for (auto [f, amp] : {std::pair{VideoFormat{3840, 2160, PixFmt::k420, 10}, 64},
                        std::pair{VideoFormat{3840, 2160, PixFmt::k444, 8}, 256}}) {
    int p = 0;
    expect_twin_ret(f, amp, uint64_t(amp), &p);
    EXPECT_EQ(p, 3);
  }
  EXPECT_GT(positive, planes / 2);
}

#endif  // TWINMAF_HAVE_CUDA

const PixFmt kLayouts[] = {PixFmt::k420, PixFmt::k422, PixFmt::k444};

TEST(PsnrHvsTwin, EveryDepthLayoutAndSize) {
  REQUIRE_GPU();
  // 1x1 .. 7x7: no block in any plane (NaN); 8x8 4:2:0: luma only; then odd sizes.
  const std::pair<int, int> sizes[] = {{1, 1},   {7, 7},   {8, 8},   {9, 8},    {8, 15},
                                       {17, 9}, {16, 16}, {64, 48}, {357, 353}};
  for (int bpc : {8, 9, 10, 11, 12})
    for (PixFmt fmt : kLayouts)
      for (auto [w, h] : sizes) {
        const VideoFormat f{w, h, fmt, bpc};
        // Below 16x16 a plane has at most 2x2 blocks, and small deltas may all
        // be masked (+inf) where it has any (NaN where not): no finite value
        // is guaranteed there.
        const bool finite = w >= 16 && h >= 16;
        expect_twin(noise_clip(f, 3, uint64_t(w * 131 + h + bpc)), {"psnr_hvs"}, 3, 1, finite);
        expect_twin(ramp_clip(f, 2, uint64_t(w + bpc)), {"psnr_hvs"}, 2, 1, finite);
      }
}

TEST(PsnrHvsTwin, IdenticalPairsAreInfinite) {
  REQUIRE_GPU();
  for (int bpc : {8, 12}) {
    Clip c = noise_clip({357, 353, PixFmt::k422, bpc}, 2, 5);
    c.dis = c.ref;
    expect_twin(c, {"psnr_hvs"}, 2, 1, false);
  }
}

TEST(PsnrHvsTwin, WithOtherTwinsSubsampledAndLarge) {
  REQUIRE_GPU();
  const VideoFormat f{357, 353, PixFmt::k420, 10};
  expect_twin(ramp_clip(f, 10, 5), {"psnr_hvs", "psnr=enable_apsnr=true", "motion"}, 10, 3);
  expect_twin(noise_clip(f, 6, 6), {"psnr", "psnr_hvs", "motion_v2"}, 6);
  for (auto [w, h, frames] : {std::tuple{1920, 1080, 3}, std::tuple{3840, 2160, 2}})
    for (int bpc : {8, 10}) {
      expect_twin(ramp_clip({w, h, PixFmt::k420, bpc}, frames, 9), {"psnr_hvs", "psnr", "motion"}, frames);
      expect_twin(noise_clip({w, h, PixFmt::k420, bpc}, frames, 10), {"psnr_hvs"}, frames);
    }
  expect_twin(noise_clip({3840, 2160, PixFmt::k444, 12}, 2, 11), {"psnr_hvs"}, 2);
}

TEST(PsnrHvsTwin, RealClips) {
  REQUIRE_GPU();
  const std::vector<Clip> clips = real_clips();
  if (clips.empty()) GTEST_SKIP() << "skipped: TWINMAF_TWIN_CLIPS not set";
  for (const Clip& c : clips) expect_twin(c, {"psnr_hvs"}, clip_frames(c));
}

}  // namespace
}  // namespace twinmaf::test
