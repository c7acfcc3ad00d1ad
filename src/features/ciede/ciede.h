// ciede: the CIEDE2000 colour difference between reference and distorted
// pictures, averaged over the luma grid, as a dB-like score.
//
// Reference: libvmaf f85a8536 feature/ciede.c (a port of av-metrics' ciede).
// Output ciede2000; no options. Input 8, 10, 12 or 16 bit, 4:2:0, 4:2:2 or
// 4:4:4; init refuses 4:0:0 (no colour) and every other depth, as libvmaf
// does (its init, or its extract for 4:4:4).
//
// What it computes, per luma position (i, j), for the reference and the
// distorted picture alike:
//   chroma  4:4:4: the samples at (i, j). Otherwise libvmaf's nearest-neighbour
//           upsampling, reproduced with its 4:2:2 error: row i reads chroma
//           row i/2 (4:2:0 and 4:2:2), column j reads column j/2 for 4:2:0 but
//           column j for 4:2:2, through libvmaf's picture memory (ciede_chroma_row:
//           rows of the floor chroma size, align32 samples apart, zero padding,
//           U then V contiguous), so 4:2:2 columns past the chroma width read
//           the padding and then the next chroma row.
//   Lab     (double, per sample s: Y' = (s - 16k) / (219k), Cb/Cr = (s - 128k) / (224k),
//           k = 2^(bpc-8)) -> R'G'B' with BT.709 coefficients 1.28033, 0.21482,
//           0.38059, 2.12798 -> linear (pow(.., 2.4) above 10/255, /12.92 below)
//           -> XYZ (sRGB D65 matrix) -> f(t) = cbrt by pow(t, 1/3) above
//           216/24389, (24389/27 t + 16) / 116 below, each ROUNDED TO FLOAT
//           -> L = 116 fy - 16, a = 500 (fx - fy), b = 200 (fy - fz), each float.
//   dE00    CIEDE2000 with kL = 0.65, kC = 1, kH = 4 in libvmaf's float/double
//           mix (ciede_de00: every intermediate rounded to float where libvmaf
//           stores a float; libm pow/powf/sqrt/atan2/sin/cos/exp in double or
//           float exactly as libvmaf calls them; docs/ciede.md lists them).
//   sum     S = the running DOUBLE sum, from +0, of the float dE00 values in
//           raster order (libvmaf's de00_sum).
//   score   ciede2000 = 45 - 20 * log10(S / (w * h)); identical pictures: +inf.
//
// Terms and finish: the split and why it is exact.
// S is one running double sum over every pixel: no grouping of double partial
// sums reproduces it in general (each addition rounds on the running value),
// while every dE00 depends on its own pixel only. So:
//   CiedeTerms = a sequence of doubles whose running sum from +0 is S. The
//     CPU kernel adds the pixels' dE00 in raster order as it goes and keeps
//     the single term S (storing 4-8 bytes per pixel per frame in flight would
//     buy nothing: the plain loop IS the ordered sum). A GPU twin computes
//     the per-pixel dE00 in parallel and reduces them with base/ordered_sum.h's
//     tree (F = double, terms (double)dE00), whose value is the plain loop's
//     bit for bit, and sends that single term.
//   finish = the division by w*h, log10 and the offset (ciede_score), shared.
// The CUDA twin (ciede.cu) evaluates the same arithmetic (ciede_math.h) on
// intervals that hold every value glibc's libm can give (ciede_bounds.h); a
// pixel whose dE00 they do not pin to one float is computed on the host.
//
// Special values: dE00 of equal Lab colours is +0 (every difference is 0);
// dE00 is never -0 (sqrt of a sum of squares that starts at +0); a NaN dE00
// (sqrt of a rounded negative) would propagate as in libvmaf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hd_math.h"
#include "core/picture.h"
#include "features/ciede/ciede_math.h"
#include "features/feature.h"

namespace twinmaf {

namespace gpu {
class DeviceBuffer;
}

struct CiedeTerms final : FrameTermsOf<CiedeTerms> {
  double de00_sum = 0;  // the running double sum of the terms, from +0
  bool operator==(const CiedeTerms& o) const { return double_bits(de00_sum) == double_bits(o.de00_sum); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.de00_sum); }
};

struct CiedeLab {
  float l, a, b;
};

// The limited-range levels of a bit depth: black 16k, mid 128k, and the gains
// 1/(219k), 1/(224k) (k = 2^(bpc-8)), as libvmaf computes them.
using CiedeLevels = ciede::Levels;
CiedeLevels ciede_levels(int bpc);

// One Y'CbCr sample triple to CIE Lab (libvmaf's get_lab_color).
CiedeLab ciede_lab(double y, double u, double v, const CiedeLevels& k);

// CIEDE2000 of two Lab colours (kL 0.65, kC 1, kH 4), libvmaf's arithmetic.
float ciede_de00(const CiedeLab& ref, const CiedeLab& dis);

// Chroma row i of plane p (1 or 2) at luma width, as libvmaf's ciede reads
// it from `pic` (4:2:0 or 4:2:2; see above): out[0 .. w-1]. Reads past the
// end of libvmaf's picture buffer (the last chroma row of V in some odd or
// 1-row sizes) are taken as 0, what libvmaf's CLI read there in the golden
// runs (docs/ciede.md).
void ciede_chroma_row(const Picture& pic, int p, int i, uint16_t* out);

// Lab colours of sample triples already seen, direct-mapped (up to 2^19
// slots): a Lab colour depends on its triple and the depth only, so a hit
// returns what ciede_lab would. Real content repeats its triples (55-80
// thousand distinct ones in a 1080p 8-bit frame of 2 million pixels, about a
// million at 10 bit) within and across frames, so one cache serves a
// sequence; one thread at a time.
class CiedeLabCache {
 public:
  CiedeLabCache(int bpc, size_t pixels);
  // Starts loading the slot of a triple get() will ask for soon: the table
  // outgrows the processor's caches and a miss costs more than a Lab colour.
  void prefetch(uint16_t y, uint16_t u, uint16_t v) const { __builtin_prefetch(&slot(key_of(y, u, v))); }
  const CiedeLab& get(uint16_t y, uint16_t u, uint16_t v) {
    const uint64_t key = key_of(y, u, v);
    Slot& s = slot(key);
    if (s.key != key) {
      s.key = key;
      s.lab = ciede_lab(y, u, v, k_);
    }
    return s.lab;
  }

 private:
  struct Slot {
    uint64_t key = ~uint64_t{0};  // no triple has all 64 bits set
    CiedeLab lab{};
  };
  static uint64_t key_of(uint16_t y, uint16_t u, uint16_t v) {
    return (uint64_t{y} << 32) | (uint64_t{u} << 16) | v;
  }
  size_t index(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  Slot& slot(uint64_t key) { return slots_[index(key)]; }
  const Slot& slot(uint64_t key) const { return slots_[index(key)]; }

  CiedeLevels k_;
  std::vector<Slot> slots_;
  int shift_ = 0;
};

// dE00 of 8-bit pixels already seen, keyed by both sample triples,
// direct-mapped (up to 2^20 slots). Exact: a pixel's dE00 is a function of
// its two triples alone (ciede_lab of each at the extractor's depth, then
// ciede_de00; no other input, no state), and the row kernels equal
// ciede_de00 bit for bit, so a hit returns the very float the kernel would
// compute. The full 48-bit key is stored, so a hit is never another pair.
// 8 bit only: real content repeats its pairs (1080p: 0.8 million distinct
// among 1.9 million differing pixels per frame, 2.1 million over 4 frames),
// while at 10 bit about 90% of the pairs are new and a lookup would cost
// more than it saves. One thread at a time.
class CiedePairCache {
 public:
  explicit CiedePairCache(size_t pixels);
  static uint64_t key_of(const uint16_t (&ref)[3], const uint16_t (&dis)[3]) {
    return (uint64_t{ref[0]} << 40) | (uint64_t{ref[1]} << 32) | (uint64_t{ref[2]} << 24) |
           (uint64_t{dis[0]} << 16) | (uint64_t{dis[1]} << 8) | dis[2];
  }
  void prefetch(uint64_t key) const { __builtin_prefetch(&slots_[index(key)]); }
  // The dE00 stored for key, or nullptr.
  const float* find(uint64_t key) const {
    const Slot& s = slots_[index(key)];
    return s.key == key ? &s.de00 : nullptr;
  }
  void put(uint64_t key, float de00) { slots_[index(key)] = {key, de00}; }

 private:
  struct Slot {
    uint64_t key = ~uint64_t{0};  // no 48-bit key has all 64 bits set
    float de00 = 0;
  };
  size_t index(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }

  std::vector<Slot> slots_;
  int shift_ = 0;
};

// n colour pairs as arrays: pair k is the reference colour (l[0][k], a[0][k],
// b[0][k]) and the distorted one (l[1][k], a[1][k], b[1][k]).
struct CiedeLabPairs {
  const float* l[2];
  const float* a[2];
  const float* b[2];
};
// de00[k] = ciede_de00 of pair k, k < n.
using CiedeDe00Row = void (*)(const CiedeLabPairs& pairs, size_t n, float* de00);
// The reference: ciede_de00 itself per pair.
void ciede_de00_row_ref(const CiedeLabPairs& pairs, size_t n, float* de00);
// Highway (ciede_simd.cpp), dispatched to the best target base/simd.h
// allows: the arithmetic in lanes, the libm calls per lane (ciede_math.h);
// equal to the reference on every input and target (tests/simd).
void ciede_de00_row_simd(const CiedeLabPairs& pairs, size_t n, float* de00);

// The CPU kernels compute() runs (dav1d's dsp table). ciede_dsp_init fills
// the reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
struct CiedeDsp {
  CiedeDe00Row de00_row;
};
const CiedeDsp& ciede_dsp_ref();     // ciede_ref.cpp
const CiedeDsp& ciede_dsp_simd();    // ciede_simd.cpp
void ciede_dsp_init(CiedeDsp& dsp);  // ciede_simd.cpp

// S for one frame: each row's differing pixels' dE00 from `pairs` (8 bit;
// nullptr: none), the others by `de00_row` on Lab colours through `labs`,
// then stored in `pairs`; pixels whose two triples are equal add +0 and are
// skipped. The extractor passes its table's de00_row.
double ciede_sum(const Picture& ref, const Picture& dis, CiedeLabCache& labs, CiedePairCache* pairs,
                 CiedeDe00Row de00_row);

// Whether this host's powf(c, 7.0f) is what ciede_bounds.h's model says, on
// 2^16 floats spread over the model's range: the twin's start refuses a host
// where it is not (tests/unit/ciede_bounds_test.cpp checks every float).
bool ciede_powf_model_holds();

// finish: the score from S for a w x h luma grid.
double ciede_score(double de00_sum, int w, int h);

const FeatureSpec& ciede_feature_spec();

// CUDA twin (ciede.cu, ciede_cuda.cpp; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_ciede_twin(const Extractor& configured, const VideoFormat& fmt, gpu::Context& ctx);
// The 8-bit twin's table: ciede_lab of every 8-bit triple (ciede_kernels.h's
// CiedeLabEntry at y << 16 | u << 8 | v, 256 MiB), built on first use in a
// CUDA context and shared while any twin of that context holds it.
Result<std::shared_ptr<const gpu::DeviceBuffer>> ciede_lab_table(gpu::Context& ctx);

}  // namespace twinmaf
