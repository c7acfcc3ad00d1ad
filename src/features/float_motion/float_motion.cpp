// float_motion extractor: options, init limits, the temporal compute (blurred
// previous frame kept between calls), finish and flush (contract:
// float_motion.h).
#include "features/float_motion/float_motion.h"

#include <cstring>
#include <string>
#include <utility>

#include "base/hd_math.h"
#include "base/ordered_sum.h"
#include "features/common/float_picture.h"
#include "features/common/shared_rows.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// C's MIN macro: the second operand unless the first is smaller (NaN too).
double c_min(double a, double b) { return a < b ? a : b; }

constexpr const char* kMotionName = "VMAF_feature_motion_score";
constexpr const char* kMotion2Name = "VMAF_feature_motion2_score";
constexpr const char* kMotion3Name = "VMAF_feature_motion3_score";

// libvmaf's VIF_BILINEAR_MAX_WIDTH: the widest half-size picture it scales.
constexpr int kMaxScaledWidth = 7680;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// The kernels' options (FloatMotionParams' first four) and finish()'s.
struct FloatMotionOptions : FloatMotionParams {
  bool debug = true;
  double fps_weight = 1.0, blend_factor = 1.0, blend_offset = 40.0, max_val = 10000.0;
};

class FloatMotion final : public Extractor {
 public:
  using Params = FloatMotionOptions;
  static const OptionTable<Params>& options();

  FloatMotion(const Params& p, const Options& o)
      : debug_(p.debug),
        fps_weight_(p.fps_weight),
        blend_factor_(p.blend_factor),
        blend_offset_(p.blend_offset),
        max_val_(p.max_val),
        motion_name_(o.feature_name(kMotionName)),
        motion2_name_(o.feature_name(kMotion2Name)),
        motion3_name_(o.feature_name(kMotion3Name)),
        p_(p) {}

  Status init(const VideoFormat& fmt) override;

  // libvmaf's TEMPORAL: compute() keeps the previous frame's blurred
  // pictures (its state is the previous frame's). The twin reads the previous
  // reference instead (prev_ref 1).
  FeatureNeeds needs() const override {
    if (p_.force_zero) return {.ref = Planes::kNone, .dis = Planes::kNone, .temporal = true, .state_frames = 0};
    return {.ref = p_.add_uv ? Planes::kAll : Planes::kLuma, .dis = Planes::kNone, .prev_ref = 1, .temporal = true,
            .state_frames = 1};
  }

  const FloatMotionParams& params() const { return p_; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<FloatMotionTerms>(); }
  Status compute(const FrameInput& in, FrameTerms& terms) const override;
  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override;
  Status flush(Collector& out) override;

 private:
  double blend(double m) const { return m * blend_factor_ + (1 - blend_factor_) * c_min(blend_offset_, m); }
  // score_i of a frame i >= 1 from its terms.
  double score(const FloatMotionTerms& t) const;
  // motion2 and motion3 of frame `index` from the motion value m.
  Status write_window(Collector& out, unsigned index, double m) {
    TWINMAF_RETURN_IF_ERROR(out.append(motion2_name_, index, c_min(m * fps_weight_, max_val_)));
    return out.append(motion3_name_, index, c_min(blend(m * fps_weight_), max_val_));
  }

  bool debug_;
  double fps_weight_, blend_factor_, blend_offset_, max_val_;
  std::string motion_name_, motion2_name_, motion3_name_;
  FloatMotionParams p_;
  std::vector<float> taps_;
  std::ptrdiff_t stride_ = 0;  // floats per row of every work picture (the luma width)

  // compute(): blurred pictures of the previous frame and scratch; temporal,
  // so calls come one at a time, in index order.
  mutable std::vector<float> picture_[3], tmp_, blur_[3], prev_blur_[3], half_a_, half_b_;
  mutable bool have_prev_ = false;

  // finish()/flush(): the last frame finished and its score.
  bool finished_any_ = false;
  unsigned last_index_ = 0;
  double last_score_ = 0;
};

Status FloatMotion::init(const VideoFormat& fmt) {
  if (p_.add_scale1) {
    const int scaled_width = static_cast<int>(fmt.w * 0.5 + 0.5);
    if (scaled_width > kMaxScaledWidth)
      TWINMAF_FAIL(kUnsupported,
                   "float_motion: motion_add_scale1 scales the {}-wide picture to {} columns, more than the "
                   "{} libvmaf supports",
                   fmt.w, scaled_width, kMaxScaledWidth);
  }
  if (p_.add_uv && fmt.fmt == PixFmt::k400)
    TWINMAF_FAIL(kUnsupported, "float_motion: motion_add_uv needs chroma planes; the input is 4:0:0");
  if (p_.force_zero) return ok_status();
  if (!float_picture_depth_ok(fmt.bpc))
    TWINMAF_FAIL(kUnsupported,
                 "float_motion: bit depth {} is not supported (libvmaf's float conversion handles 8, 10, 12 and "
                 "16 bit only)",
                 fmt.bpc);
  if (p_.add_uv && p_.add_scale1 && fmt.fmt != PixFmt::k444)
    TWINMAF_FAIL(kUnsupported,
                 "float_motion: motion_add_uv with motion_add_scale1 is supported for 4:4:4 only (on {} "
                 "libvmaf scales the chroma planes with a wrong row stride, reading memory it never wrote)",
                 pix_fmt_name(fmt.fmt));
  taps_ = float_motion_filter(p_.filter_size);
  const int min_size = static_cast<int>(taps_.size()) / 2 + 1;
  p_.bpc = fmt.bpc;
  p_.planes = p_.add_uv ? 3 : 1;
  for (int pl = 0; pl < p_.planes; ++pl) {
    p_.w[pl] = fmt.plane_w(pl);
    p_.h[pl] = fmt.plane_h(pl);
    if (p_.w[pl] < min_size || p_.h[pl] < min_size)
      TWINMAF_FAIL(kUnsupported,
                   "float_motion: plane {} is {}x{}, below the {}x{} its {}-tap mirrored blur needs (libvmaf reads "
                   "outside the plane)",
                   pl, p_.w[pl], p_.h[pl], min_size, min_size, taps_.size());
    p_.w1[pl] = static_cast<int>(p_.w[pl] * 0.5 + 0.5);
    p_.h1[pl] = static_cast<int>(p_.h[pl] * 0.5 + 0.5);
  }
  stride_ = fmt.w;
  const size_t n = static_cast<size_t>(fmt.w) * static_cast<size_t>(fmt.h);
  tmp_.resize(n);
  for (int pl = 0; pl < p_.planes; ++pl) {
    picture_[pl].resize(n);
    blur_[pl].resize(n);
    prev_blur_[pl].resize(n);
  }
  if (p_.add_scale1) {
    half_a_.resize(static_cast<size_t>(p_.w1[0]) * static_cast<size_t>(p_.h1[0]));
    half_b_.resize(half_a_.size());
  }
  have_prev_ = false;
  return ok_status();
}

Status FloatMotion::compute(const FrameInput& in, FrameTerms& terms) const {
  auto& t = down_cast<FloatMotionTerms&>(terms);
  for (int pl = 0; pl < 3; ++pl) {
    t.rows[pl].clear();
    t.rows_scale1[pl].clear();
  }
  if (p_.force_zero) return ok_status();
  // The run's first frame (0, or a segment's warm-up frame whose terms are
  // dropped) only blurs.
  if (in.index == in.state_from) have_prev_ = false;
  for (int pl = 0; pl < p_.planes; ++pl) {
    float_picture_plane(in.ref->plane(pl), p_.bpc, -128, picture_[pl].data(), stride_);
    float_motion_blur_ref(taps_, picture_[pl].data(), p_.w[pl], p_.h[pl], stride_, tmp_.data(), blur_[pl].data());
  }
  if (in.index > in.state_from) {
    if (!have_prev_)
      TWINMAF_FAIL(kInternal, "float_motion: frame {} computed without frame {} before it", in.index, in.index - 1);
    for (int pl = 0; pl < p_.planes; ++pl) {
      const float* prev = prev_blur_[pl].data();
      const float* cur = blur_[pl].data();
      t.rows[pl].reserve(static_cast<size_t>(p_.h[pl]));
      float_motion_sad_rows_ref(prev, cur, p_.w[pl], p_.h[pl], stride_, t.rows[pl]);
      if (p_.add_scale1) {
        float_motion_scale_ref(prev, p_.w[pl], p_.h[pl], stride_, half_a_.data(), p_.w1[pl], p_.h1[pl]);
        float_motion_scale_ref(cur, p_.w[pl], p_.h[pl], stride_, half_b_.data(), p_.w1[pl], p_.h1[pl]);
        float_motion_sad_rows_ref(half_a_.data(), half_b_.data(), p_.w1[pl], p_.h1[pl], p_.w1[pl],
                                  t.rows_scale1[pl]);
      }
    }
  }
  for (int pl = 0; pl < p_.planes; ++pl) std::swap(blur_[pl], prev_blur_[pl]);
  have_prev_ = true;
  return ok_status();
}

double FloatMotion::score(const FloatMotionTerms& t) const {
  double s = 0;
  for (int pl = 0; pl < p_.planes; ++pl) {
    // float / (float)(int), as libvmaf's accum / (width * height).
    float m = ordered_sum(t.rows[pl]) / static_cast<float>(p_.w[pl] * p_.h[pl]);
    if (p_.add_scale1) m = m + ordered_sum(t.rows_scale1[pl]) / static_cast<float>(p_.w1[pl] * p_.h1[pl]);
    // libvmaf: score = Y, then score += U, score += V.
    s = pl == 0 ? static_cast<double>(m) : s + static_cast<double>(m);
  }
  return s;
}

Status FloatMotion::finish(unsigned index, const FrameTerms& terms, Collector& out) {
  const auto& t = down_cast<const FloatMotionTerms&>(terms);
  if (p_.force_zero) {
    TWINMAF_RETURN_IF_ERROR(out.append(motion2_name_, index, 0.));
    TWINMAF_RETURN_IF_ERROR(out.append(motion3_name_, index, 0.));
    if (debug_) TWINMAF_RETURN_IF_ERROR(out.append(motion_name_, index, 0.));
    return ok_status();
  }
  if (index == 0) {
    TWINMAF_RETURN_IF_ERROR(out.append(motion2_name_, 0, 0.));
    if (debug_) TWINMAF_RETURN_IF_ERROR(out.append(motion_name_, 0, 0.));
    finished_any_ = true;
    last_index_ = 0;
    last_score_ = 0;
    return ok_status();
  }
  if (!finished_any_ || last_index_ + 1 != index)
    TWINMAF_FAIL(kInternal, "float_motion: frame {} finished out of order", index);
  const double s = score(t);
  if (debug_) TWINMAF_RETURN_IF_ERROR(out.append(motion_name_, index, c_min(s * fps_weight_, max_val_)));
  if (index == 1) {
    TWINMAF_RETURN_IF_ERROR(out.append(motion3_name_, 0, c_min(blend(s * fps_weight_), max_val_)));
  } else {
    TWINMAF_RETURN_IF_ERROR(write_window(out, index - 1, last_score_ < s ? last_score_ : s));
  }
  last_index_ = index;
  last_score_ = s;
  return ok_status();
}

Status FloatMotion::flush(Collector& out) {
  if (p_.force_zero || !finished_any_) return ok_status();
  if (last_index_ > 0) return write_window(out, last_index_, last_score_);
  return out.append(motion3_name_, 0, 0.);
}

}  // namespace

bool FloatMotionTerms::operator==(const FloatMotionTerms& o) const {
  for (int pl = 0; pl < 3; ++pl)
    if (!same_bits(rows[pl], o.rows[pl]) || !same_bits(rows_scale1[pl], o.rows_scale1[pl])) return false;
  return true;
}

// libvmaf's table: names, aliases, defaults, ranges, feature-param flags.
const OptionTable<FloatMotionOptions>& FloatMotion::options() {
  using P = FloatMotionOptions;
  static const OptionTable<P> t{
      opt(&P::debug, {.name = "debug", .default_value = true, .help = "also write VMAF_feature_motion_score"}),
      motion_force_zero_row<P>(),
      opt(&P::fps_weight, {.name = "motion_fps_weight", .alias = "mfw", .default_value = 1.0, .min = 0.0, .max = 5.0,
                           .feature_param = true, .help = "frame-rate correction multiplied into each score"}),
      motion_blend_factor_row<P>(),
      motion_blend_offset_row<P>(),
      opt(&P::add_scale1, {.name = "motion_add_scale1", .alias = "mdc", .default_value = false, .feature_param = true,
                           .help = "add the SAD of the half-size blurred pictures"}),
      opt(&P::filter_size, {.name = "motion_filter_size", .alias = "mfs", .default_value = 5, .min = 0, .max = 9,
                            .feature_param = true, .help = "blur: 3 taps for 3, an identity for 1, 5 taps otherwise"}),
      opt(&P::add_uv, {.name = "motion_add_uv", .alias = "mau", .default_value = false, .feature_param = true,
                       .help = "add the chroma planes' scores"}),
      motion_max_val_row<P>(),
  };
  return t;
}

const FloatMotionParams& float_motion_params(const Extractor& configured) {
  return down_cast<const FloatMotion&>(configured).params();
}

const FeatureSpec& float_motion_feature_spec() {
  static const FeatureSpec spec{
      .name = "float_motion",
      .options = FloatMotion::options().specs(),
      .provided = {kMotionName, kMotion2Name, kMotion3Name},
      .create = create_with<FloatMotion>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_float_motion_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
