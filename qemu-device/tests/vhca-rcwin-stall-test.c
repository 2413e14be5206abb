/*
 * QTest testcase for vhca: the ways an RC window across the wire could
 * stall (vhca-rc-window.c), each played deterministically by the test as
 * the switch and the remote QP (vhca-qtest-rcwin.h):
 *
 * - the last ACKs of a window lost, after an earlier ACK restarted the
 *   local ACK timer: it still runs, and the rest is sent again;
 * - an RNR NAK in the middle of a window, with the sequence error NAK the
 *   requests behind it draw: the window waits the RNR timer and sends
 *   again from the NAK'd request;
 * - an RNR NAK behind a READ whose response is lost, and the resend after
 *   the RNR wait cannot leave (its memory region went away): the local ACK
 *   timer runs for the READ all the same (IBA 9.7.6.1.3);
 * - a memory operation and a fenced WQE behind remote operations wait for
 *   the window to drain and then run; ATOMIC WRITE travels in the window;
 * - FLUSH in the window behind a WRITE: its frame without payload, the
 *   range and FETH in the header, completed by a READ-response answer;
 * - a 1 MiB SEND in 16 frames with the message lost: go-back-N sends all
 *   of it again; as responder, a message with a segment missing is put
 *   together from the resend;
 * - a window full (4 MiB of WRITEs, max_rd_atomic READs) drains and the
 *   held WQE leaves;
 * - SQD with requests in flight: lost ACKs are still recovered by resends,
 *   nothing new leaves, and SQ_DRAINED comes once all are answered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-rcwin.h"

#define BIG             (1u << 20)      /* 16 frames, 1024 PSNs */
#define RNR_TIMER       14              /* 1.28 ms (IBA table 45) */
#define RNR_NS          (1280 * 1000ll)

/* A send WQE with its own local buffer and flags, put on the queue. */
static void stall_put(Win *w, uint64_t wr_id, uint8_t opcode, uint8_t flags,
                      uint64_t laddr, uint32_t len, uint32_t lkey)
{
    DpWqe q;

    dp_wqe(&q, wr_id, opcode, VHCA_WQE_F_SIGNALED | flags);
    if (opcode != VHCA_WQE_SEND) {
        dp_wqe_raddr(&q, 0x10000, 0x1234);
    }
    dp_wqe_sge(&q, laddr, len, lkey);
    dp_put_send(w->dp, &w->qp, &q);
}

/* The next frame comes within 2 s (a stalled window sends none). */
static void stall_frame_due(Win *w)
{
    g_assert_true(win_poll(w, 2000));
}

/* An RNR NAK for the request with first PSN psn. */
static void stall_rnr(Win *w, uint8_t opcode, uint32_t psn)
{
    struct vhca_wire_hdr *h = win_remote_frame(w, VHCA_WIRE_RESPONSE, opcode,
                                               psn, 0, 0);

    h->syndrome = VHCA_WIRE_NAK_RNR;
    h->rnr_timer = RNR_TIMER;
    h->packets = cpu_to_le32(1);
    win_send_frame(w, h, NULL);
}

/*
 * A request message of len bytes in its segments: its PSN.  Each segment
 * carries its part of the local memory at src (0: not checked).
 */
static uint32_t stall_message(Win *w, uint8_t opcode, uint32_t len,
                              uint64_t src)
{
    g_autofree uint8_t *want = g_malloc(VHCA_WIRE_MAX_PAYLOAD);
    uint32_t off, seg, psn = 0, p;

    for (off = 0; off < len; off += seg) {
        seg = MIN(len - off, VHCA_WIRE_MAX_PAYLOAD);
        stall_frame_due(w);
        p = win_request(w, opcode);
        g_assert_cmpuint(le32_to_cpu(hdr(w)->length), ==, len);
        g_assert_cmpuint(le32_to_cpu(hdr(w)->offset), ==, off);
        g_assert_cmpuint(le32_to_cpu(hdr(w)->payload_len), ==, seg);
        g_assert_true(off == 0 || p == psn);
        psn = p;
        if (src) {
            qtest_memread(w->dp->v->qts, src + off, want, seg);
            g_assert_cmpmem(w->frame + sizeof(struct vhca_wire_hdr), seg,
                            want, seg);
        }
    }
    return psn;
}

/* A local buffer of len bytes with its own region: its key in *key. */
static uint64_t stall_buffer(Win *w, uint32_t len, uint32_t *key)
{
    uint64_t addr = dp_alloc(w->dp, len);

    *key = dp_mr_phys(w->dp, w->dp->pd, addr, len, DP_ALL_ACCESS);
    return addr;
}

/*
 * Three WRITEs; the first one's ACK comes (the timer starts again for the
 * second), the ACKs of the other two are lost: one timeout later both
 * leave again, and the ACK of the last ends them.
 */
static void test_stall_last_acks_lost(void)
{
    Win w;

    win_start(&w, 7);
    win_writes(&w, 3);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0);
    win_expect_done(&w, 1);
    win_no_frame(&w);
    qtest_clock_step(w.dp->v->qts, TIMEOUT_NS);
    stall_frame_due(&w);
    win_expect_writes(&w, 1, 3);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2);
    win_expect_done_upto(&w, 2, 3);
    win_no_frame(&w);
    win_stop(&w);
}

/*
 * Three SENDs: the first is ACKed, the second draws an RNR NAK and the
 * third the sequence error NAK naming the second (the responder stays at
 * it).  Nothing leaves during the RNR wait; then the second and third
 * leave again and one ACK ends them.
 */
static void test_stall_rnr_in_the_middle(void)
{
    uint32_t i;
    Win w;

    win_start(&w, 7);
    for (i = 0; i < 3; i++) {
        win_put(&w, i + 1, VHCA_WQE_SEND, i * 512, 512);
    }
    win_ring(&w);
    for (i = 0; i < 3; i++) {
        g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0 + i);
    }
    win_ack(&w, VHCA_WQE_SEND, PSN0);
    stall_rnr(&w, VHCA_WQE_SEND, PSN0 + 1);
    win_answer(&w, VHCA_WQE_SEND, PSN0 + 2, VHCA_WIRE_NAK_SEQ, PSN0 + 1,
               NULL, 0);
    win_expect_done(&w, 1);
    win_no_frame(&w);
    qtest_clock_step(w.dp->v->qts, RNR_NS);
    stall_frame_due(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0 + 1);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0 + 2);
    win_ack(&w, VHCA_WQE_SEND, PSN0 + 2);
    win_expect_done_upto(&w, 2, 3);
    win_stop(&w);
}

/*
 * A READ and a SEND behind it; the SEND draws an RNR NAK and, during the
 * wait, the region of its buffer is destroyed, so after the wait it
 * cannot leave while the READ is in flight.  The READ's response was
 * lost: the local ACK timer sends the READ again all the same.  Its
 * answer completes it, and the SEND, alone now, fails its local check.
 */
static void test_stall_rnr_resend_held(void)
{
    uint8_t data[300];
    uint32_t psn[2], key2;
    uint64_t buf2;
    Win w;

    memset(data, 0x3c, sizeof(data));
    win_start(&w, 7);
    buf2 = stall_buffer(&w, 4096, &key2);
    stall_put(&w, 1, VHCA_WQE_RDMA_READ, 0, w.buf, 300, w.key);
    stall_put(&w, 2, VHCA_WQE_SEND, 0, buf2, 100, key2);
    win_ring(&w);
    psn[0] = win_request(&w, VHCA_WQE_RDMA_READ);
    psn[1] = win_request(&w, VHCA_WQE_SEND);
    stall_rnr(&w, VHCA_WQE_SEND, psn[1]);
    win_no_frame(&w);
    g_assert_cmpuint(dp_simple(w.dp, VHCA_CMD_DESTROY_MR, key2, NULL), ==,
                     VHCA_CMD_OK);
    qtest_clock_step(w.dp->v->qts, RNR_NS);
    win_no_frame(&w);                           /* the SEND is held */
    qtest_clock_step(w.dp->v->qts, TIMEOUT_NS);
    stall_frame_due(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_READ), ==, psn[0]);
    win_answer(&w, VHCA_WQE_RDMA_READ, psn[0], VHCA_WIRE_ACK, 0, data, 300);
    win_expect_done(&w, 1);
    win_expect(&w, 2, VHCA_WC_LOC_PROT_ERR);
    dp_assert_state(w.dp, &w.qp, VHCA_QPS_ERR);
    win_no_frame(&w);
    win_stop(&w);
}

/* REG_MR of a new variant of key over two pages, put on the queue. */
static void stall_put_reg_mr(Win *w, uint64_t wr_id, uint32_t key)
{
    uint64_t pages[2] = { dp_alloc(w->dp, 4096), dp_alloc(w->dp, 4096) };
    DpWqe q;

    dp_wqe_reg_mr(w->dp, &q, wr_id, (key & ~0xffu) | 0x11, 0x40000000,
                  pages, DP_ALL_ACCESS);
    dp_put_send(w->dp, &w->qp, &q);
}

/* An ATOMIC_WRITE of bytes, put on the queue. */
static void stall_put_atomic_write(Win *w, uint64_t wr_id,
                                   const uint8_t bytes[8])
{
    DpWqe q;

    dp_wqe(&q, wr_id, VHCA_WQE_ATOMIC_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_atomic(&q, 0x10008, 0x1234, 0, ldq_le_p(bytes));
    dp_put_send(w->dp, &w->qp, &q);
}

/*
 * Two WRITEs, a REG_MR and a WRITE: the REG_MR waits for the window to
 * drain, then runs, and the WRITE behind it leaves.  A fenced WRITE behind
 * a READ waits for the READ's answer.  ATOMIC WRITE is a remote operation:
 * it leaves in the window between two WRITEs with its 8 bytes.
 */
static void test_stall_local_and_fenced_behind(void)
{
    static const uint8_t bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint8_t data[100] = { 0 };
    Win w;

    win_start(&w, 7);
    win_put(&w, 1, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_put(&w, 2, VHCA_WQE_RDMA_WRITE, 512, 512);
    stall_put_reg_mr(&w, 3, dp_alloc_mr(w.dp, 0x10));
    win_put(&w, 4, VHCA_WQE_RDMA_WRITE, 1024, 512);
    win_ring(&w);
    win_expect_writes(&w, 0, 2);
    win_no_frame(&w);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 1);
    win_expect_done_upto(&w, 1, 3);
    stall_frame_due(&w);
    win_expect_writes(&w, 2, 3);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2);
    win_expect_done(&w, 4);

    stall_put(&w, 5, VHCA_WQE_RDMA_READ, 0, w.buf, 100, w.key);
    stall_put(&w, 6, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_FENCE, w.buf, 100,
              w.key);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_READ), ==, PSN0 + 3);
    win_no_frame(&w);
    win_answer(&w, VHCA_WQE_RDMA_READ, PSN0 + 3, VHCA_WIRE_ACK, 0, data, 100);
    win_expect_done(&w, 5);
    stall_frame_due(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 4);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 4);
    win_expect_done(&w, 6);

    win_put(&w, 7, VHCA_WQE_RDMA_WRITE, 0, 512);
    stall_put_atomic_write(&w, 8, bytes);
    win_put(&w, 9, VHCA_WQE_RDMA_WRITE, 512, 512);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 5);
    g_assert_cmphex(win_request(&w, VHCA_WQE_ATOMIC_WRITE), ==, PSN0 + 6);
    g_assert_cmpmem(w.frame + sizeof(struct vhca_wire_hdr),
                    le32_to_cpu(hdr(&w)->payload_len), bytes, 8);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 7);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 7);
    win_expect_done_upto(&w, 7, 9);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 8);
    win_stop(&w);
}

/*
 * FLUSH on the wire (IBA 1.5 A19.4.1): one request without payload whose
 * frame carries the range's length in compare_add and the FETH in swap,
 * in the window behind a WRITE; the remote's READ-response answer (no
 * data, oA19-2) acknowledges both, and the FLUSH completes with its CQE.
 */
static void test_stall_flush_on_the_wire(void)
{
    struct vhca_cqe cqe;
    DpWqe q;
    Win w;

    win_start(&w, 7);
    win_put(&w, 1, VHCA_WQE_RDMA_WRITE, 0, 512);
    dp_wqe(&q, 2, VHCA_WQE_FLUSH, VHCA_WQE_F_SIGNALED);
    dp_wqe_flush(&q, 0x10000, 0x1234, 512, VHCA_FLUSH_PERSISTENT,
                 VHCA_FLUSH_RANGE);
    dp_put_send(w.dp, &w.qp, &q);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    g_assert_cmphex(win_request(&w, VHCA_WQE_FLUSH), ==, PSN0 + 1);
    g_assert_cmpuint(le32_to_cpu(hdr(&w)->packets), ==, 1);
    g_assert_cmpuint(le32_to_cpu(hdr(&w)->payload_len), ==, 0);
    g_assert_cmphex(le64_to_cpu(hdr(&w)->remote_addr), ==, 0x10000);
    g_assert_cmphex(le32_to_cpu(hdr(&w)->rkey), ==, 0x1234);
    g_assert_cmpuint(le64_to_cpu(hdr(&w)->compare_add), ==, 512);
    g_assert_cmphex(le64_to_cpu(hdr(&w)->swap), ==,
                    VHCA_FETH(VHCA_FLUSH_PERSISTENT, VHCA_FLUSH_RANGE));
    win_ack(&w, VHCA_WQE_FLUSH, PSN0 + 1);
    win_expect_done(&w, 1);
    for (int i = 0; !dp_poll_cq(w.dp, &w.cq, &cqe); i++) {
        g_assert_cmpint(i, <, 5000);
        g_usleep(1000);
    }
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_FLUSH);
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 2);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 2);
    win_stop(&w);
}

/*
 * A 1 MiB SEND (16 frames) and a small one behind it; the responder lost
 * the big one (a frame in its middle) and NAKs the small one's PSN with a
 * sequence error naming the big one: all 16 frames and the small SEND
 * leave again, and one ACK ends both.
 */
static void test_stall_big_send_lost(void)
{
    uint32_t key, psn;
    uint64_t big;
    Win w;

    win_start(&w, 7);
    big = stall_buffer(&w, BIG, &key);
    dp_fill(w.dp, big, BIG, 9);
    stall_put(&w, 1, VHCA_WQE_SEND, 0, big, BIG, key);
    win_put(&w, 2, VHCA_WQE_SEND, 0, 100);
    win_ring(&w);
    g_assert_cmphex(stall_message(&w, VHCA_WQE_SEND, BIG, big), ==, PSN0);
    psn = win_request(&w, VHCA_WQE_SEND);
    g_assert_cmphex(psn, ==, PSN0 + BIG / MTU);
    win_answer(&w, VHCA_WQE_SEND, psn, VHCA_WIRE_NAK_SEQ, PSN0, NULL, 0);
    g_assert_cmphex(stall_message(&w, VHCA_WQE_SEND, BIG, big), ==, PSN0);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, psn);
    win_ack(&w, VHCA_WQE_SEND, psn);
    win_expect_done_upto(&w, 1, 2);
    g_assert_cmphex(win_sq_psn(&w), ==, psn + 1);
    win_stop(&w);
}

/* The remote requester's 1 MiB SEND at PSN0 in segments, but skip. */
static void stall_remote_big_send(Win *w, const uint8_t *data, int skip)
{
    uint32_t off;

    for (off = 0; off < BIG; off += VHCA_WIRE_MAX_PAYLOAD) {
        struct vhca_wire_hdr *h;

        if ((int)(off / VHCA_WIRE_MAX_PAYLOAD) == skip) {
            continue;
        }
        h = win_remote_frame(w, VHCA_WIRE_REQUEST, VHCA_WQE_SEND, PSN0, BIG,
                             VHCA_WIRE_MAX_PAYLOAD);
        h->packets = cpu_to_le32(BIG / MTU);
        h->offset = cpu_to_le32(off);
        win_send_frame(w, h, data + off);
    }
}

/*
 * The device as responder: a 1 MiB SEND whose eighth frame is lost draws
 * no answer; the requester's resend is put together and ACKed once, and
 * the receive holds the message.
 */
static void test_stall_responder_segment_lost(void)
{
    g_autofree uint8_t *data = g_malloc(BIG);
    g_autofree uint8_t *got = g_malloc(BIG);
    struct vhca_cqe cqe;
    uint64_t big;
    uint32_t key, i;
    Win w;

    for (i = 0; i < BIG; i++) {
        data[i] = i * 7 + (i >> 12);
    }
    win_start(&w, 7);
    big = stall_buffer(&w, BIG, &key);
    dp_post_recv(w.dp, &w.qp, 0x77, big, BIG, key, 0, 0);
    stall_remote_big_send(&w, data, 7);
    win_no_frame(&w);
    dp_expect_no_cqe(w.dp, &w.cq);
    stall_remote_big_send(&w, data, -1);
    stall_frame_due(&w);
    g_assert_cmpuint(win_response(&w, PSN0, 0), ==, VHCA_WIRE_ACK);
    dp_expect_cqe(w.dp, &w.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 0x77);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, BIG);
    qtest_memread(w.dp->v->qts, big, got, BIG);
    g_assert_cmpmem(got, BIG, data, BIG);
    win_no_frame(&w);
    win_stop(&w);
}

/*
 * Five 1 MiB WRITEs: four fill the window's 4 MiB and the fifth waits;
 * the fourth's ACK drains the window and the fifth leaves.  Then five
 * READs with max_rd_atomic 4: the fifth waits for the first's answer.
 */
static void test_stall_window_full_drains(void)
{
    uint8_t data[100] = { 0 };
    uint32_t key, i, psn[5];
    uint64_t big;
    Win w;

    win_start(&w, 7);
    big = stall_buffer(&w, BIG, &key);
    for (i = 0; i < 5; i++) {
        stall_put(&w, i + 1, VHCA_WQE_RDMA_WRITE, 0, big, BIG, key);
    }
    win_ring(&w);
    for (i = 0; i < 4; i++) {
        psn[i] = stall_message(&w, VHCA_WQE_RDMA_WRITE, BIG, 0);
        g_assert_cmphex(psn[i], ==, PSN0 + i * (BIG / MTU));
    }
    win_no_frame(&w);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, psn[3]);
    win_expect_done_upto(&w, 1, 4);
    psn[4] = stall_message(&w, VHCA_WQE_RDMA_WRITE, BIG, 0);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, psn[4]);
    win_expect_done(&w, 5);

    for (i = 0; i < 5; i++) {
        stall_put(&w, 6 + i, VHCA_WQE_RDMA_READ, 0, w.buf + i * 128, 100,
                  w.key);
    }
    win_ring(&w);
    for (i = 0; i < 4; i++) {
        psn[i] = win_request(&w, VHCA_WQE_RDMA_READ);
    }
    win_no_frame(&w);
    win_answer(&w, VHCA_WQE_RDMA_READ, psn[0], VHCA_WIRE_ACK, 0, data, 100);
    win_expect_done(&w, 6);
    stall_frame_due(&w);
    psn[4] = win_request(&w, VHCA_WQE_RDMA_READ);
    for (i = 1; i < 5; i++) {
        win_answer(&w, VHCA_WQE_RDMA_READ, psn[i], VHCA_WIRE_ACK, 0, data,
                   100);
    }
    win_expect_done_upto(&w, 7, 10);
    win_stop(&w);
}

/* SQ_DRAINED for the QP within about a second of polling. */
static bool stall_drained(Win *w)
{
    int i;

    for (i = 0; i < 50; i++) {
        if (dp_take_event(w->dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_SQ_DRAINED,
                          w->qp.h)) {
            return true;
        }
    }
    return false;
}

/*
 * RTS -> SQD with three WRITEs in flight and a fourth posted: the fourth
 * does not leave; SQ_DRAINED waits for the answers.  The ACKs are lost:
 * the timeout sends the three again (a drain answers what was sent), the
 * last ACK ends them, and only then SQ_DRAINED.  Back in RTS the fourth
 * leaves.
 */
static void test_stall_sq_drain(void)
{
    struct vhca_qp_context ctx;
    Win w;

    win_start(&w, 7);
    win_writes(&w, 3);
    dp_ctx(&ctx, VHCA_QPS_SQD, VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY);
    ctx.en_sqd_async_notify = 1;
    g_assert_cmpuint(dp_modify(w.dp, &w.qp, &ctx), ==, VHCA_CMD_OK);
    win_put(&w, 4, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_ring(&w);
    win_no_frame(&w);
    g_assert_false(stall_drained(&w));
    qtest_clock_step(w.dp->v->qts, TIMEOUT_NS);
    stall_frame_due(&w);
    win_expect_writes(&w, 0, 3);
    win_no_frame(&w);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 2);
    win_expect_done_upto(&w, 1, 3);
    g_assert_true(stall_drained(&w));
    g_assert_cmpuint(dp_set_state(w.dp, &w.qp, VHCA_QPS_RTS), ==,
                     VHCA_CMD_OK);
    stall_frame_due(&w);
    win_expect_writes(&w, 3, 4);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 3);
    win_expect_done(&w, 4);
    win_stop(&w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/rcwin-stall/flush-on-the-wire",
                   test_stall_flush_on_the_wire);
    qtest_add_func("/vhca/rcwin-stall/last-acks-lost",
                   test_stall_last_acks_lost);
    qtest_add_func("/vhca/rcwin-stall/rnr-in-the-middle",
                   test_stall_rnr_in_the_middle);
    qtest_add_func("/vhca/rcwin-stall/rnr-resend-held",
                   test_stall_rnr_resend_held);
    qtest_add_func("/vhca/rcwin-stall/local-and-fenced-behind",
                   test_stall_local_and_fenced_behind);
    qtest_add_func("/vhca/rcwin-stall/big-send-lost",
                   test_stall_big_send_lost);
    qtest_add_func("/vhca/rcwin-stall/responder-segment-lost",
                   test_stall_responder_segment_lost);
    qtest_add_func("/vhca/rcwin-stall/window-full-drains",
                   test_stall_window_full_drains);
    qtest_add_func("/vhca/rcwin-stall/sq-drain", test_stall_sq_drain);
    return g_test_run();
}
