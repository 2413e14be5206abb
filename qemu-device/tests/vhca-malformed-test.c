/*
 * QTest testcase for vhca: malformed input.
 *
 * A buggy or malicious driver: every test feeds the device something wrong
 * and checks the error status or FATAL code, that QEMU keeps answering, and
 * that a reset recovers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

static void test_bad_opcode(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;

    vhca_bringup(v);
    cmd_init(v, &cmd, 0x7777);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_OPCODE);
    cmd_init(v, &cmd, 0);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_OPCODE);
    cmd_init(v, &cmd, 0x007f);     /* after the XRC opcodes, unused */
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_OPCODE);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bad_sizes(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;

    vhca_bringup(v);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, VHCA_CMD_MAX_OUT_LEN + 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, sizeof(struct vhca_device_attr) - 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(v, &cmd, 0xffffffff);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd.in.port.port = 1;
    cmd_out(v, &cmd, 8);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    cmd.in_len = cpu_to_le32(VHCA_CMD_MAX_IN_LEN + 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
    cmd.in_addr = cpu_to_le64(v->buf);
    cmd.in_len = cpu_to_le32(0x80000000);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bad_port_index(void)
{
    Vhca *v = vhca_start(NULL);

    vhca_bringup(v);
    g_assert_cmpuint(vhca_query_port(v, 0, NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_port(v, 3, NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_port(v, 255, NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_GID, 1, 16, NULL),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_GID, 3, 0, NULL),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_PKEY, 1, 0xffff,
                                      NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_query_table(v, VHCA_CMD_QUERY_PKEY, 0, 0, NULL),
                     ==, VHCA_CMD_BAD_PARAM);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bad_out_addr(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;

    vhca_bringup(v);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd.out_len = cpu_to_le32(sizeof(struct vhca_device_attr));
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd.out_len = cpu_to_le32(sizeof(struct vhca_device_attr));
    cmd.out_addr = cpu_to_le64(BAD_DMA_ADDR);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd.in.port.port = 1;
    cmd.out_len = cpu_to_le32(sizeof(struct vhca_port_attr));
    cmd.out_addr = cpu_to_le64(0xfffffffffffffff0ull);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    /* Output aimed at the device's own registers is dropped, not obeyed. */
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd.in.port.port = 1;
    cmd.out_len = cpu_to_le32(sizeof(struct vhca_port_attr));
    cmd.out_addr = cpu_to_le64(v->reg.addr);
    vhca_exec(v, &cmd, NULL);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bad_enable_config(void)
{
    Vhca *v = vhca_start(NULL);
    static const struct {
        int64_t cmdq_off;           /* -1: BAD_DMA_ADDR, -2: zero */
        uint32_t cmdq_log;
        int64_t eq0_off;
        uint32_t eq0_log;
        enum vhca_fatal code;
    } cases[] = {
        { -2, CMDQ_LOG, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { 0x80, CMDQ_LOG, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { -1, CMDQ_LOG, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { 0, 0, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { 0, VHCA_MAX_LOG_CMDQ + 1, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { 0, 0xffffffff, 0, EQ0_LOG, VHCA_FATAL_BAD_CMDQ_CONFIG },
        { 0, CMDQ_LOG, -2, EQ0_LOG, VHCA_FATAL_BAD_EQ0_CONFIG },
        { 0, CMDQ_LOG, 8, EQ0_LOG, VHCA_FATAL_BAD_EQ0_CONFIG },
        { 0, CMDQ_LOG, -1, EQ0_LOG, VHCA_FATAL_BAD_EQ0_CONFIG },
        { 0, CMDQ_LOG, 0, 1, VHCA_FATAL_BAD_EQ0_CONFIG },
        { 0, CMDQ_LOG, 0, VHCA_MAX_LOG_EQ + 1, VHCA_FATAL_BAD_EQ0_CONFIG },
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        uint64_t cmdq = cases[i].cmdq_off == -1 ? BAD_DMA_ADDR :
                        cases[i].cmdq_off == -2 ? 0 :
                        v->cmdq + cases[i].cmdq_off;
        uint64_t eq0 = cases[i].eq0_off == -1 ? BAD_DMA_ADDR :
                       cases[i].eq0_off == -2 ? 0 :
                       v->eq0 + cases[i].eq0_off;

        vhca_program(v, cmdq, cases[i].cmdq_log, eq0, cases[i].eq0_log);
        vhca_assert_fatal(v, cases[i].code);
    }
    vhca_stop(v);
}

static void test_bad_cmdq_overrun(void)
{
    Vhca *v = vhca_start(NULL);

    vhca_bringup(v);
    db_write(v, VHCA_DB_CMDQ_PI, (1u << CMDQ_LOG) + 1);
    vhca_assert_fatal(v, VHCA_FATAL_CMDQ_OVERRUN);
    /* A producer index "behind" the consumer is a huge distance too. */
    db_write(v, VHCA_DB_CMDQ_PI, 0xffffffff);
    vhca_assert_fatal(v, VHCA_FATAL_CMDQ_OVERRUN);
    vhca_stop(v);
}

static void test_bad_cmdq_dma(void)
{
    Vhca *v = vhca_start(NULL);
    uint16_t cmdreg;
    struct vhca_cmd cmd;

    vhca_bringup(v);
    /* Bus mastering off: the device cannot read its command queue. */
    cmdreg = qpci_config_readw(v->dev, PCI_COMMAND);
    qpci_config_writew(v->dev, PCI_COMMAND, cmdreg & ~PCI_COMMAND_MASTER);
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    vhca_submit(v, &cmd);
    g_assert_cmphex(vhca_wait_fatal(v) & VHCA_STATUS_FATAL, !=, 0);
    qpci_config_writew(v->dev, PCI_COMMAND, cmdreg);
    vhca_assert_fatal(v, VHCA_FATAL_CMDQ_DMA);
    vhca_stop(v);
}

static void test_bad_eq0_overflow(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    uint32_t i;

    v->eq0_log = VHCA_MIN_LOG_EQ;
    vhca_bringup(v);
    /* The driver never consumes: the fifth completion has no room. */
    for (i = 0; i <= (1u << VHCA_MIN_LOG_EQ); i++) {
        cmd_init(v, &cmd, VHCA_CMD_QUERY_PKEY);
        cmd.in.table.port = 1;
        vhca_submit(v, &cmd);
    }
    vhca_assert_fatal(v, VHCA_FATAL_EQ0_OVERFLOW);
    vhca_stop(v);
}

static void test_bad_doorbells(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_eqe eqe;

    /* Doorbells before ENABLE are ignored. */
    db_write(v, VHCA_DB_CMDQ_PI, 1);
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, 0, 1));
    vhca_bringup(v);
    g_assert_false(vhca_try_eqe(v, &eqe, 100));
    /*
     * EQ doorbells for EQs that do not exist, impossible consumer indexes,
     * unknown offsets, other pages, other sizes.
     */
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(5, 0, 1));
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(127, 0, 1));
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, 0x123456, 1));
    db_write(v, 0x100, 0xffffffff);
    db_write(v, VHCA_DB_PAGE_SIZE + VHCA_DB_CMDQ_PI, 3);
    db_write(v, 15 * VHCA_DB_PAGE_SIZE + VHCA_DB_CMDQ_PI, 3);
    qpci_io_writew(v->dev, v->db, VHCA_DB_CMDQ_PI, 3);
    qpci_io_writeb(v->dev, v->db, VHCA_DB_CMDQ_PI, 3);
    g_assert_false(vhca_try_eqe(v, &eqe, 100));
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bad_then_good_mixture(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    struct vhca_eqe eqe;
    uint32_t i;

    /* A full ring of commands, bad and good interleaved, one doorbell. */
    vhca_bringup(v);
    for (i = 0; i < (1u << CMDQ_LOG); i++) {
        uint64_t slot = v->cmdq + i * sizeof(cmd);

        cmd_init(v, &cmd, i & 1 ? 0xbad : VHCA_CMD_ALLOC_PD);
        cmd.token = cpu_to_le32(i);
        qtest_memwrite(v->qts, slot, &cmd, sizeof(cmd));
    }
    v->cmd_pi = 1u << CMDQ_LOG;
    db_write(v, VHCA_DB_CMDQ_PI, v->cmd_pi);
    for (i = 0; i < (1u << CMDQ_LOG); i++) {
        vhca_next_eqe(v, &eqe);
        g_assert_cmpuint(le32_to_cpu(eqe.data.cmd_done.token), ==, i);
        g_assert_cmpuint(eqe.data.cmd_done.status, ==,
                         i & 1 ? VHCA_CMD_BAD_OPCODE : VHCA_CMD_OK);
    }
    g_assert_cmpuint(rd(v, VHCA_REG_CMDQ_CI), ==, 1u << CMDQ_LOG);
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* MSI-X messages aimed at the device's own registers and doorbells. */
static void test_bad_msix_target(void)
{
    Vhca *v = vhca_start(NULL);

    vhca_bringup(v);
    qpci_msix_enable(v->dev);
    msix_route(v, 0, v->reg.addr + VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    vhca_arm_eq0(v);
    g_assert_cmpuint(vhca_query_port(v, 1, NULL), ==, VHCA_CMD_OK);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    msix_route(v, 0, v->db.addr + VHCA_DB_CMDQ_PI, 0x1000);
    vhca_arm_eq0(v);
    g_assert_cmpuint(vhca_query_port(v, 1, NULL), ==, VHCA_CMD_OK);
    vhca_assert_alive(v);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/bad/opcode", test_bad_opcode);
    qtest_add_func("/vhca/bad/sizes", test_bad_sizes);
    qtest_add_func("/vhca/bad/port-index", test_bad_port_index);
    qtest_add_func("/vhca/bad/out-addr", test_bad_out_addr);
    qtest_add_func("/vhca/bad/enable-config", test_bad_enable_config);
    qtest_add_func("/vhca/bad/cmdq-overrun", test_bad_cmdq_overrun);
    qtest_add_func("/vhca/bad/cmdq-dma", test_bad_cmdq_dma);
    qtest_add_func("/vhca/bad/eq0-overflow", test_bad_eq0_overflow);
    qtest_add_func("/vhca/bad/doorbells", test_bad_doorbells);
    qtest_add_func("/vhca/bad/mixed-ring", test_bad_then_good_mixture);
    qtest_add_func("/vhca/bad/msix-target", test_bad_msix_target);
    return g_test_run();
}
