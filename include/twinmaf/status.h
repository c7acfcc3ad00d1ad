// Status and Result<T>: the error channel of twinmaf's C++ API and of every
// internal function.
//
// A Status is either ok or carries a code and a one-line message meant for the
// user ("psnr: option min_sse: 'x' is not a number"). Nothing in the library
// throws; errors travel up as values.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace twinmaf {

enum class Code {
  kOk = 0,
  kInvalidArgument,  // bad option, bad flag value, bad model file
  kBadInput,         // truncated file, bad header, size mismatch
  kUnsupported,      // valid request this build or feature cannot do
  kIo,               // open/read/write failures
  kInternal,         // broken invariant or device error
  kCancelled,        // Scorer::cancel()
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Exit status the CLI uses for this error: 2 for what the user can fix
  // (arguments, inputs, files), 1 for internal errors.
  int exit_code() const {
    switch (code_) {
      case Code::kOk: return 0;
      case Code::kInternal: return 1;
      case Code::kCancelled: return 130;  // as a shell reports SIGINT
      default: return 2;
    }
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status ok_status() { return {}; }

// A value or the Status that explains its absence.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace twinmaf
