// speed_chroma / speed_temporal extractors: option tables, limits, and the
// finish turning bands into libvmaf's scores (contract: speed.h).
#include "features/speed/speed.h"

#include "features/common/float_picture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/hd_math.h"
#include "features/common/float_filter.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

constexpr const char* kChromaNames[3] = {
    "Speed_chroma_feature_speed_chroma_u_score",
    "Speed_chroma_feature_speed_chroma_v_score",
    "Speed_chroma_feature_speed_chroma_uv_score",
};
constexpr const char* kTemporalName = "Speed_temporal_feature_speed_temporal_score";

// libvmaf's two tables share these six options (names, aliases, defaults,
// ranges, all feature parameters).
OptionTable<SpeedParams> speed_options(bool chroma) {
  using P = SpeedParams;
  OptionTable<P> t{
      opt(&P::kernelscale, {.name = "speed_kernelscale", .alias = "ks", .default_value = 1.0, .min = 0.1, .max = 4.0,
                            .feature_param = true,
                            .help = "Gaussian kernel scale (2 doubles the standard deviation and the kernel size); "
                                    "one of libvmaf's 21 accepted values"}),
      opt(&P::prescale, {.name = "speed_prescale", .alias = "ps", .default_value = 1.0, .min = 0.1, .max = 4.0,
                         .feature_param = true,
                         .help = "resize factor applied to each side before filtering (2 doubles them)"}),
      // A name other than the four is refused at creation (libvmaf logs it and
      // then crashes on its unallocated buffers).
      opt(&P::prescale_method, {.name = "speed_prescale_method", .alias = "psm",
                                .default_value = ResampleMethod::kNearest, .feature_param = true,
                                .help = "resampler for speed_prescale: nearest, bilinear, bicubic or lanczos4"}),
      opt(&P::sigma_nn, {.name = "speed_sigma_nn", .alias = "snn", .default_value = 0.29, .min = 0.1, .max = 2.0,
                         .feature_param = true, .help = "standard deviation of the neural noise"}),
      opt(&P::nn_floor, {.name = "speed_nn_floor", .alias = "nnf", .default_value = 0.0, .min = 0.0, .max = 1.0,
                         .feature_param = true, .help = "neural noise floor, as a fraction of speed_sigma_nn"}),
      opt(&P::max_val, {.name = "speed_max_val", .alias = "mxv", .default_value = 1000.0, .min = 0.0, .max = 1000.0,
                        .feature_param = true,
                        .help = chroma ? "upper clip for the scores" : "upper clip for the score (libvmaf's "
                          "speed_temporal accepts it but does not apply it; it only renames the output)"}),
  };
  if (chroma)
    t.add(opt(&P::weight_var_mode, {.name = "speed_weight_var_mode", .alias = "wvm", .default_value = 0,
              .min = 0, .max = 6, .feature_param = true,
              .help = "which variances weight the two entropies (0..6)"}));
  else
    t.add(opt(&P::use_ref_diff, {.name = "speed_use_ref_diff", .alias = "urd", .default_value = false,
              .feature_param = true,
              .help = "difference the distorted frame against the current reference frame"}));
  return t;
}

// libvmaf logs this and then crashes on its unallocated buffers.
Status check_kernelscale(std::string_view feature, const SpeedParams& p) {
  if (!kernelscale_is_valid(static_cast<float>(p.kernelscale)))
    TWINMAF_FAIL(kInvalidArgument,
                 "{}: speed_kernelscale {} is not one of libvmaf's ({}, within 1e-3)", feature,
                 format_g(p.kernelscale), kernelscales_text());
  return ok_status();
}

// libvmaf's picture_copy divisor (features/common/float_picture.h); it reads
// other depths as 8-bit samples.
Result<float> sample_divisor(std::string_view feature, int bpc) {
  if (float_picture_depth_ok(bpc)) return float_picture_scale(bpc);
  TWINMAF_FAIL(kUnsupported,
               "{}: bit depth {} is not supported (8, 10, 12 or 16; libvmaf's float conversion "
               "reads other depths as 8-bit samples)",
               feature, bpc);
}

// Whether an anti-alias output kept at 1/16 scale (outputs of them along an
// axis of `scaled` samples, radius r, reflect-101 at `scaled`) reads a sample
// at or past n.
bool reaches(int scaled, int n, int r, int outputs) {
  for (int k = 0; k < outputs; ++k)
    for (int t = -r; t <= r; ++t)
      if (reflect101(k * kSpeedDecimation + t, scaled) >= n) return true;
  return false;
}

// Resolves the kernels' parameters for a w x h input plane.
Result<SpeedKernelParams> kernel_params(std::string_view feature, std::string_view plane, int w,
                                        int h, int bpc, const SpeedParams& p) {
  SpeedKernelParams kp;
  kp.g = speed_geometry(w, h, p);
  kp.prescale = p.prescales();
  kp.method = p.prescale_method;
  kp.bpc = bpc;
  TWINMAF_ASSIGN_OR_RETURN(kp.sample_divisor, sample_divisor(feature, bpc));
  const SpeedGeometry& g = kp.g;
  if (g.scaled_w < kSpeedMinScaled || g.scaled_h < kSpeedMinScaled) {
    const std::string scaled =
        kp.prescale ? fmt::format(" ({}x{} after speed_prescale {})", g.scaled_w, g.scaled_h,
                                  format_g(p.prescale))
                    : std::string();
    TWINMAF_FAIL(kUnsupported,
                 "{}: the {} is {}x{}{}, below the minimum of {}x{} (one {}x{} block at 1/{} "
                 "scale; libvmaf divides by zero blocks and crashes)",
                 feature, plane, w, h, scaled, kSpeedMinScaled, kSpeedMinScaled, kSpeedBlock,
                 kSpeedBlock, kSpeedDecimation);
  }
  const float ks = static_cast<float>(p.kernelscale);
  const int aa = gaussian_filter_size(1, ks);
  // Without resampling libvmaf still filters scaled_w x scaled_h samples; a
  // side rounded up past the input reads samples it never wrote. Only when
  // no kept output reaches them is the result defined.
  if (!kp.prescale &&
      (reaches(g.scaled_w, w, aa / 2, g.op_w) || reaches(g.scaled_h, h, aa / 2, g.op_h)))
    TWINMAF_FAIL(kUnsupported,
                 "{}: speed_prescale {} is within 1e-3 of 1, so libvmaf does not resample, yet it "
                 "rounds the {} {}x{} up to {}x{} and its result depends on samples it never wrote",
                 feature, format_g(p.prescale), plane, w, h, g.scaled_w, g.scaled_h);
  // libvmaf widens the scale-1 window's deviation by sqrt(4): the blur
  // before keeping every 16th sample.
  kp.antialias = gaussian_taps(aa, static_cast<float>(std::sqrt(4.0) * aa / 5.0));
  kp.local_mean = vif_gaussian_filter(4, ks);
  return kp;
}

// What both extractors resolve at init and their twins read.
class SpeedExtractor : public Extractor {
 public:
  explicit SpeedExtractor(const SpeedParams& p) : p_(p) {}
  const SpeedParams& params() const { return p_; }
  const SpeedKernelParams& kernels() const { return kp_; }

 protected:
  SpeedParams p_;
  SpeedKernelParams kp_;
  SpeedDsp dsp_ = speed_dsp_ref();  // chosen by init
};

class SpeedChroma final : public SpeedExtractor {
 public:
  using Params = SpeedParams;
  static const OptionTable<Params>& options() {
    static const OptionTable<Params> t = speed_options(true);
    return t;
  }
  static Status check(const Params& p) { return check_kernelscale("speed_chroma", p); }

  SpeedChroma(const Params& p, const Options& o) : SpeedExtractor(p) {
    for (int i = 0; i < 3; ++i) names_[i] = o.feature_name(kChromaNames[i]);
  }

  Status init(const VideoFormat& fmt) override {
    if (fmt.fmt == PixFmt::k400)
      TWINMAF_FAIL(kUnsupported, "speed_chroma: pixel format 400 is not supported (needs chroma)");
    TWINMAF_ASSIGN_OR_RETURN(kp_, kernel_params("speed_chroma", "chroma plane", fmt.plane_w(1),
                                                fmt.plane_h(1), fmt.bpc, p_));
    speed_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kAll, .dis = Planes::kAll}; }
  std::unique_ptr<FrameTerms> make_terms() const override {
    return std::make_unique<SpeedChromaTerms>();
  }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<SpeedChromaTerms&>(terms);
    const auto band = dsp_.band;
    for (int c = 0; c < 2; ++c) {
      band(kp_, in.ref->plane(1 + c), t.image[2 * c].band);
      band(kp_, in.dis->plane(1 + c), t.image[2 * c + 1].band);
    }
    for (SpeedImageTerms& image : t.image) speed_image_terms(dsp_, kp_.g, image);
    return ok_status();
  }

  bool settles() const override { return true; }
  std::unique_ptr<FrameTerms> settle(const FrameTerms& terms) const override {
    const auto& t = down_cast<const SpeedChromaTerms&>(terms);
    const SpeedScore u = speed_pair_score(kp_.g, t.image[0], t.image[1], p_);
    const SpeedScore v = speed_pair_score(kp_.g, t.image[2], t.image[3], p_);
    const SpeedChromaScores s = speed_chroma_scores(u, v, p_.max_val);
    auto settled = std::make_unique<SpeedSettled>();
    settled->value = {s.u, s.v, s.uv};
    return settled;
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const auto& s = down_cast<const SpeedSettled&>(terms);
    for (int i = 0; i < 3; ++i) TWINMAF_RETURN_IF_ERROR(out.append(names_[i], index, s.value[size_t(i)]));
    return ok_status();
  }

 private:
  std::string names_[3];
};

class SpeedTemporal final : public SpeedExtractor {
 public:
  using Params = SpeedParams;
  static const OptionTable<Params>& options() {
    static const OptionTable<Params> t = speed_options(false);
    return t;
  }
  static Status check(const Params& p) { return check_kernelscale("speed_temporal", p); }

  SpeedTemporal(const Params& p, const Options& o)
      : SpeedExtractor(p), name_(o.feature_name(kTemporalName)) {}

  Status init(const VideoFormat& fmt) override {
    TWINMAF_ASSIGN_OR_RETURN(kp_, kernel_params("speed_temporal", "luma plane", fmt.w, fmt.h,
                                                fmt.bpc, p_));
    // libvmaf sizes its four frame buffers for the input's rows and writes
    // the resampled image into them: more rows overrun the heap.
    if (kp_.prescale && kp_.g.scaled_h > fmt.h)
      TWINMAF_FAIL(kUnsupported,
                   "speed_temporal: speed_prescale {} resizes the {} rows to {}; libvmaf's frame "
                   "buffers hold {} rows (it overruns them and crashes), so at most {} rows are "
                   "supported",
                   format_g(p_.prescale), fmt.h, kp_.g.scaled_h, fmt.h, fmt.h);
    speed_dsp_init(dsp_);
    return ok_status();
  }

  // libvmaf's TEMPORAL: frames in order; reads the previous reference and
  // distorted luma, and keeps no state.
  FeatureNeeds needs() const override {
    return {.ref = Planes::kLuma, .dis = Planes::kLuma, .prev_ref = 1, .prev_dis = 1,
            .temporal = true, .state_frames = 0};
  }
  std::unique_ptr<FrameTerms> make_terms() const override {
    return std::make_unique<SpeedTemporalTerms>();
  }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<SpeedTemporalTerms&>(terms);
    if (in.index == 0) {
      t.image = {};
      return ok_status();
    }
    const Picture* prev_ref = in.prev_ref[0];
    const Picture* prev_dis = in.prev_dis[0];
    if (!prev_ref || !prev_dis)
      TWINMAF_FAIL(kInternal, "speed_temporal: frame {} arrived without frame {}", in.index,
                   in.index - 1);
    const auto band = dsp_.difference_band;
    band(kp_, prev_ref->plane(0), in.ref->plane(0), t.image[0].band);
    band(kp_, prev_dis->plane(0), (p_.use_ref_diff ? in.ref : in.dis)->plane(0), t.image[1].band);
    for (SpeedImageTerms& image : t.image) speed_image_terms(dsp_, kp_.g, image);
    return ok_status();
  }

  bool settles() const override { return true; }
  std::unique_ptr<FrameTerms> settle(const FrameTerms& terms) const override {
    const auto& t = down_cast<const SpeedTemporalTerms&>(terms);
    auto settled = std::make_unique<SpeedSettled>();
    // weight_var_mode stays 0 here in libvmaf, and the score is not clipped.
    if (!t.image[0].band.empty()) settled->value[0] = speed_pair_score(kp_.g, t.image[0], t.image[1], p_).score;
    return settled;
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    return out.append(name_, index, down_cast<const SpeedSettled&>(terms).value[0]);
  }

 private:
  std::string name_;
};

}  // namespace

const SpeedParams& speed_params(const Extractor& configured) {
  return down_cast<const SpeedExtractor&>(configured).params();
}

const SpeedKernelParams& speed_kernel_params(const Extractor& configured) {
  return down_cast<const SpeedExtractor&>(configured).kernels();
}

std::optional<SpeedSource> speed_source(const SpeedKernelParams& kp) {
  const SpeedGeometry& g = kp.g;
  // resample_plane copies equal sizes whatever the method.
  if (!kp.prescale || (g.scaled_w == g.w && g.scaled_h == g.h)) return SpeedSource::kDirect;
  switch (kp.method) {
    case ResampleMethod::kNearest: return SpeedSource::kNearest;
    case ResampleMethod::kBilinear: return SpeedSource::kBilinear;
    case ResampleMethod::kBicubic: return SpeedSource::kBicubic;
    case ResampleMethod::kLanczos4: break;
  }
  return std::nullopt;
}

Result<SpeedLaunch> speed_twin_launch(std::string_view feature, const SpeedKernelParams& kp, bool temporal) {
  const SpeedGeometry& g = kp.g;
  SpeedLaunch l;
  l.w = g.w;
  l.h = g.h;
  l.scaled_w = g.scaled_w;
  l.scaled_h = g.scaled_h;
  l.op_w = g.op_w;
  l.op_h = g.op_h;
  l.trunc_w = g.trunc_w;
  l.trunc_h = g.trunc_h;
  l.bpc = kp.bpc;
  l.inverse = 1.0f / kp.sample_divisor;  // a power of two: exact
  l.difference = temporal;
  l.images = temporal ? 2 : 4;
  const std::optional<SpeedSource> source = speed_source(kp);
  if (!source)
    TWINMAF_FAIL(kUnsupported,
                 "{}: speed_prescale_method lanczos4 has no CUDA twin (its weights call libm sin, which the "
                 "device cannot reproduce bit for bit)",
                 feature);
  l.source = *source;
  if (kp.antialias.size() > size_t(kSpeedMaxAntialiasTaps) || kp.local_mean.size() > size_t(kSpeedMaxLocalMeanTaps))
    TWINMAF_FAIL(kInternal, "{} twin: {} and {} taps exceed the kernels' {} and {}", feature, kp.antialias.size(),
                 kp.local_mean.size(), kSpeedMaxAntialiasTaps, kSpeedMaxLocalMeanTaps);
  l.aa_taps = static_cast<int>(kp.antialias.size());
  std::copy(kp.antialias.begin(), kp.antialias.end(), l.aa);
  l.lm_taps = static_cast<int>(kp.local_mean.size());
  std::copy(kp.local_mean.begin(), kp.local_mean.end(), l.lm);
  return l;
}

bool SpeedParams::prescales() const { return !(std::fabs(prescale - 1.0) < 1.0e-3); }

SpeedGeometry speed_geometry(int w, int h, const SpeedParams& p) {
  SpeedGeometry g;
  g.w = w;
  g.h = h;
  // (int)(size_t * double + 0.5), computed whether or not prescale applies.
  g.scaled_w = static_cast<int>(static_cast<double>(w) * p.prescale + 0.5);
  g.scaled_h = static_cast<int>(static_cast<double>(h) * p.prescale + 0.5);
  g.op_w = g.scaled_w / kSpeedDecimation;
  g.op_h = g.scaled_h / kSpeedDecimation;
  g.trunc_w = g.op_w / kSpeedBlock * kSpeedBlock;
  g.trunc_h = g.op_h / kSpeedBlock * kSpeedBlock;
  return g;
}

bool SpeedImageTerms::operator==(const SpeedImageTerms& o) const {
  const auto same = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (std::memcmp(&x[i], &y[i], sizeof x[i]) != 0) return false;
    return true;
  };
  return same(band, o.band) && same(sums, o.sums) && same(factors.q, o.factors.q) && same(factors.r, o.factors.r) &&
         same(variance, o.variance);
}

const FeatureSpec& speed_chroma_feature_spec() {
  static const FeatureSpec spec{
      .name = "speed_chroma",
      .options = SpeedChroma::options().specs(),
      .provided = {kChromaNames[0], kChromaNames[1], kChromaNames[2]},
      .create = create_with<SpeedChroma>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_speed_chroma_twin,
#endif
  };
  return spec;
}

const FeatureSpec& speed_temporal_feature_spec() {
  static const FeatureSpec spec{
      .name = "speed_temporal",
      .options = SpeedTemporal::options().specs(),
      .provided = {kTemporalName},
      .create = create_with<SpeedTemporal>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_speed_temporal_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
