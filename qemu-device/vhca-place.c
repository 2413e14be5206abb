/*
 * vhca - placing a message's bytes in guest memory in address order.
 *
 * Software polls the last byte of an RDMA WRITE to learn that the whole
 * message has landed: rsockets' riostream spins on the last byte of its
 * mapped buffer and then checks the rest (librdmacm/examples/riostream.c
 * recv_xfer), and MPI eager-RDMA channels poll a footer at the end of a
 * message.  That works on hardware because an HCA writes a payload as PCIe
 * posted writes in ascending address order, and posted writes are not
 * reordered (PCIe Base Specification, "Transaction Ordering Rules"): a CPU
 * that sees the last byte sees every byte before it.
 *
 * memcpy promises no order.  glibc's vector memmove copies a block of more
 * than 8 vectors by storing the last four vectors and then the FIRST one
 * after its loop, and a 2..8-vector block with the last vector before the
 * middle ones; `rep movsb` may store out of order too (Intel SDM vol. 3,
 * 9.2.4 "fast-string operation": order-dependent code writes its flag
 * after the string operation).  Under MTTCG a guest vCPU polls while
 * QEMU copies, so a 768-byte WRITE showed its last byte before its first
 * 64: riostream's "data verification failed" at byte 0 of the buffer
 * (issue 24).
 *
 * So every placement stores its body with memmove, then, after a write
 * barrier, its last VHCA_PLACE_TAIL bytes one word at a time in ascending
 * order.  The runs of one message are placed in ascending order too
 * (vhca-sgl.c), each behind the same barrier.
 *
 * And each tail byte is stored exactly once (vhca_place_word), never with
 * memcpy: glibc copies 8..15 bytes as two overlapping words, so an 8-byte
 * memcpy stores the same word twice.  A poller that saw its flag after
 * the first store may already have written its next message into the
 * buffer (riostream sets its own flag and formats the buffer) when the
 * second store puts the old word back: riostream stalled with both sides
 * waiting, their last 8 bytes one message old, about once in a million
 * round trips, when the host preempted QEMU between the two stores
 * (issue 24).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "vhca-place.h"

void vhca_place_in_order(uint64_t n, VhcaPlaceStore *store, void *opaque)
{
    uint64_t body = vhca_place_body_len(n);
    uint64_t off;

    if (body) {
        store(opaque, 0, body);
    }
    for (off = body; off < n; off += VHCA_PLACE_WORD) {
        smp_wmb();          /* what came before is seen first */
        store(opaque, off, MIN(VHCA_PLACE_WORD, n - off));
    }
}

/*
 * glibc before 2.39 copies a block of rep_movsb_threshold (about 2 KiB)
 * or more with `rep movsb`, which AMD Zen CPUs run at a twentieth of the
 * speed when (dst - src) & 0xfff is 1..63 (glibc bug 30994): two buffers
 * whose offsets in their pages differ by a few bytes.  Such a copy, when
 * the buffers do not overlap, goes in pieces below that threshold, which
 * glibc copies with vector moves: 64 KiB at 24 GB/s instead of 1.4 GB/s
 * on the 2026-11-28 host (Documentation/performance.md "The payload
 * copy").
 */
#define VHCA_COPY_PIECE 2048

static void vhca_copy_body(uint8_t *dst, const uint8_t *src, uint64_t n)
{
    uintptr_t delta = ((uintptr_t)dst - (uintptr_t)src) & 0xfff;
    bool overlap = dst < src + n && src < dst + n;
    uint64_t off;

    if (n <= VHCA_COPY_PIECE || delta == 0 || delta >= 64 || overlap) {
        memmove(dst, src, n);
        return;
    }
    for (off = 0; off < n; off += VHCA_COPY_PIECE) {
        memcpy(dst + off, src + off, MIN(VHCA_COPY_PIECE, n - off));
    }
}

typedef struct VhcaPlaceHost {
    uint8_t *dst;
    const uint8_t *src;
    uint64_t body;
    uint8_t tail[VHCA_PLACE_TAIL];  /* the source's tail, read first */
} VhcaPlaceHost;

void vhca_place_word(uint8_t *dst, const uint8_t *src, uint64_t len)
{
    uint64_t i;

    if (len == VHCA_PLACE_WORD) {
        stq_he_p(dst, ldq_he_p(src));   /* one 8-byte store */
        return;
    }
    for (i = 0; i < len; i++) {
        qatomic_set(&dst[i], src[i]);   /* not merged into a memcpy */
    }
}

static void vhca_place_host_store(void *opaque, uint64_t off, uint64_t len)
{
    VhcaPlaceHost *p = opaque;

    if (off < p->body) {
        vhca_copy_body(p->dst + off, p->src + off, len);
    } else {
        vhca_place_word(p->dst + off, p->tail + (off - p->body), len);
    }
}

void vhca_place_host(uint8_t *dst, const uint8_t *src, uint64_t n)
{
    VhcaPlaceHost p = {
        .dst = dst,
        .src = src,
        .body = vhca_place_body_len(n),
    };

    /* Before the body: when dst and src overlap, the body's stores may
     * overwrite the source's tail. */
    memcpy(p.tail, src + p.body, n - p.body);
    vhca_place_in_order(n, vhca_place_host_store, &p);
}
