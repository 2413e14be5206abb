/*
 * QTest testcase for vhca: queues and buffers the guest points outside
 * RAM or into the device itself.
 *
 * The command queue, EQ 0, created EQs and command buffers aimed at the
 * device's own BARs (registers, MSI-X table, doorbells), straddling the end
 * of RAM or wrapping the address space: FATAL codes at ENABLE, BAD_ADDR for
 * commands, and a BAR moved onto a live ring stops the device with the DMA
 * FATAL code instead of letting it DMA into itself (Documentation/device-qemu.md
 * "Untrusted guest").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

/* The device's memory BARs, MSI-X table included (enables MSI-X). */
static void rings_bar_addrs(Vhca *v, uint64_t addrs[3])
{
    qpci_msix_enable(v->dev);
    addrs[0] = v->reg.addr;
    addrs[1] = v->db.addr;
    addrs[2] = v->dev->msix_table_bar.addr;
    g_assert_cmphex(addrs[0], !=, 0);
    g_assert_cmphex(addrs[1], !=, 0);
    g_assert_cmphex(addrs[2], !=, 0);
}

static void test_rings_enable_bad_ranges(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ram_end = vhca_ram_end(v);
    uint64_t bars[3];
    size_t i;

    rings_bar_addrs(v, bars);
    for (i = 0; i < ARRAY_SIZE(bars); i++) {
        vhca_program(v, bars[i], CMDQ_LOG, v->eq0, EQ0_LOG);
        vhca_assert_fatal(v, VHCA_FATAL_BAD_CMDQ_CONFIG);
        vhca_program(v, v->cmdq, CMDQ_LOG, bars[i], VHCA_MIN_LOG_EQ);
        vhca_assert_fatal(v, VHCA_FATAL_BAD_EQ0_CONFIG);
    }
    /* Straddling the end of RAM, past it, wrapping 2^64. */
    vhca_program(v, ram_end - 4096, VHCA_MAX_LOG_CMDQ, v->eq0, EQ0_LOG);
    vhca_assert_fatal(v, VHCA_FATAL_BAD_CMDQ_CONFIG);
    vhca_program(v, ram_end, 1, v->eq0, EQ0_LOG);
    vhca_assert_fatal(v, VHCA_FATAL_BAD_CMDQ_CONFIG);
    vhca_program(v, 0xfffffffffffff000ull, VHCA_MAX_LOG_CMDQ, v->eq0,
                 EQ0_LOG);
    vhca_assert_fatal(v, VHCA_FATAL_BAD_CMDQ_CONFIG);
    vhca_program(v, v->cmdq, CMDQ_LOG, ram_end - 4096, VHCA_MAX_LOG_EQ);
    vhca_assert_fatal(v, VHCA_FATAL_BAD_EQ0_CONFIG);
    vhca_program(v, v->cmdq, CMDQ_LOG, 0xfffffffffffff000ull,
                 VHCA_MAX_LOG_EQ);
    vhca_assert_fatal(v, VHCA_FATAL_BAD_EQ0_CONFIG);
    /* Both rings ending exactly at the end of RAM are fine. */
    vhca_program(v, ram_end - 4096, 6, ram_end - 8192, 7);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    vhca_stop(v);
}

static void test_rings_create_eq_own_bars(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t bars[3];
    size_t i;

    rings_bar_addrs(v, bars);
    vhca_bringup(v);
    for (i = 0; i < ARRAY_SIZE(bars); i++) {
        g_assert_cmpuint(vhca_create_eq(v, bars[i], VHCA_MIN_LOG_EQ, 1, NULL),
                         ==, VHCA_CMD_BAD_ADDR);
    }
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* Command output and input aimed at the device's own BARs. */
static void test_rings_buffers_own_bars(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t table_entry0;
    uint64_t bars[3];
    struct vhca_cmd cmd;
    size_t i;

    rings_bar_addrs(v, bars);
    vhca_bringup(v);
    table_entry0 = qtest_readq(v->qts, bars[2] + v->dev->msix_table_off);
    for (i = 0; i < ARRAY_SIZE(bars); i++) {
        /* 256 bytes over CONTROL, CMDQ_PI or the MSI-X table. */
        cmd_init(v, &cmd, VHCA_CMD_QUERY_DEVICE);
        cmd.out_addr = cpu_to_le64(bars[i]);
        cmd.out_len = cpu_to_le32(sizeof(struct vhca_device_attr));
        g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
        /* Ending one byte inside the BAR. */
        cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
        cmd.in.port.port = 1;
        cmd.out_addr = cpu_to_le64(bars[i] - sizeof(struct vhca_port_attr)
                                   + 1);
        cmd.out_len = cpu_to_le32(sizeof(struct vhca_port_attr));
        g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
        cmd_init(v, &cmd, VHCA_CMD_SET_NODE_DESC);
        cmd.in_addr = cpu_to_le64(bars[i]);
        cmd.in_len = cpu_to_le32(sizeof(struct vhca_node_desc));
        g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
        g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    }
    /* The MSI-X table was not written by the device. */
    g_assert_cmphex(qtest_readq(v->qts, bars[2] + v->dev->msix_table_off),
                    ==, table_entry0);
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* Move BAR 0 onto guest RAM at addr (while enabled); returns the old base. */
static uint64_t rings_move_reg_bar(Vhca *v, uint64_t addr)
{
    uint32_t old = qpci_config_readl(v->dev, PCI_BASE_ADDRESS_0);

    g_assert_cmphex(addr & (VHCA_REG_BAR_SIZE - 1), ==, 0);
    g_assert_cmphex(addr >> 32, ==, 0);
    qpci_config_writel(v->dev, PCI_BASE_ADDRESS_0, (uint32_t)addr);
    return old & PCI_BASE_ADDRESS_MEM_MASK;
}

static void rings_restore_reg_bar(Vhca *v, uint64_t old)
{
    qpci_config_writel(v->dev, PCI_BASE_ADDRESS_0, (uint32_t)old);
    g_assert_cmphex(rd(v, VHCA_REG_VERSION) >> 16, ==, VHCA_ABI_MAJOR);
}

/*
 * The guest moves the register BAR onto the live command queue: the next
 * fetch would be the device reading itself, and stops it instead.
 */
static void test_rings_bar_moved_onto_cmdq(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    uint64_t old;

    vhca_bringup(v);
    vhca_assert_alive(v);
    old = rings_move_reg_bar(v, v->cmdq);
    cmd_init(v, &cmd, VHCA_CMD_ALLOC_PD);
    vhca_submit(v, &cmd);
    /*
     * STATUS is out of reach while BAR 0 sits under RAM; the command bottom
     * half runs in the next main loop iteration, before these return.
     */
    qtest_clock_step(v->qts, 1000);
    qtest_clock_step(v->qts, 1000);
    rings_restore_reg_bar(v, old);
    vhca_assert_fatal(v, VHCA_FATAL_CMDQ_DMA);
    vhca_stop(v);
}

/* The same with EQ 0: the completion cannot be posted. */
static void test_rings_bar_moved_onto_eq0(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;
    uint64_t old;

    vhca_bringup(v);
    vhca_assert_alive(v);
    old = rings_move_reg_bar(v, v->eq0);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PKEY);
    cmd.in.table.port = 1;
    vhca_submit(v, &cmd);
    qtest_clock_step(v->qts, 1000);
    qtest_clock_step(v->qts, 1000);
    rings_restore_reg_bar(v, old);
    vhca_assert_fatal(v, VHCA_FATAL_EQ0_DMA);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/rings/enable-bad-ranges",
                   test_rings_enable_bad_ranges);
    qtest_add_func("/vhca/rings/create-eq-own-bars",
                   test_rings_create_eq_own_bars);
    qtest_add_func("/vhca/rings/buffers-own-bars",
                   test_rings_buffers_own_bars);
    qtest_add_func("/vhca/rings/bar-moved-onto-cmdq",
                   test_rings_bar_moved_onto_cmdq);
    qtest_add_func("/vhca/rings/bar-moved-onto-eq0",
                   test_rings_bar_moved_onto_eq0);
    return g_test_run();
}
