/*
 * vhca - scatter/gather lists and the payload copy both sides of the data
 * path use (vhca-responder.c for SEND, WRITE, READ responses and atomics'
 * results, vhca-link.c for the cross-process path, vhca-tm.c, vhca-rc-
 * window.c).
 *
 * A list is made of protection-checked segments of translated regions
 * (vhca_mr_translate), or of bytes in QEMU.  The copy walks both lists in
 * runs: as many bytes as are contiguous in both DMA spaces, which is more
 * than a page when the region's pages are large or adjacent.  A run of
 * plain guest RAM on both sides is copied once, host pointer to host
 * pointer (vhca-dma-map.c); anything else goes through a 4 KiB bounce
 * buffer with vhca_dma_read/_write, exactly as every DMA did before
 * (Documentation/performance.md "The payload copy").  Either way, the
 * runs go in ascending order and each is placed with its last bytes last
 * (vhca-place.c), as a real HCA's PCIe writes land.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-transport.h"
#include "vhca-dma-map.h"
#include "vhca-place.h"

/* The bounce path's step: what one stack buffer holds, and what one
 * vhca_dma_read/_write moves. */
#define VHCA_COPY_CHUNK 4096

/* ---- scatter/gather lists --------------------------------------------- */

uint8_t vhca_sgl_from_sges(VhcaState *s, uint32_t pdn, bool kernel,
                           const VhcaSge *sge, uint32_t n, uint32_t access,
                           VhcaSgl *sgl)
{
    uint32_t i;
    uint8_t verr;

    memset(sgl, 0, sizeof(*sgl));
    sgl->dev = s;
    for (i = 0; i < n; i++) {
        verr = vhca_mr_translate(s, sge[i].lkey, pdn, access, kernel,
                                 VHCA_MR_LOCAL, sge[i].addr, sge[i].length,
                                 &sgl->seg[i].mr);
        if (verr != VHCA_VERR_NONE) {
            return verr;
        }
        sgl->seg[i].addr = sge[i].addr;
        sgl->seg[i].len = sge[i].length;
        sgl->length += sge[i].length;
    }
    sgl->n = n;
    return VHCA_VERR_NONE;
}

uint8_t vhca_sgl_remote(VhcaState *s, uint32_t pdn, uint32_t qpn,
                        uint32_t rkey, uint64_t addr, uint64_t len,
                        uint32_t access, VhcaSgl *sgl)
{
    uint8_t verr;

    memset(sgl, 0, sizeof(*sgl));
    sgl->dev = s;
    verr = vhca_mr_translate(s, rkey, pdn, access, false, qpn, addr, len,
                             &sgl->seg[0].mr);
    if (verr != VHCA_VERR_NONE) {
        return verr;
    }
    sgl->seg[0].addr = addr;
    sgl->seg[0].len = len;
    sgl->n = 1;
    sgl->length = len;
    return VHCA_VERR_NONE;
}

void vhca_sgl_host(VhcaState *s, const uint8_t *bytes, uint64_t len,
                   VhcaSgl *sgl)
{
    memset(sgl, 0, sizeof(*sgl));
    sgl->dev = s;
    sgl->host = bytes;
    sgl->length = len;
}

/* Drop the first n (<= length) bytes: the list of the rest. */
void vhca_sgl_skip(VhcaSgl *sgl, uint64_t n)
{
    uint64_t step;

    sgl->length -= n;
    if (sgl->host) {
        sgl->host += n;
        return;
    }
    while (n && sgl->n) {
        step = MIN(n, sgl->seg[0].len);
        sgl->seg[0].addr += step;
        sgl->seg[0].len -= step;
        n -= step;
        if (sgl->seg[0].len == 0) {
            memmove(&sgl->seg[0], &sgl->seg[1],
                    (sgl->n - 1) * sizeof(sgl->seg[0]));
            sgl->n--;
        }
    }
}

typedef struct VhcaCursor {
    VhcaSgl *sgl;
    uint32_t i;
    uint64_t off;
} VhcaCursor;

/* Move forward n bytes, then past empty and finished segments. */
static void vhca_cursor_advance(VhcaCursor *c, uint64_t n)
{
    VhcaSgl *sgl = c->sgl;

    if (sgl->host) {
        c->off += n;
        return;
    }
    while (c->i < sgl->n) {
        uint64_t step = MIN(n, sgl->seg[c->i].len - c->off);

        c->off += step;
        n -= step;
        if (c->off < sgl->seg[c->i].len) {
            break;
        }
        c->i++;
        c->off = 0;
    }
}

/*
 * The DMA run at the cursor, at most max bytes (the caller knows bytes
 * remain): the region's pages (vhca_mr_piece) as long as each one starts
 * where the previous one ends, so that large or adjacent pages are copied
 * in one go.
 */
static void vhca_cursor_run(VhcaCursor *c, uint64_t max, VhcaDmaPiece *run)
{
    VhcaSgl *sgl = c->sgl;
    const VhcaMr *mr = sgl->seg[c->i].mr;
    uint64_t addr = sgl->seg[c->i].addr + c->off;
    uint64_t left = MIN(sgl->seg[c->i].len - c->off, max);
    VhcaDmaPiece next;

    vhca_mr_piece(mr, addr, left, run);
    while (!run->host && run->len < left) {
        vhca_mr_piece(mr, addr + run->len, left - run->len, &next);
        if (next.host || next.addr != run->addr + run->len) {
            break;
        }
        run->len += next.len;
    }
}

typedef struct VhcaPlaceBounce {
    VhcaState *ds;
    const VhcaDmaPiece *dp;
    const uint8_t *bytes;
    MemTxResult res;
} VhcaPlaceBounce;

/*
 * A tail store (len <= VHCA_PLACE_WORD) stores each byte once: one
 * vhca_place_word into device memory, one byte per DMA write elsewhere
 * (a DMA write of 8 bytes is a memmove, which stores them twice:
 * vhca-place.c).
 */
static void vhca_place_bounce_store(void *opaque, uint64_t off, uint64_t len)
{
    VhcaPlaceBounce *b = opaque;
    VhcaDmaPiece at = *b->dp;
    uint64_t i;

    if (b->res != MEMTX_OK) {
        return;
    }
    at.addr += off;
    if (at.host) {
        at.host += off;
    }
    if (len > VHCA_PLACE_WORD) {
        b->res = vhca_piece_write(b->ds, &at, b->bytes + off, len);
    } else if (at.host) {
        vhca_place_word(at.host, b->bytes + off, len);
    } else {
        for (i = 0; i < len && b->res == MEMTX_OK; i++, at.addr++) {
            b->res = vhca_piece_write(b->ds, &at, b->bytes + off + i, 1);
        }
    }
}

/* Copy n (<= VHCA_COPY_CHUNK) bytes through a bounce buffer: every access
 * checked by vhca_dma_read/_write (own BARs, in_dma, MEMTX errors), the
 * writes in vhca_place_in_order's order. */
static MemTxResult vhca_copy_bounce(VhcaState *ds, const VhcaDmaPiece *dp,
                                    VhcaState *ss, const VhcaDmaPiece *sp,
                                    uint64_t n)
{
    uint8_t bounce[VHCA_COPY_CHUNK];
    VhcaPlaceBounce b = { .ds = ds, .dp = dp, .bytes = bounce };

    b.res = vhca_piece_read(ss, sp, bounce, n);
    if (b.res == MEMTX_OK) {
        vhca_place_in_order(n, vhca_place_bounce_store, &b);
    }
    return b.res;
}

/*
 * Copy the start of run sp (of device ss) to the start of run dp (of
 * device ds), at most n bytes: one vhca_place_host between the mapped
 * runs when both are plain RAM (vhca-dma-map.c; a memmove: a message may
 * be copied within one buffer), else VHCA_COPY_CHUNK bytes through the
 * bounce path.
 * Returns the bytes copied, 0 on a DMA fault.
 */
static uint64_t vhca_copy_run(VhcaState *ds, const VhcaDmaPiece *dp,
                              VhcaState *ss, const VhcaDmaPiece *sp,
                              uint64_t n)
{
    VhcaDmaMap dm, sm;
    bool direct = false;

    if (vhca_dma_map(ds, dp, n, true, &dm)) {
        direct = vhca_dma_map(ss, sp, dm.len, false, &sm);
        if (direct) {
            n = sm.len;
            vhca_place_host(dm.host, sm.host, n);
            vhca_dma_unmap(&sm, n);
        }
        vhca_dma_unmap(&dm, direct ? n : 0);
    }
    if (!direct) {
        n = MIN(n, VHCA_COPY_CHUNK);
        if (vhca_copy_bounce(ds, dp, ss, sp, n) != MEMTX_OK) {
            return 0;
        }
    }
    return n;
}

/*
 * Copy len bytes from the start of src to dst at dst_off; both lists were
 * checked to hold them.  Every DMA is checked; after each one both devices
 * must still be enabled (a DMA aimed at PCI config space may reset one).
 */
uint8_t vhca_sgl_copy(VhcaSgl *dst, uint64_t dst_off, VhcaSgl *src,
                      uint64_t len)
{
    VhcaCursor dc = { .sgl = dst }, sc = { .sgl = src };
    VhcaDmaPiece dp, sp;
    uint64_t n;

    if (dst->host || dst_off + len > dst->length || len > src->length) {
        return VHCA_VERR_LENGTH;
    }
    if (dst->host_out) {
        /* a READ response for another process (vhca-link.c) */
        return vhca_sgl_read(src, dst->host_out + dst_off, len);
    }
    vhca_cursor_advance(&dc, dst_off);
    vhca_cursor_advance(&sc, 0);
    smp_mb();               /* as dma_barrier: vhca-dma-map.c */
    while (len) {
        vhca_cursor_run(&dc, len, &dp);
        if (src->host) {
            /* bytes in QEMU (a packet): only ever read through sp */
            sp.host = (uint8_t *)src->host + sc.off;
            sp.addr = 0;
            sp.len = dp.len;
        } else {
            vhca_cursor_run(&sc, dp.len, &sp);
        }
        n = vhca_copy_run(dst->dev, &dp, src->dev, &sp, MIN(dp.len, sp.len));
        if (!n || !vhca_is_enabled(dst->dev) || !vhca_is_enabled(src->dev)) {
            return VHCA_VERR_DMA_FAULT;
        }
        vhca_cursor_advance(&dc, n);
        vhca_cursor_advance(&sc, n);
        len -= n;
    }
    return VHCA_VERR_NONE;
}

/* Read the start of run sp into buf, at most n bytes: the mapped run, or
 * VHCA_COPY_CHUNK bytes with vhca_piece_read.  Returns the bytes read, 0
 * on a DMA fault. */
static uint64_t vhca_read_run(VhcaState *s, const VhcaDmaPiece *sp,
                              uint8_t *buf, uint64_t n)
{
    VhcaDmaMap sm;

    if (vhca_dma_map(s, sp, n, false, &sm)) {
        n = sm.len;
        memcpy(buf, sm.host, n);
        vhca_dma_unmap(&sm, n);
        return n;
    }
    n = MIN(n, VHCA_COPY_CHUNK);
    return vhca_piece_read(s, sp, buf, n) == MEMTX_OK ? n : 0;
}

/* Read the first len bytes of src into buf (the SMA's look at an SMP, a
 * READ response for another process). */
uint8_t vhca_sgl_read(VhcaSgl *src, uint8_t *buf, uint64_t len)
{
    VhcaCursor sc = { .sgl = src };
    VhcaDmaPiece sp;
    uint64_t n;

    if (len > src->length) {
        return VHCA_VERR_LENGTH;
    }
    if (src->host) {
        memcpy(buf, src->host, len);
        return VHCA_VERR_NONE;
    }
    vhca_cursor_advance(&sc, 0);
    smp_mb();               /* as dma_barrier: vhca-dma-map.c */
    while (len) {
        vhca_cursor_run(&sc, len, &sp);
        n = vhca_read_run(src->dev, &sp, buf, sp.len);
        if (!n || !vhca_is_enabled(src->dev)) {
            return VHCA_VERR_DMA_FAULT;
        }
        vhca_cursor_advance(&sc, n);
        buf += n;
        len -= n;
    }
    return VHCA_VERR_NONE;
}
