// cambi's per-picture stages (the CPU reference; contract in cambi.h),
// included once into cambi_ref.cpp (the reference, baseline ISA) and once
// per Highway target into cambi_simd.cpp: the same source compiled for a
// wider ISA, which the compiler vectorises. Every stage is integer (any
// order) except the c-values' one float product per candidate and the
// pooling's ordered double sum, which are element-wise or sequential as
// written (no contraction: -ffp-contract=off, no reassociation), so every
// compilation gives the same bits (tests/simd checks each target).
//
// No include guard: included inside a namespace (twinmaf::cambi_ref, or
// twinmaf::N_<target>); the includer provides <algorithm>, <cstring>,
// <vector>, base/assert.h, cambi.h and cambi_math.h.

namespace {


constexpr int kMaskRadius = 3;  // the spatial mask sums a 7x7 window
constexpr int kMaskRing = 2 * kMaskRadius + 2;

// Per-thread buffers, grown to the largest picture seen and reused.
struct Scratch {
  std::vector<uint16_t> img;
  std::vector<uint8_t> mask;
  std::vector<float> cval;
  std::vector<uint16_t> hist;
  std::vector<int16_t> band;       // band row of each pixel, or -1
  std::vector<uint8_t> zero_rows;  // kMaskRing rows of the zero-derivative flags
  std::vector<uint32_t> colsum;    // 7-row sums of the flags per column, zero-padded
  std::vector<int16_t> mode_rows;  // 3 rows of the horizontal mode

  template <typename T>
  static T* grow(std::vector<T>& v, size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
  }
};

template <typename T>
void convert_rows(const PlaneView& luma, int bpc, const CambiPicturePlan& plan, uint16_t* img) {
  // 10-bit code of one input sample (libvmaf's shifts; >= 10 bits round).
  const int up = bpc <= 9 ? 10 - bpc : 0;
  const int down = bpc >= 10 ? bpc - 10 : 0;
  const int round = down > 0 ? 1 << (down - 1) : 0;
  for (int i = 0; i < plan.h; ++i) {
    const T* src = luma.row<T>(plan.src_y.empty() ? i : plan.src_y[static_cast<size_t>(i)]);
    uint16_t* dst = img + static_cast<size_t>(i) * plan.w;
    if (plan.src_x.empty()) {
      for (int j = 0; j < plan.w; ++j)
        dst[j] = static_cast<uint16_t>(((static_cast<int>(src[j]) << up) + round) >> down);
    } else {
      for (int j = 0; j < plan.w; ++j)
        dst[j] = static_cast<uint16_t>(
            ((static_cast<int>(src[plan.src_x[static_cast<size_t>(j)]]) << up) + round) >> down);
    }
  }
}

// libvmaf's anti-dithering filter, in place: every output reads samples to its
// right and below, which are not yet overwritten in this order.
void anti_dither(uint16_t* img, int w, int h) {
  for (int i = 0; i + 1 < h; ++i) {
    uint16_t* r0 = img + static_cast<size_t>(i) * w;
    const uint16_t* r1 = r0 + w;
    for (int j = 0; j + 1 < w; ++j)
      r0[j] = static_cast<uint16_t>((r0[j] + r0[j + 1] + r1[j] + r1[j + 1]) >> 2);
    r0[w - 1] = static_cast<uint16_t>((r0[w - 1] + r1[w - 1]) >> 1);
  }
  uint16_t* last = img + static_cast<size_t>(h - 1) * w;
  for (int j = 0; j + 1 < w; ++j) last[j] = static_cast<uint16_t>((last[j] + last[j + 1]) >> 1);
}

// Flags of row r: equal to the right and the lower neighbour (missing = equal).
void zero_derivative_row(const uint16_t* img, int w, int h, int r, uint8_t* out) {
  const uint16_t* a = img + static_cast<size_t>(r) * w;
  const uint16_t* b = r + 1 < h ? a + w : a;  // the last row compares with itself
  for (int c = 0; c + 1 < w; ++c) out[c] = static_cast<uint8_t>((a[c] == a[c + 1]) & (a[c] == b[c]));
  out[w - 1] = static_cast<uint8_t>(a[w - 1] == b[w - 1]);
}

// mask = (7x7 sum of the flags, zeros outside) > threshold, at full size.
void spatial_mask(const uint16_t* img, int w, int h, uint8_t* mask, Scratch& s) {
  const uint32_t threshold = cambi_mask_threshold(w, h);
  uint8_t* ring = Scratch::grow(s.zero_rows, static_cast<size_t>(kMaskRing) * w);
  // Column sums at kMaskRadius + c, between kMaskRadius zeros on each side.
  uint32_t* padded = Scratch::grow(s.colsum, static_cast<size_t>(w) + 2 * kMaskRadius);
  std::fill(padded, padded + w + 2 * kMaskRadius, 0u);
  uint32_t* colsum = padded + kMaskRadius;
  int next = 0;  // next flag row to enter the window
  for (int r = 0; r < h; ++r) {
    for (; next <= r + kMaskRadius && next < h; ++next) {
      uint8_t* z = ring + static_cast<size_t>(next % kMaskRing) * w;
      zero_derivative_row(img, w, h, next, z);
      for (int c = 0; c < w; ++c) colsum[c] += z[c];
    }
    if (const int out = r - kMaskRadius - 1; out >= 0) {
      const uint8_t* z = ring + static_cast<size_t>(out % kMaskRing) * w;
      for (int c = 0; c < w; ++c) colsum[c] -= z[c];
    }
    // Column c sums colsum[c - 3 .. c + 3] (zeros outside).
    static_assert(kMaskRadius == 3);
    uint8_t* m = mask + static_cast<size_t>(r) * w;
    for (int c = 0; c < w; ++c) {
      const uint32_t* p = padded + c;
      m[c] = static_cast<uint8_t>(p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] > threshold);
    }
  }
}

// Keeps even rows and columns: (w, h) -> (ceil(w/2), ceil(h/2)), in place
// (each destination index is at most its source index).
template <typename T>
void decimate(T* data, int w, int h) {
  const int w2 = (w + 1) >> 1, h2 = (h + 1) >> 1;
  for (int i = 0; i < h2; ++i) {
    const T* src = data + static_cast<size_t>(2 * i) * w;
    T* dst = data + static_cast<size_t>(i) * w2;
    for (int j = 0; j < w2; ++j) dst[j] = src[2 * j];
  }
}

// Samples are 10-bit codes (<= 1024), so int16 compares like uint16 and the
// row loops vectorise with SSE2's signed minimum.
inline int16_t mode3(int16_t a, int16_t b, int16_t c) { return cambi_mode3<int16_t>(a, b, c); }

void horizontal_mode(const int16_t* row, int w, int16_t* out) {
  out[0] = row[0];
  for (int j = 1; j + 1 < w; ++j) out[j] = mode3(row[j - 1], row[j], row[j + 1]);
  out[w - 1] = row[w - 1];
}

// 3x3 separable mode on rows 1..h-2, in place: the horizontal modes of rows
// r-1, r, r+1 are taken from the rows before row r is overwritten.
void mode_filter(uint16_t* image, int w, int h, Scratch& s) {
  if (h < 3) return;
  int16_t* img = reinterpret_cast<int16_t*>(image);  // same-size integer types may alias
  int16_t* ring = Scratch::grow(s.mode_rows, static_cast<size_t>(3) * w);
  horizontal_mode(img, w, ring);
  horizontal_mode(img + w, w, ring + w);
  for (int r = 1; r + 1 < h; ++r) {
    horizontal_mode(img + static_cast<size_t>(r + 1) * w, w, ring + static_cast<size_t>((r + 1) % 3) * w);
    const int16_t* a = ring + static_cast<size_t>((r - 1) % 3) * w;
    const int16_t* b = ring + static_cast<size_t>(r % 3) * w;
    const int16_t* c = ring + static_cast<size_t>((r + 1) % 3) * w;
    int16_t* dst = img + static_cast<size_t>(r) * w;
    for (int j = 0; j < w; ++j) dst[j] = mode3(a[j], b[j], c[j]);
  }
}

// Band row of every pixel of one scale: v - B for a masked pixel of value v
// in the band [B, B + S), else -1. The histogram passes and the c-value scan
// read only this.
void band_rows(const uint16_t* img, const uint8_t* mask, size_t n, int base, int size, int16_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const int b = img[i] - base;
    out[i] = static_cast<int16_t>(mask[i] && static_cast<unsigned>(b) < static_cast<unsigned>(size) ? b : -1);
  }
}

// Band histograms: hist[b * w + c] = pixels of band row b in the current rows
// of the window, columns [c - p, c + p] (clipped).
class Histograms {
 public:
  Histograms(uint16_t* hist, const int16_t* rows, int w, int p, int size)
      : hist_(hist), rows_(rows), w_(w), p_(p) {
    std::fill(hist_, hist_ + static_cast<size_t>(size) * w, uint16_t{0});
  }

  template <int kDelta>
  void update_row(int r) {
    const int16_t* b = row(r);
    for (int c = 0; c < w_; ++c)
      if (b[c] >= 0) bump<kDelta>(b[c], c);
  }

  // Removes row `out` and adds row `in`, column by column; equal band rows
  // (both outside the band, or the same value) cancel.
  void slide(int out, int in) {
    const int16_t* bo = row(out);
    const int16_t* bi = row(in);
    int c = 0;
    for (; c + 4 <= w_; c += 4) {
      uint64_t x, y;
      std::memcpy(&x, bo + c, sizeof x);
      std::memcpy(&y, bi + c, sizeof y);
      if (x == y) continue;
      for (int k = c; k < c + 4; ++k) slide_one(bo[k], bi[k], k);
    }
    for (; c < w_; ++c) slide_one(bo[c], bi[c], c);
  }

  const uint16_t* column(int c) const { return hist_ + c; }

 private:
  const int16_t* row(int r) const { return rows_ + static_cast<size_t>(r) * w_; }

  void slide_one(int bo, int bi, int c) {
    if (bo == bi) return;
    if (bo >= 0) bump<-1>(bo, c);
    if (bi >= 0) bump<1>(bi, c);
  }

  template <int kDelta>
  void bump(int b, int c) {
    uint16_t* h = hist_ + static_cast<size_t>(b) * w_;
    const int lo = std::max(0, c - p_), hi = std::min(w_, c + p_ + 1);
    for (int k = lo; k < hi; ++k) h[k] = static_cast<uint16_t>(h[k] + kDelta);
  }

  uint16_t* hist_;
  const int16_t* rows_;
  int w_, p_;
};

// What pooling needs to know of a scale's c-values: how many are nonzero and
// their exact total in units of 2^-24 (every nonzero c-value is a float
// >= 0.5, cambi.h, hence an integer number of units below 2^38).
struct CValueTotals {
  int nonzero = 0;
  int64_t units = 0;
};

// c-values of one scale (cambi.h, stage 4); cval holds w * h floats.
CValueTotals c_values(const uint16_t* img, const uint8_t* mask, int w, int h, int p, const CambiSetup& st,
                      float* cval, Scratch& s) {
  const size_t n_px = static_cast<size_t>(w) * h;
  int16_t* rows = Scratch::grow(s.band, n_px);
  band_rows(img, mask, n_px, st.band_base, st.band_size, rows);
  const float* recip = cambi_reciprocal_table().data();
  Histograms hist(Scratch::grow(s.hist, static_cast<size_t>(st.band_size) * w), rows, w, p, st.band_size);
  const int n = st.num_diffs;
  CValueTotals totals;
  constexpr uint64_t kNone = ~uint64_t{0};  // four band rows of -1
  for (int r = 0; r < h; ++r) {
    // The window's rows become [r - p, r + p] (clipped).
    if (r == 0) {
      for (int k = 0; k <= p && k < h; ++k) hist.update_row<1>(k);
    } else {
      const int out = r - p - 1, in = r + p;
      if (out >= 0 && in < h)
        hist.slide(out, in);
      else if (out >= 0)
        hist.update_row<-1>(out);
      else if (in < h)
        hist.update_row<1>(in);
    }
    const int16_t* brow = rows + static_cast<size_t>(r) * w;
    float* crow = cval + static_cast<size_t>(r) * w;
    const uint16_t* irow = img + static_cast<size_t>(r) * w;
    for (int c = 0; c < w; ++c) {
      if ((c & 3) == 0 && c + 4 <= w) {
        uint64_t x;
        std::memcpy(&x, brow + c, sizeof x);
        if (x == kNone) {
          std::fill(crow + c, crow + c + 4, 0.0f);
          c += 3;
          continue;
        }
      }
      const int b = brow[c];
      if (b < 0) {
        crow[c] = 0.0f;
        continue;
      }
      const int v = irow[c];
      const uint16_t* col = hist.column(c);
      const int p0 = col[static_cast<size_t>(b) * w];
      float best = 0.0f;
      for (int d = 1; d <= n; ++d) {
        if (v > st.tvi[static_cast<size_t>(d - 1)] || v + n + d <= st.vlt_luma) continue;
        const int up = col[static_cast<size_t>(b + d) * w];  // in the band: cambi_setup checks
        const int down = b >= d ? col[static_cast<size_t>(b - d) * w] : 0;
        const int m = up > down ? up : down;
        const float val = static_cast<float>(st.weight[static_cast<size_t>(d - 1)] * p0 * m) * recip[p0 + m];
        if (val > best) best = val;
      }
      crow[c] = best;
      if (best != 0.0f) {
        TWINMAF_DASSERT(best >= 0.5f);
        ++totals.nonzero;
        totals.units += cambi_c_units(best);
      }
    }
  }
  return totals;
}

// Pooling of one scale: cambi_topk_sum's value, taken without the quick select
// where the order cannot matter (cambi.h): with at most k nonzero c-values
// whose exact total is below 2^53 units, the k largest are those values and
// zeros, every partial sum of libvmaf's loop is an exact double, and the sum
// is the total.
double pool_c_values(std::span<float> c, int k, const CValueTotals& t) {
  if (cambi_order_free(t.nonzero, t.units, k)) return cambi_units_value(t.units, 0);
  return cambi_topk_sum(c, k);
}

}  // namespace

// The five scales' terms of one picture (cambi_picture_terms_ref's contract).
Status picture_terms(const PlaneView& luma, int bpc, const CambiSetup& setup, const CambiPicturePlan& plan,
                     unsigned frame, CambiCValueSink* sink, std::array<CambiScaleTerms, kCambiScales>& out) {
  thread_local Scratch s;
  const size_t area = static_cast<size_t>(plan.w) * plan.h;
  uint16_t* img = Scratch::grow(s.img, area);
  uint8_t* mask = Scratch::grow(s.mask, area);
  float* cval = Scratch::grow(s.cval, area);
  if (bpc > 8)
    convert_rows<uint16_t>(luma, bpc, plan, img);
  else
    convert_rows<uint8_t>(luma, bpc, plan, img);
  if (setup.anti_dither) anti_dither(img, plan.w, plan.h);
  spatial_mask(img, plan.w, plan.h, mask, s);
  int w = plan.w, h = plan.h;
  const int p = plan.window >> 1;
  for (int sc = 0; sc < kCambiScales; ++sc) {
    if (sc > 0 || plan.speedup) {
      decimate(img, w, h);
      decimate(mask, w, h);
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
    mode_filter(img, w, h, s);
    const CValueTotals totals = c_values(img, mask, w, h, p, setup, cval, s);
    const std::span<float> c(cval, static_cast<size_t>(w) * h);
    if (sink) TWINMAF_RETURN_IF_ERROR(sink->write(sc, frame, c, w, h));
    const int k = cambi_topk_count(setup.topk, w * h);
    out[static_cast<size_t>(sc)] = CambiScaleTerms{pool_c_values(c, k, totals), k};
  }
  return ok_status();
}

