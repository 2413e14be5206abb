/*
 * QTest testcase for vhca: registers, identity, reset and the base commands.
 *
 * Drives the device register by register as a driver would (bring-up,
 * commands, EQ 0, MSI-X, ports and the fabric's SM), then as a broken or
 * malicious one would: every malformed input must give an error status or
 * a FATAL status, and QEMU must keep answering; a reset must recover.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

/* ---- registers, identity, reset --------------------------------------- */

static void test_identity(void)
{
    Vhca *v = vhca_start(NULL);
    uint32_t caps;

    g_assert_cmphex(qpci_config_readw(v->dev, PCI_VENDOR_ID), ==,
                    VHCA_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(v->dev, PCI_DEVICE_ID), ==,
                    VHCA_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(v->dev, PCI_CLASS_DEVICE), ==,
                    VHCA_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(v->dev, PCI_REVISION_ID), ==,
                    VHCA_PCI_REVISION);
    g_assert_cmphex(rd(v, VHCA_REG_VERSION), ==,
                    (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR);
    caps = rd(v, VHCA_REG_CAPS);
    g_assert_cmpuint(VHCA_CAPS_NUM_PORTS(caps), ==, 2);
    g_assert_cmpuint(VHCA_CAPS_NUM_VECTORS(caps), ==, 3);
    g_assert_cmpuint(VHCA_CAPS_MAX_LOG_CMDQ(caps), ==, VHCA_MAX_LOG_CMDQ);
    g_assert_cmpuint(VHCA_CAPS_MAX_LOG_EQ(caps), ==, VHCA_MAX_LOG_EQ);
    g_assert_cmpuint(rd(v, VHCA_REG_DB_PAGES), ==, 16);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_CONTROL), ==, 0);
    vhca_stop(v);
}

static void test_access_sizes(void)
{
    Vhca *v = vhca_start(NULL);

    /* Only 32-bit accesses count: others read 0 and write nothing. */
    g_assert_cmphex(qpci_io_readw(v->dev, v->reg, VHCA_REG_VERSION), ==, 0);
    g_assert_cmphex(qpci_io_readb(v->dev, v->reg, VHCA_REG_CAPS), ==, 0);
    g_assert_cmphex(qpci_io_readq(v->dev, v->reg, VHCA_REG_VERSION), ==, 0);
    qpci_io_writew(v->dev, v->reg, VHCA_REG_CMDQ_LOG_SIZE, 5);
    qpci_io_writeb(v->dev, v->reg, VHCA_REG_CONTROL, VHCA_CONTROL_ENABLE);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_LOG_SIZE), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    /* Unknown and read-only registers. */
    g_assert_cmphex(rd(v, 0x800), ==, 0);
    wr(v, VHCA_REG_VERSION, 0xffffffff);
    wr(v, 0x800, 0xffffffff);
    g_assert_cmphex(rd(v, VHCA_REG_VERSION), ==,
                    (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR);
    /* Doorbells read as 0. */
    g_assert_cmphex(qpci_io_readl(v->dev, v->db, VHCA_DB_CMDQ_PI), ==, 0);
    vhca_stop(v);
}

static void test_reset(void)
{
    Vhca *v = vhca_start(NULL);
    QDict *rsp;

    vhca_bringup(v);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_BASE_LO), ==, (uint32_t)v->cmdq);
    g_assert_cmpuint(rd(v, VHCA_REG_EQ0_LOG_SIZE), ==, EQ0_LOG);
    /* Queue registers are frozen while enabled. */
    wr(v, VHCA_REG_CMDQ_LOG_SIZE, 2);
    wr(v, VHCA_REG_EQ0_BASE_LO, 0x5000);
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_LOG_SIZE), ==, CMDQ_LOG);
    g_assert_cmphex(rd(v, VHCA_REG_EQ0_BASE_LO), ==, (uint32_t)v->eq0);
    /* ENABLE twice is ignored. */
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_ENABLE);
    vhca_assert_alive(v);
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 1);

    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_BASE_LO), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_LOG_SIZE), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_EQ0_BASE_LO), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_CI), ==, 0);
    vhca_bringup(v);
    vhca_assert_alive(v);

    /* System reset: same state, BARs have to be mapped again. */
    rsp = qtest_qmp(v->qts, "{'execute': 'system_reset'}");
    qobject_unref(rsp);
    qtest_qmp_eventwait(v->qts, "RESET");
    vhca_map(v);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    g_assert_cmphex(rd(v, VHCA_REG_CMDQ_BASE_LO), ==, 0);
    vhca_bringup(v);
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* ---- commands ---------------------------------------------------------- */

static void test_cmd_roundtrip_msix(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    struct vhca_eqe eqe;
    uint64_t word;

    vhca_bringup(v);
    qpci_msix_enable(v->dev);
    vhca_arm_eq0(v);
    g_assert_false(qpci_msix_pending(v->dev, 0));

    /* Vector 0 is still masked: the interrupt becomes pending. */
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, sizeof(struct vhca_device_attr));
    cmd.token = cpu_to_le32(0xfeedbeef);
    vhca_submit(v, &cmd);
    vhca_next_eqe(v, &eqe);
    g_assert_cmpuint(eqe.type, ==, VHCA_EQE_CMD_DONE);
    g_assert_cmpuint(eqe.owner, ==, 1);
    g_assert_cmphex(le32_to_cpu(eqe.data.cmd_done.token), ==, 0xfeedbeef);
    g_assert_cmpuint(eqe.data.cmd_done.status, ==, VHCA_CMD_OK);
    g_assert_true(qpci_msix_pending(v->dev, 0));
    g_assert_false(qpci_msix_pending(v->dev, 1));
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 1);

    /* Unmasking delivers the pending message. */
    word = msix_route_to_ram(v, 0);
    g_assert_true(msix_fired(v, word));
    g_assert_false(qpci_msix_pending(v->dev, 0));

    /* Not re-armed: the next completion raises nothing... */
    g_assert_cmpuint(vhca_query_port(v, 1, NULL), ==, VHCA_CMD_OK);
    g_assert_false(msix_fired(v, word));
    /* ...arming with nothing pending raises nothing either... */
    vhca_arm_eq0(v);
    g_assert_false(msix_fired(v, word));
    /* ...an event on the armed EQ does, once... */
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    vhca_submit(v, &cmd);
    vhca_wait_eqe_visible(v);
    g_assert_true(msix_fired(v, word));
    /* ...and arming with an unconsumed entry fires at once. */
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, v->eq0_ci, 1));
    g_assert_true(msix_fired(v, word));
    vhca_next_eqe(v, &eqe);
    g_assert_cmpuint(eqe.data.cmd_done.status, ==, VHCA_CMD_OK);
    g_assert_false(msix_fired(v, word));

    /* The owner bit flips on the second pass over EQ 0. */
    while (v->eq0_ci < (1u << EQ0_LOG)) {
        g_assert_cmpuint(vhca_query_port(v, 2, NULL), ==, VHCA_CMD_OK);
    }
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, sizeof(struct vhca_device_attr));
    vhca_submit(v, &cmd);
    vhca_next_eqe(v, &eqe);
    g_assert_cmpuint(eqe.owner, ==, 0);
    g_assert_cmpuint(eqe.type, ==, VHCA_EQE_CMD_DONE);
    vhca_stop(v);
}

static uint64_t eq_stuck_arms(Vhca *v)
{
    QDict *rsp = qtest_qmp(v->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'vhca0', 'property': 'eq-stuck-arms'}}");
    uint64_t n = qdict_get_int(rsp, "return");

    qobject_unref(rsp);
    return n;
}

/*
 * A driver that arms again at the same consumer index, with nothing
 * written since the interrupt the last arm raised, did not see the entry
 * there: the device still interrupts at every such arm (the doorbell's
 * contract) and counts each in eq-stuck-arms, which a correct driver
 * never raises (vhca-eq.c vhca_eq_check_repeat).
 */
static void test_eq_arm_repeat(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    struct vhca_eqe eqe;
    uint64_t word;

    vhca_bringup(v);
    qpci_msix_enable(v->dev);
    word = msix_route_to_ram(v, 0);
    g_assert_cmpuint(eq_stuck_arms(v), ==, 0);

    /*
     * An entry the "driver" leaves unconsumed: the first arm is a race
     * any driver may lose (an event just before it), not a repeat.
     */
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    vhca_submit(v, &cmd);
    vhca_wait_eqe_visible(v);
    vhca_arm_eq0(v);
    g_assert_true(msix_fired(v, word));
    g_assert_cmpuint(eq_stuck_arms(v), ==, 0);
    /* Interrupted and still at the same index: each arm fires, counted. */
    vhca_arm_eq0(v);
    g_assert_true(msix_fired(v, word));
    vhca_arm_eq0(v);
    g_assert_true(msix_fired(v, word));
    g_assert_cmpuint(eq_stuck_arms(v), ==, 2);

    /* A new entry since the last arm: a first arm again, not a repeat. */
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    vhca_submit(v, &cmd);
    vhca_wait_eqes_visible(v, 2);
    vhca_arm_eq0(v);
    g_assert_true(msix_fired(v, word));
    g_assert_cmpuint(eq_stuck_arms(v), ==, 2);

    /* Consuming both and arming with nothing pending raises nothing. */
    vhca_next_eqe(v, &eqe);
    vhca_next_eqe(v, &eqe);
    g_assert_cmpuint(eqe.data.cmd_done.status, ==, VHCA_CMD_OK);
    vhca_arm_eq0(v);
    g_assert_false(msix_fired(v, word));
    g_assert_cmpuint(eq_stuck_arms(v), ==, 2);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_query_device(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_device_attr attr;
    struct vhca_cmd cmd;

    vhca_bringup(v);
    qtest_memset(v->qts, v->buf, 0xaa, 4096);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, 4096);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_OK);
    qtest_memread(v->qts, v->buf, &attr, sizeof(attr));
    g_assert_cmphex(le64_to_cpu(attr.node_guid), ==, NODE_GUID);
    g_assert_cmphex(le64_to_cpu(attr.sys_image_guid), ==, NODE_GUID);
    g_assert_cmphex(le64_to_cpu(attr.fw_version), !=, 0);
    g_assert_cmphex(le32_to_cpu(attr.vendor_part_id), ==, VHCA_PCI_DEVICE_ID);
    g_assert_cmphex(le32_to_cpu(attr.vendor_id), !=, 0);
    g_assert_cmpuint(attr.num_ports, ==, 2);
    g_assert_cmpuint(attr.num_vectors, ==, 3);
    g_assert_cmpuint(attr.max_eq, ==, VHCA_MAX_EQS);
    g_assert_cmpuint(le32_to_cpu(attr.max_pd), ==, 1024);
    /* Data path limits: vhca-dpcmds-test checks them. */
    g_assert_cmpuint(le32_to_cpu(attr.max_ah), ==, 0);
    /* Only sizeof(attr) bytes are written. */
    g_assert_cmphex(qtest_readb(v->qts, v->buf + sizeof(attr)), ==, 0xaa);
    vhca_stop(v);
}

static void test_query_port(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_port_attr attr;
    uint8_t port;

    vhca_bringup(v);
    for (port = 1; port <= 2; port++) {
        g_assert_cmpuint(vhca_query_port(v, port, &attr), ==, VHCA_CMD_OK);
        /* Link up, SM not swept yet (virtual time has not moved). */
        g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
        g_assert_cmpuint(attr.phys_state, ==, VHCA_PHYS_LINK_UP);
        g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);
        g_assert_cmpuint(attr.max_mtu, ==, 5);
        g_assert_cmpuint(attr.active_mtu, ==, 5);
        g_assert_cmpuint(attr.active_width, ==, 2);
        g_assert_cmpuint(attr.active_speed, !=, 0);
        g_assert_cmpuint(le16_to_cpu(attr.gid_tbl_len), ==, VHCA_GID_TABLE_LEN);
        g_assert_cmpuint(le16_to_cpu(attr.pkey_tbl_len), ==,
                         VHCA_PKEY_TABLE_LEN);
        g_assert_cmphex(le32_to_cpu(attr.max_msg_sz), ==, 0x80000000u);
        /* IBA 14.2.5.6 CapabilityMask bit 1 is IsSM: a CA without an SM. */
        g_assert_cmphex(le32_to_cpu(attr.port_cap_flags) & 2, ==, 0);
        g_assert_cmphex(le64_to_cpu(attr.subnet_prefix), ==,
                        VHCA_GID_PREFIX_DEFAULT);
        g_assert_cmphex(le64_to_cpu(attr.port_guid), ==, NODE_GUID + port);
    }
    vhca_stop(v);
}

static void test_query_gid_pkey(void)
{
    Vhca *v = vhca_start(NULL);
    uint8_t expect[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };
    struct vhca_gid gid;
    uint32_t result[2];

    vhca_bringup(v);
    stq_be_p(&expect[8], NODE_GUID + 2);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_GID, 2, 0, NULL), ==,
                     VHCA_CMD_OK);
    qtest_memread(v->qts, v->buf, &gid, sizeof(gid));
    g_assert_cmpmem(gid.raw, 16, expect, 16);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_GID, 1, 15, NULL), ==,
                     VHCA_CMD_OK);
    qtest_memread(v->qts, v->buf, &gid, sizeof(gid));
    memset(expect, 0, sizeof(expect));
    g_assert_cmpmem(gid.raw, 16, expect, 16);

    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_PKEY, 1, 0, result),
                     ==, VHCA_CMD_OK);
    g_assert_cmphex(result[0], ==, VHCA_DEFAULT_PKEY);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_PKEY, 2, 15, result),
                     ==, VHCA_CMD_OK);
    g_assert_cmphex(result[0], ==, 0);
    vhca_stop(v);
}

static void test_node_desc(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_node_desc desc = { .desc = "vhca-test node" };
    struct vhca_cmd cmd;

    vhca_bringup(v);
    qtest_memwrite(v->qts, v->buf, &desc, sizeof(desc));
    cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
    cmd.in_addr = cpu_to_le64(v->buf);
    cmd.in_len = cpu_to_le32(sizeof(desc));
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_OK);

    cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
    cmd.in_addr = cpu_to_le64(v->buf);
    cmd.in_len = cpu_to_le32(10);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
    cmd.in_len = cpu_to_le32(sizeof(desc));
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
    cmd.in_addr = cpu_to_le64(BAD_DMA_ADDR);
    cmd.in_len = cpu_to_le32(sizeof(desc));
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_pd(void)
{
    Vhca *v = vhca_start(NULL);
    uint32_t pd[3], result[2];
    int i;

    vhca_bringup(v);
    for (i = 0; i < 3; i++) {
        g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                         VHCA_CMD_OK);
        pd[i] = result[0];
        g_assert_cmpuint(pd[i], <, 1024);
    }
    g_assert_cmpuint(pd[0], !=, pd[1]);
    g_assert_cmpuint(pd[1], !=, pd[2]);
    g_assert_cmpuint(pd[0], !=, pd[2]);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, pd[1], NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, pd[1], NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, 1024, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, 0xffffffff, NULL),
                     ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, pd[1]);
    /* Reset forgets every PD. */
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    vhca_bringup(v);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, pd[0], NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    vhca_stop(v);
}

static void test_eq(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ring = guest_alloc(&v->alloc, 4096);
    uint32_t eqn, eqn2;

    vhca_bringup(v);
    g_assert_cmpuint(vhca_create_eq(v, ring, 7, 1, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn, >=, 1);
    g_assert_cmpuint(eqn, <, VHCA_MAX_EQS);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 2, &eqn2), ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn2, !=, eqn);
    /* Its doorbell is accepted (arming an empty EQ). */
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(eqn, 0, 1));
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, 0, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, 1000, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn2, NULL), ==,
                     VHCA_CMD_OK);

    /* Malformed CREATE_EQ. */
    g_assert_cmpuint(vhca_create_eq(v, ring, 7, 0, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, ring, 7, 3, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, ring, 1, 1, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, ring, 17, 1, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, ring + 64, 7, 1, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, 0, 7, 1, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, BAD_DMA_ADDR, 7, 1, NULL), ==,
                     VHCA_CMD_BAD_ADDR);
    vhca_assert_alive(v);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/regs/identity", test_identity);
    qtest_add_func("/vhca/regs/access-sizes", test_access_sizes);
    qtest_add_func("/vhca/regs/reset", test_reset);
    qtest_add_func("/vhca/cmd/roundtrip-msix", test_cmd_roundtrip_msix);
    qtest_add_func("/vhca/cmd/eq-arm-repeat", test_eq_arm_repeat);
    qtest_add_func("/vhca/cmd/query-device", test_query_device);
    qtest_add_func("/vhca/cmd/query-port", test_query_port);
    qtest_add_func("/vhca/cmd/query-gid-pkey", test_query_gid_pkey);
    qtest_add_func("/vhca/cmd/set-node-desc", test_node_desc);
    qtest_add_func("/vhca/cmd/pd", test_pd);
    qtest_add_func("/vhca/cmd/eq", test_eq);
    return g_test_run();
}
