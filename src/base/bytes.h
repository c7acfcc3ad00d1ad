// Plain values as bytes and back, for what crosses processes (the terms of a
// distributed run, api/segment): scalars in the host's own representation
// (both ends run the same build), arrays element by element, vectors as a
// count and their elements, and structs through their `fields`:
//
//   struct S { int a; std::vector<float> b;
//              template <class Self, class F> static void fields(Self& s, F&& f) { f(s.a); f(s.b); } };
//
// Reading checks every length against what is left, so corrupt or truncated
// bytes are an error, never an overread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace twinmaf {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}

  template <class T>
  void put(const T& v) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    } else if constexpr (std::is_array_v<T>) {
      for (const auto& e : v) put(e);
    } else if constexpr (requires { typename T::value_type; v.size(); v.data(); }) {
      if constexpr (!requires { std::tuple_size<T>::value; }) put(static_cast<uint64_t>(v.size()));
      for (const auto& e : v) put(e);
    } else {
      T::fields(v, [this](const auto& f) { put(f); });
    }
  }
  void put_bytes(std::string_view b) {
    put(static_cast<uint64_t>(b.size()));
    out_.append(b);
  }

 private:
  std::string& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  // Reads v; after a failure, ok() is false and v is unspecified.
  template <class T>
  void get(T& v) {
    if (!ok_) return;
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      if (!take(sizeof v)) return;
      std::memcpy(&v, in_.data() - sizeof v, sizeof v);
    } else if constexpr (std::is_array_v<T>) {
      for (auto& e : v) get(e);
    } else if constexpr (requires { std::tuple_size<T>::value; }) {
      for (auto& e : v) get(e);
    } else if constexpr (requires { typename T::value_type; v.resize(0); }) {
      uint64_t n = 0;
      get(n);
      // Every element takes at least one byte.
      if (!ok_ || n > in_.size()) return fail();
      v.resize(static_cast<size_t>(n));
      for (auto& e : v) get(e);
    } else {
      T::fields(v, [this](auto& f) { get(f); });
    }
  }
  std::string_view get_bytes() {
    uint64_t n = 0;
    get(n);
    if (!ok_ || n > in_.size()) {
      fail();
      return {};
    }
    const std::string_view b = in_.substr(0, static_cast<size_t>(n));
    in_.remove_prefix(static_cast<size_t>(n));
    return b;
  }

  bool ok() const { return ok_; }
  bool at_end() const { return in_.empty(); }

 private:
  bool take(size_t n) {
    if (n > in_.size()) {
      fail();
      return false;
    }
    in_.remove_prefix(n);
    return true;
  }
  void fail() { ok_ = false; }

  std::string_view in_;
  bool ok_ = true;
};

}  // namespace twinmaf
