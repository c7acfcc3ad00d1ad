// psnr_hvs extractor and the shared host finish: tables, the per-plane scores
// (from the exact ordered float sum of the terms) and the combined score (the
// contract is in psnr_hvs.h).
#include "features/psnr_hvs/psnr_hvs.h"

#include <cmath>
#include <limits>

#include "base/ordered_sum.h"
#include "features/create_with.h"

namespace twinmaf {

namespace {

// CSF tables of the Daala/libvmaf implementation (row-major 8x8). Kept as
// double literals: libvmaf initialises its float tables from double
// constants, and decimal -> double -> float may differ from decimal -> float.
constexpr double kCsfLuma[64] = {
    1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411,
    1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542,
    2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984,
    1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551,
    2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862,
    0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
    1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575,
    0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565,
    1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554,
    0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204,
    0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692,
    0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321,
    0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972,
    0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001,
    0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565,
    0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276,
};

constexpr double kCsfCb420[64] = {
    1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193,
    1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242,
    2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285,
    1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625,
    1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078,
    1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837,
    1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629,
    0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374,
    1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099,
    0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034,
    0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932,
    0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
    0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368,
    0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733,
    0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374,
    0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237,
};

constexpr double kCsfCr420[64] = {
    2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803,
    1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971,
    2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857,
    1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198,
    1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848,
    0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
    1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426,
    0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023,
    1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195,
    0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273,
    0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514,
    0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
    0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059,
    0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063,
    0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023,
    0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658,
};

PsnrHvsTables build_tables() {
  PsnrHvsTables t{};
  const double* src[3] = {kCsfLuma, kCsfCb420, kCsfCr420};
  for (int p = 0; p < 3; ++p) {
    for (int k = 0; k < 64; ++k) {
      t.csf[p][k] = static_cast<float>(src[p][k]);
      // Promoted to double, squared in double, stored as float (libvmaf's mask).
      const double c = static_cast<double>(t.csf[p][k]) * 0.3885746225901003;
      t.mask[p][k] = static_cast<float>(c * c);
    }
  }
  return t;
}

// 10 * -log10(score) as libvmaf's convert_score_db (weight 1). A NaN score
// (a plane without blocks) prints as libvmaf's: a positive NaN ("nan").
double score_db(double score) {
  if (std::isnan(score)) return std::numeric_limits<double>::quiet_NaN();
  return 10 * (-std::log10(score));
}

constexpr const char* kNames[4] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};

class PsnrHvs final : public Extractor {
 public:
  Status init(const VideoFormat& fmt) override {
    if (fmt.bpc > 12)
      TWINMAF_FAIL(kUnsupported, "psnr_hvs: bit depth {} is not supported (at most 12)", fmt.bpc);
    if (fmt.fmt == PixFmt::k400)
      TWINMAF_FAIL(kUnsupported, "psnr_hvs: pixel format 400 is not supported (needs chroma)");
    bpc_ = fmt.bpc;
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kAll, .dis = Planes::kAll}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<PsnrHvsTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    auto& t = down_cast<PsnrHvsTerms&>(terms);
    for (int p = 0; p < 3; ++p)
      psnr_hvs_plane_terms_ref(in.ref->plane(p), in.dis->plane(p), bpc_, p, t.plane[p]);
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    const PsnrHvsScores s = psnr_hvs_scores(down_cast<const PsnrHvsTerms&>(terms), bpc_);
    for (int i = 0; i < 4; ++i) TWINMAF_RETURN_IF_ERROR(out.append(kNames[i], index, s.value[i]));
    return ok_status();
  }

 private:
  int bpc_ = 8;
};

}  // namespace

const PsnrHvsTables& psnr_hvs_tables() {
  static const PsnrHvsTables tables = build_tables();
  return tables;
}

bool PsnrHvsTerms::operator==(const PsnrHvsTerms& o) const {
  for (int p = 0; p < 3; ++p)
    if (plane[p].blocks != o.plane[p].blocks ||
        float_bits(ordered_sum(plane[p].terms)) != float_bits(ordered_sum(o.plane[p].terms)))
      return false;
  return true;
}

PsnrHvsScores psnr_hvs_scores(const PsnrHvsTerms& terms, int bpc) {
  PsnrHvsScores s{};
  double linear[3];
  const int samplemax = (1 << bpc) - 1;
  for (int p = 0; p < 3; ++p) {
    const PsnrHvsPlaneTerms& pt = terms.plane[p];
    if (pt.blocks == 0) {
      // libvmaf: 0.0f / 0 pixels.
      linear[p] = std::numeric_limits<double>::quiet_NaN();
    } else {
      float ret = ordered_sum(pt.terms);
      ret /= static_cast<float>(pt.blocks * 64);  // int pixels -> float, rounds above 2^24
      ret /= static_cast<float>(samplemax * samplemax);
      linear[p] = ret;
    }
    s.value[p] = score_db(linear[p]);
  }
  s.value[3] = score_db(linear[0] * .8 + .1 * (linear[1] + linear[2]));
  return s;
}

const FeatureSpec& psnr_hvs_feature_spec() {
  static const FeatureSpec spec{
      .name = "psnr_hvs",
      .options = {},
      .provided = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"},
      .create = create_with<PsnrHvs>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_psnr_hvs_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
