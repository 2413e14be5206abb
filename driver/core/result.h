// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Result<T>: a value or a negative errno, never both.  [[nodiscard]] so
// that an ignored error is a compile error (-Werror).
#ifndef VHCA_CORE_RESULT_H
#define VHCA_CORE_RESULT_H

#include "placement_new.h"
#include "type_traits.h"

namespace vhca {

// A negative errno (-VHCA_E*) on its way into a Result.
struct Error {
  int errno_value;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(Error error) : error_(error.errno_value) {}  // NOLINT: implicit
  Result(T&& value) : error_(0) { new (&value_) T(Move(value)); }  // NOLINT
  Result(const T& value) : error_(0) { new (&value_) T(value); }  // NOLINT
  Result(Result&& other) : error_(other.error_) {
    if (error_ == 0) new (&value_) T(Move(other.value_));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (error_ == 0) value_.~T();
  }

  bool ok() const { return error_ == 0; }
  int error() const { return error_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  // Moves the value out; the Result must be ok().
  T Take() { return Move(value_); }

 private:
  int error_;
  union {
    T value_;
  };
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() : error_(0) {}
  Result(Error error) : error_(error.errno_value) {}  // NOLINT: implicit
  bool ok() const { return error_ == 0; }
  int error() const { return error_; }

 private:
  int error_;
};

using Status = Result<void>;

inline Status Ok() { return Status(); }

}  // namespace vhca

// Returns the error of a Result-valued expression from the calling function.
#define VHCA_TRY(expr)                                  \
  do {                                                  \
    auto&& vhca_try_result_ = (expr);                   \
    if (!vhca_try_result_.ok())                         \
      return ::vhca::Error{vhca_try_result_.error()};   \
  } while (0)

#endif  // VHCA_CORE_RESULT_H
