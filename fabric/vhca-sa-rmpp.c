/*
 * vhca - the SA's RMPP sender (IBA 13.6): GetTableResp in segments.
 *
 * A GetTable answer is RMPP-active whatever its size (IBA 15.2.2): its
 * records, concatenated, are cut into segments of 200 bytes, each sent
 * with the MAD and SA headers, an RMPP DATA header (segment number, the
 * First/Last flags) and PayloadLength: in the first segment that of the
 * whole message, in the last that of the last segment (both counting the
 * 20-byte SA header of every segment, IBA 13.6.2.1; Linux's mad_rmpp.c
 * computes the same).  The sender starts with a window of one (13.6.5.1):
 * segment 1 goes out, then each ACK from the receiver (type ACK, the
 * last segment it got in order and NewWindowLast) lets the sender go on up
 * to NewWindowLast; an ACK of less than was sent makes it go back and
 * resend from there.  The ACK of the last segment ends the transfer, as do
 * STOP and ABORT.  An ACK that breaks the rules (beyond what was sent, or
 * a window below it) ends the transfer too: the receiver's timeout then
 * makes the requester ask again.
 *
 * Transfers are keyed by the requester's LID and the TID, at most
 * VHCA_SA_MAX_XFERS of them; a new one takes the place of the same key,
 * of a finished one or of the oldest.  There are no timers: segments lost
 * because the receiver had no receive WQE are resent only when an ACK asks
 * for them, or when the requester repeats its GetTable.
 *
 * Pure, like vhca-sa.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sa.h"

#define MAD_TID             VHCA_MAD_OFF(vhca_sa_mad, mad.tid)
#define RMPP_VERSION        VHCA_MAD_OFF(vhca_sa_mad, rmpp.rmpp_version)
#define RMPP_TYPE           VHCA_MAD_OFF(vhca_sa_mad, rmpp.rmpp_type)
#define RMPP_FLAGS          VHCA_MAD_OFF(vhca_sa_mad, rmpp.rtime_flags)
#define RMPP_DATA1          VHCA_MAD_OFF(vhca_sa_mad, rmpp.data1)
#define RMPP_DATA2          VHCA_MAD_OFF(vhca_sa_mad, rmpp.data2)

#define RMPP_TYPE_DATA      VHCA_RMPP_TYPE_DATA
#define RMPP_TYPE_ACK       VHCA_RMPP_TYPE_ACK
#define RMPP_TYPE_STOP      VHCA_RMPP_TYPE_STOP
#define RMPP_TYPE_ABORT     VHCA_RMPP_TYPE_ABORT
#define RMPP_FLAG_ACTIVE    VHCA_RMPP_F_ACTIVE
#define RMPP_FLAG_FIRST     VHCA_RMPP_F_FIRST
#define RMPP_FLAG_LAST      VHCA_RMPP_F_LAST
#define RMPP_NO_RESP_TIME   0x1f
/* RMPP payload of a segment: everything after the MAD and RMPP headers. */
#define RMPP_SEG_PAYLOAD    (VHCA_MAD_SIZE - VHCA_MAD_OFF(vhca_sa_mad, sm_key))

static VhcaSaXfer *xfer_find(VhcaSa *sa, uint16_t lid, uint64_t tid)
{
    uint32_t i;

    for (i = 0; i < VHCA_SA_MAX_XFERS; i++) {
        if (sa->xfers[i].valid && sa->xfers[i].lid == lid &&
            sa->xfers[i].tid == tid) {
            return &sa->xfers[i];
        }
    }
    return NULL;
}

/* A slot for a new transfer: the same key's, a free one, or the oldest. */
static VhcaSaXfer *xfer_new(VhcaSa *sa, uint16_t lid, uint64_t tid)
{
    VhcaSaXfer *x = xfer_find(sa, lid, tid);
    uint32_t i;

    for (i = 0; i < VHCA_SA_MAX_XFERS && !x; i++) {
        if (!sa->xfers[i].valid) {
            x = &sa->xfers[i];
        }
    }
    for (i = 0; i < VHCA_SA_MAX_XFERS && !x; i++) {
        if (i == 0 || sa->xfers[i].age < x->age) {
            x = &sa->xfers[i];
        }
    }
    if (!x) {
        x = &sa->xfers[0];
    }
    x->valid = true;
    x->lid = lid;
    x->tid = tid;
    x->age = ++sa->clock;
    return x;
}

static void xfer_emit(const VhcaSaXfer *x, uint32_t seg, VhcaSaEmit *emit,
                      void *opaque)
{
    uint32_t pad = x->segs * VHCA_SA_DATA_SIZE - x->len;
    uint32_t off = (seg - 1) * VHCA_SA_DATA_SIZE;
    uint8_t mad[VHCA_MAD_SIZE];
    uint8_t flags = RMPP_FLAG_ACTIVE;
    uint32_t paylen = 0;

    memset(mad, 0, sizeof(mad));
    memcpy(mad, x->hdr, VHCA_SA_HDR_SIZE);
    if (seg == 1) {
        flags |= RMPP_FLAG_FIRST;
        paylen = x->segs * RMPP_SEG_PAYLOAD - pad;
    }
    if (seg == x->segs) {
        flags |= RMPP_FLAG_LAST;
        paylen = RMPP_SEG_PAYLOAD - pad;
    }
    mad[RMPP_VERSION] = 1;
    mad[RMPP_TYPE] = RMPP_TYPE_DATA;
    mad[RMPP_FLAGS] = RMPP_NO_RESP_TIME << 3 | flags;
    vhca_put_be32(mad + RMPP_DATA1, seg);
    vhca_put_be32(mad + RMPP_DATA2, paylen);
    if (off < x->len) {
        memcpy(mad + VHCA_SA_HDR_SIZE, x->data + off,
               MIN(VHCA_SA_DATA_SIZE, x->len - off));
    }
    emit(opaque, mad);
}

/* Start a GetTableResp of t's records to lid; hdr: its first 56 bytes. */
void vhca_sa_rmpp_send(VhcaSa *sa, uint16_t lid, const uint8_t *hdr,
                       const VhcaSaTable *t, VhcaSaEmit *emit, void *opaque)
{
    VhcaSaXfer *x = xfer_new(sa, lid, vhca_get_be64(hdr + MAD_TID));

    x->len = MIN(t->n * t->rec_size, VHCA_SA_MAX_PAYLOAD);
    x->segs = MAX(1, DIV_ROUND_UP(x->len, VHCA_SA_DATA_SIZE));
    memcpy(x->hdr, hdr, VHCA_SA_HDR_SIZE);
    memcpy(x->data, t->data, x->len);
    x->sent = 1;
    xfer_emit(x, 1, emit, opaque);
}

/* An RMPP ACK, STOP or ABORT from lid for a transfer of the SA. */
VhcaSaResult vhca_sa_rmpp_recv(VhcaSa *sa, uint16_t lid, const uint8_t *mad,
                               VhcaSaEmit *emit, void *opaque)
{
    VhcaSaXfer *x = xfer_find(sa, lid, vhca_get_be64(mad + MAD_TID));
    uint32_t seg, newwin, last, s;

    if (!x || mad[RMPP_VERSION] != 1) {
        return VHCA_SA_CONSUMED;        /* nothing of ours: ignored */
    }
    if (mad[RMPP_TYPE] != RMPP_TYPE_ACK) {
        x->valid = mad[RMPP_TYPE] != RMPP_TYPE_STOP &&
                   mad[RMPP_TYPE] != RMPP_TYPE_ABORT;
        return VHCA_SA_CONSUMED;
    }
    seg = vhca_get_be32(mad + RMPP_DATA1);
    newwin = vhca_get_be32(mad + RMPP_DATA2);
    if (seg > x->sent || newwin < seg || seg >= x->segs) {
        x->valid = false;               /* done, or a broken receiver */
        return VHCA_SA_CONSUMED;
    }
    last = MIN(newwin, x->segs);
    for (s = seg + 1; s <= last; s++) {
        xfer_emit(x, s, emit, opaque);
    }
    x->sent = MAX(seg, last);
    return last > seg ? VHCA_SA_REPLIED : VHCA_SA_CONSUMED;
}
