/*
 * vhca - what the tag matching files share: the device's tag list of a TM
 * SRQ (vhca-tm.c: operations, matching) and its rendezvous reads
 * (vhca-tm-rndv.c).  uapi/vhca_hw_tm.h is the interface.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_TM_H
#define HW_INFINIBAND_VHCA_TM_H

#include "vhca-transport.h"

/* The header of a tagged message (network order on the wire). */
typedef struct VhcaTmh {
    uint8_t opcode;         /* enum vhca_tmh_op */
    uint32_t app_ctx;       /* wire order, as immediate data */
    uint64_t tag;
    uint64_t va;            /* RNDV: the rendezvous header */
    uint32_t rkey;
    uint32_t len;
} VhcaTmh;

typedef struct VhcaTmEntry {
    bool valid;             /* in the list: messages may match it */
    bool rndv;              /* taken by a RNDV message, READ not done yet */
    uint64_t seq;           /* order of ADDs: the earliest match wins */
    uint64_t tag;
    uint64_t mask;
    uint64_t recv_wr_id;
    uint32_t num_sge;
    VhcaSge sge;
    uint32_t rndv_qp;       /* rndv: the QP the message came on */
    VhcaTmh rndv_hdr;
} VhcaTmEntry;

struct VhcaTm {
    VhcaState *dev;
    VhcaSrq *srq;
    uint32_t srqn;
    uint32_t max_tags;
    VhcaWq ops;             /* the operation ring: pi from doorbells */
    uint32_t hw_unexp;      /* unexpected messages the device delivered */
    uint32_t sw_unexp;      /* ... and software said it handled */
    uint64_t next_seq;
    VhcaTmEntry *entries;
    QEMUBH *bh;             /* rendezvous reads (vhca-tm-rndv.c) */
};

/* vhca-tm.c */
void vhca_tm_complete(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                      const VhcaTmEntry *e, uint32_t handle,
                      const VhcaTmh *h, VhcaRecvDone *d);

/* vhca-tm-rndv.c */
VhcaAck vhca_tm_rndv(VhcaState *s, VhcaQp *qp, VhcaSrq *srq, VhcaPacket *pkt,
                     uint32_t handle, const VhcaTmh *h);
void vhca_tm_rndv_bh(void *opaque);

#endif /* HW_INFINIBAND_VHCA_TM_H */
