// create_with<T>: the FeatureSpec::create of every extractor.
//
// An extractor T with options declares them once, as a typed table
// (core/option_table.h) over its parameter struct:
//
//   using Params = PsnrParams;
//   static const OptionTable<Params>& options();   // FeatureSpec::options = options().specs()
//
// and is constructed from (const Params&, const Options&) — the Options give
// the suffixed feature names — or from (const Params&) alone. Checks libvmaf
// makes on the values beyond their ranges go in an optional
// `static Status check(const Params&)`, run before construction. A T without
// options declares neither and is default-constructed.
#pragma once

#include <memory>
#include <type_traits>

#include "core/option_table.h"
#include "features/feature.h"

namespace twinmaf {

template <class T>
Result<std::unique_ptr<Extractor>> create_with(const Options& o) {
  if constexpr (requires { typename T::Params; }) {
    using P = typename T::Params;
    TWINMAF_ASSIGN_OR_RETURN(P p, T::options().fill(o));
    if constexpr (requires { T::check(p); }) TWINMAF_RETURN_IF_ERROR(T::check(p));
    if constexpr (std::is_constructible_v<T, const P&, const Options&>)
      return std::unique_ptr<Extractor>(std::make_unique<T>(p, o));
    else
      return std::unique_ptr<Extractor>(std::make_unique<T>(p));
  } else {
    (void)o;
    return std::unique_ptr<Extractor>(std::make_unique<T>());
  }
}

}  // namespace twinmaf
