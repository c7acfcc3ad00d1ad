// A small JSON document tree for the model reader (internal).
//
// Parsed with nlohmann-json's SAX interface, but keeping what libvmaf's
// streaming reader (pdjson) sees and nlohmann's DOM would lose:
// - each number's source text: libvmaf converts numbers with strtod of that
//   text, and hands option values to its dictionary as text (strtof + "%g");
//   nlohmann reports integers as int64/uint64 only (losing "-0"), so the
//   texts are taken from a lexical pre-scan of the input, matched to the SAX
//   number events in order and cross-checked against nlohmann's values;
// - object keys in file order, duplicates included (the reader rejects them).
// Nesting is limited (kMaxDepth) so hostile input cannot exhaust the stack.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace twinmaf::detail {

struct JsonNode {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0.0;   // strtod(text) for kNumber
  std::string text;      // kNumber: source text; kString: the decoded string
  std::vector<JsonNode> items;     // kArray elements or kObject values
  std::vector<std::string> keys;   // kObject keys, parallel to items

  bool is(Kind k) const { return kind == k; }
  // First value under key in an object, or null.
  const JsonNode* find(std::string_view key) const;
};

inline constexpr int kMaxJsonDepth = 64;

// Parses a complete JSON text. Errors: one line, "JSON: ..." with the position.
Result<JsonNode> parse_json(std::string_view text);

std::string_view json_kind_name(JsonNode::Kind k);

}  // namespace twinmaf::detail
