// Model loader and predictor (src/model/): built-in models, golden frames,
// the SVR/transform/bootstrap arithmetic on constructed inputs, and bad
// model files (each a one-line error, never a crash).
#include "model/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "features/feature.h"
#include "model/builtin_models.h"
#include "model/json_tree.h"

namespace twinmaf {
namespace {

// Binds every feature to its provided name (tests fill the collector so).
Result<std::string> provided_name(const ModelFeature& f) { return f.name; }

LoadedModel load(std::string_view version, ModelConfig cfg = {}) {
  auto m = LoadedModel::from_version(version, cfg);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

// Two features f_a, f_b; three SVs, two of them sparse.
constexpr const char* kSvm =
    "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 3\\nrho -0.5\\nSV\\n"
    "1.5 1:0.2 2:0.4 \\n-2 2:0.9 \\n0.75 1:0.1 \\n";

std::string tiny_json(const std::string& extra = "", const std::string& svm = kSvm,
                      const std::string& names = R"(["f_a", "f_b"])") {
  return R"({"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "linear_rescale",
    "feature_names": )" + names + R"(, "slopes": [0.5, 2.0, 3.0], "intercepts": [-1.0, 0.25, -0.5],
    "model": ")" + svm + "\"" + extra + "}}";
}

// The tiny model's definition, written out directly.
double tiny_expected(double a, double b) {
  const double xa = 2.0 * a + 0.25, xb = 3.0 * b - 0.5;
  const double d1 = (xa - 0.2) * (xa - 0.2) + (xb - 0.4) * (xb - 0.4);
  const double d2 = xa * xa + (xb - 0.9) * (xb - 0.9);
  const double d3 = (xa - 0.1) * (xa - 0.1) + xb * xb;
  double s = 0;
  s += 1.5 * std::exp(-0.1 * d1);
  s += -2 * std::exp(-0.1 * d2);
  s += 0.75 * std::exp(-0.1 * d3);
  s -= -0.5;
  return (s - -1.0) / 0.5;
}

LoadedModel tiny(const std::string& extra = "", ModelConfig cfg = {}) {
  auto m = LoadedModel::from_json(tiny_json(extra), cfg, "tiny");
  EXPECT_TRUE(m.ok()) << m.status().message();
  LoadedModel out = std::move(m).value();
  EXPECT_TRUE(out.bind(provided_name).ok());
  return out;
}

double tiny_score(const LoadedModel& m, double a, double b, unsigned index = 0) {
  Collector c;
  EXPECT_TRUE(c.append("f_a", index, a).ok());
  EXPECT_TRUE(c.append("f_b", index, b).ok());
  auto s = m.main().predict(c, index);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : NAN;
}

TEST(JsonTree, NumbersKeepTheirTextAndStrtodValue) {
  auto r = detail::parse_json(
      R"({"a": -0, "b-1": [1.0, 1e-320, 12345678901234567890123, "x-2 3e5", -7], "c": 0.1})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const detail::JsonNode& a = *r->find("a");
  EXPECT_EQ(a.text, "-0");
  EXPECT_TRUE(std::signbit(a.number));  // nlohmann's integer event alone says 0
  const detail::JsonNode& b = *r->find("b-1");
  ASSERT_EQ(b.items.size(), 5u);
  EXPECT_EQ(b.items[0].text, "1.0");
  EXPECT_EQ(b.items[1].number, std::strtod("1e-320", nullptr));
  EXPECT_EQ(b.items[2].number, 1.2345678901234568e22);
  EXPECT_EQ(b.items[3].text, "x-2 3e5");
  EXPECT_EQ(b.items[3].kind, detail::JsonNode::Kind::kString);
  EXPECT_EQ(b.items[4].number, -7.0);
  EXPECT_EQ(r->find("c")->number, 0.1);
  EXPECT_FALSE(detail::parse_json(R"({"a": 1} {"b": 2})").ok());
}

TEST(BuiltinModels, AllLoadWithLibvmafShapes) {
  ASSERT_EQ(builtin_models().size(), 17u);
  for (const BuiltinModelData& b : builtin_models()) {
    auto m = LoadedModel::from_version(b.version, {});
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(m->main().name(), "vmaf");
    EXPECT_TRUE(m->main().clip_enabled());
    EXPECT_EQ(m->main().clip_min(), 0.0);
    const bool v1 = b.version.starts_with("vmaf_v1.0.16");
    EXPECT_EQ(m->main().features().size(), v1 ? 4u : 6u) << b.version;
    EXPECT_EQ(m->main().transform().enabled, v1) << b.version;
    EXPECT_EQ(m->main().chroma_correction().has_value(), v1) << b.version;
    EXPECT_EQ(m->is_collection(), b.version == "vmaf_b_v0.6.3" || b.version == "vmaf_float_b_v0.6.3");
  }
  const LoadedModel v061 = load("vmaf_v0.6.1");
  EXPECT_EQ(v061.main().svm().sv_count(), 211u);
  EXPECT_EQ(v061.main().svm().gamma(), 0.04);
  EXPECT_EQ(v061.main().svm().rho(), -1.33133);
  EXPECT_EQ(v061.main().slope(), 0.012020766332648465);
  EXPECT_TRUE(v061.main().transform().present);
  EXPECT_EQ(*v061.main().transform().p2, -0.00705305);
  EXPECT_TRUE(v061.main().transform().out_gte_in);
  EXPECT_EQ(load("vmaf_v1.0.16_3d0h_2160").main().clip_max(), 110.0);
}

TEST(BuiltinModels, FeatureOptionTextsAreNormalisedLikeLibvmaf) {
  const LoadedModel neg = load("vmaf_v0.6.1neg");
  const auto& f = neg.main().features();
  EXPECT_EQ(f[0].name, "VMAF_integer_feature_adm2_score");
  ASSERT_NE(f[0].options.find("adm_enhn_gain_limit"), nullptr);
  EXPECT_EQ(*f[0].options.find("adm_enhn_gain_limit"), "1");  // 1.0 -> strtof -> %g
  EXPECT_TRUE(f[1].options.empty());  // motion2
  EXPECT_EQ(*f[2].options.find("vif_enhn_gain_limit"), "1");

  const LoadedModel v1 = load("vmaf_v1.0.16_hfr_3d0h_2160");
  const auto& g = v1.main().features();
  EXPECT_EQ(g[0].name, "Cambi_feature_cambi_score");
  EXPECT_EQ(*g[0].options.find("cambi_max_val"), "17");
  EXPECT_EQ(*g[0].options.find("cambi_vis_lum_threshold"), "0.06");
  EXPECT_EQ(*g[1].options.find("speed_prescale_method"), "bilinear");  // string: raw
  EXPECT_EQ(*g[1].options.find("speed_prescale"), "0.5");
  EXPECT_EQ(*g[2].options.find("adm_norm_view_dist"), "3");
  EXPECT_EQ(*g[2].options.find("adm_ref_display_height"), "2160");
  EXPECT_EQ(*g[3].options.find("motion_five_frame_window"), "true");  // bool
  EXPECT_EQ(*g[3].options.find("motion_max_val"), "18");
}

TEST(BuiltinModels, CollectionNamesAndOrder) {
  const LoadedModel b = load("vmaf_b_v0.6.3", {.name = "vb"});
  ASSERT_EQ(b.members().size(), 20u);
  EXPECT_EQ(b.main().name(), "vb");
  EXPECT_EQ(b.members()[0].name(), "vb_0001");
  EXPECT_EQ(b.members()[19].name(), "vb_0020");
  EXPECT_EQ(b.collection_name(), "vb");
  EXPECT_EQ(b.members()[0].type(), ModelType::kBootstrapSvmNuSvr);
  EXPECT_EQ(b.features().size(), 21u * 6u);
}

TEST(BuiltinModels, UnknownVersionListsTheBuiltIns) {
  auto m = LoadedModel::from_version("vmaf_v9", {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("no built-in model 'vmaf_v9'"), std::string::npos);
  EXPECT_NE(m.status().message().find("vmaf_4k_v0.6.1neg"), std::string::npos);
}

TEST(BuiltinModels, EmbeddedBytesAreTheJsonFiles) {
  for (const BuiltinModelData& b : builtin_models()) {
    ASSERT_GT(*b.size, 1000u);
    EXPECT_EQ(b.data[0], '{') << b.version;
    EXPECT_EQ(b.data[*b.size], 0) << b.version;  // NUL after the text
    EXPECT_NE(b.text().find("\"model_dict\""), std::string_view::npos);
  }
}

// Frames of golden run kleiber_576x324_420p8_48f__x264crf28 (hp17g).
TEST(GoldenFrames, V061PredictsLibvmafBits) {
  LoadedModel m = load("vmaf_v0.6.1");
  ASSERT_TRUE(m.bind(provided_name).ok());
  Collector c;
  const char* adm = "VMAF_integer_feature_adm2_score";
  const char* mot = "VMAF_integer_feature_motion2_score";
  const char* vif[] = {"VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
                       "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};
  ASSERT_TRUE(c.append(adm, 0, 0.98147383353204043).ok());
  ASSERT_TRUE(c.append(mot, 0, 0).ok());
  ASSERT_TRUE(c.append(vif[0], 0, 0.72237986326217651).ok());
  ASSERT_TRUE(c.append(vif[1], 0, 0.96076673269271851).ok());
  ASSERT_TRUE(c.append(vif[2], 0, 0.98105031251907349).ok());
  ASSERT_TRUE(c.append(vif[3], 0, 0.98935538530349731).ok());
  ASSERT_TRUE(c.append(adm, 17, 0.97308064218605594).ok());
  ASSERT_TRUE(c.append(mot, 17, 2.8769460293491189).ok());
  ASSERT_TRUE(c.append(vif[0], 17, 0.69894874095916748).ok());
  ASSERT_TRUE(c.append(vif[1], 17, 0.93786710500717163).ok());
  ASSERT_TRUE(c.append(vif[2], 17, 0.96842092275619507).ok());
  ASSERT_TRUE(c.append(vif[3], 17, 0.98149210214614868).ok());
  ASSERT_TRUE(m.predict_main(c, 0).ok());
  ASSERT_TRUE(m.predict_main(c, 17).ok());
  EXPECT_EQ(*c.get("vmaf", 0), 91.589660024118601);
  EXPECT_EQ(*c.get("vmaf", 17), 92.224114469985025);
}

TEST(GoldenFrames, V1TransformedPredictsLibvmafBits) {
  LoadedModel m = load("vmaf_v1.0.16_3d0h");
  ASSERT_TRUE(m.bind(provided_name).ok());
  Collector c;
  const double frames[2][5] = {
      // cambi, speed_chroma_uv, adm3, motion3, vmaf
      {0.022907859447794086, 2.1346721649169922, 0.98178160003924408, 3.0097244534799921,
       95.418314487041926},
      {0.046611900447806033, 2.4972400665283203, 0.97594805030767584, 2.8769460293491189,
       93.331773198330893}};
  for (unsigned i = 0; i < 2; ++i) {
    for (size_t k = 0; k < 4; ++k)
      ASSERT_TRUE(c.append(m.main().features()[k].name, i, frames[i][k]).ok());
    ASSERT_TRUE(m.predict_main(c, i).ok());
    EXPECT_EQ(*c.get("vmaf", i), frames[i][4]) << "frame " << i;
  }
}

TEST(Bind, RegistryNamesAndMissingProviders) {
  if (!find_feature_providing("VMAF_integer_feature_adm2_score") ||
      !find_feature_providing("VMAF_integer_feature_vif_scale0_score") ||
      !find_feature_providing("VMAF_integer_feature_motion2_score"))
    GTEST_SKIP() << "adm/vif/motion not registered";
  LoadedModel v061 = load("vmaf_v0.6.1");
  auto uses = v061.bind(registry_provider);
  ASSERT_TRUE(uses.ok()) << uses.status().message();
  ASSERT_EQ(uses->size(), 6u);
  EXPECT_EQ((*uses)[0].collector_name, "VMAF_integer_feature_adm2_score");
  EXPECT_EQ((*uses)[0].extractor, find_feature_providing("VMAF_integer_feature_adm2_score")->name);

  LoadedModel neg = load("vmaf_v0.6.1neg");
  uses = neg.bind(registry_provider);
  ASSERT_TRUE(uses.ok()) << uses.status().message();
  EXPECT_EQ((*uses)[0].collector_name, "integer_adm2_egl_1");
  EXPECT_EQ((*uses)[1].collector_name, "VMAF_integer_feature_motion2_score");
  EXPECT_EQ((*uses)[2].collector_name, "integer_vif_scale0_egl_1");

  // CLI "--model version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0".
  OptionDict d;
  d.set("adm_enhn_gain_limit", "1.0");
  v061.overload(find_feature_providing("VMAF_integer_feature_adm2_score")->name, d, registry_provider);
  v061.overload("no_such_extractor", d, registry_provider);  // matches nothing
  uses = v061.bind(registry_provider);
  ASSERT_TRUE(uses.ok()) << uses.status().message();
  EXPECT_EQ((*uses)[0].collector_name, "integer_adm2_egl_1");
  EXPECT_EQ((*uses)[2].collector_name, "VMAF_integer_feature_vif_scale0_score");
  EXPECT_EQ(v061.main().features()[0].collector_name, "integer_adm2_egl_1");

  for (const char* v : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_hfr_5d0h"}) {
    LoadedModel m = load(v);
    auto r = m.bind(registry_provider);
    for (const ModelFeature* f : m.features()) {
      if (find_feature_providing(f->name)) continue;
      ASSERT_FALSE(r.ok()) << v;
      EXPECT_EQ(r.status().message(),
                fmt::format("model {}: no feature extractor provides '{}'", v, f->name));
      break;
    }
  }
}

TEST(Predict, TinyModelFollowsItsDefinition) {
  const LoadedModel m = tiny();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int i = 0; i < 200; ++i) {
    const double a = u(rng), b = u(rng);
    EXPECT_EQ(tiny_score(m, a, b), tiny_expected(a, b)) << "seed 7 draw " << i;
  }
  EXPECT_NE(tiny_expected(0.3, 0.6), 0.0);
}

TEST(Predict, ExistingScoreIsReturnedNotRecomputed) {
  const LoadedModel m = tiny();
  Collector c;
  ASSERT_TRUE(c.append("vmaf", 4, 12.5).ok());
  auto s = m.main().predict(c, 4);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, 12.5);
}

TEST(Predict, MissingFeatureAndUnboundAreErrors) {
  const LoadedModel m = tiny();
  Collector c;
  ASSERT_TRUE(c.append("f_a", 3, 0.5).ok());
  auto s = m.main().predict(c, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kBadInput);
  EXPECT_EQ(s.status().message(), "model tiny: no value of feature 'f_b' at frame 3");

  auto u = LoadedModel::from_json(tiny_json(), {}, "tiny");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->main().predict(c, 3).status().code(), Code::kInternal);
}

TEST(Transform, PolynomialRectificationAndClip) {
  const std::string t =
      R"(, "score_clip": [0.0, 3.0], "score_transform": {"p0": 0.5, "p1": null, "p2": 2.0,
      "out_lte_in": "true", "enabled": true})";
  const LoadedModel m = tiny(t);
  const LoadedModel raw = tiny();
  for (double a : {-1.0, -0.3, 0.0, 0.4, 1.2}) {
    for (double b : {-0.7, 0.1, 0.9}) {
      const double y = tiny_score(raw, a, b);
      double e = 0.;
      e += 0.5;
      e += 2.0 * y * y;
      e = e > y ? y : e;
      e = e < 0.0 ? 0.0 : e;
      e = e > 3.0 ? 3.0 : e;
      EXPECT_EQ(tiny_score(m, a, b), e) << a << " " << b;
      EXPECT_EQ(m.main().finish_score(y, kModelFlagDisableClip | kModelFlagDisableTransform), y);
    }
  }
}

TEST(Transform, NotEnabledUnlessFlagged) {
  const std::string t = R"(, "score_transform": {"p0": 1.0, "p1": 1.0, "out_gte_in": "true"})";
  const LoadedModel off = tiny(t);
  const LoadedModel on = tiny(t, {.flags = kModelFlagEnableTransform});
  EXPECT_FALSE(off.main().transform().enabled);
  EXPECT_TRUE(on.main().transform().enabled);
  EXPECT_EQ(on.main().apply_transform(2.0, 0), 3.0);
  EXPECT_EQ(on.main().apply_transform(2.0, kModelFlagDisableTransform), 2.0);
  EXPECT_EQ(off.main().apply_transform(2.0, 0), 2.0);
  // No score_transform object: the flag has nothing to enable.
  EXPECT_FALSE(tiny("", {.flags = kModelFlagEnableTransform}).main().transform().enabled);
  // disable_clip at load removes score_clip.
  const LoadedModel noclip = tiny(R"(, "score_clip": [0, 1])", {.flags = kModelFlagDisableClip});
  EXPECT_FALSE(noclip.main().clip_enabled());
  EXPECT_EQ(noclip.main().apply_clip(5.0, 0), 5.0);
}

TEST(Transform, PiecewiseLinearKnots) {
  const LoadedModel m = tiny(
      R"(, "score_transform": {"enabled": true, "knots": [[0, 1], [10, 21], [20, 21], [40, 61]]})");
  const Model& k = m.main();
  // Segment 0: p1.x == 0 -> beta = 1, alpha = (21 - 1) / 10 = 2.
  EXPECT_EQ(k.apply_transform(5.0, 0), 2.0 * 5.0 + 1.0);
  EXPECT_EQ(k.apply_transform(-3.0, 0), 2.0 * -3.0 + 1.0);  // extrapolates below
  EXPECT_EQ(k.apply_transform(15.0, 0), 21.0);                // horizontal segment
  EXPECT_EQ(k.apply_transform(10.0, 0), 21.0);                // knot shared by segments
  // Segment 2: alpha = (61 - 21) / (40 - 20) = 2, beta = 21 - 20 * 2.
  EXPECT_EQ(k.apply_transform(30.0, 0), 2.0 * 30.0 + (21.0 - 20.0 * 2.0));
  EXPECT_EQ(k.apply_transform(50.0, 0), 2.0 * 50.0 + (21.0 - 20.0 * 2.0));  // above
  // One knot or none: identity, as in libvmaf.
  EXPECT_EQ(tiny(R"(, "score_transform": {"enabled": true, "knots": [[1, 2]]})")
                .main()
                .apply_transform(7.25, 0),
            7.25);
}

TEST(ChromaCorrection, ZeroSpeedChromaIsReplacedFromAdm3) {
  // slope 1 / intercept 0 on both features, so the de-normalisation is exact.
  const std::string j = R"({"model_dict": {"norm_type": "linear_rescale",
    "feature_names": ["x_adm3_y", "z_speed_chroma_w"], "slopes": [0.5, 1.0, 1.0],
    "intercepts": [-1.0, 0.0, 0.0], "chroma_correction_parameter": 120.0,
    "model": ")" + std::string(kSvm) + "\"}}";
  auto lm = LoadedModel::from_json(j, {}, "chroma");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  ASSERT_TRUE(lm->bind(provided_name).ok());
  auto score = [&](double adm, double speed) {
    Collector c;
    EXPECT_TRUE(c.append("x_adm3_y", 0, adm).ok());
    EXPECT_TRUE(c.append("z_speed_chroma_w", 0, speed).ok());
    return *lm->main().raw_score(c, 0);
  };
  for (double adm : {0.9, 0.97, 1.0}) {
    EXPECT_EQ(score(adm, 0.0), score(adm, (-120.0 * adm) + 120.0)) << adm;
    EXPECT_NE(score(adm, 0.0), score(adm, 1e-9)) << adm;
  }
  EXPECT_EQ(score(0.95, -0.0), score(0.95, 0.0));  // -0.0 == 0.0
}

TEST(Bootstrap, StatisticsFollowTheirDefinition) {
  const LoadedModel ref = tiny(R"(, "score_clip": [0.0, 100.0])");
  const std::vector<double> s = {3.0, 1.0, 2.0, 5.0, 4.0};
  const BootstrapScore b = bootstrap_statistics(s, ref.main());
  const double mean = (((((0. + 3.0) + 1.0) + 2.0) + 5.0) + 4.0) / 5;
  double ssd = 0.;
  for (double v : s) ssd += (v - mean) * (v - mean);
  const double slope = ((mean + 0.01) - (mean - 0.01)) / 0.02;
  EXPECT_EQ(b.bagging, mean);
  EXPECT_EQ(b.stddev, std::sqrt(ssd / 5) * slope);
  // pos = 2.5 * 4 / 100 = 0.1 and 97.5 * 4 / 100 = 3.9 over the sorted scores.
  const double plo = 2.5 * 4.0 / 100., phi = 97.5 * 4.0 / 100.;
  EXPECT_EQ(b.ci_p95_lo, 1.0 * (1 - plo) + 2.0 * (plo - 0));
  EXPECT_EQ(b.ci_p95_hi, 4.0 * (4 - phi) + 5.0 * (phi - 3));
  EXPECT_NE(b.stddev, 0.0);

  // Statistics pass through the reference model's clip: scores above 100.
  const BootstrapScore c = bootstrap_statistics({150.0, 160.0}, ref.main());
  EXPECT_EQ(c.bagging, 100.0);
  EXPECT_EQ(c.ci_p95_hi, 100.0);
  EXPECT_EQ(c.stddev, 0.0);  // slope 0 where the clip is flat
  // A single member: every percentile is that score, stddev 0.
  const BootstrapScore d = bootstrap_statistics({42.0}, ref.main());
  EXPECT_EQ(d.ci_p95_lo, 42.0);
  EXPECT_EQ(d.ci_p95_hi, 42.0);
  EXPECT_EQ(d.stddev, 0.0);
}

TEST(Bootstrap, CollectionPredictionWritesLibvmafColumns) {
  for (uint32_t flags : {0u, kModelFlagEnableTransform, kModelFlagDisableClip}) {
    LoadedModel b = load("vmaf_b_v0.6.3", {.flags = flags});
    ASSERT_TRUE(b.bind(provided_name).ok());
    Collector c;
    std::mt19937_64 rng(11);
    // Typical features (scores inside the clip range, so stddev > 0).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (unsigned i = 0; i < 3; ++i) {
      for (const ModelFeature& f : b.main().features()) {
        const double v = f.name.find("motion") != std::string::npos ? 2 + 4 * u(rng)
                         : f.name.find("adm") != std::string::npos  ? 0.9 + 0.09 * u(rng)
                                                                    : 0.6 + 0.35 * u(rng);
        ASSERT_TRUE(c.append(f.name, i, v).ok());
      }
    }
    for (unsigned i = 0; i < 3; ++i) {
      ASSERT_TRUE(b.predict_main(c, i).ok());
      auto s = b.predict_collection(c, i);
      ASSERT_TRUE(s.ok()) << s.status().message();
      std::vector<double> raw;
      for (const Model& m : b.members()) {
        raw.push_back(*m.raw_score(c, i));
        EXPECT_EQ(*c.get(m.name(), i), m.finish_score(raw.back(), 0));
      }
      const BootstrapScore e = bootstrap_statistics(raw, b.members()[0]);
      EXPECT_EQ(*c.get("vmaf_bagging", i), e.bagging);
      EXPECT_EQ(*c.get("vmaf_stddev", i), e.stddev);
      EXPECT_EQ(*c.get("vmaf_ci_p95_lo", i), e.ci_p95_lo);
      EXPECT_EQ(*c.get("vmaf_ci_p95_hi", i), e.ci_p95_hi);
      EXPECT_LT(e.ci_p95_lo, e.ci_p95_hi);
      EXPECT_GT(e.stddev, 0.0);
    }
    // Column order: features, vmaf, members, then the four statistics.
    std::vector<std::string> cols;
    for (const auto& col : c.columns()) cols.push_back(col.name);
    ASSERT_EQ(cols.size(), 6u + 1u + 20u + 4u);
    EXPECT_EQ(cols[6], "vmaf");
    EXPECT_EQ(cols[7], "vmaf_0001");
    EXPECT_EQ(cols[26], "vmaf_0020");
    EXPECT_EQ(cols[27], "vmaf_bagging");
    EXPECT_EQ(cols[28], "vmaf_stddev");
    EXPECT_EQ(cols[29], "vmaf_ci_p95_lo");
    EXPECT_EQ(cols[30], "vmaf_ci_p95_hi");
  }
}

TEST(ModelRequest, ParsesLikeLibvmafCli) {
  auto r = parse_model_request(
      "version=vmaf_v0.6.1neg:name=neg:disable_clip:enable_transform=false:"
      "adm.adm_enhn_gain_limit=1.0:vif.vif_enhn_gain_limit=1.00:path=x.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->version, "vmaf_v0.6.1neg");
  EXPECT_EQ(r->path, "x.json");
  EXPECT_EQ(r->label(), "vmaf_v0.6.1neg");
  EXPECT_EQ(r->config.name, "neg");
  EXPECT_EQ(r->config.flags, kModelFlagDisableClip);
  ASSERT_EQ(r->overloads.size(), 2u);
  EXPECT_EQ(r->overloads[0].first, "adm");
  EXPECT_EQ(*r->overloads[0].second.find("adm_enhn_gain_limit"), "1");
  EXPECT_EQ(r->overloads[1].first, "vif");
  auto m = load_model(*r, registry_provider);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->main().name(), "neg");
  EXPECT_FALSE(m->main().clip_enabled());

  auto p = parse_model_request("path=/no/such/model.json");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->label(), "/no/such/model.json");
  EXPECT_EQ(load_model(*p, registry_provider).status().code(), Code::kIo);
  EXPECT_EQ(parse_model_request("version=a:enable_transform").value().config.flags,
            kModelFlagEnableTransform);

  for (const char* bad : {"", "name", "version=x:", "version=x:foo=1", "version=x:.a=1",
                          "version=x:adm.=1", "name=a"}) {
    auto e = parse_model_request(bad);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().message().find('\n'), std::string::npos);
  }
}

struct BadCase {
  const char* what;
  std::string json;
  const char* message;  // expected substring
};

std::string with_svm(const std::string& svm) { return tiny_json("", svm); }

TEST(BadModels, OneLineErrors) {
  const std::string ok_svm = kSvm;
  std::string many_names = "[";
  for (int i = 0; i < 65; ++i) many_names += fmt::format("{}\"f{}\"", i ? "," : "", i);
  many_names += "]";
  std::string deep(200, '[');
  const std::string member = tiny_json();
  const std::vector<BadCase> cases = {
      {"not json", "hello", "JSON:"},
      {"empty", "", "JSON:"},
      {"truncated", tiny_json().substr(0, 100), "JSON:"},
      {"array", "[1, 2]", "expected an object"},
      {"empty object", "{}", "neither a model_dict nor a collection"},
      {"model_dict number", R"({"model_dict": 5})", "model_dict is a number"},
      {"deep nesting", deep, "nesting deeper than 64"},
      {"NaN literal", tiny_json(R"(, "score_clip": [NaN, 1])"), "JSON:"},
      {"overflow", tiny_json(R"(, "score_clip": [1e999, 1])"), "overflow"},
      {"no norm_type",
       R"({"model_dict": {"feature_names": ["a"], "model": "x"}})", "no norm_type"},
      {"repeated norm_type", tiny_json(R"(, "norm_type": "none")"), "has the key 'norm_type' twice"},
      {"unknown norm_type",
       R"({"model_dict": {"norm_type": "clip_0to1", "feature_names": ["a"]}})",
       "unknown norm_type 'clip_0to1'"},
      {"unknown model_type",
       R"({"model_dict": {"model_type": "SVC", "norm_type": "none", "feature_names": ["a"]}})",
       "unknown model_type 'SVC'"},
      {"no feature_names", R"({"model_dict": {"norm_type": "none"}})", "no feature_names"},
      {"empty feature_names", R"({"model_dict": {"norm_type": "none", "feature_names": []}})",
       "feature_names is empty"},
      {"65 features", tiny_json("", ok_svm, many_names), "65 features, at most 64"},
      {"numeric feature name", tiny_json("", ok_svm, R"(["a", 3])"),
       "feature_names[1] is a number"},
      {"short slopes",
       R"({"model_dict": {"norm_type": "linear_rescale", "feature_names": ["a", "b"],
          "slopes": [1, 2], "intercepts": [0, 0, 0], "model": ""}})",
       "slopes has 2 entries, expected 3"},
      {"string slope",
       R"({"model_dict": {"norm_type": "linear_rescale", "feature_names": ["a"],
          "slopes": [1, "2"], "intercepts": [0, 0], "model": ""}})",
       "slopes[1] is a string"},
      {"no intercepts",
       R"({"model_dict": {"norm_type": "linear_rescale", "feature_names": ["a"],
          "slopes": [1, 2], "model": ""}})",
       "needs slopes and intercepts"},
      {"opts length", tiny_json(R"(, "feature_opts_dicts": [{}])"),
       "feature_opts_dicts has 1 entries for 2 features"},
      {"opts array value", tiny_json(R"(, "feature_opts_dicts": [{"k": [1]}, {}])"),
       "feature_opts_dicts[0].k is an array"},
      {"opts repeated", tiny_json(R"(, "feature_opts_dicts": [{}, {"k": 1.0, "k": 2}])"),
       "option 'k' given twice"},
      {"clip length", tiny_json(R"(, "score_clip": [0, 1, 2])"), "score_clip has 3 entries"},
      {"clip string", tiny_json(R"(, "score_clip": [0, "1"])"), "score_clip[1] is a string"},
      {"enabled string", tiny_json(R"(, "score_transform": {"enabled": "yes"})"),
       "score_transform.enabled is a string, expected true or false"},
      {"p0 string", tiny_json(R"(, "score_transform": {"p0": "1"})"),
       "score_transform.p0 is a string, expected a number"},
      {"knots order", tiny_json(R"(, "score_transform": {"knots": [[0, 0], [0, 1]]})"),
       "knot 1 must have a larger x"},
      {"knots y order", tiny_json(R"(, "score_transform": {"knots": [[0, 2], [1, 1]]})"),
       "knot 1 must have a larger x and no smaller y"},
      {"knot arity", tiny_json(R"(, "score_transform": {"knots": [[0, 1, 2]]})"),
       "has 3 entries, expected 2"},
      {"11 knots",
       tiny_json(R"(, "score_transform": {"knots": [[0,0],[1,1],[2,2],[3,3],[4,4],[5,5],
          [6,6],[7,7],[8,8],[9,9],[10,10]]})"),
       "11 knots, at most 10"},
      {"out_lte_in bool", tiny_json(R"(, "score_transform": {"out_lte_in": true})"),
       "score_transform.out_lte_in is a boolean, expected a string"},
      {"chroma zero", tiny_json(R"(, "chroma_correction_parameter": 0)"),
       "chroma_correction_parameter 0 is not supported"},
      {"chroma no features", tiny_json(R"(, "chroma_correction_parameter": 120)"),
       "chroma correction needs one feature containing 'adm3'"},
      {"chroma twice",
       tiny_json(R"(, "chroma_correction_parameter": 1)", ok_svm, R"(["adm3", "adm3_b"])"),
       "more than one feature name contains 'adm3'"},
      {"no svm", R"({"model_dict": {"norm_type": "none", "feature_names": ["a"]}})",
       "has no model (SVM text)"},
      {"svm number", R"({"model_dict": {"norm_type": "none", "feature_names": ["a"], "model": 1}})",
       "model is a number, expected a string"},
      {"duplicate key", tiny_json(R"(, "slopes": [1, 1, 1])"), "has the key 'slopes' twice"},
      {"svm kernel", with_svm("svm_type nu_svr\\nkernel_type linear\\nSV\\n"),
       "kernel_type 'linear' is not supported"},
      {"svm type", with_svm("svm_type c_svc\\nSV\\n"), "svm_type 'c_svc' is not supported"},
      {"svm no rho",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 0\\nSV\\n"),
       "missing rho"},
      {"svm gamma",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma abc\\nSV\\n"),
       "gamma: 'abc' is not a finite number"},
      {"svm gamma inf", with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma inf\\nSV\\n"),
       "gamma: 'inf' is not a finite number"},
      {"svm no SV", with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1"), "no 'SV' section"},
      {"svm rho first", with_svm("svm_type nu_svr\\nrho 1\\nSV\\n"), "rho before nr_class"},
      {"svm nr_class", with_svm("svm_type nu_svr\\nnr_class 3\\nSV\\n"),
       "nr_class is 3, a regression model has 2"},
      {"svm header", with_svm("svm_type nu_svr\\nfoo 1\\nSV\\n"), "unknown header entry 'foo'"},
      {"svm short",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 3\\n"
                "rho 0\\nSV\\n1 1:0.5\\n2 1:0.5\\n"),
       "total_sv is 3 but only 2 SV lines"},
      {"svm long",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 1\\n"
                "rho 0\\nSV\\n1 1:0.5\\n2 1:0.5\\n"),
       "more SV lines than total_sv 1"},
      {"svm order",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 1\\n"
                "rho 0\\nSV\\n1 2:0.5 1:0.5\\n"),
       "index 1 is not above the previous index 2"},
      {"svm node",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 1\\n"
                "rho 0\\nSV\\n1 1:abc\\n"),
       "'1:abc' is not index:value"},
      {"svm coef",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 1\\n"
                "rho 0\\nSV\\nx 1:1\\n"),
       "coefficient 'x' is not a finite number"},
      {"svm index range",
       with_svm("svm_type nu_svr\\nkernel_type rbf\\ngamma 0.1\\nnr_class 2\\ntotal_sv 1\\n"
                "rho 0\\nSV\\n1 3:0.5\\n"),
       "the SVM uses feature index 3 but the model has 2 features"},
      {"collection one entry", "{\"0\": " + member + "}", "the collection has no entry \"1\""},
      {"collection plain members", "{\"0\": " + member + ", \"1\": " + member + "}",
       "collection members must be BOOTSTRAP_LIBSVMNUSVR"},
      {"collection entry", R"({"0": 5})", "collection entry \"0\" has no model_dict"},
  };
  for (const BadCase& c : cases) {
    auto m = LoadedModel::from_json(c.json, {}, "bad.json");
    ASSERT_FALSE(m.ok()) << c.what;
    const std::string& msg = m.status().message();
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.what << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << c.what << ": " << msg;
    EXPECT_EQ(msg.rfind("model bad.json: ", 0), 0u) << c.what << ": " << msg;
    EXPECT_NE(m.status().code(), Code::kOk);
  }
}

TEST(BadModels, FilesAndPkl) {
  auto a = LoadedModel::from_file("/nonexistent/dir/model.json", {});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kIo);
  auto b = LoadedModel::from_file("/tmp/model.pkl", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("pkl model files are not supported"), std::string::npos);

  const std::string path = testing::TempDir() + "twinmaf_model_test.json";
  {
    std::ofstream out(path);
    out << find_builtin_model("vmaf_4k_v0.6.1")->text();
  }
  auto c = LoadedModel::from_file(path, {});
  std::remove(path.c_str());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->main().svm().sv_count(), load("vmaf_4k_v0.6.1").main().svm().sv_count());
  EXPECT_EQ(c->label(), path);
}

// Seeded random damage to real model files: every outcome is a model or a
// one-line error; a loaded model predicts without crashing.
TEST(BadModels, MutatedFilesNeverCrash) {
  const uint64_t seed = 20240601;
  std::mt19937_64 rng(seed);
  const std::string alphabet = "{}[]\":,.-+0123456789eE \\nabc\n";
  int loaded = 0, rejected = 0;
  for (const char* version : {"vmaf_v0.6.1", "vmaf_v1.0.16_3d0h"}) {
    const std::string base(find_builtin_model(version)->text());
    // The SVM text starts at "svm_type": aim half of the damage there.
    const size_t svm_at = base.find("svm_type");
    for (int iter = 0; iter < 250; ++iter) {
      std::string s = base;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const size_t lo = (iter % 2) ? svm_at : 0;
        const size_t pos = lo + rng() % (s.size() - lo);
        switch (rng() % 4) {
          case 0: s[pos] = alphabet[rng() % alphabet.size()]; break;
          case 1: s.erase(pos, 1 + rng() % 8); break;
          case 2: s.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
          case 3: s.resize(pos); break;
        }
      }
      auto m = LoadedModel::from_json(s, {}, "mutated");
      if (!m.ok()) {
        ++rejected;
        EXPECT_EQ(m.status().message().find('\n'), std::string::npos)
            << "seed " << seed << " iter " << iter << ": " << m.status().message();
        continue;
      }
      ++loaded;
      ASSERT_TRUE(m->bind(provided_name).ok());
      Collector c;
      for (const ModelFeature* f : m->features())
        if (!c.get(f->name, 0)) {
          ASSERT_TRUE(c.append(f->name, 0, 0.5).ok());
        }
      (void)m->predict_main(c, 0);
    }
  }
  EXPECT_GT(rejected, 100);
  EXPECT_GT(loaded, 10);
}

}  // namespace
}  // namespace twinmaf
