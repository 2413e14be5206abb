/*
 * QTest testcase for vhca: RC across the wire one request at a time, the
 * default rc-window=1 (vhca-rc-window.c, Documentation/fabric.md "RC over
 * the wire"), with the test as the switch and the remote QP
 * (vhca-qtest-rcwin.h).  The requester's rules of IBA 9.7 with nothing
 * else in flight:
 *
 * - the next request leaves only once the one before it is answered;
 * - no answer: the local ACK timeout (4.096 us * 2^timeout, IBA 9.7.6.1.3)
 *   sends the request again with its PSN, retry_cnt times; the next
 *   timeout completes it with RETRY_EXC_ERR (IBA 9.7.6.1.4) and the rest
 *   of the send queue is flushed;
 * - an RNR NAK: sent again after the responder's RNR timer, rnr_retry
 *   times, then RNR_RETRY_EXC_ERR (IBA 9.7.5.2.8);
 * - a sequence error NAK naming the request: sent again at once, using a
 *   retry, with a whole local ACK timeout for the resend; one naming
 *   another PSN is a ghost and ignored;
 * - a READ response's data and an atomic's original value land in the
 *   WQE's local buffer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-rcwin.h"

#define RNR_TIMER       14              /* 1.28 ms (IBA table 45) */
#define RNR_NS          (1280 * 1000ll)

static void one_step(Win *w, int64_t ns)
{
    qtest_clock_step(w->dp->v->qts, ns);
}

/* An RNR NAK for the request with first PSN psn. */
static void one_rnr(Win *w, uint8_t opcode, uint32_t psn)
{
    struct vhca_wire_hdr *h = win_remote_frame(w, VHCA_WIRE_RESPONSE, opcode,
                                               psn, 0, 0);

    h->syndrome = VHCA_WIRE_NAK_RNR;
    h->rnr_timer = RNR_TIMER;
    h->packets = cpu_to_le32(1);
    win_send_frame(w, h, NULL);
}

/*
 * The default: the second WRITE leaves only once the first one's ACK
 * completed it.
 */
static void test_one_in_order(void)
{
    Win w;

    win_start_with(&w, 7, 7, NULL);
    win_put(&w, 1, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_put(&w, 2, VHCA_WQE_RDMA_WRITE, 512, 512);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    win_no_frame(&w);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0);
    win_expect_done(&w, 1);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0 + 1);
    win_ack(&w, VHCA_WQE_RDMA_WRITE, PSN0 + 1);
    win_expect_done(&w, 2);
    win_stop(&w);
}

/*
 * retry_cnt 2, nobody answers: a resend at each of the first two local
 * ACK timeouts, not a nanosecond before; the third completes the WRITE
 * with RETRY_EXC_ERR and flushes the one behind it, which never left.
 */
static void test_one_retry_exhausted(void)
{
    uint32_t t;
    Win w;

    win_start_with(&w, 7, 2, ",rc-window=1");
    win_put(&w, 1, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_put(&w, 2, VHCA_WQE_RDMA_WRITE, 512, 512);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    for (t = 0; t < 2; t++) {
        one_step(&w, TIMEOUT_NS - 1);
        win_no_frame(&w);
        one_step(&w, 1);
        g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    }
    win_expect_none(&w);
    one_step(&w, TIMEOUT_NS);
    win_expect(&w, 1, VHCA_WC_RETRY_EXC_ERR);
    win_expect(&w, 2, VHCA_WC_WR_FLUSH_ERR);
    dp_assert_state(w.dp, &w.qp, VHCA_QPS_ERR);
    win_no_frame(&w);
    win_stop(&w);
}

/* A lost ACK: the timeout's resend is answered and the WQE completes. */
static void test_one_lost_ack(void)
{
    Win w;

    win_start_with(&w, 7, 7, NULL);
    win_put(&w, 1, VHCA_WQE_SEND, 0, 100);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0);
    one_step(&w, TIMEOUT_NS);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0);
    win_ack(&w, VHCA_WQE_SEND, PSN0);
    win_expect_done(&w, 1);
    g_assert_cmphex(win_sq_psn(&w), ==, PSN0 + 1);
    win_no_frame(&w);
    win_stop(&w);
}

/*
 * rnr_retry 1: the first RNR NAK sends the SEND again after the RNR
 * timer (not before it), the second completes it with
 * RNR_RETRY_EXC_ERR.
 */
static void test_one_rnr(void)
{
    Win w;

    win_start_with(&w, 1, 7, NULL);
    win_put(&w, 1, VHCA_WQE_SEND, 0, 100);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0);
    one_rnr(&w, VHCA_WQE_SEND, PSN0);
    win_no_frame(&w);
    one_step(&w, RNR_NS - 1);
    win_no_frame(&w);
    one_step(&w, 1);
    g_assert_cmphex(win_request(&w, VHCA_WQE_SEND), ==, PSN0);
    one_rnr(&w, VHCA_WQE_SEND, PSN0);
    win_expect(&w, 1, VHCA_WC_RNR_RETRY_EXC_ERR);
    dp_assert_state(w.dp, &w.qp, VHCA_QPS_ERR);
    win_no_frame(&w);
    win_stop(&w);
}

/*
 * retry_cnt 2.  Half a timeout after the WRITE left, a sequence error NAK
 * naming it: sent again at once, and its local ACK timer starts again (at
 * the first send's timeout nothing leaves).  A NAK naming another PSN is
 * a ghost: nothing.  The timeout resends (the last retry); the next
 * sequence NAK finds none left: RETRY_EXC_ERR.
 */
static void test_one_seq_nak(void)
{
    Win w;

    win_start_with(&w, 7, 2, NULL);
    win_put(&w, 1, VHCA_WQE_RDMA_WRITE, 0, 512);
    win_ring(&w);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    one_step(&w, TIMEOUT_NS / 2);
    win_answer(&w, VHCA_WQE_RDMA_WRITE, PSN0, VHCA_WIRE_NAK_SEQ, PSN0,
               NULL, 0);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    win_answer(&w, VHCA_WQE_RDMA_WRITE, PSN0, VHCA_WIRE_NAK_SEQ, PSN0 + 5,
               NULL, 0);
    win_no_frame(&w);
    one_step(&w, TIMEOUT_NS / 2);
    win_no_frame(&w);
    one_step(&w, TIMEOUT_NS / 2);
    g_assert_cmphex(win_request(&w, VHCA_WQE_RDMA_WRITE), ==, PSN0);
    win_answer(&w, VHCA_WQE_RDMA_WRITE, PSN0, VHCA_WIRE_NAK_SEQ, PSN0,
               NULL, 0);
    win_expect(&w, 1, VHCA_WC_RETRY_EXC_ERR);
    dp_assert_state(w.dp, &w.qp, VHCA_QPS_ERR);
    win_no_frame(&w);
    win_stop(&w);
}

/*
 * A READ, then a FETCH_AND_ADD behind it, which leaves once the READ's
 * response landed its data; the atomic ACK's original value lands in
 * the atomic's 8 bytes.
 */
static void test_one_read_atomic(void)
{
    uint8_t data[300], got[300];
    struct vhca_wire_hdr *h;
    uint32_t psn;
    Win w;

    memset(data, 0xc3, sizeof(data));
    win_start_with(&w, 7, 7, NULL);
    win_put(&w, 1, VHCA_WQE_RDMA_READ, 0, 300);
    win_ring(&w);
    dp_atomic(w.dp, &w.qp, 2, VHCA_WQE_ATOMIC_FETCH_AND_ADD, 0x10000, 0x1234,
              5, 0, w.buf + 4096, w.key);
    psn = win_request(&w, VHCA_WQE_RDMA_READ);
    win_no_frame(&w);
    win_answer(&w, VHCA_WQE_RDMA_READ, psn, VHCA_WIRE_ACK, 0, data, 300);
    win_expect_done(&w, 1);
    qtest_memread(w.dp->v->qts, w.buf, got, 300);
    g_assert_cmpmem(got, 300, data, 300);
    psn = win_request(&w, VHCA_WQE_ATOMIC_FETCH_AND_ADD);
    h = win_remote_frame(&w, VHCA_WIRE_RESPONSE,
                         VHCA_WQE_ATOMIC_FETCH_AND_ADD, psn, 8, 0);
    h->syndrome = VHCA_WIRE_ACK;
    h->packets = cpu_to_le32(1);
    h->compare_add = cpu_to_le64(0x1122334455667788ull);
    win_send_frame(&w, h, NULL);
    win_expect_done(&w, 2);
    g_assert_cmphex(qtest_readq(w.dp->v->qts, w.buf + 4096), ==,
                    0x1122334455667788ull);
    win_stop(&w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/rcwin-one/in-order", test_one_in_order);
    qtest_add_func("/vhca/rcwin-one/retry-exhausted",
                   test_one_retry_exhausted);
    qtest_add_func("/vhca/rcwin-one/lost-ack", test_one_lost_ack);
    qtest_add_func("/vhca/rcwin-one/rnr", test_one_rnr);
    qtest_add_func("/vhca/rcwin-one/seq-nak", test_one_seq_nak);
    qtest_add_func("/vhca/rcwin-one/read-atomic", test_one_read_atomic);
    return g_test_run();
}
