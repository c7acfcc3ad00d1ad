// The built-in float models (libvmaf's enable_float list): they load, in
// libvmaf's order, and their features resolve to float_adm, float_motion and
// float_vif under libvmaf's names.
#include <gtest/gtest.h>

#include <string>

#include "features/feature.h"
#include "model/builtin_models.h"
#include "model/model.h"

namespace twinmaf {
namespace {

constexpr const char* kFloatModels[] = {"vmaf_float_v0.6.1", "vmaf_float_b_v0.6.3", "vmaf_float_v0.6.1neg",
                                        "vmaf_float_4k_v0.6.1"};

TEST(FloatModels, BuiltInInLibvmafsOrder) {
  const auto models = builtin_models();
  ASSERT_GE(models.size(), 5u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(models[i].version, kFloatModels[i]);
  EXPECT_EQ(models[4].version, "vmaf_v0.6.1");
}

TEST(FloatModels, FeaturesResolveToTheFloatExtractors) {
  for (const char* v : kFloatModels) {
    SCOPED_TRACE(v);
    auto m = LoadedModel::from_version(v, {});
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(m->is_collection(), std::string(v) == "vmaf_float_b_v0.6.3");
    const bool neg = std::string(v) == "vmaf_float_v0.6.1neg";
    int adm = 0, motion = 0, vif = 0;
    for (const ModelFeature* f : m->features()) {
      auto use = resolve_model_feature(*f, v, registry_provider);
      ASSERT_TRUE(use.ok()) << use.status().message();
      if (f->name == "VMAF_feature_adm2_score") {
        EXPECT_EQ(use->extractor, "float_adm");
        EXPECT_EQ(use->collector_name, neg ? "adm2_egl_1" : "VMAF_feature_adm2_score");
        ++adm;
      } else if (f->name == "VMAF_feature_motion2_score") {
        EXPECT_EQ(use->extractor, "float_motion");
        EXPECT_EQ(use->collector_name, "VMAF_feature_motion2_score");
        ++motion;
      } else {
        ASSERT_EQ(f->name.rfind("VMAF_feature_vif_scale", 0), 0u) << f->name;
        EXPECT_EQ(use->extractor, "float_vif");
        const std::string scale = f->name.substr(std::string("VMAF_feature_").size(), 10);  // vif_scaleK
        EXPECT_EQ(use->collector_name, neg ? scale + "_egl_1" : f->name);
        ++vif;
      }
    }
    EXPECT_GE(adm, 1);
    EXPECT_EQ(adm, motion);
    EXPECT_EQ(vif, 4 * adm);
    auto uses = m->bind(registry_provider);
    EXPECT_TRUE(uses.ok()) << uses.status().message();
  }
}

}  // namespace
}  // namespace twinmaf
