// ciede CPU reference: libvmaf's chroma reads, Lab conversion, CIEDE2000 and
// the running double sum (the contract is in ciede.h). Every float/double
// conversion below is one libvmaf makes: a value stored in a float variable,
// passed to a float parameter or returned as float is rounded to float there,
// and nowhere else.
#include <bit>
#include <cmath>
#include <vector>

#include "features/ciede/ciede.h"
#include "features/ciede/ciede_math.h"

namespace twinmaf {

namespace {

// pow(x, 2) of a float promoted to double: exact, as GCC folds it.
double sq(double x) { return x * x; }

// sRGB-style linearisation of one R'G'B' component.
double linearize(double c) {
  if (c > 10. / 255.) return std::pow((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

// CIE f(t), rounded to float (libvmaf returns it as float).
float lab_f(double t) {
  if (t > 216.0 / 24389.0) return static_cast<float>(std::pow(t, 1.0 / 3.0));
  return static_cast<float>(((24389.0 / 27.0) * t + 16.0) * (1.0 / 116.0));
}

}  // namespace

CiedeLevels ciede_levels(int bpc) {
  const double k = static_cast<double>(1 << (bpc - 8));
  return {16. * k, 128. * k, 1. / (219. * k), 1. / (224. * k)};
}

CiedeLab ciede_lab(double y, double u, double v, const CiedeLevels& k) {
  y = (y - k.black) * k.luma_gain;
  u = (u - k.mid) * k.chroma_gain;
  v = (v - k.mid) * k.chroma_gain;
  const double r = linearize(y + 1.28033 * v);
  const double g = linearize(y - 0.21482 * u - 0.38059 * v);
  const double b = linearize(y + 2.12798 * u);
  const double fx =
      lab_f((r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894) * (1.0 / 0.95047));
  const double fy = lab_f(r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958);
  const double fz =
      lab_f((r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677) * (1.0 / 1.08883));
  return {static_cast<float>(116.0 * fy - 16.0), static_cast<float>(500.0 * (fx - fy)),
          static_cast<float>(200.0 * (fy - fz))};
}

float ciede_de00(const CiedeLab& c1, const CiedeLab& c2) {
  // libvmaf's weights are float fields initialised from these doubles.
  const float k_l = static_cast<float>(0.65), k_c = static_cast<float>(1.0), k_h = static_cast<float>(4.0);
  const float dl = c2.l - c1.l;
  const float l_bar = (c1.l + c2.l) / 2;
  const float ch1 = static_cast<float>(std::sqrt(sq(c1.a) + sq(c1.b)));
  const float ch2 = static_cast<float>(std::sqrt(sq(c2.a) + sq(c2.b)));
  const float c_bar = (ch1 + ch2) / 2;
  // libvmaf calls pow(c_bar, 7) four times; one call gives the same value.
  const double c_bar7 = std::pow(static_cast<double>(c_bar), 7.0);
  const double g = 1 - std::sqrt(c_bar7 / (c_bar7 + ciede::pow25_7()));
  const float ap1 = static_cast<float>(c1.a + (c1.a / 2) * g);
  const float ap2 = static_cast<float>(c2.a + (c2.a / 2) * g);
  const float cp1 = static_cast<float>(std::sqrt(sq(ap1) + sq(c1.b)));
  const float cp2 = static_cast<float>(std::sqrt(sq(ap2) + sq(c2.b)));
  const float cbp = (cp1 + cp2) / 2;
  const float dcp = cp2 - cp1;
  const float lm = l_bar - 50;
  const float s_l = static_cast<float>(1. + ((0.015 * sq(lm)) / std::sqrt(20 + sq(lm))));
  const float s_c = static_cast<float>(1. + 0.045 * cbp);
  const ciede::HueTerms ht = ciede::hue_terms(c1.b, ap1, ch1, c2.b, ap2, ch2, cbp);
  const float d_hue = static_cast<float>(2.0 * std::sqrt(static_cast<double>(cp1 * cp2)) * ht.sin_half_dhp);
  const float s_h = static_cast<float>(1.0 + 0.015 * cbp * ht.t);
  const float r_t = ciede::rotation(ht.c7, ht.sin_theta);
  const float lightness = dl / (k_l * s_l);
  const float chroma = dcp / (k_c * s_c);
  const float hue = d_hue / (k_h * s_h);
  return static_cast<float>(
      std::sqrt(sq(lightness) + sq(chroma) + sq(hue) + static_cast<double>(r_t * chroma * hue)));
}

namespace {

int align32(int n) { return (n + 31) & ~31; }

// libvmaf's chroma memory of one picture: U then V, each of ch rows of
// `stride` samples (cw of them written, the rest zero), contiguous; `off`
// counts samples from U's first. Past V's end: 0 (ciede.h).
template <typename T>
uint16_t chroma_memory(const Picture& pic, int64_t off, int cw, int ch, int stride) {
  const int64_t plane = static_cast<int64_t>(stride) * ch;
  if (off >= 2 * plane) return 0;
  const int p = off >= plane ? 2 : 1;
  const int64_t rem = off - (p - 1) * plane;
  const int row = static_cast<int>(rem / stride), col = static_cast<int>(rem % stride);
  if (col >= cw) return 0;
  return pic.plane(p).row<T>(row)[col];
}

template <typename T>
void chroma_row(const Picture& pic, int p, int i, uint16_t* out) {
  const VideoFormat& f = pic.format();
  const int cw = f.plane_w(1), ch = f.plane_h(1), stride = align32(cw);
  // libvmaf halves columns on the vertical subsampling flag (4:2:0 only) and
  // steps rows on the horizontal one (4:2:0 and 4:2:2).
  const bool half_cols = f.fmt == PixFmt::k420;
  const int row = i >> 1;
  const int64_t start = (p == 2 ? static_cast<int64_t>(stride) * ch : 0) + static_cast<int64_t>(row) * stride;
  const T* src = row < ch ? pic.plane(p).row<T>(row) : nullptr;
  for (int j = 0; j < f.w; ++j) {
    const int col = half_cols ? j >> 1 : j;
    out[j] = (src && col < cw) ? static_cast<uint16_t>(src[col]) : chroma_memory<T>(pic, start + col, cw, ch, stride);
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
