// Typed option tables and libvmaf's rules for option text and feature names.
//
// Contract (libvmaf f85a8536, src/dict.c, src/opt.c, feature/feature_name.c):
// - Option text that scans as a number is normalised before parsing: strtof
//   (single precision), then re-printed with "%g" (6 significant digits).
//   So "1.23456789" reaches the option as 1.23457 and "1.0" as 1.
// - bool accepts exactly "true"/"false"; double = strtod of the normalised text
//   within [min, max]; int likewise, and must be integral. (libvmaf's atoi would
//   read "1.5" as 1; we reject it: the same value for every valid input, a clear
//   error for the rest.) Non-finite values are rejected.
// - A feature name is suffixed by every feature-param option whose parsed value
//   differs from its default, sorted by option *name* (strcmp), each as
//   "_<alias or name>_<value>" ("%d", "%g", or the string; bools print only
//   "_<alias>"). With no such option the name stays as provided, un-aliased;
//   otherwise it starts from the alias of the provided name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"

namespace twinmaf {

enum class OptType : uint8_t { kBool, kInt, kDouble, kString };

using OptionValue = std::variant<bool, int, double, std::string>;

struct OptionSpec {
  std::string_view name;
  std::string_view alias;  // empty: none
  OptType type;
  OptionValue default_value;
  double min = 0;
  double max = 0;
  bool feature_param = false;  // participates in the feature name
  std::string_view help;
};

// An ordered key -> text list (a libvmaf dictionary). Keys are unique.
class OptionDict {
 public:
  // Sets key to text, normalising numeric text (strtof + "%g") as libvmaf's
  // vmaf_feature_dictionary_set does. A repeated key overwrites.
  void set(std::string_view key, std::string_view text);
  // Sets without normalisation (text already normalised or not numeric).
  void set_raw(std::string_view key, std::string_view text);
  const std::string* find(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// libvmaf's numeric normalisation of one option text ("1.0" -> "1").
std::string normalize_option_text(std::string_view text);

// "%g" of a double, as C prints it.
std::string format_g(double v);

// Parsed option values of one feature instance, in table order. Features read
// them as their parameter struct through their typed table (option_table.h).
class Options {
 public:
  Options() = default;
  // Parses dict against table. `owner` names the feature in error messages.
  static Result<Options> parse(std::string_view owner, const std::vector<OptionSpec>& table,
                               const OptionDict& dict);

  // The feature these options configure (error messages).
  const std::string& owner() const { return owner_; }

  // The feature name for a provided name under these values (rules above).
  std::string feature_name(std::string_view provided) const;
  // Key identifying the feature-param values: equal keys = duplicate
  // registrations (libvmaf's dedup rule).
  std::string param_key() const;

  const std::vector<OptionSpec>& table() const { return *table_; }
  const OptionValue& value(size_t i) const { return values_[i]; }

 private:
  std::string owner_;
  const std::vector<OptionSpec>* table_ = nullptr;
  std::vector<OptionValue> values_;
};

// What option parsing and model binding need to know of the extractor that
// provides a feature name: its name and option table. The feature registry
// answers (features/feature.h, registry_provider); layers below features see
// only this function type.
struct ExtractorRef {
  std::string_view name;
  const std::vector<OptionSpec>* options = nullptr;
};
using FindProvider = std::optional<ExtractorRef> (*)(std::string_view provided_name);

// libvmaf's printed-name alias map ("VMAF_integer_feature_adm2_score" ->
// "integer_adm2"); names not in the map are returned unchanged.
std::string_view feature_name_alias(std::string_view name);

}  // namespace twinmaf
