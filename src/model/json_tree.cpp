#include "model/json_tree.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <exception>
#include <new>

namespace twinmaf::detail {
namespace {

// Source texts of all number tokens, in order. Outside strings, valid JSON
// holds only structure, whitespace, true/false/null and numbers, so a number
// is exactly a maximal run of [-+.0-9eE] starting at '-' or a digit.
std::vector<std::string_view> scan_number_texts(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const size_t b = i;
      while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '+' ||
                              s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
        ++i;
      out.push_back(s.substr(b, i - b));
    } else {
      ++i;
    }
  }
  return out;
}

class TreeBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  TreeBuilder(JsonNode& root, std::vector<std::string_view> numbers)
      : root_(root), numbers_(std::move(numbers)) {}

  bool null() override { return add(JsonNode{}) != nullptr; }
  bool boolean(bool val) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kBool;
    n.boolean = val;
    return add(std::move(n)) != nullptr;
  }
  bool number_integer(number_integer_t val) override {
    return add_number(static_cast<double>(val), nullptr);
  }
  bool number_unsigned(number_unsigned_t val) override {
    return add_number(static_cast<double>(val), nullptr);
  }
  bool number_float(number_float_t val, const string_t& s) override { return add_number(val, &s); }
  bool string(string_t& val) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kString;
    n.text = std::move(val);
    return add(std::move(n)) != nullptr;
  }
  bool binary(binary_t&) override { return fail("binary values are not JSON"); }
  bool start_object(std::size_t) override { return open(JsonNode::Kind::kObject); }
  bool key(string_t& val) override {
    stack_.back()->keys.push_back(std::move(val));
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return open(JsonNode::Kind::kArray); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at ..."
    if (const size_t p = what.find("] "); what.rfind("[json.exception.", 0) == 0 && p != what.npos)
      what.erase(0, p + 2);
    return fail(what);
  }

  const std::string& error() const { return error_; }
  size_t numbers_used() const { return next_number_; }
  size_t numbers_scanned() const { return numbers_.size(); }

 private:
  bool fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  JsonNode* add(JsonNode n) {
    if (stack_.empty()) {
      if (have_root_) {
        fail("more than one top-level value");
        return nullptr;
      }
      have_root_ = true;
      root_ = std::move(n);
      return &root_;
    }
    JsonNode* parent = stack_.back();
    // Objects get their key first (key()), so keys.size() == items.size() + 1.
    parent->items.push_back(std::move(n));
    return &parent->items.back();
  }

  bool open(JsonNode::Kind kind) {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth))
      return fail(fmt::format("nesting deeper than {} levels", kMaxJsonDepth));
    JsonNode n;
    n.kind = kind;
    JsonNode* node = add(std::move(n));
    if (!node) return false;
    stack_.push_back(node);
    return true;
  }

  bool add_number(double value, const std::string* float_text) {
    if (next_number_ >= numbers_.size()) return fail("internal: number texts out of step");
    const std::string_view text = numbers_[next_number_++];
    JsonNode n;
    n.kind = JsonNode::Kind::kNumber;
    n.text = std::string(text);
    // libvmaf (pdjson json_get_number): strtod of the token text.
    n.number = std::strtod(n.text.c_str(), nullptr);
    // The scanned text must be the token nlohmann parsed.
    if (float_text ? (*float_text != text) : (n.number != value))
      return fail("internal: number texts out of step");
    return add(std::move(n)) != nullptr;
  }

  JsonNode& root_;
  std::vector<std::string_view> numbers_;
  size_t next_number_ = 0;
  std::vector<JsonNode*> stack_;
  bool have_root_ = false;
  std::string error_;
};

}  // namespace

const JsonNode* JsonNode::find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (size_t i = 0; i < keys.size() && i < items.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

std::string_view json_kind_name(JsonNode::Kind k) {
  switch (k) {
    case JsonNode::Kind::kNull: return "null";
    case JsonNode::Kind::kBool: return "a boolean";
    case JsonNode::Kind::kNumber: return "a number";
    case JsonNode::Kind::kString: return "a string";
    case JsonNode::Kind::kArray: return "an array";
    case JsonNode::Kind::kObject: return "an object";
  }
  return "?";
}

Result<JsonNode> parse_json(std::string_view text) {
  JsonNode root;
  TreeBuilder builder(root, scan_number_texts(text));
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder,
                                   nlohmann::json::input_format_t::json, /*strict=*/true);
  } catch (const std::bad_alloc&) {
    TWINMAF_FAIL(kInternal, "JSON: out of memory");
  } catch (const std::exception& e) {
    TWINMAF_FAIL(kInvalidArgument, "JSON: {}", e.what());
  }
  if (!ok || !builder.error().empty())
    TWINMAF_FAIL(kInvalidArgument, "JSON: {}",
                 builder.error().empty() ? std::string("parse error") : builder.error());
  if (builder.numbers_used() != builder.numbers_scanned())
    TWINMAF_FAIL(kInternal, "JSON: internal: number texts out of step");
  return root;
}

}  // namespace twinmaf::detail
