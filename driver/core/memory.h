// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Byte copies via the compiler builtins (they lower to inline moves or to
// the kernel's exported memcpy/memset; no C library is linked).
#ifndef VHCA_CORE_MEMORY_H
#define VHCA_CORE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

namespace vhca {

inline void CopyBytes(void* dst, const void* src, size_t size) {
  __builtin_memcpy(dst, src, size);
}
inline void ZeroBytes(void* dst, size_t size) { __builtin_memset(dst, 0, size); }

// One volatile byte read: ring bytes the device writes concurrently
// (READ_ONCE in kernel terms).
inline uint8_t ReadOnceByte(const volatile uint8_t* byte) { return *byte; }

}  // namespace vhca

#endif  // VHCA_CORE_MEMORY_H
