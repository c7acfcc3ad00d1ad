// adm SIMD row kernels == the reference row kernels (adm_rows.h) on every
// target: each kernel on seeded rows reaching every range the pipeline can
// produce (int16 bands at scale 0, any int32 at scales 1-3, the wrap-around
// extremes), every length and sub-range; then whole frames (adm_terms_with
// the SIMD set vs the reference set) at 8/10/12/16 bit, odd sizes, offsets
// and option sets (registry: simd_main.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "core/options.h"
#include "features/adm/adm.h"
#include "features/adm/adm_rows.h"
#include "tests/simd/simd_harness.h"

namespace twinmaf::test {

namespace {

constexpr int kLengths[] = {1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 100};

// A value of the bands' range: int16 (scale 0) or int32, from every
// magnitude class and the extremes.
int32_t band_value(SplitMix64& rng, bool int16) {
  const uint64_t r = rng.next();
  const int cls = static_cast<int>(r % 10);
  const uint64_t v = rng.next();
  const int64_t lo = int16 ? -32768 : std::numeric_limits<int32_t>::min();
  const int64_t hi = int16 ? 32767 : std::numeric_limits<int32_t>::max();
  int64_t x = 0;
  switch (cls) {
    case 0: x = 0; break;
    case 1: case 2: x = static_cast<int64_t>(v % 511) - 255; break;
    case 3: case 4: x = static_cast<int64_t>(v % 65535) - 32767; break;
    case 5: x = static_cast<int64_t>(v % (uint64_t{1} << 25)) - (int64_t{1} << 24); break;
    case 6: case 7: x = static_cast<int64_t>(static_cast<int32_t>(v)); break;
    case 8: {
      const int64_t ext[] = {lo, hi, -1, 1, 32767, -32767, 32768, -32768, 65535, -65536, lo + 1};
      x = ext[v % (sizeof(ext) / sizeof(ext[0]))];
      break;
    }
    default: x = static_cast<int64_t>(v % (uint64_t{1} << 31)) >> (v % 31); break;
  }
  return static_cast<int32_t>(std::clamp(x, lo, hi));
}

std::vector<int32_t> band_row(SplitMix64& rng, int n, bool int16) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = band_value(rng, int16);
  return v;
}

}  // namespace

void check_adm_dwt0_vert(const char* target, int64_t& cases) {
  const AdmRowKernels& ref_ = adm_row_kernels_ref();
  {
    const AdmRowKernels& k = adm_row_kernels_simd();
    SplitMix64 rng(11);
    for (int bpc : {8, 10, 12, 16})
      for (int n : kLengths)
        for (int off = 0; off < 3; ++off) {
          const uint32_t top = (1u << bpc) - 1;
          std::vector<uint16_t> rows16[4];
          std::vector<uint8_t> rows8[4];
          for (int q = 0; q < 4; ++q) {
            rows16[q].resize(static_cast<size_t>(n + off));
            rows8[q].resize(static_cast<size_t>(n + off));
            for (int j = 0; j < n + off; ++j) {
              const uint64_t r = rng.next();
              const uint32_t v = (r & 3) == 0 ? ((r >> 2) & 1 ? top : 0) : static_cast<uint32_t>((r >> 2) % (top + 1));
              rows16[q][static_cast<size_t>(j)] = static_cast<uint16_t>(v);
              rows8[q][static_cast<size_t>(j)] = static_cast<uint8_t>(v);
            }
          }
          for (bool with_hi : {true, false}) {
            std::vector<int32_t> lo_w(static_cast<size_t>(n)), hi_w(lo_w.size()), lo_g(lo_w.size()), hi_g(lo_w.size());
            if (bpc == 8) {
              const uint8_t* r[4] = {rows8[0].data() + off, rows8[1].data() + off, rows8[2].data() + off,
                                     rows8[3].data() + off};
              ref_.dwt0_vert_u8(r, n, bpc, lo_w.data(), with_hi ? hi_w.data() : nullptr);
              k.dwt0_vert_u8(r, n, bpc, lo_g.data(), with_hi ? hi_g.data() : nullptr);
            } else {
              const uint16_t* r[4] = {rows16[0].data() + off, rows16[1].data() + off, rows16[2].data() + off,
                                      rows16[3].data() + off};
              ref_.dwt0_vert_u16(r, n, bpc, lo_w.data(), with_hi ? hi_w.data() : nullptr);
              k.dwt0_vert_u16(r, n, bpc, lo_g.data(), with_hi ? hi_g.data() : nullptr);
            }
            ASSERT_EQ(lo_g, lo_w) << "adm dwt0_vert lo " << target << " bpc " << bpc << " n " << n;
            ASSERT_EQ(hi_g, hi_w) << "adm dwt0_vert hi " << target << " bpc " << bpc << " n " << n;
            ++cases;
          }
        }
  }
}

void check_adm_dwt_vert(const char* target, int64_t& cases) {
  const AdmRowKernels& ref_ = adm_row_kernels_ref();
  {
    const AdmRowKernels& k = adm_row_kernels_simd();
    SplitMix64 rng(12);
    for (int s = 1; s < 4; ++s)
      for (int n : kLengths) {
        std::vector<int32_t> rows[4];
        for (auto& r : rows) r = band_row(rng, n + 1, false);
        const int32_t* r[4] = {rows[0].data() + 1, rows[1].data() + 1, rows[2].data() + 1, rows[3].data() + 1};
        std::vector<int32_t> lo_w(static_cast<size_t>(n)), hi_w(lo_w.size()), lo_g(lo_w.size()), hi_g(lo_w.size());
        ref_.dwt_vert(r, n, s, lo_w.data(), hi_w.data());
        k.dwt_vert(r, n, s, lo_g.data(), hi_g.data());
        ASSERT_EQ(lo_g, lo_w) << "adm dwt_vert lo " << target << " scale " << s << " n " << n;
        ASSERT_EQ(hi_g, hi_w) << "adm dwt_vert hi " << target << " scale " << s << " n " << n;
        ++cases;
      }
  }
}

void check_adm_dwt_horz(const char* target, int64_t& cases) {
  const AdmRowKernels& ref_ = adm_row_kernels_ref();
  {
    const AdmRowKernels& k = adm_row_kernels_simd();
    SplitMix64 rng(13);
    for (int s = 0; s < 4; ++s)
      for (int w : kLengths)
        for (bool hvd : {true, false}) {
          // A padded row holds 2w + 2 values (input columns -1 .. 2w).
          const std::vector<int32_t> lo = band_row(rng, 2 * w + 3, s == 0);
          const std::vector<int32_t> hi = band_row(rng, 2 * w + 3, s == 0);
          std::vector<int32_t> want[4], got[4];
          for (int q = 0; q < 4; ++q) {
            want[q].assign(static_cast<size_t>(w), 0);
            got[q].assign(static_cast<size_t>(w), 0);
          }
          int32_t* hw[3] = {want[1].data(), want[2].data(), want[3].data()};
          int32_t* hg[3] = {got[1].data(), got[2].data(), got[3].data()};
          ref_.dwt_horz(lo.data() + 1, hi.data() + 1, w, s, want[0].data(), hvd ? hw : nullptr);
          k.dwt_horz(lo.data() + 1, hi.data() + 1, w, s, got[0].data(), hvd ? hg : nullptr);
          for (int q = 0; q < 4; ++q)
            ASSERT_EQ(got[q], want[q]) << "adm dwt_horz " << target << " scale " << s << " w " << w << " output "
                                       << "ahvd"[q];
          ++cases;
        }
  }
}

namespace {

// Distorted bands: independent, or the reference scaled (angle below one
// degree: the gain clamp), with small noise, or zero.
void point_inputs(SplitMix64& rng, int n, bool int16, std::vector<int32_t> (&o)[3], std::vector<int32_t> (&t)[3]) {
  for (int b = 0; b < 3; ++b) {
    o[b] = band_row(rng, n, int16);
    t[b] = band_row(rng, n, int16);
  }
  const int64_t lo = int16 ? -32768 : std::numeric_limits<int32_t>::min();
  const int64_t hi = int16 ? 32767 : std::numeric_limits<int32_t>::max();
  const double factors[] = {1.0, 0.5, 2.0, 1.01, 150.0, -1.0, 0.0};
  for (size_t j = 0; j < o[0].size(); ++j) {
    const uint64_t r = rng.next();
    if (r % 3 == 0) continue;
    const double f = factors[(r >> 8) % 7];
    const int64_t noise = static_cast<int64_t>((r >> 16) % 5) - 2;
    for (int b = 0; b < 3; ++b) {
      const double v = std::nearbyint(o[b][j] * f) + static_cast<double>((r >> 32) % 2 ? noise : 0);
      t[b][j] = static_cast<int32_t>(std::clamp<double>(v, static_cast<double>(lo), static_cast<double>(hi)));
    }
  }
}

}  // namespace

void check_adm_point(const char* target, int64_t& cases) {
  const AdmRowKernels& ref_ = adm_row_kernels_ref();
  int enhanced = 0;
  {
    const AdmRowKernels& k = adm_row_kernels_simd();
    SplitMix64 rng(14);
    for (int s = 0; s < 4; ++s)
      for (int n : kLengths)
        for (int rep = 0; rep < 4; ++rep) {
          std::vector<int32_t> o[3], t[3];
          point_inputs(rng, n, s == 0, o, t);
          AdmPointRow row;
          row.s = s;
          row.cos2 = static_cast<float>(std::cos(M_PI / 180) * std::cos(M_PI / 180));
          const double egls[] = {100.0, 1.0, 1.5};
          row.egl = egls[rep % 3];
          for (int b = 0; b < 3; ++b) {
            row.o[b] = o[b].data();
            row.t[b] = t[b].data();
            // Scale 0: the Watson factors, any uint16 and 65535 (-rf*1 is
            // a rounding boundary of the diagonal CSF); 1-3: any uint32.
            const uint32_t watson[3] = {36453, 36453, 49417};
            const uint32_t rv = static_cast<uint32_t>(rng.next());
            row.rf[b] = s == 0 ? (rep == 0 ? watson[b] : rep == 3 ? 65535u : (rv & 0xffff)) : rv >> (rep * 8);
          }
          const int j0 = n > 2 ? static_cast<int>(rng.next() % 2) : 0;
          const int j1 = n - (n > 3 ? static_cast<int>(rng.next() % 2) : 0);
          std::vector<int32_t> want(static_cast<size_t>(10 * n), 7), got(want.size(), 7);
          const auto bind = [n](AdmPointRow& r, std::vector<int32_t>& buf) {
            int32_t* p = buf.data();
            for (int b = 0; b < 3; ++b) r.x_adm[b] = p + (0 + b) * n;
            for (int b = 0; b < 3; ++b) r.x_aim[b] = p + (3 + b) * n;
            r.t30_adm = p + 6 * n;
            r.t30_aim = p + 7 * n;
            r.cen_adm = p + 8 * n;
            r.cen_aim = p + 9 * n;
          };
          AdmPointRow rw = row, rg = row;
          bind(rw, want);
          bind(rg, got);
          ref_.point(rw, j0, j1);
          k.point(rg, j0, j1);
          for (int q = 0; q < 10; ++q)
            for (int j = 0; j < n; ++j)
              ASSERT_EQ(got[static_cast<size_t>(q * n + j)], want[static_cast<size_t>(q * n + j)])
                  << "adm point " << target << " scale " << s << " n " << n << " [" << j0 << ", " << j1
                  << ") output " << q << " column " << j << " o " << o[0][j] << "," << o[1][j] << "," << o[2][j]
                  << " t " << t[0][j] << "," << t[1][j] << "," << t[2][j] << " egl " << row.egl;
          // The gain clamp changed something (egl < factor 150 on scaled rows).
          AdmPointRow unclamped = row;
          unclamped.egl = 1e300;
          std::vector<int32_t> other(want.size(), 7);
          bind(unclamped, other);
          ref_.point(unclamped, j0, j1);
          enhanced += other != want;
          ++cases;
        }
  }
  EXPECT_GT(enhanced, 20);
}

void check_adm_den_mask(const char* target, int64_t& cases) {
  const AdmRowKernels& ref_ = adm_row_kernels_ref();
  int nonzero = 0;
  {
    const AdmRowKernels& k = adm_row_kernels_simd();
    SplitMix64 rng(15);
    for (int s = 0; s < 4; ++s)
      for (int n : kLengths)
        for (int rep = 0; rep < 3; ++rep) {
          const std::vector<int32_t> b = band_row(rng, n, s == 0);
          const int j0 = n > 2 ? static_cast<int>(rng.next() % 3) : 0;
          const int j1 = n - (n > 4 ? static_cast<int>(rng.next() % 2) : 0);
          const int shift = 1 + static_cast<int>(rng.next() % 12);
          const uint64_t dw = ref_.den(b.data(), j0, j1, s, shift);
          ASSERT_EQ(k.den(b.data(), j0, j1, s, shift), dw)
              << "adm den " << target << " scale " << s << " n " << n << " [" << j0 << ", " << j1 << ") shift " << shift;
          nonzero += dw != 0;
          // Targets: CSF products (any int32); thresholds: small sums of
          // |csf|/30 terms or any int32 (they wrap).
          const std::vector<int32_t> x = band_row(rng, n, false);
          std::vector<int32_t> thr = band_row(rng, n, rep < 2);
          if (rep == 0)
            for (auto& v : thr) v = std::abs(v) >> 4;
          for (int theta = 0; theta < 3; ++theta) {
            const uint64_t mw = ref_.mask(x.data(), thr.data(), j0, j1, s, theta, shift);
            ASSERT_EQ(k.mask(x.data(), thr.data(), j0, j1, s, theta, shift), mw)
                << "adm mask " << target << " scale " << s << " theta " << theta << " n " << n << " [" << j0 << ", "
                << j1 << ") shift " << shift;
            nonzero += mw != 0;
            ++cases;
          }
          ++cases;
        }
  }
  EXPECT_GT(nonzero, 100);
}

// Whole frames: the SIMD set through the shared driver == the reference set.
void check_adm_terms(const char* target, int64_t& cases) {
  const std::vector<std::vector<std::pair<const char*, const char*>>> option_sets = {
      {},
      {{"adm_skip_scale0", "true"}},
      {{"adm_skip_aim", "true"}, {"adm_enhn_gain_limit", "1"}},
      {{"adm_csf_mode", "1"}, {"adm_csf_scale", "50"}},
  };
  // 33: the minimum; odd sizes at every scale; widths around the vector lengths.
  const std::pair<int, int> sizes[] = {{33, 33}, {47, 35}, {97, 61}, {130, 40}, {257, 67}};
  int configs = 0;
  for (auto [w, h] : sizes)
    for (int bpc : {8, 10, 12, 16}) {
      const auto& kv = option_sets[static_cast<size_t>(configs) % option_sets.size()];
      OptionDict dict;
      for (const auto& [key, v] : kv) dict.set(key, v);
      auto o = Options::parse("adm", adm_feature_spec().options, dict);
      ASSERT_TRUE(o.ok()) << o.status().message();
      auto ex = adm_feature_spec().create(*o);
      ASSERT_TRUE(ex.ok()) << ex.status().message();
      ASSERT_TRUE((*ex)->init({w, h, PixFmt::k420, bpc}).ok());
      const AdmKernelParams& kp = adm_kernel_params(**ex);
      const int off = configs % 5;
      TestPlane r(w, h, bpc, off, configs % 3), d(w, h, bpc, off, configs % 3);
      fill_pair(r, d, static_cast<uint64_t>(1000 + configs));
      AdmTerms want;
      adm_terms_with(adm_row_kernels_ref(), r.view, d.view, kp, want);
      bool nontrivial = false;
      for (const AdmScaleTerms& st : want.scale)
        for (int b = 0; b < 3; ++b) nontrivial = nontrivial || (st.num[b] != 0 && st.den[b] != 0);
      EXPECT_TRUE(nontrivial) << w << "x" << h << " bpc " << bpc;
      {
        AdmTerms got;
        adm_terms_with(adm_row_kernels_simd(), r.view, d.view, kp, got);
        for (int s = 0; s < 4; ++s)
          for (int b = 0; b < 3; ++b) {
            SCOPED_TRACE(testing::Message() << "adm_terms " << target << " " << w << "x" << h << " bpc " << bpc
                                            << " offset " << off << " options " << configs % option_sets.size()
                                            << " scale " << s << " band " << b);
            ASSERT_EQ(got.scale[s].den[b], want.scale[s].den[b]);
            ASSERT_EQ(got.scale[s].num[b], want.scale[s].num[b]);
            ASSERT_EQ(got.scale[s].aim[b], want.scale[s].aim[b]);
          }
        ++cases;
      }
      ++configs;
    }
}

std::function<void(bool)> bench_adm_terms(int w, int h) {
  auto p = std::make_shared<BenchPair>(w, h);
  auto o = Options::parse("adm", adm_feature_spec().options, OptionDict());
  auto ex = adm_feature_spec().create(*o);
  if (!ex.ok() || !(*ex)->init({w, h, PixFmt::k420, 8}).ok()) return nullptr;
  auto kp = std::make_shared<AdmKernelParams>(adm_kernel_params(**ex));
  return [p, kp](bool simd) {
    AdmTerms t;
    adm_terms_with(simd ? adm_row_kernels_simd() : adm_row_kernels_ref(), p->a.view, p->b.view, *kp, t);
    keep(t);
  };
}

}  // namespace twinmaf::test
