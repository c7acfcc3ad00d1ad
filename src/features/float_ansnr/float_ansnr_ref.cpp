// float_ansnr CPU reference: float planes, libvmaf's mirrored 2-D filters and
// the per-row float sums (the contract is in float_ansnr.h). The filter runs
// a whole output row at a time: for every pixel the operations on its two
// running sums are libvmaf's, in libvmaf's order; only the loop over the
// pixels is innermost (and vectorises: no reassociation, no contraction).
#include <algorithm>
#include <vector>

#include "base/ordered_sum.h"
#include "features/float_ansnr/float_ansnr.h"
#include "features/float_ansnr/float_ansnr_math.h"
#include "features/common/float_picture.h"

namespace twinmaf {

namespace {

// Output row y of the `width`-tap filter f over the w x h float plane src:
// float_ansnr_filter_at's operations, a row of outputs at a time.
void filter_row(const float* f, int width, const std::vector<float>& src, int w, int h, int y, float* acc,
                float* inner) {
  const int r = width / 2;
  std::fill(acc, acc + w, 0.0f);
  for (int fi = 0; fi < width; ++fi) {
    const float* row = src.data() + static_cast<size_t>(float_ansnr_mirror(y - r + fi, h)) * static_cast<size_t>(w);
    std::fill(inner, inner + w, 0.0f);
    for (int fj = 0; fj < width; ++fj) {
      const float c = f[fi * width + fj];
      const int lo = std::min(r, w), hi = std::max(lo, w - r);
      for (int x = 0; x < lo; ++x) inner[x] += c * row[float_ansnr_mirror(x - r + fj, w)];
      for (int x = lo; x < hi; ++x) inner[x] += c * row[x - r + fj];
      for (int x = hi; x < w; ++x) inner[x] += c * row[float_ansnr_mirror(x - r + fj, w)];
    }
    for (int x = 0; x < w; ++x) acc[x] += inner[x];
  }
}

}  // namespace

const FloatAnsnrFilters& float_ansnr_filters() {
  static const FloatAnsnrFilters filters = [] {
    // Integer weights over libvmaf's denominators (16 and 571), each tap the
    // float of the double quotient, as libvmaf's table initialisers.
    constexpr int kRef[3] = {1, 2, 1};
    constexpr int kDis[25] = {2, 7, 12, 7, 2, 7, 31, 52, 31, 7, 12, 52, 127, 52, 12, 7, 31, 52, 31, 7, 2, 7, 12, 7, 2};
    FloatAnsnrFilters f{};
    for (int i = 0; i < 9; ++i) f.ref[i] = static_cast<float>((kRef[i / 3] * kRef[i % 3]) / 16.0);
    for (int i = 0; i < 25; ++i) f.dis[i] = static_cast<float>(kDis[i] / 571.0);
    return f;
  }();
  return filters;
}

void float_ansnr_terms_ref(const PlaneView& ref, const PlaneView& dis, int bpc, FloatAnsnrTerms& out) {
  const int w = ref.w, h = ref.h;
  const size_t n = static_cast<size_t>(w);
  std::vector<float> a(n * static_cast<size_t>(h)), b(n * static_cast<size_t>(h));
  for (int y = 0; y < h; ++y) {
    float_picture_row(ref, bpc, y, -128.0f, a.data() + static_cast<size_t>(y) * n);
    float_picture_row(dis, bpc, y, -128.0f, b.data() + static_cast<size_t>(y) * n);
  }
  const FloatAnsnrFilters& f = float_ansnr_filters();
  std::vector<float> fa(n), fb(n), inner(n), sig(n), noise(n);
  out.sig.resize(static_cast<size_t>(h));
  out.noise.resize(static_cast<size_t>(h));
  for (int y = 0; y < h; ++y) {
    filter_row(f.ref, 3, a, w, h, y, fa.data(), inner.data());
    filter_row(f.dis, 5, b, w, h, y, fb.data(), inner.data());
    for (size_t x = 0; x < n; ++x) {
      sig[x] = fa[x] * fa[x];
      noise[x] = (fa[x] - fb[x]) * (fa[x] - fb[x]);
    }
    out.sig[static_cast<size_t>(y)] = ordered_sum(sig);
    out.noise[static_cast<size_t>(y)] = ordered_sum(noise);
  }
}

}  // namespace twinmaf
