#include "core/options.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "core/option_table.h"
#include "features/common/float_resample.h"
#include "features/feature.h"

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
  EXPECT_EQ(std::get<double>(o->value(2)), 0.123457);
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

// The typed rows: the table above, declared once over a parameter struct.
enum class TestMode : int { kA = 0, kB = 1, kC = 2, kD = 3 };

struct TestBase {
  double enhn_gain_limit = -7;  // every member with a row is filled (overwritten)
  TestMode csf_mode = TestMode::kD;
};

struct TestParams : TestBase {
  double dlm_weight;
  bool five_frame_window;
  bool debug;
  std::string method_name;
  ResampleMethod method;
  int untouched = 42;  // no row: keeps its initialiser
};

const OptionTable<TestParams>& typed() {
  using P = TestParams;
  static const OptionTable<P> t{
      opt(&P::enhn_gain_limit, {.name = "adm_enhn_gain_limit", .alias = "egl", .default_value = 100.0, .min = 1.0,
                                .max = 100.0, .feature_param = true}),
      opt(&P::csf_mode, {.name = "adm_csf_mode", .alias = "csf", .default_value = TestMode::kA, .min = 0, .max = 3,
                         .feature_param = true}),
      opt(&P::dlm_weight, {.name = "adm_dlm_weight", .alias = "dlmw", .default_value = 0.5, .min = 0.0, .max = 1.0,
                           .feature_param = true}),
      opt(&P::five_frame_window, {.name = "motion_five_frame_window", .alias = "mffw", .default_value = false,
                                  .feature_param = true}),
      opt(&P::debug, {.name = "debug", .default_value = false}),
  };
  return t;
}

// A table with string-valued rows (a plain string and a ResampleMethod).
const OptionTable<TestParams>& typed_strings() {
  using P = TestParams;
  static const OptionTable<P> t{
      opt(&P::method_name, {.name = "name", .alias = "nm", .default_value = std::string("abc"), .feature_param = true,
                            .help = "a string"}),
      opt(&P::method, {.name = "method", .alias = "pm", .default_value = ResampleMethod::kNearest,
                       .feature_param = true, .help = "a resampler"}),
  };
  return t;
}

TEST(OptionTable, TypesDeducedFromTheMember) {
  static_assert(std::is_same_v<decltype(opt(&TestParams::dlm_weight, {})), Opt<TestParams, double>>);
  static_assert(std::is_same_v<decltype(opt(&TestParams::csf_mode, {})), Opt<TestBase, TestMode>>);
  static_assert(OptionCodec<bool>::kType == OptType::kBool);
  static_assert(OptionCodec<int>::kType == OptType::kInt);
  static_assert(OptionCodec<double>::kType == OptType::kDouble);
  static_assert(OptionCodec<std::string>::kType == OptType::kString);
  static_assert(OptionCodec<TestMode>::kType == OptType::kInt);
  static_assert(OptionCodec<ResampleMethod>::kType == OptType::kString);
}

TEST(OptionTable, DeclaresTheSameRowsAsTheUntypedTable) {
  const std::vector<OptionSpec>& specs = typed().specs();
  ASSERT_EQ(specs.size(), table().size());
  for (size_t i = 0; i < specs.size(); ++i) {
    SCOPED_TRACE(table()[i].name);
    EXPECT_EQ(specs[i].name, table()[i].name);
    EXPECT_EQ(specs[i].alias, table()[i].alias);
    EXPECT_EQ(specs[i].type, table()[i].type);
    EXPECT_EQ(specs[i].default_value, table()[i].default_value);
    EXPECT_EQ(specs[i].min, table()[i].min);
    EXPECT_EQ(specs[i].max, table()[i].max);
    EXPECT_EQ(specs[i].feature_param, table()[i].feature_param);
    EXPECT_EQ(specs[i].help, table()[i].help);
  }
  const std::vector<OptionSpec>& s = typed_strings().specs();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].type, OptType::kString);
  EXPECT_EQ(s[0].default_value, OptionValue(std::string("abc")));
  EXPECT_EQ(s[0].help, "a string");
  EXPECT_EQ(s[1].type, OptType::kString);
  EXPECT_EQ(s[1].default_value, OptionValue(std::string("nearest")));
}

TEST(OptionTable, FillsDefaults) {
  auto o = Options::parse("adm", typed().specs(), OptionDict());
  ASSERT_TRUE(o.ok());
  auto p = typed().fill(*o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->enhn_gain_limit, 100.0);
  EXPECT_EQ(p->csf_mode, TestMode::kA);
  EXPECT_EQ(p->dlm_weight, 0.5);
  EXPECT_FALSE(p->five_frame_window);
  EXPECT_FALSE(p->debug);
  EXPECT_EQ(p->untouched, 42);
}

// Every kind of row set away from its default; adm_dlm_weight's text given.
OptionDict non_default_dict(std::string_view dlm_weight) {
  OptionDict d;
  d.set("adm_enhn_gain_limit", "1.0");
  d.set("adm_dlm_weight", dlm_weight);
  d.set("adm_csf_mode", "2");
  d.set("motion_five_frame_window", "true");
  d.set("debug", "true");
  return d;
}

TEST(OptionTable, FillsParsedValues) {
  auto o = Options::parse("adm", typed().specs(), non_default_dict("0.123456789"));
  ASSERT_TRUE(o.ok()) << o.status().message();
  auto p = typed().fill(*o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->enhn_gain_limit, 1.0);
  EXPECT_EQ(p->dlm_weight, 0.123457);  // through single precision, as libvmaf
  EXPECT_EQ(p->csf_mode, TestMode::kC);
  EXPECT_TRUE(p->five_frame_window);
  EXPECT_TRUE(p->debug);
  EXPECT_EQ(p->untouched, 42);
  // The feature name is the untyped table's.
  EXPECT_EQ(o->feature_name("VMAF_integer_feature_adm3_score"), "integer_adm3_csf_2_dlmw_0.123457_egl_1_mffw");
}

TEST(OptionTable, NamesAndRangesAsTheUntypedTable) {
  auto o = Options::parse("adm", typed().specs(), non_default_dict("0.7"));
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->feature_name("VMAF_integer_feature_adm3_score"), "integer_adm3_csf_2_dlmw_0.7_egl_1_mffw");
  EXPECT_EQ(o->param_key(), "_csf_2_dlmw_0.7_egl_1_mffw");

  const auto err = [](std::string_view key, std::string_view val) {
    OptionDict e;
    e.set(key, val);
    auto r = Options::parse("adm", typed().specs(), e);
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(err("adm_csf_mode", "4"), "adm: option adm_csf_mode: 4 is outside [0, 3]");
  EXPECT_EQ(err("adm_csf_mode", "1.5"), "adm: option adm_csf_mode: '1.5' is not an integer");
  EXPECT_EQ(err("adm_enhn_gain_limit", "0.5"), "adm: option adm_enhn_gain_limit: 0.5 is outside [1, 100]");
  EXPECT_EQ(err("motion_five_frame_window", "1"),
            "adm: option motion_five_frame_window: '1' is not true or false");
}

TEST(OptionTable, StringAndResampleMethodRows) {
  OptionDict d;
  d.set("name", "xyz");
  d.set("method", "bicubic");
  auto o = Options::parse("feat", typed_strings().specs(), d);
  ASSERT_TRUE(o.ok()) << o.status().message();
  auto p = typed_strings().fill(*o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->method_name, "xyz");
  EXPECT_EQ(p->method, ResampleMethod::kBicubic);
  EXPECT_EQ(o->feature_name("feat_score"), "feat_score_pm_bicubic_nm_xyz");

  // A name the codec does not know parses (a string) and is refused by fill.
  OptionDict bad;
  bad.set("method", "cubic");
  auto ob = Options::parse("feat", typed_strings().specs(), bad);
  ASSERT_TRUE(ob.ok());
  auto pb = typed_strings().fill(*ob);
  ASSERT_FALSE(pb.ok());
  EXPECT_EQ(pb.status().message(), "feat: method 'cubic' is not one of nearest, bilinear, bicubic, lanczos4");
}

TEST(OptionTable, RefusesOptionsOfAnotherTable) {
  auto o = Options::parse("adm", table(), OptionDict());
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(typed().fill(*o).ok());  // the same rows, another vector
  auto s = Options::parse("feat", typed_strings().specs(), OptionDict());
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(typed().fill(*s).ok());
}

// Every feature creates with its defaults and has unique option names.
TEST(OptionTable, EveryFeatureCreatesWithDefaults) {
  for (const FeatureSpec* f : feature_registry()) {
    SCOPED_TRACE(f->name);
    for (size_t i = 0; i < f->options.size(); ++i)
      for (size_t j = i + 1; j < f->options.size(); ++j) EXPECT_NE(f->options[i].name, f->options[j].name);
    auto o = Options::parse(f->name, f->options, OptionDict());
    ASSERT_TRUE(o.ok()) << o.status().message();
    auto ex = f->create(*o);
    EXPECT_TRUE(ex.ok()) << ex.status().message();
  }
}

TEST(Options, AliasMap) {
  EXPECT_EQ(feature_name_alias("VMAF_integer_feature_vif_scale2_score"), "integer_vif_scale2");
  EXPECT_EQ(feature_name_alias("VMAF_integer_feature_motion_sad_score"),
            "VMAF_integer_feature_motion_sad_score");
  EXPECT_EQ(feature_name_alias("Cambi_feature_cambi_score"), "cambi");
}

}  // namespace
}  // namespace twinmaf
