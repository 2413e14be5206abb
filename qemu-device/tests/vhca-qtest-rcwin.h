/*
 * vhca qtests: the rig of the RC requester tests across the wire
 * (vhca-rcwin-test, vhca-rcwin-stall-test, vhca-rcwin-one-test): port 2
 * cabled to the test (vhca-qtest-cable.h), which plays the switch and,
 * behind it, the remote QP at REMOTE_LID; the device's RC QP on port 2 in
 * RTS towards it (vhca-rc-window.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_QTEST_RCWIN_H
#define VHCA_QTEST_RCWIN_H

#include "vhca-qtest-dp.h"
#include "vhca-qtest-cable.h"

#define PORT            2
#define PORT_LID        0x22
#define REMOTE_LID      0x30
#define REMOTE_QPN      0x77
#define PSN0            0x100           /* dp_to_rtr/dp_to_rts PSNs */
#define MTU             1024            /* dp_to_rtr's path_mtu 3 */
#define TIMEOUT         10              /* 4.096 us * 2^10 */
#define TIMEOUT_NS      (4096ll << TIMEOUT)
#define FRAME_MAX       (sizeof(struct vhca_wire_hdr) + VHCA_WIRE_MAX_PAYLOAD)

typedef struct Win {
    Dp *dp;
    VhcaCable cable;
    DpCq cq;
    DpQp qp;
    uint64_t buf;       /* local memory, 64 KiB */
    uint32_t key;
    uint8_t *frame;
} Win;

static inline struct vhca_wire_hdr *hdr(Win *w)
{
    return (struct vhca_wire_hdr *)w->frame;
}

/* Whether a frame comes within ms milliseconds. */
static inline bool win_poll(Win *w, int ms)
{
    struct pollfd p = { .fd = w->cable.fd, .events = POLLIN };

    return poll(&p, 1, ms) == 1;
}

/* The next frame that is not a HELLO. */
static inline void win_recv(Win *w)
{
    do {
        cable_recv(&w->cable, w->frame, FRAME_MAX);
        g_assert_cmphex(le32_to_cpu(hdr(w)->magic), ==, VHCA_WIRE_MAGIC);
    } while (hdr(w)->kind == VHCA_WIRE_HELLO);
}

/* The next REQUEST: its PSN (the opcode checked). */
static inline uint32_t win_request(Win *w, uint8_t opcode)
{
    win_recv(w);
    g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_REQUEST);
    g_assert_cmpuint(hdr(w)->opcode, ==, opcode);
    g_assert_cmphex(le32_to_cpu(hdr(w)->dst_qpn), ==, REMOTE_QPN);
    g_assert_cmphex(le16_to_cpu(hdr(w)->dlid), ==, REMOTE_LID);
    return le32_to_cpu(hdr(w)->psn);
}

static inline void win_no_frame(Win *w)
{
    g_assert_false(win_poll(w, 100));
}

static inline void win_frame(struct vhca_wire_hdr *h, uint8_t kind,
                             uint32_t len)
{
    memset(h, 0, sizeof(*h));
    h->magic = cpu_to_le32(VHCA_WIRE_MAGIC);
    h->version = VHCA_WIRE_VERSION;
    h->kind = kind;
    h->payload_len = cpu_to_le32(len);
}

/*
 * A frame of the remote QP for the device's QP, kind and opcode, first PSN
 * psn, message of len bytes with payload of them after the header (the
 * caller fills in the rest and frees it).
 */
static inline struct vhca_wire_hdr *
win_remote_frame(Win *w, uint8_t kind, uint8_t opcode, uint32_t psn,
                 uint32_t len, uint32_t payload)
{
    struct vhca_wire_hdr *h = g_malloc0(sizeof(*h) + payload);

    win_frame(h, kind, payload);
    h->opcode = opcode;
    h->slid = cpu_to_le16(REMOTE_LID);
    h->dlid = cpu_to_le16(PORT_LID);
    h->src_qpn = cpu_to_le32(REMOTE_QPN);
    h->dst_qpn = cpu_to_le32(w->qp.h);
    h->psn = cpu_to_le32(psn);
    h->length = cpu_to_le32(len);
    h->qp_type = VHCA_QPT_RC;
    return h;
}

static inline void win_send_frame(Win *w, struct vhca_wire_hdr *h,
                                  const uint8_t *payload)
{
    uint32_t len = le32_to_cpu(h->payload_len);

    /* NULL: no payload (READ requests, ACKs); memcpy from NULL is UB */
    g_assert(payload || !len);
    if (payload) {
        memcpy(h + 1, payload, len);
    }
    cable_send(&w->cable, (uint8_t *)h, sizeof(*h) + len);
    g_free(h);
}

/* The remote QP answers the request with first PSN psn. */
static inline void win_answer(Win *w, uint8_t opcode, uint32_t psn,
                              uint8_t syndrome, uint32_t nak_psn,
                              const uint8_t *data, uint32_t len)
{
    struct vhca_wire_hdr *h = win_remote_frame(w, VHCA_WIRE_RESPONSE, opcode,
                                               psn, len, len);

    h->syndrome = syndrome;
    h->packets = cpu_to_le32(1);
    h->nak_psn = cpu_to_le32(nak_psn);
    win_send_frame(w, h, data);
}

static inline void win_ack(Win *w, uint8_t opcode, uint32_t psn)
{
    win_answer(w, opcode, psn, VHCA_WIRE_ACK, 0, NULL, 0);
}

/* The SM's LINK: port 2 ACTIVE with PORT_LID (its PORT_ACTIVE event). */
static inline void win_link_up(Win *w)
{
    struct vhca_port_attr attr;
    struct vhca_eqe ev;

    cable_wait_hello(&w->cable, w->frame);
    cable_send_link(&w->cable, PORT_LID, VHCA_WIRE_SM_LID, 0);
    do {
        g_assert_true(vhca_try_eqe(w->dp->v, &ev, 500));
        g_assert_cmpuint(ev.type, ==, VHCA_EQE_PORT_EVENT);
    } while (ev.data.port.port != PORT);
    g_assert_cmpuint(vhca_query_port(w->dp->v, PORT, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    g_assert_cmphex(le16_to_cpu(attr.lid), ==, PORT_LID);
    while (win_poll(w, 50)) {               /* HELLOs sent while INIT */
        cable_recv(&w->cable, w->frame, FRAME_MAX);
        g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_HELLO);
    }
}

/*
 * Port 2 cabled and ACTIVE; an RC QP on it in RTS towards the remote QP,
 * with rnr_retry, the local ACK timeout TIMEOUT and retry_cnt, and extra
 * device properties (",rc-window=N"; NULL: none, one request at a time).
 */
static inline void win_start_with(Win *w, uint8_t rnr_retry,
                                  uint8_t retry_cnt, const char *props)
{
    struct vhca_eqe ev[4];

    memset(w, 0, sizeof(*w));
    w->frame = g_malloc(FRAME_MAX);
    cable_start_with(&w->cable, props);
    w->dp = g_new0(Dp, 1);
    w->dp->v = w->cable.v;
    vhca_bringup(w->dp->v);
    /* Port 1, on the in-process fabric, comes up by itself. */
    g_assert_cmpint(vhca_collect_port_events(w->dp->v, ev, 4), ==, 1);
    win_link_up(w);
    dp_setup_eq_pd(w->dp);
    w->buf = dp_alloc(w->dp, DP_BUF_SIZE);
    w->key = dp_mr_phys(w->dp, w->dp->pd, w->buf, DP_BUF_SIZE, DP_ALL_ACCESS);
    dp_create_cq(w->dp, &w->cq, DP_CQ_LOG);
    dp_create_qp(w->dp, &w->qp, VHCA_QPT_RC, &w->cq, &w->cq);
    g_assert_cmpuint(dp_to_init(w->dp, &w->qp, PORT, DP_ALL_ACCESS), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(w->dp, &w->qp, REMOTE_LID, REMOTE_QPN, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts_timers(w->dp, &w->qp, rnr_retry, TIMEOUT,
                                      retry_cnt), ==, VHCA_CMD_OK);
}

static inline void win_start(Win *w, uint8_t retry_cnt)
{
    win_start_with(w, 7, retry_cnt, ",rc-window=64");
}

static inline void win_stop(Win *w)
{
    dp_stop(w->dp);
    cable_close(&w->cable);
    g_free(w->frame);
}

/* WQEs put on the send queue, then one doorbell for all of them. */
static inline void win_put(Win *w, uint64_t wr_id, uint8_t opcode, uint32_t off,
                           uint32_t len)
{
    DpWqe q;

    dp_wqe(&q, wr_id, opcode, VHCA_WQE_F_SIGNALED);
    if (opcode != VHCA_WQE_SEND) {
        dp_wqe_raddr(&q, 0x10000 + off, 0x1234);
    }
    dp_wqe_sge(&q, w->buf + off, len, w->key);
    dp_put_send(w->dp, &w->qp, &q);
}

static inline void win_ring(Win *w)
{
    dp_db64(w->dp->v, 0, VHCA_DB_SQ,
            vhca_db_data_value(w->qp.h, 0, w->qp.sq_pi));
}

/*
 * The next completion: frames from the cable reach the device in QEMU's
 * main loop, concurrently with this test's qtest commands, so wait for it
 * (up to 5 s).
 */
static inline void win_expect(Win *w, uint64_t wr_id, uint8_t status)
{
    struct vhca_cqe cqe;
    int i;

    for (i = 0; !dp_poll_cq(w->dp, &w->cq, &cqe); i++) {
        g_assert_cmpint(i, <, 5000);
        g_usleep(1000);
    }
    g_assert_cmpuint(cqe.status, ==, status);
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, wr_id);
}

/* The WRITE requests of WQEs from .. to - 1 on the wire, PSN0 + index. */
static inline void win_expect_writes(Win *w, uint32_t from, uint32_t to)
{
    uint32_t i;

    for (i = from; i < to; i++) {
        g_assert_cmphex(win_request(w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + i);
    }
}

/* n one-packet WRITEs (wr_id 1..n), one doorbell, all of them sent. */
static inline void win_writes(Win *w, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        win_put(w, i + 1, VHCA_WQE_RDMA_WRITE, i * 512, 512);
    }
    win_ring(w);
    win_expect_writes(w, 0, n);
}

static inline void win_expect_done(Win *w, uint64_t wr_id)
{
    win_expect(w, wr_id, VHCA_WC_SUCCESS);
}

/* WQEs from .. to complete, in order. */
static inline void win_expect_done_upto(Win *w, uint64_t from, uint64_t to)
{
    uint64_t wr_id;

    for (wr_id = from; wr_id <= to; wr_id++) {
        win_expect_done(w, wr_id);
    }
}

/* No completion, after the device had time to take what was sent. */
static inline void win_expect_none(Win *w)
{
    g_usleep(50 * 1000);
    dp_expect_no_cqe(w->dp, &w->cq);
}

static inline uint32_t win_sq_psn(Win *w)
{
    struct vhca_qp_context ctx;

    g_assert_cmpuint(dp_query_qp(w->dp, w->qp.h, &ctx), ==, VHCA_CMD_OK);
    return le32_to_cpu(ctx.sq_psn);
}

/* The remote requester's request with first PSN psn for the device's QP. */
static inline void win_remote_request(Win *w, uint8_t opcode, uint32_t psn,
                                      uint64_t addr, uint32_t rkey,
                                      const uint8_t *data, uint32_t len)
{
    uint32_t payload = opcode == VHCA_WQE_RDMA_READ ? 0 : len;
    struct vhca_wire_hdr *h = win_remote_frame(w, VHCA_WIRE_REQUEST, opcode,
                                               psn, len, payload);

    h->packets = cpu_to_le32(DIV_ROUND_UP(MAX(len, 1), MTU));
    h->rkey = cpu_to_le32(rkey);
    h->remote_addr = cpu_to_le64(addr);
    win_send_frame(w, h, data);
}

/* The device's answer: its syndrome (PSN and NAK PSN checked). */
static inline uint8_t win_response(Win *w, uint32_t psn, uint32_t nak_psn)
{
    win_recv(w);
    g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_RESPONSE);
    g_assert_cmphex(le32_to_cpu(hdr(w)->psn), ==, psn);
    if (hdr(w)->syndrome == VHCA_WIRE_NAK_SEQ) {
        g_assert_cmphex(le32_to_cpu(hdr(w)->nak_psn), ==, nak_psn);
    }
    return hdr(w)->syndrome;
}

#endif /* VHCA_QTEST_RCWIN_H */
