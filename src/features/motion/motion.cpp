// motion / motion_v2 extractors: option tables, finish (motion_sad) and flush
// (motion2/motion3), shared by every backend. Contract: motion.h.
#include "features/motion/motion.h"

#include <string>

#include "features/common/shared_rows.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// C's MIN macro: the second operand when the first is not smaller (NaN too).
double c_min(double a, double b) { return a < b ? a : b; }

struct MotionNames {
  std::string_view sad;
  std::string_view debug;  // empty: the feature has no debug output
  std::string_view motion2;
  std::string_view motion3;
};

constexpr MotionNames kMotionNames = {
    "VMAF_integer_feature_motion_sad_score",
    "VMAF_integer_feature_motion_score",
    "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_motion3_score",
};

constexpr MotionNames kMotionV2Names = {
    "VMAF_integer_feature_motion_v2_sad_score",
    "",
    "VMAF_integer_feature_motion2_v2_score",
    "VMAF_integer_feature_motion3_v2_score",
};

// The parameters and the debug flag (motion only).
struct MotionOptions : MotionParams {
  bool debug = false;
};

class Motion : public Extractor {
 public:
  Motion(std::string_view feature, const MotionNames& names, const MotionOptions& p, const Options& o)
      : feature_(feature),
        p_(p),
        debug_(!names.debug.empty() && p.debug),
        sad_name_(o.feature_name(names.sad)),
        debug_name_(names.debug.empty() ? std::string() : o.feature_name(names.debug)),
        motion2_name_(o.feature_name(names.motion2)),
        motion3_name_(o.feature_name(names.motion3)) {}

  Status init(const VideoFormat& fmt) override {
    // force_zero never reads a sample, so libvmaf is well defined at any size.
    if (!p_.force_zero && (fmt.w < kMotionMinSize || fmt.h < kMotionMinSize))
      TWINMAF_FAIL(kUnsupported,
                   "{}: needs at least {}x{} luma samples for its reflected 5-tap blur "
                   "(libvmaf reads outside the picture below that); got {}x{}",
                   feature_, kMotionMinSize, kMotionMinSize, fmt.w, fmt.h);
    fmt_ = fmt;
    motion_dsp_init(dsp_);
    return ok_status();
  }

  // libvmaf's PREV_REF: the reference of frame index-1 (index-2 with the
  // five-frame window), every frame; reference-only. force_zero keeps the
  // declaration: its frames are still every frame, in the same series.
  FeatureNeeds needs() const override {
    return {.ref = Planes::kLuma, .dis = Planes::kNone, .prev_ref = static_cast<int>(p_.min_index())};
  }

  const MotionParams& params() const { return p_; }
  std::unique_ptr<FrameTerms> make_terms() const override {
    return std::make_unique<MotionTerms>();
  }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<MotionTerms&>(terms);
    t.sad = 0;
    if (p_.force_zero || in.index < p_.min_index()) return ok_status();
    const Picture* prev = in.prev_ref[p_.min_index() - 1];
    if (!prev)
      TWINMAF_FAIL(kInternal, "{}: frame {} arrived without the reference of frame {}", feature_,
                   in.index, in.index - p_.min_index());
    t.sad = dsp_.sad(prev->plane(0), in.ref->plane(0), fmt_.bpc);
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& t = down_cast<const MotionTerms&>(terms);
    const double score = motion_sad_score(index, t.sad, fmt_.w, fmt_.h, p_);
    if (index >= sad_.size()) {
      sad_.resize(index + 1, 0.0);
      written_.resize(index + 1, 0);
    }
    sad_[index] = score;
    written_[index] = 1;
    TWINMAF_RETURN_IF_ERROR(out.append(sad_name_, index, score));
    if (debug_) TWINMAF_RETURN_IF_ERROR(out.append(debug_name_, index, score));
    return ok_status();
  }

  Status flush(Collector& out) override {
    // libvmaf uses the run of consecutive motion_sad scores from frame 0.
    size_t n = 0;
    while (n < written_.size() && written_[n]) ++n;
    const MotionWindow win = motion_window_scores(std::span<const double>(sad_.data(), n), p_);
    for (size_t i = 0; i < n; ++i) {
      const auto idx = static_cast<unsigned>(i);
      TWINMAF_RETURN_IF_ERROR(out.append(motion2_name_, idx, win.motion2[i]));
      TWINMAF_RETURN_IF_ERROR(out.append(motion3_name_, idx, win.motion3[i]));
    }
    return ok_status();
  }

 private:
  std::string_view feature_;
  MotionParams p_;
  bool debug_;
  std::string sad_name_;
  std::string debug_name_;
  std::string motion2_name_;
  std::string motion3_name_;
  VideoFormat fmt_;
  MotionDsp dsp_ = motion_dsp_ref();  // chosen by init
  std::vector<double> sad_;      // motion_sad by frame index
  std::vector<uint8_t> written_;  // which indices finish() has seen
};

// libvmaf's table (names, aliases, defaults, ranges, feature-param flags);
// motion_v2 at e4b93c6e has the same table without `debug`.
OptionTable<MotionOptions> motion_options(bool with_debug) {
  using P = MotionOptions;
  OptionTable<P> t{
      motion_force_zero_row<P>(),
      motion_blend_factor_row<P>(),
      motion_blend_offset_row<P>(),
      opt(&P::fps_weight, {.name = "motion_fps_weight", .alias = "mfw", .default_value = 1.0, .min = 0.0, .max = 5.0,
                           .feature_param = true, .help = "frame-rate correction multiplied into each SAD score"}),
      motion_max_val_row<P>(),
      opt(&P::five_frame_window, {.name = "motion_five_frame_window", .alias = "mffw", .default_value = false,
                                  .feature_param = true,
                                  .help = "compare each frame with the one two back (five-frame window)"}),
      opt(&P::moving_average, {.name = "motion_moving_average", .alias = "mma", .default_value = false,
                               .feature_param = true, .help = "average motion3 with the previous frame's value"}),
  };
  if (with_debug)
    t.add(opt(&P::debug, {.name = "debug", .default_value = false,
              .help = "also write VMAF_integer_feature_motion_score"}));
  return t;
}

// motion and motion_v2: one extractor under two names, output names and
// tables.
struct MotionKind {
  std::string_view feature;
  MotionNames names;
};
constexpr MotionKind kMotion = {"motion", kMotionNames};
constexpr MotionKind kMotionV2 = {"motion_v2", kMotionV2Names};

template <const MotionKind& K>
class MotionOf final : public Motion {
 public:
  using Params = MotionOptions;
  static const OptionTable<Params>& options() {
    static const OptionTable<Params> t = motion_options(!K.names.debug.empty());
    return t;
  }
  MotionOf(const Params& p, const Options& o) : Motion(K.feature, K.names, p, o) {}
};

}  // namespace

const MotionParams& motion_params(const Extractor& configured) {
  return down_cast<const Motion&>(configured).params();
}

double motion_blend(double m, double factor, double offset) {
  return m * factor + (1 - factor) * c_min(offset, m);
}

double motion_sad_score(unsigned index, uint64_t sad, int w, int h, const MotionParams& p) {
  if (p.force_zero || index < p.min_index()) return 0.;
  const unsigned area = static_cast<unsigned>(w) * static_cast<unsigned>(h);
  const double score = static_cast<double>(sad) / 256. / static_cast<double>(area) * p.fps_weight;
  return c_min(score, p.max_val);
}

MotionWindow motion_window_scores(std::span<const double> sad, const MotionParams& p) {
  const size_t n = sad.size();
  const size_t m = p.min_index();
  MotionWindow win;
  win.motion2.resize(n);
  win.motion3.resize(n);
  const double stamp = n > m ? c_min(motion_blend(sad[m], p.blend_factor, p.blend_offset), p.max_val)
                             : 0.;
  double prev_processed = stamp;
  for (size_t i = 0; i < n; ++i) {
    double motion2 = 0.;
    if (i >= m) {
      if (i + 1 >= n) {
        motion2 = sad[i];
      } else if (i + 1 >= 2 * m) {  // lo = i - (m - 1) >= m
        const double lo = sad[i + 1 - m];
        const double hi = sad[i + 1];
        motion2 = c_min(lo, hi);
      } else {
        motion2 = sad[i + 1];
      }
    }
    win.motion2[i] = motion2;
    if (i < m) {
      win.motion3[i] = stamp;
    } else {
      const double processed =
          c_min(motion_blend(motion2, p.blend_factor, p.blend_offset), p.max_val);
      win.motion3[i] = p.moving_average ? (processed + prev_processed) / 2.0 : processed;
      prev_processed = processed;
    }
  }
  return win;
}

const FeatureSpec& motion_feature_spec() {
  static const FeatureSpec spec{
      .name = "motion",
      .options = MotionOf<kMotion>::options().specs(),
      .provided = {kMotionNames.sad, kMotionNames.debug, kMotionNames.motion2,
                   kMotionNames.motion3},
      .create = create_with<MotionOf<kMotion>>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_motion_twin,
#endif
  };
  return spec;
}

const FeatureSpec& motion_v2_feature_spec() {
  static const FeatureSpec spec{
      .name = "motion_v2",
      .options = MotionOf<kMotionV2>::options().specs(),
      .provided = {kMotionV2Names.sad, kMotionV2Names.motion2, kMotionV2Names.motion3},
      .create = create_with<MotionOf<kMotionV2>>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_motion_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
