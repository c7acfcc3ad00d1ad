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

// "name=key=value:key=value" (libvmaf's --feature syntax). Numeric values are
// normalised as libvmaf's dictionary does.
Result<FeatureText> parse_feature_text(std::string_view text);

}  // namespace twinmaf
