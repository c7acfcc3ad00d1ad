// TWINMAF_DASSERT: internal invariants, checked in debug and sanitizer builds
// (TWINMAF_DASSERTS=1), compiled out of release builds. A failed check prints
// the condition with file:line and aborts: it marks a bug in twinmaf, never
// bad input (inputs are validated at the API boundary and get a Status).
//
// down_cast<T&>(base): the downcast of a FrameTerms or an Extractor to the type
// its feature created, checked with dynamic_cast where DASSERTs are on.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#if !defined(TWINMAF_DASSERTS)
#if defined(NDEBUG)
#define TWINMAF_DASSERTS 0
#else
#define TWINMAF_DASSERTS 1
#endif
#endif

namespace twinmaf::detail {

[[noreturn]] inline void dassert_failed(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "twinmaf: internal invariant broken at %s:%d: %s\n", file, line, cond);
  std::abort();
}

}  // namespace twinmaf::detail

#if TWINMAF_DASSERTS
#define TWINMAF_DASSERT(cond) \
  ((cond) ? static_cast<void>(0) : ::twinmaf::detail::dassert_failed(#cond, __FILE__, __LINE__))
#else
#define TWINMAF_DASSERT(cond) static_cast<void>(0)
#endif

namespace twinmaf {

template <typename To, typename From>
To down_cast(From& from) {
  static_assert(std::is_reference_v<To>, "down_cast converts references");
  using Target = std::remove_reference_t<To>;
  static_assert(std::is_base_of_v<std::remove_cv_t<From>, std::remove_cv_t<Target>>, "not a downcast");
  TWINMAF_DASSERT(dynamic_cast<Target*>(&from) != nullptr);
  return static_cast<To>(from);
}

}  // namespace twinmaf
