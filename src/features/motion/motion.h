// motion: temporal activity of the reference video (luma only). Two features
// share these kernels and this flush math:
//   "motion"    libvmaf f85a8536 feature/integer_motion.c (+ integer_motion.h,
//               motion_blend_tools.h): names VMAF_integer_feature_motion_sad_score,
//               ..._motion_score (debug), ..._motion2_score, ..._motion3_score.
//   "motion_v2" libvmaf e4b93c6e feature/integer_motion_v2.c, the extractor that
//               became "motion" in a4a1492d: the same numbers under the names
//               VMAF_integer_feature_motion_v2_sad_score, ..._motion2_v2_score,
//               ..._motion3_v2_score, and no debug option. (Checked line by line
//               and against the e4b93c6e goldens: kernel, per-frame score and
//               flush are identical; only names and the option table differ.)
//
// Stages
//   compute (per backend): SAD = sum over the picture of |blur(prev - cur)|,
//     prev = reference of frame i-1 (i-2 with motion_five_frame_window), as
//     one uint64 (MotionTerms). Nothing is computed for frames below the first
//     index that has a predecessor, nor with motion_force_zero.
//   finish (host, shared): motion_sad = min(SAD / 256 / (w*h) * fps_weight,
//     max_val), or 0 for those frames (motion_sad_score below).
//   flush (host, shared): motion2/motion3 for every frame from the motion_sad
//     series (motion_window_scores below), written after all per-frame scores.
//
// Kernel numeric contract (bit-exact with libvmaf's scalar pipeline):
// - Filter taps {3571, 16004, 26386, 16004, 3571} (sum 65536), radius 2, edges
//   reflected without repeating the edge sample: -k -> k, n-1+k -> n-1-k.
//   That needs n >= 3 in each direction; libvmaf reads outside the picture
//   below that, so init rejects w or h < 3 (motion_force_zero reads no pixels
//   and accepts any size).
// - Vertical pass on the sample difference d = prev - cur (|d| <= 2^bpc - 1):
//   y = (sum f[k]*d + 2^(bpc-1)) >> bpc, arithmetic shift (floor). |sum| <
//   2^16 * 2^16 needs int64 above 8 bit (libvmaf uses int32 at 8 bit, where it
//   cannot overflow; the values are the same). |y| <= 2^16 - 1 at any bpc.
// - Horizontal pass on y: v = (sum f[k]*y + 2^15) >> 16 (int64, floor), so
//   |v| <= 2^16 - 1.
// - Row sums of |v| are uint32 as in libvmaf (wrapping would need w > 65537;
//   our pictures are at most 32768 wide, so a row sum stays below 2^31), and
//   the frame SAD is the uint64 sum of the row sums (< 2^31 * 2^15 = 2^46).
//   All of it is integer addition, exact in any order: a GPU may reduce rows,
//   blocks or the whole frame with atomics or trees and get the same SAD.
// - w*h is formed in unsigned int (< 2^30 here), as libvmaf's (w * h).
//
// Flush contract (libvmaf's end cases for short sequences included): see
// motion_window_scores. min/max follow C's MIN macro (a < b ? a : b), and the
// blend is m*f + (1 - f)*MIN(offset, m), evaluated in that order in double.
//
// Under --subsample libvmaf never skips motion (PREV_REF extractor): every
// frame is computed and motion2/motion3 come from the full series; only the
// writers and pooling skip frames.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/picture.h"
#include "features/feature.h"
#include "features/motion/motion_math.h"

namespace twinmaf {

// Smallest width and height the reflected 5-tap filter is defined on.
inline constexpr int kMotionMinSize = 3;

// The options of motion / motion_v2 that decide the numbers.
struct MotionParams {
  bool force_zero = false;
  double blend_factor = 1.0;
  double blend_offset = 40.0;
  double fps_weight = 1.0;
  double max_val = 10000.0;
  bool five_frame_window = false;
  bool moving_average = false;

  // First frame index with a predecessor to compare against.
  unsigned min_index() const { return five_frame_window ? 2u : 1u; }
};

// Per-frame terms: the integer SAD of the blurred difference (0 for frames
// below min_index() and with force_zero).
struct MotionTerms final : FrameTermsOf<MotionTerms> {
  uint64_t sad = 0;
  bool operator==(const MotionTerms&) const = default;
  template <class Self, class F>
  static void fields(Self& s, F&& f) { f(s.sad); }
};

// CPU reference: SAD of blur(prev - cur) over two luma planes of equal size
// (w, h >= kMotionMinSize), samples uint8_t at bpc 8, uint16_t above.
uint64_t motion_sad_ref(const PlaneView& prev, const PlaneView& cur, int bpc);
// Highway SIMD (motion_simd.cpp), dispatched to the best target base/simd.h
// allows; equal to motion_sad_ref on every input and target (tests/simd).
uint64_t motion_sad_simd(const PlaneView& prev, const PlaneView& cur, int bpc);

// The CPU kernels compute() runs (dav1d's dsp table). motion_dsp_init fills
// the reference entries, then upgrades them to the Highway ones when
// base/simd.h allows SIMD (this CPU and --cpumask at the time of the
// fill); a Highway entry dispatches each call to the best target allowed.
// Adding a kernel: a member here and an entry in each table.
struct MotionDsp {
  uint64_t (*sad)(const PlaneView& prev, const PlaneView& cur, int bpc);
};
const MotionDsp& motion_dsp_ref();     // motion_ref.cpp
const MotionDsp& motion_dsp_simd();    // motion_simd.cpp
void motion_dsp_init(MotionDsp& dsp);  // motion_simd.cpp

// finish: motion_sad of frame `index` of a w x h stream from its SAD.
double motion_sad_score(unsigned index, uint64_t sad, int w, int h, const MotionParams& p);

// libvmaf's blend: m*f + (1 - f)*min(offset, m).
double motion_blend(double m, double factor, double offset);

struct MotionWindow {
  std::vector<double> motion2;
  std::vector<double> motion3;
};

// flush: motion2 and motion3 of every frame from the motion_sad series of
// frames 0..n-1 (libvmaf's consecutive run from frame 0). With m = min_index()
// and s = sad:
//   motion2[i] = 0 for i < m; s[i] for the last frame; otherwise
//                min(s[i - m + 1], s[i + 1]) when i - m + 1 >= m, else s[i + 1].
//   stamp      = min(blend(s[m]), max_val) if n > m, else 0.
//   motion3[i] = stamp for i < m; otherwise p_i = min(blend(motion2[i]), max_val),
//                or (p_i + p_{i-1}) / 2 with moving_average, where p_{m-1} = stamp.
// An empty series gives empty vectors (libvmaf writes nothing).
MotionWindow motion_window_scores(std::span<const double> sad, const MotionParams& p);

// The parameters of a configured motion / motion_v2.
const MotionParams& motion_params(const Extractor& configured);

// CUDA twin of both (motion.cu; defined only in CUDA builds).
Result<std::unique_ptr<Twin>> make_motion_twin(const Extractor& configured, const VideoFormat& fmt,
                                               gpu::Context& ctx);

// HEAD "motion" and the e4b93c6e "motion_v2" (same numbers, other names).
const FeatureSpec& motion_feature_spec();
const FeatureSpec& motion_v2_feature_spec();

}  // namespace twinmaf
