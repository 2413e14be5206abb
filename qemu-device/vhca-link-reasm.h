/*
 * vhca - putting together a message that came from the wire in segments
 * (vhca-wire.h: a message longer than VHCA_WIRE_MAX_PAYLOAD travels as
 * frames of one header, each with the segment at its `offset`).
 *
 * A cabled port keeps one message being put together per key (its QPN
 * and whether it is a request or an answer), in any segment order, each
 * segment taken once.  A segment of another message for the same key (a
 * resend with another PSN, the next request) starts again: the earlier
 * one was lost and its requester resends it whole.  The buffers of one
 * port never add up to more than VHCA_REASM_BUDGET bytes: a segment that
 * would need more is dropped, and so is, in the end, its message.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_LINK_REASM_H
#define HW_INFINIBAND_VHCA_LINK_REASM_H

#include "vhca-wire.h"

#define VHCA_REASM_BUDGET   (2 * (uint64_t)VHCA_WIRE_MAX_MESSAGE)

typedef struct VhcaReasm VhcaReasm;

/* A whole message: frame.payload is its length bytes, offset 0. */
typedef struct VhcaReasmMsg {
    VhcaWireFrame frame;
    VhcaReasm *owner;
    uint8_t *data;
    uint8_t *have;              /* one flag per segment */
    uint32_t missing;           /* segments not there yet */
} VhcaReasmMsg;

VhcaReasm *vhca_reasm_new(void);
void vhca_reasm_free(VhcaReasm *r);

/* The key of what f is part of: the QP it is for, request or answer. */
uint32_t vhca_reasm_key(const VhcaWireFrame *f);

/*
 * Take the segment f (a data frame vhca_wire_parse() accepted).  Returns
 * the whole message once its last segment is there (the caller gives it
 * back with vhca_reasm_done()), else NULL; *why says why a segment was
 * dropped (else NULL).
 */
VhcaReasmMsg *vhca_reasm_add(VhcaReasm *r, const VhcaWireFrame *f,
                             const char **why);
void vhca_reasm_done(VhcaReasmMsg *m);

/* A QP was reset or destroyed: what it was receiving is stale. */
void vhca_reasm_forget(VhcaReasm *r, uint32_t qpn);

#endif /* HW_INFINIBAND_VHCA_LINK_REASM_H */
