/*
 * vhca qtest: fault rules per packet from QMP (vhca-port-fault-rules.c,
 * Documentation/fabric-tests.md "Fault rules") on the in-process fabric,
 * between the two ports of one device: a lost READ response, an RNR NAK
 * burst, a remote access NAK, a doubled SEND, a rule per message number;
 * bad rules refused with why; the same seed and work give the same trace.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define FR_TIMEOUT      10      /* 4.096 us * 2^10 */
#define FR_TIMEOUT_NS   (4096ll << FR_TIMEOUT)
#define FR_SECOND_NS    1000000000ll

/* qom-set vhca0 fault-rules CMD: NULL, or the QMP error's text. */
static char *fr_command(Dp *dp, const char *cmd)
{
    QDict *rsp = qtest_qmp(dp->v->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'vhca0', 'property': 'fault-rules', "
                           "'value': %s}}", cmd);
    char *err = NULL;

    if (qdict_haskey(rsp, "error")) {
        err = g_strdup(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"));
    }
    qobject_unref(rsp);
    return err;
}

static void fr_ok(Dp *dp, const char *cmd)
{
    g_autofree char *err = fr_command(dp, cmd);

    g_assert_null(err);
}

static char *fr_get(Dp *dp, const char *prop)
{
    QDict *rsp = qtest_qmp(dp->v->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'vhca0', 'property': %s}}", prop);
    char *text = g_strdup(qdict_get_str(rsp, "return"));

    qobject_unref(rsp);
    return text;
}

/* Lines of the trace after its "seed S faults N" header. */
static int fr_trace_lines(const char *trace)
{
    int n = 0;

    for (const char *c = strchr(trace, '\n'); c && c[1]; c = strchr(c + 1, '\n')) {
        n++;
    }
    return n;
}

/* Both QPs in RTS, A (port 1) towards B (port 2). */
static void fr_pair(Dp *dp, DpPair *p, uint8_t retry_cnt)
{
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dp, &p->bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p->a, VHCA_QPT_RC, &p->acq, &p->acq);
    dp_create_qp(dp, &p->b, VHCA_QPT_RC, &p->bcq, &p->bcq);
    g_assert_cmpuint(dp_to_init(dp, &p->a, 1, DP_ALL_ACCESS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, &p->b, 2, DP_ALL_ACCESS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p->a, dp->lid[2], p->b.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts_timers(dp, &p->a, 7, FR_TIMEOUT, retry_cnt), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p->b, dp->lid[1], p->a.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p->b, 7), ==, VHCA_CMD_OK);
}

/* Bad rules and commands: refused with why, nothing added. */
static void test_fault_rules_refused(void)
{
    Dp *dp = dp_start();
    static const struct {
        const char *cmd, *why;
    } bad[] = {
        { "add op=send", "no action=" },
        { "add action=drop,port=3", "no such port" },
        { "add action=drop,op=nope", "op is send" },
        { "add dir=out,action=delay:5", "cabled port" },
        { "add action=reorder", "dir=out" },
        { "add op=send,action=nak:rnr", "op=ack or op=read-resp" },
        { "del 4", "no rule 4" },
        { "shuffle", "the commands are" },
    };
    g_autofree char *list = NULL;

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *err = fr_command(dp, bad[i].cmd);

        g_assert_nonnull(err);
        g_assert_nonnull(strstr(err, bad[i].why));
    }
    list = fr_get(dp, "fault-rules");
    g_assert_cmpint(strchr(list, '\n') - list + 1, ==, (int)strlen(list));
    dp_stop(dp);
}

/*
 * The first READ response is lost: the READ waits its local ACK timeout,
 * goes again and brings the data; the trace names the rule and the READ.
 */
static void test_fault_rules_lost_read_response(void)
{
    Dp *dp = dp_start();
    g_autofree char *trace = NULL, *list = NULL;
    struct vhca_cqe cqe;
    DpWqe w;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.b, 4096, 3);
    fr_pair(dp, &p, 3);
    fr_ok(dp, "seed 7");
    fr_ok(dp, "add port=2,dir=out,op=read-resp,nth=1,action=drop");
    dp_wqe(&w, 1, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, m.bkey);
    dp_wqe_sge(&w, m.a, 4096, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_no_cqe(dp, &p.acq);           /* the answer is lost */
    qtest_clock_step(dp->v->qts, FR_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b, 4096);
    trace = fr_get(dp, "fault-trace");
    g_assert_nonnull(strstr(trace, "seed 0x0000000000000007 faults 1\n"));
    g_assert_nonnull(strstr(trace, "0 rule 1 drop port 2 out read-resp "));
    list = fr_get(dp, "fault-rules");
    g_assert_nonnull(strstr(list, "rule 1 matches 2 fired 1: "));
    dp_stop(dp);
}

/*
 * An RNR NAK burst: the first two ACKs of SENDs become RNR NAKs (B's
 * min_rnr_timer); A waits and resends, B takes the duplicates without a
 * second receive, and the SEND completes once on each side.  Then a
 * remote access NAK ends a WRITE with REM_ACCESS_ERR.
 */
static void test_fault_rules_naks(void)
{
    Dp *dp = dp_start();
    g_autofree char *trace = NULL;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 4);
    fr_pair(dp, &p, 3);
    fr_ok(dp, "add op=ack,nth=1,count=2,action=nak:rnr");
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 0xb2, m.b + 4096, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 512,
            m.akey);
    dp_step_cqe(dp, &p.acq, &cqe, FR_SECOND_NS / 100, 100, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_expect_no_cqe(dp, &p.bcq);           /* the resends were duplicates */
    dp_assert_same(dp, m.a, m.b, 512);
    trace = fr_get(dp, "fault-trace");
    g_assert_cmpint(fr_trace_lines(trace), ==, 2);
    g_assert_nonnull(strstr(trace, "1 rule 1 nak:rnr port 2 out ack "));

    fr_ok(dp, "clear");
    fr_ok(dp, "add op=ack,dir=in,action=nak:access");
    dp_write(dp, &p.a, 2, m.b + 1024, m.bkey, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    dp_stop(dp);
}

/*
 * A doubled SEND reaches B twice: the copy is a duplicate (IBA 9.7.5.1.2),
 * acknowledged without a receive WQE.  msg=2 picks the second WRITE.
 */
static void test_fault_rules_dup_and_message_number(void)
{
    Dp *dp = dp_start();
    g_autofree char *rule = NULL, *trace = NULL;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 5);
    fr_pair(dp, &p, 3);
    fr_ok(dp, "add op=send,dir=out,nth=1,action=dup");
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 0xb2, m.b + 4096, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 100,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_expect_no_cqe(dp, &p.bcq);

    fr_ok(dp, "clear");
    rule = g_strdup_printf("add qpn=%u,dir=in,op=write,msg=2,action=drop",
                           p.b.h);
    fr_ok(dp, rule);
    dp_write(dp, &p.a, 2, m.b + 8192, m.bkey, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_write(dp, &p.a, 3, m.b + 8256, m.bkey, m.a + 64, 64, m.akey);
    dp_expect_no_cqe(dp, &p.acq);           /* message 2 is lost */
    qtest_clock_step(dp->v->qts, FR_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b + 8192, 128);
    trace = fr_get(dp, "fault-trace");
    g_assert_cmpint(fr_trace_lines(trace), ==, 1);
    g_assert_nonnull(strstr(trace, " drop port 2 in write "));
    g_assert_nonnull(strstr(trace, " msg 2 len 64"));
    dp_stop(dp);
}

/* 16 WRITEs under a 30 % loss rule with this seed: the trace. */
static char *fr_seeded_run(uint64_t seed)
{
    Dp *dp = dp_start();
    g_autofree char *cmd = g_strdup_printf("seed %" PRIu64, seed);
    struct vhca_cqe cqe;
    char *trace;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 6);
    fr_pair(dp, &p, 7);
    fr_ok(dp, cmd);
    fr_ok(dp, "add op=write,dir=out,pct=30,action=drop");
    for (int i = 0; i < 16; i++) {
        dp_write(dp, &p.a, i, m.b + i * 64, m.bkey, m.a + i * 64, 64,
                 m.akey);
        dp_step_cqe(dp, &p.acq, &cqe, FR_TIMEOUT_NS, 9, VHCA_WC_SUCCESS);
    }
    dp_assert_same(dp, m.a, m.b, 1024);
    trace = fr_get(dp, "fault-trace");
    dp_stop(dp);
    return trace;
}

static void test_fault_rules_same_seed_same_trace(void)
{
    g_autofree char *a = fr_seeded_run(5), *b = fr_seeded_run(5);
    g_autofree char *c = fr_seeded_run(6);

    g_assert_cmpint(fr_trace_lines(a), >, 0);
    g_assert_cmpstr(a, ==, b);
    g_assert_cmpstr(a, !=, c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/fault-rules/refused", test_fault_rules_refused);
    qtest_add_func("/vhca/fault-rules/lost-read-response",
                   test_fault_rules_lost_read_response);
    qtest_add_func("/vhca/fault-rules/naks", test_fault_rules_naks);
    qtest_add_func("/vhca/fault-rules/dup-and-message-number",
                   test_fault_rules_dup_and_message_number);
    qtest_add_func("/vhca/fault-rules/same-seed-same-trace",
                   test_fault_rules_same_seed_same_trace);
    return g_test_run();
}
