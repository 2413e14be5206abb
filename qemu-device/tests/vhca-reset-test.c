/*
 * QTest testcase for vhca: resets in the middle of work.
 *
 * CONTROL.RESET and QMP system_reset right after a command doorbell, with
 * thousands of commands queued (the bottom half runs them in batches of
 * 256, so the reset lands between batches), and with events pending on
 * armed EQs: after the reset the device writes nothing more to the old
 * rings, raises no MSI-X message, forgets every object, answers on a fresh
 * bring-up; MSI-X never fires more than once per arming.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

#define RESET_LOG           VHCA_MAX_LOG_CMDQ       /* 4096 commands */

/* Fill the command queue with 2^log QUERY_PKEYs, tokens 0.. in order. */
static void reset_fill_cmdq(Vhca *v, uint32_t log)
{
    uint32_t n = 1u << log, i;
    g_autofree struct vhca_cmd *cmds = g_new0(struct vhca_cmd, n);

    for (i = 0; i < n; i++) {
        cmds[i].opcode = cpu_to_le16(VHCA_CMD_QUERY_PKEY);
        cmds[i].token = cpu_to_le32(i);
        cmds[i].in.table.port = 1;
    }
    qtest_memwrite(v->qts, v->cmdq, cmds, n * sizeof(*cmds));
}

/* EQ 0 large enough for every completion of a full command queue. */
static void reset_big_eq0(Vhca *v)
{
    v->cmdq_log = RESET_LOG;
    v->eq0_log = RESET_LOG;
    v->eq0 = guest_alloc(&v->alloc, sizeof(struct vhca_eqe) << RESET_LOG);
}

/*
 * The completions on EQ 0 must be an in-order prefix of the queued
 * commands; returns how many there are.
 */
static uint32_t reset_count_completions(Vhca *v, struct vhca_eqe *ring)
{
    uint32_t n = 1u << v->eq0_log, i;

    qtest_memread(v->qts, v->eq0, ring, n * sizeof(*ring));
    for (i = 0; i < n && ring[i].owner == 1; i++) {
        g_assert_cmpuint(ring[i].type, ==, VHCA_EQE_CMD_DONE);
        g_assert_cmpuint(le32_to_cpu(ring[i].data.cmd_done.token), ==, i);
        g_assert_cmpuint(ring[i].data.cmd_done.status, ==, VHCA_CMD_OK);
    }
    return i;
}

/* Nothing is written to EQ 0 any more, however long we wait. */
static void reset_assert_quiet(Vhca *v, uint32_t done)
{
    size_t bytes = sizeof(struct vhca_eqe) << v->eq0_log;
    g_autofree struct vhca_eqe *before = g_malloc(bytes);
    g_autofree struct vhca_eqe *after = g_malloc(bytes);

    g_assert_cmpuint(reset_count_completions(v, before), ==, done);
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    qtest_memread(v->qts, v->eq0, after, bytes);
    g_assert_cmpmem(before, bytes, after, bytes);
}

static void test_reset_mid_batch(void)
{
    Vhca *v = vhca_start(NULL);
    g_autofree struct vhca_eqe *ring = NULL;
    uint32_t done;

    reset_big_eq0(v);
    ring = g_new(struct vhca_eqe, 1u << RESET_LOG);
    vhca_bringup(v);
    reset_fill_cmdq(v, RESET_LOG);
    db_write(v, VHCA_DB_CMDQ_PI, 1u << RESET_LOG);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);

    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 0);
    done = reset_count_completions(v, ring);
    g_test_message("%u of %u commands completed before the reset", done,
                   1u << RESET_LOG);
    reset_assert_quiet(v, done);
    /* The old doorbell value means nothing after the reset. */
    db_write(v, VHCA_DB_CMDQ_PI, 1u << RESET_LOG);
    reset_assert_quiet(v, done);

    vhca_bringup(v);
    vhca_assert_alive(v);
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 1);
    vhca_stop(v);
}

static void test_reset_system_mid_batch(void)
{
    Vhca *v = vhca_start(NULL);
    g_autofree struct vhca_eqe *ring = NULL;
    QDict *rsp;
    uint32_t done;

    reset_big_eq0(v);
    ring = g_new(struct vhca_eqe, 1u << RESET_LOG);
    vhca_bringup(v);
    reset_fill_cmdq(v, RESET_LOG);
    db_write(v, VHCA_DB_CMDQ_PI, 1u << RESET_LOG);
    rsp = qtest_qmp(v->qts, "{'execute': 'system_reset'}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_qmp_eventwait(v->qts, "RESET");

    done = reset_count_completions(v, ring);
    g_test_message("%u of %u commands completed before system_reset", done,
                   1u << RESET_LOG);
    reset_assert_quiet(v, done);
    vhca_map(v);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 0);
    vhca_bringup(v);
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* Whether the vector fired since the last call (msix_fired() reads it). */
static void reset_expect_msix(Vhca *v, uint64_t word, bool fired)
{
    g_assert_cmpint(msix_fired(v, word), ==, fired);
}

static void test_reset_events_pending(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ring = guest_alloc(&v->alloc, 4096);
    struct vhca_eqe ev[4];
    uint32_t eqn, result[2];
    uint64_t word;

    vhca_bringup(v);
    qpci_msix_enable(v->dev);
    word = msix_route_to_ram(v, 0);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(eqn, 0, 1));
    reset_expect_msix(v, word, false);

    /* Armed: the SM's two ACTIVE events fire vector 0 once, not twice. */
    vhca_arm_eq0(v);
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    reset_expect_msix(v, word, true);
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    reset_expect_msix(v, word, false);
    /* Re-armed with both still pending: once more, then quiet. */
    vhca_arm_eq0(v);
    reset_expect_msix(v, word, true);
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    reset_expect_msix(v, word, false);

    /* Consumed and armed: the link going down fires once more. */
    g_assert_true(vhca_try_eqe(v, &ev[0], 50));
    g_assert_true(vhca_try_eqe(v, &ev[1], 50));
    vhca_arm_eq0(v);
    reset_expect_msix(v, word, false);
    qom_set_link(v, "port1-link", false);
    reset_expect_msix(v, word, true);

    /* Reset with that DOWN event unconsumed, the completion EQ armed. */
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    reset_expect_msix(v, word, false);
    qom_set_link(v, "port1-link", true);
    qtest_memset(v->qts, v->eq0, 0, sizeof(struct vhca_eqe) << v->eq0_log);
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    /* No port DOWN events, no interrupts, old doorbells ignored. */
    g_assert_cmphex(qtest_readb(v->qts, v->eq0 +
                                offsetof(struct vhca_eqe, owner)), ==, 0);
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, 2, 1));
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(eqn, 0, 1));
    reset_expect_msix(v, word, false);

    /* A fresh start: objects forgotten, fresh ACTIVE events. */
    vhca_bringup(v);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, result[0], NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 4), ==, 2);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);
    reset_expect_msix(v, word, false);
    vhca_assert_alive(v);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/reset/mid-batch", test_reset_mid_batch);
    qtest_add_func("/vhca/reset/system-mid-batch",
                   test_reset_system_mid_batch);
    qtest_add_func("/vhca/reset/events-pending", test_reset_events_pending);
    return g_test_run();
}
