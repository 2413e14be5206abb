/*
 * vhca fabric library - byte order and the few size macros its files use,
 * from standard C alone: the library builds without QEMU's headers, for
 * the device (inside QEMU), the standalone switch (tools/) and the fuzz
 * targets (fuzz/) alike.
 *
 * MADs are big-endian on the wire (IBA 13.4.2: "all fields are
 * transmitted most significant byte first"); the vhca wire header
 * (uapi/vhca_hw_wire.h) is little-endian.  The loads and stores take any
 * alignment: a MAD field sits where the MAD puts it.  The names are the
 * library's own, so that a device file may include a library header
 * beside QEMU's qemu/bswap.h without a clash.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FABRIC_BYTES_H
#define VHCA_FABRIC_BYTES_H

#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define VHCA_LE(bits, v) __builtin_bswap##bits(v)
#else
#define VHCA_LE(bits, v) (v)
#endif

/* Little-endian values (the vhca wire header) to and from the CPU's. */
static inline uint16_t vhca_le16_to_cpu(uint16_t v) { return VHCA_LE(16, v); }
static inline uint32_t vhca_le32_to_cpu(uint32_t v) { return VHCA_LE(32, v); }
static inline uint64_t vhca_le64_to_cpu(uint64_t v) { return VHCA_LE(64, v); }
static inline uint16_t vhca_cpu_to_le16(uint16_t v) { return VHCA_LE(16, v); }
static inline uint32_t vhca_cpu_to_le32(uint32_t v) { return VHCA_LE(32, v); }
static inline uint64_t vhca_cpu_to_le64(uint64_t v) { return VHCA_LE(64, v); }

/* Unaligned little-endian loads from a byte buffer. */
static inline uint32_t vhca_get_le32(const void *p)
{
    uint32_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return vhca_le32_to_cpu(v);
}

static inline uint64_t vhca_get_le64(const void *p)
{
    uint64_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return vhca_le64_to_cpu(v);
}

/* Big-endian loads and stores (MAD fields), byte by byte. */
static inline uint16_t vhca_get_be16(const void *p)
{
    const uint8_t *b = p;

    return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t vhca_get_be32(const void *p)
{
    const uint8_t *b = p;

    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
           (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t vhca_get_be64(const void *p)
{
    const uint8_t *b = p;

    return (uint64_t)vhca_get_be32(b) << 32 | vhca_get_be32(b + 4);
}

static inline void vhca_put_be16(void *p, uint16_t v)
{
    uint8_t *b = p;

    b[0] = v >> 8;
    b[1] = v;
}

static inline void vhca_put_be32(void *p, uint32_t v)
{
    uint8_t *b = p;

    b[0] = v >> 24;
    b[1] = v >> 16;
    b[2] = v >> 8;
    b[3] = v;
}

static inline void vhca_put_be64(void *p, uint64_t v)
{
    vhca_put_be32(p, v >> 32);
    vhca_put_be32((uint8_t *)p + 4, v);
}

#endif /* VHCA_FABRIC_BYTES_H */
