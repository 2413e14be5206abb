/*
 * QTest testcase for vhca: faults on a cabled port's link, set from QMP
 * (vhca-port-faults.c, Documentation/fabric-tests.md "Faults on demand").
 *
 * Port 2 is cabled to this test (vhca-qtest-cable.h), which asks the
 * port's SMA for NodeInfo by directed route; the GetResp is a data frame
 * and meets the link's faults: lost, corrupted (dropped as a bad ICRC),
 * sent twice, held behind the next answer, or delayed on the virtual
 * clock, each counted in port2-fault-stats.  HELLOs (training) pass.
 * Out-of-range values and faults on a port that is not cabled are refused.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-cable.h"

#define FRAME_MAX   (sizeof(struct vhca_wire_hdr) + 4096)

/* The cable in, the device up, the link trained: port 2 INIT. */
static void faults_start(VhcaCable *c)
{
    uint8_t frame[FRAME_MAX];

    cable_start(c);
    vhca_bringup(c->v);
    cable_wait_hello(c, frame);
}

/* qom-set of a fault property; the QMP error, or NULL. */
static char *faults_set(VhcaCable *c, const char *prop, uint32_t value)
{
    QDict *rsp = qtest_qmp(c->v->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'vhca0', 'property': %s, 'value': %u}}",
                           prop, value);
    char *err = NULL;

    if (qdict_haskey(rsp, "error")) {
        err = g_strdup(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                     "desc"));
    }
    qobject_unref(rsp);
    return err;
}

static void faults_set_ok(VhcaCable *c, const char *prop, uint32_t value)
{
    g_autofree char *err = faults_set(c, prop, value);

    g_assert_null(err);
}

static char *faults_stats(VhcaCable *c)
{
    QDict *rsp = qtest_qmp(c->v->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'vhca0', 'property': "
                           "'port2-fault-stats'}}");
    char *text = g_strdup(qdict_get_str(rsp, "return"));

    qobject_unref(rsp);
    return text;
}

/* The link reports `want` (the device handles the cable asynchronously). */
static void faults_wait_stats(VhcaCable *c, const char *want)
{
    int i;

    for (i = 0; i < 500; i++) {
        g_autofree char *text = faults_stats(c);

        if (strstr(text, want)) {
            return;
        }
        g_usleep(10 * 1000);
    }
    g_assert_cmpstr(faults_stats(c), ==, want);
}

/* A directed-route Get(NodeInfo) that ends at port 2, transaction tid. */
static void faults_ask(VhcaCable *c, uint64_t tid)
{
    cable_send_dr_smp(c, 0x01, 0x0011, tid, NULL);
}

/* The transaction id of the next GetResp out of the port. */
static uint64_t faults_answer(VhcaCable *c)
{
    uint8_t frame[FRAME_MAX];

    cable_expect(c, VHCA_WIRE_DATAGRAM, frame);
    g_assert_cmphex(frame[sizeof(struct vhca_wire_hdr) + 3], ==, 0x81);
    return ldq_be_p(frame + sizeof(struct vhca_wire_hdr) + 8);
}

static void test_faults_loss_and_corruption(void)
{
    VhcaCable c;

    faults_start(&c);
    faults_set_ok(&c, "port2-loss", 100);
    faults_ask(&c, 1);
    faults_wait_stats(&c, "lost 1 ");
    faults_set_ok(&c, "port2-loss", 0);
    faults_set_ok(&c, "port2-corrupt", 100);
    faults_ask(&c, 2);
    faults_wait_stats(&c, "icrc 1 ");
    faults_set_ok(&c, "port2-corrupt", 0);
    /* the first answer out is the third: the other two never left */
    faults_ask(&c, 3);
    g_assert_cmphex(faults_answer(&c), ==, 3);
    cable_stop(&c);
}

static void test_faults_dup_and_reorder(void)
{
    VhcaCable c;

    faults_start(&c);
    faults_set_ok(&c, "port2-dup", 100);
    faults_ask(&c, 1);
    g_assert_cmphex(faults_answer(&c), ==, 1);
    g_assert_cmphex(faults_answer(&c), ==, 1);
    faults_set_ok(&c, "port2-dup", 0);

    faults_set_ok(&c, "port2-reorder", 100);
    faults_ask(&c, 2);
    faults_wait_stats(&c, "reordered 1 ");
    faults_set_ok(&c, "port2-reorder", 0);
    faults_ask(&c, 3);
    g_assert_cmphex(faults_answer(&c), ==, 3);
    g_assert_cmphex(faults_answer(&c), ==, 2);
    faults_wait_stats(&c, "lost 0 dup 1 reordered 1 icrc 0 delayed 0");
    cable_stop(&c);
}

/* Delays run on the virtual clock: the answer leaves once it has passed,
 * after the HELLOs that were due before it (training is not delayed). */
static void test_faults_delay(void)
{
    uint8_t frame[FRAME_MAX];
    struct vhca_wire_hdr *h = (struct vhca_wire_hdr *)frame;
    int hellos = 0;
    VhcaCable c;

    faults_start(&c);
    faults_set_ok(&c, "port2-delay-ms", 1000);
    faults_ask(&c, 7);
    faults_wait_stats(&c, "delayed 1");
    qtest_clock_step(c.v->qts, 1100 * 1000 * 1000LL);
    do {
        cable_recv(&c, frame, sizeof(frame));
        hellos += h->kind == VHCA_WIRE_HELLO;
    } while (h->kind != VHCA_WIRE_DATAGRAM);
    g_assert_cmpint(hellos, >=, 4);     /* one every 200 ms while INIT */
    g_assert_cmphex(ldq_be_p(frame + sizeof(*h) + 8), ==, 7);
    cable_stop(&c);
}

static void test_faults_refused(void)
{
    VhcaCable c;
    char *err;

    faults_start(&c);
    err = faults_set(&c, "port2-loss", 101);
    g_assert_nonnull(strstr(err, "0..100 percent"));
    g_free(err);
    err = faults_set(&c, "port2-delay-ms", 10001);
    g_assert_nonnull(err);
    g_free(err);
    /* port 1 is on the in-process fabric: no link to break */
    err = faults_set(&c, "port1-loss", 5);
    g_assert_nonnull(strstr(err, "not cabled out"));
    g_free(err);
    faults_set_ok(&c, "port1-loss", 0);
    faults_wait_stats(&c, "lost 0 dup 0 reordered 0 icrc 0 delayed 0");
    cable_stop(&c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/link-faults/loss-corruption",
                   test_faults_loss_and_corruption);
    qtest_add_func("/vhca/link-faults/dup-reorder",
                   test_faults_dup_and_reorder);
    qtest_add_func("/vhca/link-faults/delay", test_faults_delay);
    qtest_add_func("/vhca/link-faults/refused", test_faults_refused);
    return g_test_run();
}
