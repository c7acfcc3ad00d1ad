// motion CPU reference kernel: SAD of the 5-tap blur of (prev - cur), one row
// at a time. Contract and bounds: motion.h.
#include <cstdlib>
#include <vector>

#include "base/hd_math.h"
#include "features/motion/motion.h"

namespace twinmaf {

namespace {

template <typename T>
uint64_t blurred_diff_sad(const PlaneView& prev, const PlaneView& cur, int bpc) {
  const int w = cur.w;
  const int h = cur.h;
  const int64_t y_round = int64_t{1} << (bpc - 1);
  constexpr int64_t kXRound = int64_t{1} << 15;

  // Vertically filtered row with two reflected samples on each side.
  std::vector<int32_t> row_buf(static_cast<size_t>(w) + 4);
  int32_t* y = row_buf.data() + 2;

  uint64_t sad = 0;
  for (int i = 0; i < h; ++i) {
    const T* p[5];
    const T* c[5];
    for (int k = 0; k < 5; ++k) {
      const int r = reflect101(i - 2 + k, h);
      p[k] = prev.row<T>(r);
      c[k] = cur.row<T>(r);
    }
    bool any_nonzero = false;
    for (int j = 0; j < w; ++j) {
      int64_t acc = 0;
      for (int k = 0; k < 5; ++k) {
        const int32_t d = static_cast<int32_t>(p[k][j]) - static_cast<int32_t>(c[k][j]);
        acc += int64_t{kMotionFilter[k]} * d;
      }
      y[j] = static_cast<int32_t>((acc + y_round) >> bpc);  // floor: arithmetic shift
      any_nonzero |= y[j] != 0;
    }
    // A zero row adds (0 + 2^15) >> 16 == 0 at every column.
    if (!any_nonzero) continue;

    y[-1] = y[reflect101(-1, w)];
    y[-2] = y[reflect101(-2, w)];
    y[w] = y[reflect101(w, w)];
    y[w + 1] = y[reflect101(w + 1, w)];

    uint32_t row_sad = 0;  // libvmaf's width; cannot wrap for w <= 32768
    for (int j = 0; j < w; ++j) {
      int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += int64_t{kMotionFilter[k]} * y[j - 2 + k];
      const int32_t v = static_cast<int32_t>((acc + kXRound) >> 16);
      row_sad += static_cast<uint32_t>(std::abs(v));
    }
    sad += row_sad;
  }
  return sad;
}

}  // namespace

uint64_t motion_sad_ref(const PlaneView& prev, const PlaneView& cur, int bpc) {
  return bpc > 8 ? blurred_diff_sad<uint16_t>(prev, cur, bpc)
                 : blurred_diff_sad<uint8_t>(prev, cur, bpc);
}

const MotionDsp& motion_dsp_ref() {
  static constexpr MotionDsp k{&motion_sad_ref};
  return k;
}

}  // namespace twinmaf
