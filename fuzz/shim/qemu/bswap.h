/*
 * Host fuzzing shim for QEMU's "qemu/bswap.h": the little-endian
 * conversions and loads of the device's parsing code (see osdep.h in this
 * directory).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FUZZ_SHIM_BSWAP_H
#define VHCA_FUZZ_SHIM_BSWAP_H

#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define VHCA_SHIM_LE(bits, v) __builtin_bswap##bits(v)
#else
#define VHCA_SHIM_LE(bits, v) (v)
#endif

static inline uint16_t le16_to_cpu(uint16_t v) { return VHCA_SHIM_LE(16, v); }
static inline uint32_t le32_to_cpu(uint32_t v) { return VHCA_SHIM_LE(32, v); }
static inline uint64_t le64_to_cpu(uint64_t v) { return VHCA_SHIM_LE(64, v); }
static inline uint16_t cpu_to_le16(uint16_t v) { return VHCA_SHIM_LE(16, v); }
static inline uint32_t cpu_to_le32(uint32_t v) { return VHCA_SHIM_LE(32, v); }
static inline uint64_t cpu_to_le64(uint64_t v) { return VHCA_SHIM_LE(64, v); }

/* Unaligned loads from a byte buffer (QEMU's ld*_p family). */
static inline uint32_t ldl_he_p(const void *p)
{
    uint32_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint16_t lduw_le_p(const void *p)
{
    uint16_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return le16_to_cpu(v);
}

static inline uint32_t ldl_le_p(const void *p)
{
    return le32_to_cpu(ldl_he_p(p));
}

static inline uint64_t ldq_le_p(const void *p)
{
    uint64_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return le64_to_cpu(v);
}

/* Big-endian loads and stores (MADs, vhca-sma.c), byte by byte. */
static inline uint16_t lduw_be_p(const void *p)
{
    const uint8_t *b = p;

    return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t ldl_be_p(const void *p)
{
    const uint8_t *b = p;

    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
           (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t ldq_be_p(const void *p)
{
    const uint8_t *b = p;

    return (uint64_t)ldl_be_p(b) << 32 | ldl_be_p(b + 4);
}

static inline void stw_be_p(void *p, uint16_t v)
{
    uint8_t *b = p;

    b[0] = v >> 8;
    b[1] = v;
}

static inline void stl_be_p(void *p, uint32_t v)
{
    uint8_t *b = p;

    b[0] = v >> 24;
    b[1] = v >> 16;
    b[2] = v >> 8;
    b[3] = v;
}

static inline void stq_be_p(void *p, uint64_t v)
{
    stl_be_p(p, v >> 32);
    stl_be_p((uint8_t *)p + 4, v);
}

#endif /* VHCA_FUZZ_SHIM_BSWAP_H */
