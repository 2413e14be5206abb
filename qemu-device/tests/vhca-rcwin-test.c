/*
 * QTest testcase for vhca: RC across the wire with several requests in
 * flight (vhca-rc-window.c, Documentation/fabric.md "RC over the wire").
 *
 * Port 2 is cabled to a unix socket this test listens on: the test is the
 * switch and, behind it, the remote QP (vhca-qtest-rcwin.h).  As
 * requester the device sends several requests before any answer; one ACK
 * acknowledges every SEND/
 * WRITE before it (IBA 9.7.5.1); a request lost in the middle of the
 * window is NAKed as a sequence error and everything from it is sent again
 * (go-back-N); a lost ACK is covered by a later one, or by the local ACK
 * timeout and a resend; READ responses arrive out of order and complete
 * in order; no answer at all ends in RETRY_EXC_ERR with the rest flushed.
 * As responder it NAKs a sequence error once, drops what follows until the
 * missing request comes, and executes a duplicate READ again.  The
 * device runs with rc-window=64 (win_start); the default, one request at
 * a time, is vhca-rcwin-one-test.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-rcwin.h"

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
