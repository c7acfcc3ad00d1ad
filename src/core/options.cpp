#include "core/options.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace twinmaf {

std::string format_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string normalize_option_text(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double d = std::strtof(s.c_str(), &end);
  // libvmaf keeps the text when nothing scanned as a number.
  if (d == 0 && end == s.c_str()) return s;
  return format_g(d);
}

void OptionDict::set(std::string_view key, std::string_view text) {
  set_raw(key, normalize_option_text(text));
}

void OptionDict::set_raw(std::string_view key, std::string_view text) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::string(text);
      return;
    }
  }
  entries_.emplace_back(std::string(key), std::string(text));
}

const std::string* OptionDict::find(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

namespace {

Result<OptionValue> parse_value(std::string_view owner, const OptionSpec& spec,
                                const std::string& text) {
  switch (spec.type) {
    case OptType::kBool:
      if (text == "true") return OptionValue(true);
      if (text == "false") return OptionValue(false);
      TWINMAF_FAIL(kInvalidArgument, "{}: option {}: '{}' is not true or false", owner, spec.name,
                   text);
    case OptType::kInt:
    case OptType::kDouble: {
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0')
        TWINMAF_FAIL(kInvalidArgument, "{}: option {}: '{}' is not a number", owner, spec.name,
                     text);
      if (!std::isfinite(v))
        TWINMAF_FAIL(kInvalidArgument, "{}: option {}: '{}' is not finite", owner, spec.name, text);
      if (v < spec.min || v > spec.max)
        TWINMAF_FAIL(kInvalidArgument, "{}: option {}: {} is outside [{}, {}]", owner, spec.name,
                     text, format_g(spec.min), format_g(spec.max));
      if (spec.type == OptType::kDouble) return OptionValue(v);
      if (v != std::trunc(v))
        TWINMAF_FAIL(kInvalidArgument, "{}: option {}: '{}' is not an integer", owner, spec.name,
                     text);
      return OptionValue(static_cast<int>(v));
    }
    case OptType::kString:
      return OptionValue(text);
  }
  TWINMAF_FAIL(kInternal, "{}: option {}: unknown type", owner, spec.name);
}

std::string value_text(const OptionSpec& spec, const OptionValue& v) {
  switch (spec.type) {
    case OptType::kBool: return std::get<bool>(v) ? "true" : "false";
    case OptType::kInt: return std::to_string(std::get<int>(v));
    case OptType::kDouble: return format_g(std::get<double>(v));
    case OptType::kString: return std::get<std::string>(v);
  }
  return {};
}

}  // namespace

Result<Options> Options::parse(std::string_view owner, const std::vector<OptionSpec>& table,
                               const OptionDict& dict) {
  for (const auto& [key, text] : dict.entries()) {
    const bool known = std::any_of(table.begin(), table.end(),
                                   [&](const OptionSpec& s) { return s.name == key; });
    if (!known) {
      std::string names;
      for (const auto& s : table) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
      TWINMAF_FAIL(kInvalidArgument, "{}: unknown option '{}' (options: {})", owner, key,
                   names.empty() ? "none" : names);
    }
  }
  Options out;
  out.owner_ = std::string(owner);
  out.table_ = &table;
  out.values_.reserve(table.size());
  for (const auto& spec : table) {
    const std::string* text = dict.find(spec.name);
    if (!text) {
      out.values_.push_back(spec.default_value);
      continue;
    }
    TWINMAF_ASSIGN_OR_RETURN(OptionValue v, parse_value(owner, spec, *text));
    out.values_.push_back(std::move(v));
  }
  return out;
}

std::string Options::feature_name(std::string_view provided) const {
  std::vector<size_t> changed;
  if (table_) {
    for (size_t i = 0; i < table_->size(); ++i)
      if ((*table_)[i].feature_param && values_[i] != (*table_)[i].default_value)
        changed.push_back(i);
  }
  if (changed.empty()) return std::string(provided);
  std::sort(changed.begin(), changed.end(), [&](size_t a, size_t b) {
    return (*table_)[a].name.compare((*table_)[b].name) < 0;
  });
  std::string out(feature_name_alias(provided));
  for (size_t i : changed) {
    const OptionSpec& spec = (*table_)[i];
    const std::string_view key = spec.alias.empty() ? spec.name : spec.alias;
    out += '_';
    out += key;
    if (spec.type != OptType::kBool) {
      out += '_';
      out += value_text(spec, values_[i]);
    }
  }
  // libvmaf builds names in a 256-byte buffer and silently truncates.
  if (out.size() > 256) out.resize(256);
  return out;
}

std::string Options::param_key() const { return feature_name(""); }

std::string_view feature_name_alias(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 29> kAliases = {{
      {"VMAF_feature_adm2_score", "adm2"},
      {"VMAF_feature_aim_score", "aim"},
      {"VMAF_feature_adm3_score", "adm3"},
      {"VMAF_feature_adm_scale0_score", "adm_scale0"},
      {"VMAF_feature_adm_scale1_score", "adm_scale1"},
      {"VMAF_feature_adm_scale2_score", "adm_scale2"},
      {"VMAF_feature_adm_scale3_score", "adm_scale3"},
      {"VMAF_feature_motion_score", "motion"},
      {"VMAF_feature_motion2_score", "motion2"},
      {"VMAF_feature_motion3_score", "motion3"},
      {"VMAF_feature_vif_scale0_score", "vif_scale0"},
      {"VMAF_feature_vif_scale1_score", "vif_scale1"},
      {"VMAF_feature_vif_scale2_score", "vif_scale2"},
      {"VMAF_feature_vif_scale3_score", "vif_scale3"},
      {"VMAF_integer_feature_adm2_score", "integer_adm2"},
      {"VMAF_integer_feature_aim_score", "integer_aim"},
      {"VMAF_integer_feature_adm3_score", "integer_adm3"},
      {"VMAF_integer_feature_motion_score", "integer_motion"},
      {"VMAF_integer_feature_motion2_score", "integer_motion2"},
      {"VMAF_integer_feature_motion3_score", "integer_motion3"},
      {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
      {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
      {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
      {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
      {"Cambi_feature_cambi_score", "cambi"},
      {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
      {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
      {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
      {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
  }};
  for (const auto& [from, to] : kAliases)
    if (from == name) return to;
  return name;
}

}  // namespace twinmaf
