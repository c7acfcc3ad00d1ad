// Built-in model files, embedded at build time by cmake/embed_models.cmake
// from models/<version>.json (Netflix, BSD-2-Clause-Patent: models/LICENSE).
// The version strings are libvmaf's (model.c): the file names without ".json".
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace twinmaf {

struct BuiltinModelData {
  std::string_view version;
  const unsigned char* data;  // the JSON bytes, NUL-terminated
  const std::size_t* size;    // byte count without the NUL
  std::string_view text() const {
    return {reinterpret_cast<const char*>(data), *size};
  }
};

namespace detail {
// Defined in the generated builtin_model_table.cpp.
std::span<const BuiltinModelData> builtin_model_table();
}  // namespace detail

// All built-in models in libvmaf's order.
inline std::span<const BuiltinModelData> builtin_models() { return detail::builtin_model_table(); }

// The viewing resolution a built-in model was trained for: 3840x2160 for the
// 4K models ("vmaf_4k_*", "*_2160"), 1920x1080 for the others; none for an
// unknown version.
struct ViewingSize {
  int w, h;
};
std::optional<ViewingSize> model_viewing_size(std::string_view version);

// The built-in model of that version, or null.
inline const BuiltinModelData* find_builtin_model(std::string_view version) {
  for (const BuiltinModelData& m : builtin_models())
    if (m.version == version) return &m;
  return nullptr;
}

}  // namespace twinmaf
