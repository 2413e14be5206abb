/*
 * QTest testcase for vhca: ports, the fabric and its subnet manager.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

static void test_port_active(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_eqe ev[8];
    struct vhca_port_attr attr;
    uint16_t lid[3] = { 0 };
    int n, i;

    vhca_bringup(v);
    n = vhca_collect_port_events(v, ev, 8);
    g_assert_cmpint(n, ==, 2);
    for (i = 0; i < n; i++) {
        uint8_t port = ev[i].data.port.port;

        g_assert_cmpuint(ev[i].subtype, ==, VHCA_PORT_EV_ACTIVE);
        g_assert_cmpuint(ev[i].data.port.state, ==, VHCA_PORT_ACTIVE);
        g_assert(port == 1 || port == 2);
        lid[port] = le16_to_cpu(ev[i].data.port.lid);
    }
    g_assert_cmpuint(lid[1], >=, 2);
    g_assert_cmpuint(lid[2], >=, 2);
    g_assert_cmpuint(lid[1], !=, lid[2]);
    for (i = 1; i <= 2; i++) {
        g_assert_cmpuint(vhca_query_port(v, i, &attr), ==, VHCA_CMD_OK);
        g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
        g_assert_cmpuint(attr.phys_state, ==, VHCA_PHYS_LINK_UP);
        g_assert_cmpuint(le16_to_cpu(attr.lid), ==, lid[i]);
        g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, 1);
    }
    vhca_stop(v);
}

static void test_port_lid_stable(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_eqe ev[8];
    uint16_t before, after;

    vhca_bringup(v);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 2);
    before = le16_to_cpu(ev[0].data.port.lid);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    vhca_bringup(v);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 2);
    after = le16_to_cpu(ev[0].data.port.lid);
    g_assert_cmpuint(ev[0].data.port.port, ==, 1);
    g_assert_cmpuint(before, ==, after);
    vhca_stop(v);
}

static void test_port_link(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];
    uint16_t lid;
    QDict *rsp;

    vhca_bringup(v);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 2);
    g_assert_cmpuint(vhca_query_port(v, 2, &attr), ==, VHCA_CMD_OK);
    lid = le16_to_cpu(attr.lid);

    qom_set_link(v, "port2-link", false);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_DOWN);
    g_assert_cmpuint(ev[0].data.port.port, ==, 2);
    g_assert_cmpuint(ev[0].data.port.state, ==, VHCA_PORT_DOWN);
    g_assert_cmpuint(vhca_query_port(v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_DOWN);
    g_assert_cmpuint(attr.phys_state, ==, VHCA_PHYS_DISABLED);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);
    g_assert_cmpuint(vhca_query_port(v, 1, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    rsp = qtest_qmp(v->qts, "{'execute': 'qom-get', 'arguments': "
                    "{'path': 'vhca0', 'property': 'port2-link'}}");
    g_assert_false(qdict_get_bool(rsp, "return"));
    qobject_unref(rsp);

    /* Down twice: no second event. */
    qom_set_link(v, "port2-link", false);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 0);

    qom_set_link(v, "port2-link", true);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);
    g_assert_cmpuint(ev[0].data.port.port, ==, 2);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), ==, lid);
    g_assert_cmpuint(vhca_query_port(v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    vhca_stop(v);
}

/* A link taken down before ENABLE stays down, silently, until it is up. */
static void test_port_link_before_enable(void)
{
    Vhca *v = vhca_start(",port1-link=false");
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];

    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 0);
    vhca_bringup(v);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 1);
    g_assert_cmpuint(ev[0].data.port.port, ==, 2);
    g_assert_cmpuint(vhca_query_port(v, 1, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_DOWN);
    g_assert_cmpuint(attr.phys_state, ==, VHCA_PHYS_DISABLED);

    qom_set_link(v, "port1-link", true);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);
    g_assert_cmpuint(ev[0].data.port.port, ==, 1);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), >=, 2);
    vhca_stop(v);
}

/*
 * Two devices on fabric "default" share one switch and SM: three ports,
 * three distinct LIDs.  A device on another fabric has its own LID space.
 */
static void test_fabric_shared_switch(void)
{
    Vhca *v = vhca_start(" -device vhca,id=vhca1,addr=05.0,ports=1"
                         " -device vhca,id=vhca2,addr=06.0,fabric=other");
    Vhca *w = vhca_sibling(v, QPCI_DEVFN(5, 0));
    Vhca *x = vhca_sibling(v, QPCI_DEVFN(6, 0));
    struct vhca_eqe ev[8], evw[8], evx[8];
    uint16_t lid0, lid1, lid2;

    vhca_bringup(v);
    vhca_bringup(w);
    vhca_bringup(x);
    g_assert_cmpint(vhca_collect_port_events(v, ev, 8), ==, 2);
    g_assert_cmpint(vhca_collect_port_events(w, evw, 8), ==, 1);
    g_assert_cmpint(vhca_collect_port_events(x, evx, 8), ==, 1);
    lid0 = le16_to_cpu(ev[0].data.port.lid);
    lid1 = le16_to_cpu(ev[1].data.port.lid);
    lid2 = le16_to_cpu(evw[0].data.port.lid);
    g_assert_cmpuint(lid0, >=, 2);
    g_assert_cmpuint(lid1, >=, 2);
    g_assert_cmpuint(lid2, >=, 2);
    g_assert_cmpuint(lid0, !=, lid1);
    g_assert_cmpuint(lid0, !=, lid2);
    g_assert_cmpuint(lid1, !=, lid2);
    /* The other fabric's SM starts at LID 2 as well. */
    g_assert_cmpuint(le16_to_cpu(evx[0].data.port.lid), ==, 2);
    vhca_sibling_free(w);
    vhca_sibling_free(x);
    vhca_stop(v);
}

static void test_fabric_two_devices(void)
{
    QTestState *qts = qtest_init("-machine q35 -nodefaults "
                                 "-device vhca,id=a,ports=2,fabric=f1 "
                                 "-device vhca,id=b,ports=1,fabric=f1 "
                                 "-device pcie-root-port,id=rp1,chassis=1 "
                                 "-device pcie-root-port,id=rp2,chassis=2 "
                                 "-device pcie-root-port,id=rp3,chassis=3");
    const uint64_t guid_twice = NODE_GUID + 0x500;
    const uint64_t guid_hotplug = NODE_GUID + 0x900;
    QDict *rsp;

    /* Same GUID twice on one fabric is refused. */
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'node-guid': %" PRIu64 ", "
                    "'fabric': 'f2', 'bus': 'rp1'}}", guid_twice);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'node-guid': %" PRIu64 ", "
                    "'fabric': 'f2', 'bus': 'rp2'}}", guid_twice);
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    /* Hot-unplug (completed by a reset, there is no guest) frees the GUID. */
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'id': 'hp', 'node-guid': %" PRIu64 ", "
                    "'fabric': 'f1', 'bus': 'rp2'}}", guid_hotplug);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_qmp_device_del_send(qts, "hp");
    rsp = qtest_qmp(qts, "{'execute': 'system_reset'}");
    qobject_unref(rsp);
    for (;;) {
        QDict *data;

        rsp = qtest_qmp_eventwait_ref(qts, "DEVICE_DELETED");
        data = qdict_get_qdict(rsp, "data");
        if (data && qdict_haskey(data, "device") &&
            !strcmp(qdict_get_str(data, "device"), "hp")) {
            qobject_unref(rsp);
            break;
        }
        qobject_unref(rsp);
    }
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'id': 'hp2', 'node-guid': %" PRIu64 ", "
                    "'fabric': 'f1', 'bus': 'rp2'}}", guid_hotplug);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);

    /* Bad property values are refused. */
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'ports': 3, 'bus': 'rp3'}}");
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'vhca', 'comp-vectors': 0, "
                    "'bus': 'rp3'}}");
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': "
                    "{'path': 'b', 'property': 'port2-link', 'value': false}}");
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/*
 * A device unplugged leaves the QOM tree at once, but is finalized only
 * after an RCU grace period (the old memory map holds references to its
 * regions), and its device-memory BAR's RAMBlock keeps its migration name
 * "<PCI path>/vhca-dm" until then.  A device_add into the same slot in
 * that window aborted QEMU ("RAMBlock ... already registered") until
 * unrealize unregistered the name, as the PCI core does for a ROM: seen
 * in check-ulp-full, whose harness adds the device again as soon as QOM
 * no longer lists it.  So does this test.
 */
static void test_hotplug_same_slot_at_once(void)
{
    QTestState *qts = qtest_init("-machine q35 -nodefaults "
                                 "-device pcie-root-port,id=rp1,chassis=1");
    QDict *rsp;
    int i;

    for (i = 0; i < 3; i++) {
        rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                        "{'driver': 'vhca', 'id': 'hp', 'bus': 'rp1', "
                        "'node-guid': %" PRIu64 "}}",
                        (uint64_t)(NODE_GUID + 0xa00));
        g_assert(qdict_haskey(rsp, "return"));
        qobject_unref(rsp);
        qtest_qmp_device_del_send(qts, "hp");
        rsp = qtest_qmp(qts, "{'execute': 'system_reset'}");
        qobject_unref(rsp);
        while (vhca_peripheral_has(qts, "hp")) {
            g_usleep(1000);
        }
    }
    rsp = qtest_qmp(qts, "{'execute': 'query-status'}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/port/active", test_port_active);
    qtest_add_func("/vhca/port/lid-stable", test_port_lid_stable);
    qtest_add_func("/vhca/port/link-down-up", test_port_link);
    qtest_add_func("/vhca/port/link-before-enable",
                   test_port_link_before_enable);
    qtest_add_func("/vhca/fabric/shared-switch", test_fabric_shared_switch);
    qtest_add_func("/vhca/fabric/properties", test_fabric_two_devices);
    qtest_add_func("/vhca/port/hotplug-same-slot-at-once",
                   test_hotplug_same_slot_at_once);
    return g_test_run();
}
