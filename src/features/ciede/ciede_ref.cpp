// ciede CPU reference: libvmaf's chroma reads, Lab conversion, CIEDE2000 and
// the running double sum (the contract is in ciede.h). Every float/double
// conversion below is one libvmaf makes: a value stored in a float variable,
// passed to a float parameter or returned as float is rounded to float there,
// and nowhere else.
#include <bit>
#include <cmath>
#include <vector>

#include "features/ciede/ciede.h"
#include "features/ciede/ciede_bounds.h"
#include "features/ciede/ciede_math.h"

namespace twinmaf {

CiedeLevels ciede_levels(int bpc) {
  const double k = static_cast<double>(1 << (bpc - 8));
  return {16. * k, 128. * k, 1. / (219. * k), 1. / (224. * k)};
}

CiedeLab ciede_lab(double y, double u, double v, const CiedeLevels& k) {
  ciede::GlibcMath m;
  const ciede::Lab<ciede::GlibcMath> c = ciede::lab(m, y, u, v, k);
  return {c.l, c.a, c.b};
}

float ciede_de00(const CiedeLab& c1, const CiedeLab& c2) {
  ciede::GlibcMath m;
  return ciede::de00(m, ciede::Lab<ciede::GlibcMath>{c1.l, c1.a, c1.b}, ciede::Lab<ciede::GlibcMath>{c2.l, c2.a, c2.b});
}

bool ciede_powf_model_holds() {
  // Once per process: every twin instance (one per bank and lane) asks.
  static const bool holds = [] {
    const uint32_t first = float_bits(0x1p-16f), last = float_bits(0x1p16f);
    for (uint32_t u = first; u <= last; u += (last - first) >> 16) {
      const ciede::IvF b = ciede::powf7_bounds(bits_float(u));
      const float g = ::powf(bits_float(u), 7.0f);
      if (!(b.lo <= g && g <= b.hi)) return false;
    }
    return true;
  }();
  return holds;
}

namespace {

// Chroma row i of plane p at luma width through libvmaf's picture memory
// (ciede::chroma_read).
template <typename T>
void chroma_row(const Picture& pic, int p, int i, uint16_t* out) {
  const VideoFormat& f = pic.format();
  const int cw = f.plane_w(1), ch = f.plane_h(1);
  const bool half_cols = f.fmt == PixFmt::k420;
  for (int j = 0; j < f.w; ++j) {
    const ciede::ChromaPlace c = ciede::chroma_read(p, i, j, half_cols, cw, ch);
    out[j] = c.plane ? static_cast<uint16_t>(pic.plane(c.plane).row<T>(c.row)[c.col]) : 0;
  }
}

template <typename T>
void copy_row(const PlaneView& v, int i, uint16_t* out) {
  const T* src = v.row<T>(i);
  for (int j = 0; j < v.w; ++j) out[j] = src[j];
}

// The three planes of luma row i at luma width: Y, Cb, Cr.
template <typename T>
void pixel_rows(const Picture& pic, int i, uint16_t* y, uint16_t* u, uint16_t* v) {
  copy_row<T>(pic.plane(0), i, y);
  if (pic.format().fmt == PixFmt::k444) {
    copy_row<T>(pic.plane(1), i, u);
    copy_row<T>(pic.plane(2), i, v);
  } else {
    chroma_row<T>(pic, 1, i, u);
    chroma_row<T>(pic, 2, i, v);
  }
}

template <typename T>
double sum_frame(const Picture& ref, const Picture& dis, CiedeLabCache& labs, CiedePairCache* pairs,
                 CiedeDe00Row de00_row) {
  const VideoFormat& f = ref.format();
  const size_t w = static_cast<size_t>(f.w);
  std::vector<uint16_t> rows(6 * w);
  uint16_t* const r[3] = {rows.data(), rows.data() + w, rows.data() + 2 * w};
  uint16_t* const d[3] = {rows.data() + 3 * w, rows.data() + 4 * w, rows.data() + 5 * w};
  // The row's dE00 in order; the pixels to compute (their place in `de`,
  // pair key, Lab columns: l, a, b of the reference colours, then of the
  // distorted) and their results.
  std::vector<float> de(w), lab(6 * w), fresh(w);
  std::vector<size_t> place(w);
  std::vector<uint64_t> keys(w);
  float* const col[6] = {lab.data(),         lab.data() + w,     lab.data() + 2 * w,
                         lab.data() + 3 * w, lab.data() + 4 * w, lab.data() + 5 * w};
  const CiedeLabPairs todo{{col[0], col[3]}, {col[1], col[4]}, {col[2], col[5]}};
  const auto put = [&col](int side, size_t k, const CiedeLab& c) {
    col[3 * side][k] = c.l;
    col[3 * side + 1][k] = c.a;
    col[3 * side + 2][k] = c.b;
  };
  const auto key_at = [&r, &d](size_t j) {
    return CiedePairCache::key_of({r[0][j], r[1][j], r[2][j]}, {d[0][j], d[1][j], d[2][j]});
  };
  constexpr size_t kAhead = 8;  // pixels ahead: about 1.5 us of work, well past a memory miss
  double sum = 0;
  for (int i = 0; i < f.h; ++i) {
    pixel_rows<T>(ref, i, r[0], r[1], r[2]);
    pixel_rows<T>(dis, i, d[0], d[1], d[2]);
    size_t n = 0, m = 0;  // differing pixels, of which to compute
    for (size_t j = 0; j < w; ++j) {
      if (j + kAhead < w) {
        if (pairs) pairs->prefetch(key_at(j + kAhead));
        labs.prefetch(r[0][j + kAhead], r[1][j + kAhead], r[2][j + kAhead]);
        labs.prefetch(d[0][j + kAhead], d[1][j + kAhead], d[2][j + kAhead]);
      }
      // Equal triples give equal Lab colours, whose dE00 is +0: adding it
      // leaves the sum (never -0) unchanged.
      if (r[0][j] == d[0][j] && r[1][j] == d[1][j] && r[2][j] == d[2][j]) continue;
      if (pairs) {
        keys[m] = key_at(j);
        if (const float* hit = pairs->find(keys[m])) {
          de[n++] = *hit;
          continue;
        }
      }
      put(0, m, labs.get(r[0][j], r[1][j], r[2][j]));
      put(1, m, labs.get(d[0][j], d[1][j], d[2][j]));
      place[m++] = n++;
    }
    de00_row(todo, m, fresh.data());
    for (size_t k = 0; k < m; ++k) {
      de[place[k]] = fresh[k];
      if (pairs) pairs->put(keys[k], fresh[k]);
    }
    for (size_t k = 0; k < n; ++k) sum += de[k];
  }
  return sum;
}

}  // namespace

void ciede_chroma_row(const Picture& pic, int p, int i, uint16_t* out) {
  if (pic.format().bpc > 8)
    chroma_row<uint16_t>(pic, p, i, out);
  else
    chroma_row<uint8_t>(pic, p, i, out);
}

CiedeLabCache::CiedeLabCache(int bpc, size_t pixels) : k_(ciede_levels(bpc)) {
  size_t n = 1024;
  while (n < 2 * pixels && n < (size_t{1} << 19)) n *= 2;
  slots_.assign(n, Slot{});
  shift_ = 64 - std::countr_zero(n);
}

void ciede_de00_row_ref(const CiedeLabPairs& p, size_t n, float* de00) {
  for (size_t k = 0; k < n; ++k)
    de00[k] = ciede_de00({p.l[0][k], p.a[0][k], p.b[0][k]}, {p.l[1][k], p.a[1][k], p.b[1][k]});
}

const CiedeDsp& ciede_dsp_ref() {
  static constexpr CiedeDsp k{&ciede_de00_row_ref};
  return k;
}

CiedePairCache::CiedePairCache(size_t pixels) {
  size_t n = 1024;
  while (n < 2 * pixels && n < (size_t{1} << 20)) n *= 2;
  slots_.assign(n, Slot{});
  shift_ = 64 - std::countr_zero(n);
}

double ciede_sum(const Picture& ref, const Picture& dis, CiedeLabCache& labs, CiedePairCache* pairs,
                 CiedeDe00Row de00_row) {
  if (ref.format().bpc > 8) return sum_frame<uint16_t>(ref, dis, labs, nullptr, de00_row);
  return sum_frame<uint8_t>(ref, dis, labs, pairs, de00_row);
}

}  // namespace twinmaf
