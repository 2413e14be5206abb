// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Between the source files of the fake device (driver/fake); not for tests.
#ifndef VHCA_FAKE_INTERNAL_H
#define VHCA_FAKE_INTERNAL_H

#include "fake_device.h"

namespace vhca {
namespace fake {

// The environment's lock for one scope (fake_env.h).
class Device::Locked {
 public:
  explicit Locked(vhca_fake_env* env) : env_(env), flags_(vhca_fake_env_lock(env)) {}
  ~Locked() { vhca_fake_env_unlock(env_, flags_); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  vhca_fake_env* env_;
  unsigned long flags_;
};

}  // namespace fake
}  // namespace vhca

// A protocol violation by the driver, inside a Device member: counted and
// reported to the environment (printf format).
#define VHCA_FAKE_VIOLATION(...) \
  (protocol_errors++, vhca_fake_env_report(env_, __VA_ARGS__))

#endif  // VHCA_FAKE_INTERNAL_H
