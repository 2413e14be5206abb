/*
 * vhca - placing a message's bytes in guest memory in address order
 * (vhca-place.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_PLACE_H
#define VHCA_PLACE_H

/*
 * The last bytes of every placement that are stored one word at a time,
 * in ascending order, after everything before them: one cache line, so a
 * poller of any flag or footer up to 64 bytes at the end of a message
 * sees the whole message once it sees its flag.
 */
#define VHCA_PLACE_TAIL 64
/* The tail's store size: one 8-byte word. */
#define VHCA_PLACE_WORD 8

/* The bytes of an n-byte placement stored before its tail, in one go. */
static inline uint64_t vhca_place_body_len(uint64_t n)
{
    return n > VHCA_PLACE_TAIL ? n - VHCA_PLACE_TAIL : 0;
}

/*
 * Store n bytes through store(opaque, off, len) in the order a poller of
 * the last bytes may rely on: the body [0, n - VHCA_PLACE_TAIL) in one
 * call, then the tail word by word, each store ordered after the ones
 * before it (smp_wmb).  A tail store (len <= VHCA_PLACE_WORD) must store
 * each of its bytes once, as vhca_place_word does: a poller may have
 * written the buffer again after the first store.  store must not fail
 * halfway in a way the caller cannot see: it records its own error in
 * opaque.
 */
typedef void VhcaPlaceStore(void *opaque, uint64_t off, uint64_t len);
void vhca_place_in_order(uint64_t n, VhcaPlaceStore *store, void *opaque);

/* One tail store: len <= VHCA_PLACE_WORD bytes, each stored exactly once
 * (an 8-byte word in one store), unlike memcpy (vhca-place.c). */
void vhca_place_word(uint8_t *dst, const uint8_t *src, uint64_t len);

/* memmove(dst, src, n) with vhca_place_in_order's ordering (src and dst
 * may overlap), host pointer to host pointer. */
void vhca_place_host(uint8_t *dst, const uint8_t *src, uint64_t n);

#endif /* VHCA_PLACE_H */
