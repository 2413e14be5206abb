// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The kernel memory model for the core: thin C++ spellings of vhca_kapi.h's
// READ_ONCE / WRITE_ONCE, smp_load_acquire / smp_store_release, atomic_t,
// xchg / cmpxchg and bit operations (driver/shim/barrier.c, atomic.c).
// Every access to memory another CPU (or the device) touches at the same
// time goes through one of these, never a compiler __atomic builtin, so
// the core obeys the same rules as the kernel's C code (LKMM).
#ifndef VHCA_CORE_MEMORY_MODEL_H
#define VHCA_CORE_MEMORY_MODEL_H

#include <stdint.h>

#include "vhca_kapi.h"

namespace vhca {

inline uint32_t ReadOnce(const uint32_t* p) { return vhca_kapi_read_once32(p); }
inline void WriteOnce(uint32_t* p, uint32_t value) {
  vhca_kapi_write_once32(p, value);
}
inline uint32_t LoadAcquire(const uint32_t* p) {
  return vhca_kapi_load_acquire32(p);
}
inline void StoreRelease(uint32_t* p, uint32_t value) {
  vhca_kapi_store_release32(p, value);
}

// atomic_t holding an unsigned count (wrapping like the kernel's).
class AtomicU32 {
 public:
  uint32_t Read() const { return static_cast<uint32_t>(vhca_kapi_atomic_read(&v_)); }
  uint32_t ReadAcquire() const {
    return static_cast<uint32_t>(vhca_kapi_atomic_read_acquire(&v_));
  }
  void SetRelease(uint32_t value) {
    vhca_kapi_atomic_set_release(&v_, static_cast<int>(value));
  }
  // atomic_add_return (fully ordered): the new value.
  uint32_t Add(int delta) {
    return static_cast<uint32_t>(vhca_kapi_atomic_add_return(&v_, delta));
  }
  uint32_t AddRelease(int delta) {
    return static_cast<uint32_t>(vhca_kapi_atomic_add_return_release(&v_, delta));
  }

 private:
  vhca_kapi_atomic v_{0};
};

template <typename T>
T* LoadAcquire(T* const* p) {
  return static_cast<T*>(
      vhca_kapi_load_acquire_ptr(reinterpret_cast<void* const*>(p)));
}

// xchg / cmpxchg of a pointer (fully ordered).
template <typename T>
T* Exchange(T** p, T* value) {
  return static_cast<T*>(
      vhca_kapi_xchg_ptr(reinterpret_cast<void**>(p), value));
}
// True when *p was `old` and is now `value`; else *old gets what was there.
template <typename T>
bool CompareExchange(T** p, T** old, T* value) {
  T* found = static_cast<T*>(
      vhca_kapi_cmpxchg_ptr(reinterpret_cast<void**>(p), *old, value));
  if (found == *old) return true;
  *old = found;
  return false;
}

}  // namespace vhca

#endif  // VHCA_CORE_MEMORY_MODEL_H
