// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Little-endian conversion for the vhca_le* fields of vhca_hw.h (every
// multi-byte field the device sees is little-endian).
#ifndef VHCA_CORE_ENDIAN_H
#define VHCA_CORE_ENDIAN_H

#include <stdint.h>

namespace vhca {

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline uint16_t ToLe16(uint16_t v) { return v; }
inline uint32_t ToLe32(uint32_t v) { return v; }
inline uint64_t ToLe64(uint64_t v) { return v; }
#else
inline uint16_t ToLe16(uint16_t v) { return __builtin_bswap16(v); }
inline uint32_t ToLe32(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t ToLe64(uint64_t v) { return __builtin_bswap64(v); }
#endif
inline uint16_t FromLe16(uint16_t v) { return ToLe16(v); }
inline uint32_t FromLe32(uint32_t v) { return ToLe32(v); }
inline uint64_t FromLe64(uint64_t v) { return ToLe64(v); }

}  // namespace vhca

#endif  // VHCA_CORE_ENDIAN_H
