/*
 * QTest testcase for vhca: RC across the wire with several requests in
 * flight (vhca-rc-window.c, Documentation/fabric.md "RC over the wire").
 *
 * Port 2 is cabled to a unix socket this test listens on: the test is the
 * switch and, behind it, the remote QP (the cable_* helpers).  As requester the device sends
 * several requests before any answer; one ACK acknowledges every SEND/
 * WRITE before it (IBA 9.7.5.1); a request lost in the middle of the
 * window is NAKed as a sequence error and everything from it is sent again
 * (go-back-N); a lost ACK is covered by a later one, or by the local ACK
 * timeout and a resend; READ responses arrive out of order and complete
 * in order; no answer at all ends in RETRY_EXC_ERR with the rest flushed.
 * As responder it NAKs a sequence error once, drops what follows until the
 * missing request comes, and executes a duplicate READ again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "vhca-qtest-dp.h"
#include "hw/misc/vhca/vhca-wire.h"

#define PORT            2
#define PORT_LID        0x22
#define REMOTE_LID      0x30
#define REMOTE_QPN      0x77
#define PSN0            0x100           /* dp_to_rtr/dp_to_rts PSNs */
#define MTU             1024            /* dp_to_rtr's path_mtu 3 */
#define TIMEOUT         10              /* 4.096 us * 2^10 */
#define TIMEOUT_NS      (4096ll << TIMEOUT)
#define FRAME_MAX       (sizeof(struct vhca_wire_hdr) + VHCA_WIRE_MAX_PAYLOAD)

/* ---- the cable: a unix socket this test listens on, as the switch ---- */

typedef struct WinCable {
    char *dir;
    int lfd;            /* listening */
    int fd;             /* the cable, switch side */
} WinCable;

/* Listen; returns the -device/-netdev options that cable PORT to it. */
static char *cable_open(WinCable *c)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };

    memset(c, 0, sizeof(*c));
    c->dir = g_dir_make_tmp("vhca-rcwin-XXXXXX", NULL);
    g_assert(c->dir);
    snprintf(a.sun_path, sizeof(a.sun_path), "%s/cable", c->dir);
    c->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(c->lfd, >=, 0);
    g_assert_cmpint(bind(c->lfd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    g_assert_cmpint(listen(c->lfd, 1), ==, 0);
    c->fd = -1;
    return g_strdup_printf(",port%u-netdev=w0 -netdev stream,id=w0,"
                           "server=off,addr.type=unix,addr.path=%s", PORT,
                           a.sun_path);
}

static void cable_accept(WinCable *c)
{
    c->fd = accept(c->lfd, NULL, NULL);
    g_assert_cmpint(c->fd, >=, 0);
    close(c->lfd);
    c->lfd = -1;
}

static void cable_close(WinCable *c)
{
    g_autofree char *path = g_strdup_printf("%s/cable", c->dir);

    close(c->fd);
    unlink(path);
    rmdir(c->dir);
    g_free(c->dir);
}

static void cable_read(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = read(fd, p, len);

        g_assert_cmpint(n, >, 0);
        p += n;
        len -= n;
    }
}

/* The next frame out of the port (stream framing: a 4-byte BE length). */
static uint32_t cable_recv(WinCable *c, uint8_t *frame, uint32_t max)
{
    uint8_t be[4];
    uint32_t len;

    cable_read(c->fd, be, 4);
    len = ldl_be_p(be);
    g_assert_cmpuint(len, <=, max);
    cable_read(c->fd, frame, len);
    return len;
}

static void cable_send(WinCable *c, const uint8_t *frame, uint32_t len)
{
    uint8_t be[4];

    stl_be_p(be, len);
    g_assert_cmpint(write(c->fd, be, 4), ==, 4);
    g_assert_cmpint(write(c->fd, frame, len), ==, len);
}

/* Whether a frame comes within ms milliseconds. */
static bool cable_poll(WinCable *c, int ms)
{
    struct pollfd p = { .fd = c->fd, .events = POLLIN };

    return poll(&p, 1, ms) == 1;
}

/*
 * Until the port sends a frame: it trains once its netdev is connected,
 * which QEMU does on its own time, then says HELLO every 200 ms of the
 * virtual clock while INIT (vhca-link.c), so step the clock meanwhile.
 */
static void cable_wait(WinCable *c, Vhca *v)
{
    int i;

    for (i = 0; !cable_poll(c, 100); i++) {
        g_assert_cmpint(i, <, 100);
        qtest_clock_step(v->qts, 200 * 1000 * 1000);
    }
}

typedef struct Win {
    Dp *dp;
    WinCable cable;
    DpCq cq;
    DpQp qp;
    uint64_t buf;       /* local memory, 64 KiB */
    uint32_t key;
    uint8_t *frame;
} Win;

static struct vhca_wire_hdr *hdr(Win *w)
{
    return (struct vhca_wire_hdr *)w->frame;
}

/* The next frame that is not a HELLO. */
static void win_recv(Win *w)
{
    do {
        cable_recv(&w->cable, w->frame, FRAME_MAX);
        g_assert_cmphex(le32_to_cpu(hdr(w)->magic), ==, VHCA_WIRE_MAGIC);
    } while (hdr(w)->kind == VHCA_WIRE_HELLO);
}

/* The next REQUEST: its PSN (the opcode checked). */
static uint32_t win_request(Win *w, uint8_t opcode)
{
    win_recv(w);
    g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_REQUEST);
    g_assert_cmpuint(hdr(w)->opcode, ==, opcode);
    g_assert_cmphex(le32_to_cpu(hdr(w)->dst_qpn), ==, REMOTE_QPN);
    g_assert_cmphex(le16_to_cpu(hdr(w)->dlid), ==, REMOTE_LID);
    return le32_to_cpu(hdr(w)->psn);
}

static void win_no_frame(Win *w)
{
    g_assert_false(cable_poll(&w->cable, 100));
}

static void win_frame(struct vhca_wire_hdr *h, uint8_t kind, uint32_t len)
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
static struct vhca_wire_hdr *win_remote_frame(Win *w, uint8_t kind,
                                              uint8_t opcode, uint32_t psn,
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

static void win_send_frame(Win *w, struct vhca_wire_hdr *h,
                           const uint8_t *payload)
{
    uint32_t len = le32_to_cpu(h->payload_len);

    memcpy(h + 1, payload, len);
    cable_send(&w->cable, (uint8_t *)h, sizeof(*h) + len);
    g_free(h);
}

/* The remote QP answers the request with first PSN psn. */
static void win_answer(Win *w, uint8_t opcode, uint32_t psn, uint8_t syndrome,
                       uint32_t nak_psn, const uint8_t *data, uint32_t len)
{
    struct vhca_wire_hdr *h = win_remote_frame(w, VHCA_WIRE_RESPONSE, opcode,
                                               psn, len, len);

    h->syndrome = syndrome;
    h->packets = cpu_to_le32(1);
    h->nak_psn = cpu_to_le32(nak_psn);
    win_send_frame(w, h, data);
}

static void win_ack(Win *w, uint8_t opcode, uint32_t psn)
{
    win_answer(w, opcode, psn, VHCA_WIRE_ACK, 0, NULL, 0);
}

/* The SM's LINK: port 2 ACTIVE with PORT_LID (its PORT_ACTIVE event). */
static void win_link_up(Win *w)
{
    struct vhca_wire_hdr h;
    struct vhca_port_attr attr;
    struct vhca_eqe ev;

    cable_wait(&w->cable, w->dp->v);
    do {
        cable_recv(&w->cable, w->frame, FRAME_MAX);
    } while (hdr(w)->kind != VHCA_WIRE_HELLO);
    win_frame(&h, VHCA_WIRE_LINK, 0);
    h.opcode = VHCA_PORT_ACTIVE;
    h.dlid = cpu_to_le16(PORT_LID);
    h.slid = cpu_to_le16(VHCA_WIRE_SM_LID);
    cable_send(&w->cable, (uint8_t *)&h, sizeof(h));
    do {
        g_assert_true(vhca_try_eqe(w->dp->v, &ev, 500));
        g_assert_cmpuint(ev.type, ==, VHCA_EQE_PORT_EVENT);
    } while (ev.data.port.port != PORT);
    g_assert_cmpuint(vhca_query_port(w->dp->v, PORT, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    g_assert_cmphex(le16_to_cpu(attr.lid), ==, PORT_LID);
    while (cable_poll(&w->cable, 50)) {     /* HELLOs sent while INIT */
        cable_recv(&w->cable, w->frame, FRAME_MAX);
        g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_HELLO);
    }
}

/* Port 2 cabled and ACTIVE; an RC QP on it in RTS towards the remote QP. */
static void win_start(Win *w, uint8_t retry_cnt)
{
    g_autofree char *extra = NULL;
    struct vhca_eqe ev[4];

    memset(w, 0, sizeof(*w));
    w->frame = g_malloc(FRAME_MAX);
    extra = cable_open(&w->cable);
    w->dp = g_new0(Dp, 1);
    w->dp->v = vhca_start(extra);
    cable_accept(&w->cable);
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
    g_assert_cmpuint(dp_to_rts_timers(w->dp, &w->qp, 7, TIMEOUT, retry_cnt),
                     ==, VHCA_CMD_OK);
}

static void win_stop(Win *w)
{
    dp_stop(w->dp);
    cable_close(&w->cable);
    g_free(w->frame);
}

/* WQEs put on the send queue, then one doorbell for all of them. */
static void win_put(Win *w, uint64_t wr_id, uint8_t opcode, uint32_t off,
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

static void win_ring(Win *w)
{
    dp_db64(w->dp->v, 0, VHCA_DB_SQ,
            vhca_db_data_value(w->qp.h, 0, w->qp.sq_pi));
}

/*
 * The next completion: frames from the cable reach the device in QEMU's
 * main loop, concurrently with this test's qtest commands, so wait for it
 * (up to 5 s).
 */
static void win_expect(Win *w, uint64_t wr_id, uint8_t status)
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
static void win_expect_writes(Win *w, uint32_t from, uint32_t to)
{
    uint32_t i;

    for (i = from; i < to; i++) {
        g_assert_cmphex(win_request(w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + i);
    }
}

/* n one-packet WRITEs (wr_id 1..n), one doorbell, all of them sent. */
static void win_writes(Win *w, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        win_put(w, i + 1, VHCA_WQE_RDMA_WRITE, i * 512, 512);
    }
    win_ring(w);
    win_expect_writes(w, 0, n);
}

static void win_expect_done(Win *w, uint64_t wr_id)
{
    win_expect(w, wr_id, VHCA_WC_SUCCESS);
}

/* WQEs from .. to complete, in order. */
static void win_expect_done_upto(Win *w, uint64_t from, uint64_t to)
{
    uint64_t wr_id;

    for (wr_id = from; wr_id <= to; wr_id++) {
        win_expect_done(w, wr_id);
    }
}

/* No completion, after the device had time to take what was sent. */
static void win_expect_none(Win *w)
{
    g_usleep(50 * 1000);
    dp_expect_no_cqe(w->dp, &w->cq);
}

static uint32_t win_sq_psn(Win *w)
{
    struct vhca_qp_context ctx;

    g_assert_cmpuint(dp_query_qp(w->dp, w->qp.h, &ctx), ==, VHCA_CMD_OK);
    return le32_to_cpu(ctx.sq_psn);
}

/*
 * Four SENDs of two packets each leave at once; one ACK for the third
 * completes the first three in order, the fourth waits for its own.
 */
static void test_rcwin_pipeline(void)
{
    uint8_t *expect = g_malloc(2000);
    uint32_t i;
    Win w;

    win_start(&w, 7);
    for (i = 0; i < 4; i++) {
        dp_fill(w.dp, w.buf + i * 2000, 2000, i + 1);
        win_put(&w, i + 1, VHCA_WQE_SEND, i * 2000, 2000);
    }
    win_ring(&w);
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0 + 2 * i);
        g_assert_cmpuint(le32_to_cpu(hdr(&w)->packets), ==, 2);
        g_assert_cmpuint(le32_to_cpu(hdr(&w)->payload_len), ==, 2000);
        qtest_memread(w.dp->v->qts, w.buf + i * 2000, expect, 2000);
        g_assert_cmpmem(w.frame + sizeof(struct vhca_wire_hdr), 2000,
                        expect, 2000);
    }
    win_expect_none(&w);
    win_ack(&w, VHCA_WQE_SEND, PSN0 + 4);       /* coalesced: 1..3 */
    win_expect_done(&w, 1);
    win_expect_done(&w, 2);
    win_expect_done(&w, 3);
    win_expect_none(&w);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 6);
    win_ack(&w, VHCA_WQE_SEND, PSN0 + 2);       /* stale: ignored */
    win_expect_none(&w);
    win_ack(&w, VHCA_WQE_SEND, PSN0 + 6);
    win_expect_done(&w, 4);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 8);
    win_no_frame(&w);
    g_free(expect);
    win_stop(&w);
}

/*
 * The second of four WRITEs is lost: the responder ACKs the first and
 * NAKs the third once (sequence error naming the second); the device
 * sends the second, third and fourth again, and one ACK ends them.
 */
static void test_rcwin_lost_request(void)
{
    Win w;

    win_start(&w, 7);
    win_writes(&w, 4);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0);
    win_expect_done(&w, 1);
    win_answer(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2, VHCA_WIRE_NAK_SEQ,
               PSN0 + 1, NULL, 0);
    win_expect_writes(&w, 1, 4);                /* go-back-N */
    win_expect_none(&w);
    /* A NAK for a PSN not in flight is a ghost: nothing resent. */
    win_answer(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 3, VHCA_WIRE_NAK_SEQ,
               PSN0 + 9, NULL, 0);
    win_no_frame(&w);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 3);
    win_expect_done_upto(&w, 2, 4);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 4);
    win_stop(&w);
}

/*
 * The ACKs of the first two WRITEs are lost and the third's covers them;
 * then the last ACK of a WRITE is lost: the local ACK timeout sends it
 * again with its PSN, and the answer to the resend completes it.
 */
static void test_rcwin_lost_ack(void)
{
    Win w;

    win_start(&w, 7);
    win_writes(&w, 3);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2);
    win_expect_done_upto(&w, 1, 3);
    win_put(&w, 4, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 3);
    qtest_clock_step(w.dp->v->qts, TIMEOUT_NS - 1);
    win_no_frame(&w);
    qtest_clock_step(w.dp->v->qts, 1);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 3);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 3);
    win_expect_done(&w, 4);
    win_stop(&w);
}

/*
 * Two READs and a SEND in flight; the second READ's response comes first
 * (no completion yet), then the first's: both complete in order with
 * their data; the SEND's ACK ends the third.
 */
static void test_rcwin_reads(void)
{
    uint8_t a[300], b[300], got[300];
    uint32_t psn[3];
    Win w;

    memset(a, 0xa1, sizeof(a));
    memset(b, 0xb2, sizeof(b));
    win_start(&w, 7);
    win_put(&w, 1, VHCA_WQE_RDMA_READ, 0, 300);
    win_put(&w, 2, VHCA_WQE_RDMA_READ, 4096, 300);
    win_put(&w, 3, VHCA_WQE_SEND, 8192, 100);
    win_ring(&w);
    psn[0] = win_request(&w, VHCA_WQE_RDMA_READ);
    psn[1] = win_request(&w, VHCA_WQE_RDMA_READ);
    psn[2] = win_request(&w, VHCA_WQE_SEND);
    g_assert_cmphex(psn[1], ==, psn[0] + 1);
    g_assert_cmphex(psn[2], ==, psn[1] + 1);
    win_answer(&w, VHCA_WQE_RDMA_READ, psn[1], VHCA_WIRE_ACK, 0, b, 300);
    win_expect_none(&w);
    win_answer(&w, VHCA_WQE_RDMA_READ, psn[0], VHCA_WIRE_ACK, 0, a, 300);
    win_expect_done(&w, 1);
    win_expect_done(&w, 2);
    qtest_memread(w.dp->v->qts, w.buf + 4096, got, 300);
    g_assert_cmpmem(got, 300, b, 300);
    qtest_memread(w.dp->v->qts, w.buf, got, 300);
    g_assert_cmpmem(got, 300, a, 300);
    win_ack(&w, VHCA_WQE_SEND, psn[2]);
    win_expect_done(&w, 3);
    win_stop(&w);
}

/*
 * Nobody answers three WRITEs: each local ACK timeout sends all three
 * again; the (retry_cnt + 1)th completes the first with RETRY_EXC_ERR,
 * the QP goes to ERR and the others are flushed.
 */
static void test_rcwin_retry_exhausted(void)
{
    uint32_t t;
    Win w;

    win_start(&w, 2);
    win_writes(&w, 3);
    for (t = 0; t <= 2; t++) {
        if (t) {
            win_expect_writes(&w, 0, 3);        /* all of them again */
        }
        win_expect_none(&w);
        qtest_clock_step(w.dp->v->qts, TIMEOUT_NS);
    }
    win_expect(&w, 1, VHCA_WC_RETRY_EXC_ERR);
    win_expect(&w, 2, VHCA_WC_WR_FLUSH_ERR);
    win_expect(&w, 3, VHCA_WC_WR_FLUSH_ERR);
    dp_assert_state(w.dp, &w.qp, VHCA_QPS_ERR);
    win_no_frame(&w);
    win_stop(&w);
}

/* The remote requester's request with first PSN psn for the device's QP. */
static void win_remote_request(Win *w, uint8_t opcode, uint32_t psn,
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
static uint8_t win_response(Win *w, uint32_t psn, uint32_t nak_psn)
{
    win_recv(w);
    g_assert_cmpuint(hdr(w)->kind, ==, VHCA_WIRE_RESPONSE);
    g_assert_cmphex(le32_to_cpu(hdr(w)->psn), ==, psn);
    if (hdr(w)->syndrome == VHCA_WIRE_NAK_SEQ) {
        g_assert_cmphex(le32_to_cpu(hdr(w)->nak_psn), ==, nak_psn);
    }
    return hdr(w)->syndrome;
}

/*
 * The device as responder: a READ, then a WRITE ahead of the expected PSN
 * (sequence error NAK, once: the next one ahead is dropped), the missing
 * WRITE and the rest in order, then the READ again: a duplicate, executed
 * again from the memory as it is now.
 */
static void test_rcwin_responder(void)
{
    uint8_t data[600], got[600];
    struct vhca_qp_context ctx;
    Win w;

    win_start(&w, 7);
    dp_fill(w.dp, w.buf, 600, 7);
    qtest_memread(w.dp->v->qts, w.buf, data, 600);
    win_remote_request(&w, VHCA_WQE_RDMA_READ, PSN0, w.buf, w.key, NULL, 600);
    g_assert_cmpuint(win_response(&w, PSN0, 0), ==, VHCA_WIRE_ACK);
    g_assert_cmpmem(w.frame + sizeof(struct vhca_wire_hdr),
                    le32_to_cpu(hdr(&w)->payload_len), data, 600);

    memset(data, 0x5a, sizeof(data));
    win_remote_request(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2, w.buf + 1024,
                       w.key, data, 100);
    g_assert_cmpuint(win_response(&w, PSN0 + 2, PSN0 + 1), ==,
                     VHCA_WIRE_NAK_SEQ);
    win_remote_request(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 3, w.buf + 1024,
                       w.key, data, 100);
    win_no_frame(&w);
    win_remote_request(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 1, w.buf + 2048,
                       w.key, data, 100);
    g_assert_cmpuint(win_response(&w, PSN0 + 1, 0), ==, VHCA_WIRE_ACK);
    win_remote_request(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2, w.buf + 1024,
                       w.key, data, 100);
    g_assert_cmpuint(win_response(&w, PSN0 + 2, 0), ==, VHCA_WIRE_ACK);
    qtest_memread(w.dp->v->qts, w.buf + 1024, got, 100);
    g_assert_cmpmem(got, 100, data, 100);

    /* The READ again: memory changed since, the answer says so. */
    qtest_memwrite(w.dp->v->qts, w.buf, data, 100);
    qtest_memread(w.dp->v->qts, w.buf, data, 600);
    win_remote_request(&w, VHCA_WQE_RDMA_READ, PSN0, w.buf, w.key, NULL, 600);
    g_assert_cmpuint(win_response(&w, PSN0, 0), ==, VHCA_WIRE_ACK);
    g_assert_cmpmem(w.frame + sizeof(struct vhca_wire_hdr),
                    le32_to_cpu(hdr(&w)->payload_len), data, 600);
    g_assert_cmpuint(dp_query_qp(w.dp, w.qp.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(ctx.rq_psn), ==, PSN0 + 3);
    win_stop(&w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/rcwin/pipeline", test_rcwin_pipeline);
    qtest_add_func("/vhca/rcwin/lost-request", test_rcwin_lost_request);
    qtest_add_func("/vhca/rcwin/lost-ack", test_rcwin_lost_ack);
    qtest_add_func("/vhca/rcwin/reads", test_rcwin_reads);
    qtest_add_func("/vhca/rcwin/retry-exhausted", test_rcwin_retry_exhausted);
    qtest_add_func("/vhca/rcwin/responder", test_rcwin_responder);
    return g_test_run();
}
