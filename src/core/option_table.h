// Typed option rows (libvmaf's offsetof-style VmafOption tables, with member
// pointers): one row declares an option (name, alias, default, range,
// feature-param flag, help) AND the parameter-struct member it fills, so an
// option is written once. The option's type is deduced from the member:
//
//   struct PsnrParams { bool enable_chroma; double min_sse; };
//   const OptionTable<PsnrParams> t{
//       opt(&PsnrParams::enable_chroma, {.name = "enable_chroma", .default_value = true,
//                                        .help = "enable calculation for chroma channels"}),
//       opt(&PsnrParams::min_sse, {.name = "min_sse", .default_value = 0.0, .min = 0.0, .max = DBL_MAX,
//                                  .help = "constrain the minimum possible sse"})};
//
// t.specs() is the untyped view (the OptionSpec rows Options::parse, model
// binding and the feature-name rules read); t.fill(options) walks the rows and
// returns the filled struct. Members may be bool, int, double, std::string, an
// enum (an int option, static_cast), or any type with an OptionCodec
// specialisation (ResampleMethod: a string option naming one of its values).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/options.h"

namespace twinmaf {

// How a member type is declared (kType), how its default is written
// (encode) and how a parsed value becomes the member (decode; an error names
// the owner and the option).
template <class M, class = void>
struct OptionCodec;

template <class M, OptType T>
struct PlainOptionCodec {
  static constexpr OptType kType = T;
  static OptionValue encode(const M& v) { return OptionValue(v); }
  static Result<M> decode(std::string_view, const OptionSpec&, const OptionValue& v) { return std::get<M>(v); }
};
template <>
struct OptionCodec<bool> : PlainOptionCodec<bool, OptType::kBool> {};
template <>
struct OptionCodec<int> : PlainOptionCodec<int, OptType::kInt> {};
template <>
struct OptionCodec<double> : PlainOptionCodec<double, OptType::kDouble> {};
template <>
struct OptionCodec<std::string> : PlainOptionCodec<std::string, OptType::kString> {};

// An enum is an int option (its range bounds the values).
template <class E>
struct OptionCodec<E, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr OptType kType = OptType::kInt;
  static OptionValue encode(E v) { return OptionValue(static_cast<int>(v)); }
  static Result<E> decode(std::string_view, const OptionSpec&, const OptionValue& v) {
    return static_cast<E>(std::get<int>(v));
  }
};

// What a row says about its option; M is the member's type, so the default
// is written in it.
template <class M>
struct OptInfo {
  std::string_view name;
  std::string_view alias;  // empty: none
  M default_value{};
  double min = 0;
  double max = 0;
  bool feature_param = false;  // participates in the feature name
  std::string_view help;
};

// One option row filling member `member` of P.
template <class P, class M>
struct Opt {
  M P::*member;
  OptInfo<M> info;
};

// A row: opt(&P::member, {.name = ..., .default_value = ...}); P and M are
// deduced from the member pointer (a row of a base struct fits the table of a
// derived one). A function, not aggregate deduction of Opt: clang 16 deduces
// no class template arguments from designated initializers.
template <class P, class M>
Opt<P, M> opt(M P::*member, OptInfo<std::type_identity_t<M>> info) {
  return {member, std::move(info)};
}

template <class P>
class OptionTable {
 public:
  OptionTable() = default;
  // Rows (Opt) and tables of base structs, in table order.
  template <class... Rows>
  explicit OptionTable(const Rows&... rows) {
    (add(rows), ...);
  }

  template <class Q, class M>
  OptionTable& add(const Opt<Q, M>& row) {
    static_assert(std::is_base_of_v<Q, P>, "the row fills a member of another struct");
    using Codec = OptionCodec<M>;
    const OptInfo<M>& info = row.info;
    specs_.push_back(OptionSpec{.name = info.name,
                                .alias = info.alias,
                                .type = Codec::kType,
                                .default_value = Codec::encode(info.default_value),
                                .min = info.min,
                                .max = info.max,
                                .feature_param = info.feature_param,
                                .help = info.help});
    M P::*member = row.member;
    set_.push_back([member](P& p, std::string_view owner, const OptionSpec& spec,
                            const OptionValue& v) -> Status {
      TWINMAF_ASSIGN_OR_RETURN(p.*member, Codec::decode(owner, spec, v));
      return ok_status();
    });
    return *this;
  }
  template <class Q>
  OptionTable& add(const OptionTable<Q>& rows) {
    static_assert(std::is_base_of_v<Q, P>, "the rows fill members of another struct");
    for (size_t i = 0; i < rows.specs_.size(); ++i) {
      specs_.push_back(rows.specs_[i]);
      set_.push_back([set = rows.set_[i]](P& p, std::string_view owner, const OptionSpec& spec,
                                          const OptionValue& v) { return set(p, owner, spec, v); });
    }
    return *this;
  }

  // The untyped view: what Options::parse and FeatureSpec::options take.
  const std::vector<OptionSpec>& specs() const { return specs_; }

  // The struct filled from options parsed against specs() (members without a
  // row keep their initialisers). Errors: a value the member's codec refuses.
  Result<P> fill(const Options& o) const {
    P p{};
    if (o.table().size() != specs_.size())
      TWINMAF_FAIL(kInternal, "{}: options parsed against another table", o.owner());
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (o.table()[i].name != specs_[i].name)
        TWINMAF_FAIL(kInternal, "{}: options parsed against another table", o.owner());
      TWINMAF_RETURN_IF_ERROR(set_[i](p, o.owner(), specs_[i], o.value(i)));
    }
    return p;
  }

 private:
  template <class>
  friend class OptionTable;
  using Setter = std::function<Status(P&, std::string_view, const OptionSpec&, const OptionValue&)>;
  std::vector<OptionSpec> specs_;
  std::vector<Setter> set_;
};

}  // namespace twinmaf
