// The text forms of the API's configuration: libvmaf's --feature syntax and
// the CTC presets.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "core/options.h"

namespace twinmaf {

struct FeatureText {
  std::string name;
  OptionDict options;
};

// "name=key=value:key=value" (libvmaf's --feature syntax). Values are
// normalised as libvmaf's dictionary does (dictionary_text).
Result<FeatureText> parse_feature_text(std::string_view text);

// libvmaf's vmaf_feature_dictionary_set rule: a text that sscanf reads as one
// float with nothing after it but blanks is normalised
// (normalize_option_text); any other text is kept as given, so a string
// option "1.out" is not read as the number 1.
std::string dictionary_text(std::string_view text);

// OptionList (twinmaf/twinmaf.h) as an option dictionary.
OptionDict option_dict(const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace twinmaf
