// The internal side of Status (include/twinmaf/status.h): formatted errors
// and the early-return macros. Nothing below tools/ and python/ throws.
#pragma once

#include <fmt/format.h>

#include "twinmaf/status.h"

namespace twinmaf {

template <typename... Args>
Status make_error(Code code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace twinmaf

#define TWINMAF_CONCAT_INNER(a, b) a##b
#define TWINMAF_CONCAT(a, b) TWINMAF_CONCAT_INNER(a, b)

#define TWINMAF_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::twinmaf::Status twinmaf_status_ = (expr);    \
    if (!twinmaf_status_.ok()) return twinmaf_status_; \
  } while (0)

#define TWINMAF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define TWINMAF_ASSIGN_OR_RETURN(lhs, expr) \
  TWINMAF_ASSIGN_OR_RETURN_IMPL(TWINMAF_CONCAT(twinmaf_result_, __LINE__), lhs, expr)

#define TWINMAF_FAIL(code, ...) return ::twinmaf::make_error(::twinmaf::Code::code, __VA_ARGS__)
