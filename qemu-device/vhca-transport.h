/*
 * vhca - what the requester (vhca-transport.c) and the responder
 * (vhca-responder.c) share: translated scatter/gather lists, the copy
 * between them, and the "packet" a requester hands to a responder.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_TRANSPORT_H
#define HW_INFINIBAND_VHCA_TRANSPORT_H

#include "vhca.h"
#include "vhca-wqe.h"
#include "vhca-sma.h"
#include "vhca-sa.h"

#define VHCA_GRH_BYTES  40      /* IBA 8.3: room for a GRH before UD data */

/* A list of protection-checked pieces of memory of one device. */
typedef struct VhcaSgl {
    VhcaState *dev;             /* whose memory, whose DMA */
    uint32_t n;
    struct {
        const VhcaMr *mr;
        uint64_t addr;
        uint64_t len;
    } seg[VHCA_WQE_MAX_SGE];
    const uint8_t *host;        /* instead of segments: bytes in QEMU */
    uint8_t *host_out;          /* or a QEMU buffer to copy into */
    uint64_t length;
} VhcaSgl;

/* The responder's answer (IBA 9.7.5.2 ACK/NAK codes, plus "no answer"). */
typedef enum VhcaAck {
    VHCA_ACK,
    VHCA_NAK_RNR,
    VHCA_NAK_INV_REQ,           /* remote invalid request */
    VHCA_NAK_REM_ACCESS,        /* remote access error */
    VHCA_NAK_REM_OP,            /* remote operational error */
    VHCA_NAK_SEQ,               /* PSN sequence error: resend from nak_psn */
    VHCA_NO_PEER,               /* no answer: the local ACK timeout runs */
} VhcaAck;

/* One request message: everything a responder sees of it. */
typedef struct VhcaPacket {
    VhcaQp *src_qp;
    VhcaPort *src_port;
    VhcaPort *dst_port;
    const VhcaSendWqe *wqe;
    VhcaSgl *local;             /* requester's data, or READ/atomic target */
    uint32_t packets;           /* PSNs the message uses */
    uint32_t psn;               /* connected: PSN of the first packet */
    bool first_lost;            /* RC: only the packets after the first come */
    uint8_t rnr_timer;          /* out: the responder's min_rnr_timer */
    uint32_t nak_psn;           /* out: the PSN a sequence error NAK names */
    uint64_t atomic_orig;       /* out: atomic original value */
    /* A MAD of a management agent: the source the receiver sees. */
    bool from_agent;
    uint16_t agent_slid;
    uint32_t agent_qpn;
} VhcaPacket;

uint8_t vhca_sgl_from_sges(VhcaState *s, uint32_t pdn, bool kernel,
                           const VhcaSge *sge, uint32_t n, uint32_t access,
                           VhcaSgl *sgl);
/* qpn: the responder QP (a memory window's rkey may be bound to it). */
uint8_t vhca_sgl_remote(VhcaState *s, uint32_t pdn, uint32_t qpn,
                        uint32_t rkey, uint64_t addr, uint64_t len,
                        uint32_t access, VhcaSgl *sgl);
void vhca_sgl_host(VhcaState *s, const uint8_t *bytes, uint64_t len,
                   VhcaSgl *sgl);
uint8_t vhca_sgl_copy(VhcaSgl *dst, uint64_t dst_off, VhcaSgl *src,
                      uint64_t len);
uint8_t vhca_sgl_read(VhcaSgl *src, uint8_t *buf, uint64_t len);
void vhca_sgl_skip(VhcaSgl *sgl, uint64_t n);

/* How a receive completes (vhca_rq_complete); the TM fields are a tag
 * matching SRQ's (vhca-tm.c, uapi/vhca_hw_tm.h). */
typedef struct VhcaRecvDone {
    uint8_t status;
    uint8_t verr;
    uint8_t opcode;
    uint8_t flags;
    uint32_t byte_len;
    uint32_t imm_inv;
    uint8_t tm_flags;
    bool tm_entry;              /* a tag entry's buffer, not a receive WQE */
    uint16_t tm_handle;
    uint64_t tm_tag;
} VhcaRecvDone;

void vhca_rq_complete(VhcaState *s, VhcaQp *qp, uint64_t wr_id,
                      const VhcaPacket *pkt, const VhcaRecvDone *d);
VhcaAck vhca_respond(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt);
VhcaAck vhca_respond_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                          const VhcaRecvDone *tm);
bool vhca_respond_no_rwqe(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                          VhcaAck *ack);
uint32_t vhca_qp_packets(const VhcaQp *qp, uint64_t len);

/* vhca-tm.c: a SEND to a QP of a tag matching SRQ. */
VhcaSrq *vhca_tm_srq_of(VhcaState *s, VhcaQp *qp);
VhcaAck vhca_tm_respond(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
VhcaAck vhca_respond_read(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
VhcaAck vhca_responder_fail(VhcaState *s, VhcaQp *qp, VhcaAck ack,
                            uint8_t event);
void vhca_deliver_datagram(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt);

/* vhca-rc.c: RC reliability around vhca_respond(). */
uint32_t vhca_rc_request_packets(const VhcaPacket *pkt);
VhcaAck vhca_rc_receive(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt);
VhcaAck vhca_rc_transmit(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
void vhca_rc_wait_ack(VhcaQp *qp);
int64_t vhca_rc_timeout_ns(uint8_t timeout);
void vhca_rc_drop_props_init(Object *obj);

/* A send WQE fetched and checked (vhca_sq_fetch). */
typedef struct VhcaSqFetch {
    uint8_t buf[1u << VHCA_MAX_WQE_SHIFT];  /* inline data points here */
    VhcaSendWqe wqe;
    VhcaSgl local;
    uint8_t status;             /* VHCA_WC_SUCCESS, or how it fails */
    uint8_t verr;
} VhcaSqFetch;

/* An RC answer from the wire for a windowed requester (vhca-rc-window.c). */
typedef struct VhcaRcAnswer {
    uint32_t psn;               /* the request's first PSN */
    VhcaAck ack;
    uint8_t rnr_timer;
    uint32_t nak_psn;           /* sequence error NAK: the expected PSN */
    uint64_t atomic_orig;
    const uint8_t *data;        /* READ response */
    uint32_t len;
} VhcaRcAnswer;

/* vhca-rc-window.c: RC requests in flight to another process. */
bool vhca_rc_windowed(VhcaState *s, const VhcaQp *qp);
void vhca_rc_window_run(VhcaState *s, VhcaQp *qp, uint32_t budget);
void vhca_rc_window_answer(VhcaState *s, VhcaQp *qp, const VhcaRcAnswer *a);
void vhca_rc_window_timer(VhcaState *s, VhcaQp *qp);
void vhca_rc_window_reset(VhcaQp *qp);
bool vhca_rc_window_sqd(VhcaState *s, VhcaQp *qp);

/* vhca-transport.c: the send queue's steps the window uses too. */
bool vhca_sq_fetch(VhcaState *s, VhcaQp *qp, uint32_t idx, VhcaSqFetch *f);
void vhca_sq_fetch_failed(VhcaState *s, VhcaQp *qp, const VhcaSqFetch *f);
void vhca_sq_complete(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe,
                      uint8_t status, uint8_t verr, uint32_t byte_len);
void vhca_sq_complete_ack(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe,
                          VhcaAck ack);
bool vhca_sq_memory_op(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe);
int64_t vhca_rnr_delay_ns(uint8_t rnr_timer);

/* vhca-transport.c: routing of requests; responder work outside a SQ. */
void vhca_sq_nest_enter(void);
void vhca_sq_nest_leave(void);
bool vhca_qp_receives(const VhcaQp *qp);
VhcaPort *vhca_qp_route(VhcaState *s, VhcaQp *qp, const struct vhca_av *av);

/* vhca-sma.c: the Subnet Management Agent behind each port's SMI QP. */
VhcaSmaAction vhca_sma_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                            uint8_t *resp);
void vhca_sma_describe(VhcaState *s, uint8_t local_port, VhcaSmaNode *node);
/*
 * MAD_IFC (the driver's process_mad): req for the own agents of port
 * (1..num_ports), the SMA for a directed-route SMP of hop count 0, the
 * PMA for PerfMgt; true: the answer is in resp.
 */
bool vhca_mad_ifc(VhcaState *s, uint8_t port, const uint8_t *req,
                  uint8_t *resp);
/* After the SMA answered req with status: what a Set changed, applied. */
void vhca_sma_apply(VhcaState *s, const uint8_t *req, uint16_t status,
                    const VhcaSmaNode *node);
/* vhca-fabric-smp.c: SMPs for the switch and through it. */
VhcaSmaAction vhca_fabric_smp(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                              uint8_t *resp, uint16_t *slid);
void vhca_mad_reply(VhcaState *s, VhcaQp *qp, const uint8_t *mad,
                    uint16_t slid, uint32_t src_qpn);

/* vhca-sa-hook.c: the SA of the fabric's SM, behind SM LID 1, QPN 1. */
/* vhca-pma-hook.c: the port counters and the PMA's requests. */
void vhca_port_count(VhcaPort *port, bool rcv, uint32_t packets,
                     uint64_t payload, bool multicast);
static inline void vhca_port_count_tx(VhcaPort *port, uint32_t packets,
                                      uint64_t payload, bool multicast)
{
    vhca_port_count(port, false, packets, payload, multicast);
}
static inline void vhca_port_count_rx(VhcaPort *port, uint32_t packets,
                                      uint64_t payload, bool multicast)
{
    vhca_port_count(port, true, packets, payload, multicast);
}
void vhca_port_count_datagram(VhcaPort *port, bool rx, uint64_t length,
                              bool multicast);
bool vhca_pma_take(VhcaPort *port, VhcaPacket *pkt, uint8_t *resp);
/* req (VHCA_MAD_SIZE bytes) for port's PMA: true, the answer in resp. */
bool vhca_pma_answer(VhcaPort *port, const uint8_t *req, uint8_t *resp);
bool vhca_pma_switch_take(VhcaPort *port, const uint8_t *req, uint8_t *resp);

typedef struct VhcaSaReply {
    uint32_t n;
    uint8_t mads[VHCA_SA_MAX_SEGS][VHCA_MAD_SIZE];
} VhcaSaReply;

VhcaSaReply *vhca_sa_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
void vhca_sa_reply(VhcaState *s, VhcaQp *qp, const VhcaSaReply *reply);

#endif /* HW_INFINIBAND_VHCA_TRANSPORT_H */
