#include "core/options.h"

#include <gtest/gtest.h>

namespace twinmaf {
namespace {

const std::vector<OptionSpec>& table() {
  static const std::vector<OptionSpec> t = {
      {.name = "adm_enhn_gain_limit", .alias = "egl", .type = OptType::kDouble,
       .default_value = 100.0, .min = 1.0, .max = 100.0, .feature_param = true},
      {.name = "adm_csf_mode", .alias = "csf", .type = OptType::kInt, .default_value = 0,
       .min = 0, .max = 3, .feature_param = true},
      {.name = "adm_dlm_weight", .alias = "dlmw", .type = OptType::kDouble,
       .default_value = 0.5, .min = 0.0, .max = 1.0, .feature_param = true},
      {.name = "motion_five_frame_window", .alias = "mffw", .type = OptType::kBool,
       .default_value = false, .feature_param = true},
      {.name = "debug", .type = OptType::kBool, .default_value = false},
  };
  return t;
}

TEST(OptionText, NormalisesThroughFloatAndPercentG) {
  EXPECT_EQ(normalize_option_text("1.0"), "1");
  EXPECT_EQ(normalize_option_text("0.02"), "0.02");
  EXPECT_EQ(normalize_option_text("3840"), "3840");
  EXPECT_EQ(normalize_option_text("1.23456789"), "1.23457");
  EXPECT_EQ(normalize_option_text("true"), "true");
  EXPECT_EQ(normalize_option_text("bilinear"), "bilinear");
  EXPECT_EQ(normalize_option_text("1000000"), "1e+06");
}

TEST(Options, DefaultsKeepTheProvidedNameUnaliased) {
  OptionDict d;
  auto o = Options::parse("adm", table(), d);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->feature_name("VMAF_integer_feature_adm2_score"), "VMAF_integer_feature_adm2_score");
}

TEST(Options, SuffixesSortedByOptionNameWithAliases) {
  OptionDict d;
  d.set("adm_enhn_gain_limit", "1.0");
  d.set("adm_dlm_weight", "0.7");
  d.set("adm_csf_mode", "2");
  d.set("motion_five_frame_window", "true");
  d.set("debug", "true");  // not a feature param: never in the name
  auto o = Options::parse("adm", table(), d);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->feature_name("VMAF_integer_feature_adm3_score"),
            "integer_adm3_csf_2_dlmw_0.7_egl_1_mffw");
  EXPECT_EQ(o->feature_name("unaliased_name"), "unaliased_name_csf_2_dlmw_0.7_egl_1_mffw");
}

TEST(Options, ValueEqualToDefaultIsNotASuffix) {
  OptionDict d;
  d.set("adm_enhn_gain_limit", "100.0");
  auto o = Options::parse("adm", table(), d);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->feature_name("VMAF_integer_feature_adm2_score"), "VMAF_integer_feature_adm2_score");
}

TEST(Options, DoubleValuesPassThroughSinglePrecision) {
  OptionDict d;
  d.set("adm_dlm_weight", "0.123456789");
  auto o = Options::parse("adm", table(), d);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->get_double("adm_dlm_weight"), 0.123457);
}

TEST(Options, Errors) {
  const auto err = [](std::string_view key, std::string_view val) {
    OptionDict d;
    d.set(key, val);
    auto o = Options::parse("adm", table(), d);
    EXPECT_FALSE(o.ok()) << key << "=" << val;
    return o.ok() ? std::string() : o.status().message();
  };
  EXPECT_EQ(err("adm_csf_mode", "4"), "adm: option adm_csf_mode: 4 is outside [0, 3]");
  EXPECT_EQ(err("adm_csf_mode", "1.5"), "adm: option adm_csf_mode: '1.5' is not an integer");
  EXPECT_EQ(err("adm_dlm_weight", "abc"), "adm: option adm_dlm_weight: 'abc' is not a number");
  EXPECT_EQ(err("adm_dlm_weight", "nan"), "adm: option adm_dlm_weight: 'nan' is not finite");
  EXPECT_EQ(err("motion_five_frame_window", "1"),
            "adm: option motion_five_frame_window: '1' is not true or false");
  EXPECT_NE(err("no_such_option", "1").find("unknown option 'no_such_option'"), std::string::npos);
}

TEST(Options, AliasMap) {
  EXPECT_EQ(feature_name_alias("VMAF_integer_feature_vif_scale2_score"), "integer_vif_scale2");
  EXPECT_EQ(feature_name_alias("VMAF_integer_feature_motion_sad_score"),
            "VMAF_integer_feature_motion_sad_score");
  EXPECT_EQ(feature_name_alias("Cambi_feature_cambi_score"), "cambi");
}

}  // namespace
}  // namespace twinmaf
