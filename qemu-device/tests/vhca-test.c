/*
 * QTest testcase for the vhca virtual InfiniBand HCA.
 *
 * Drives the device register by register as a driver would (bring-up,
 * commands, EQ 0, MSI-X, ports and the fabric's SM), then as a broken or
 * malicious one would: every malformed input must give an error status or
 * a FATAL status, and QEMU must keep answering; a reset must recover.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/misc/vhca/vhca_hw.h"

#define VHCA_DEVFN          QPCI_DEVFN(4, 0)
#define NODE_GUID           0x0002c90300001230ull
#define CMDQ_LOG            4
#define EQ0_LOG             6
/* An address no RAM or device decodes. */
#define BAD_DMA_ADDR        0x100000000000ull
/* Virtual time after which the SM has certainly swept (10 ms delay). */
#define SM_SETTLE_NS        (100 * 1000 * 1000)
#define POLL_LIMIT          100000

typedef struct Vhca {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar reg;
    QPCIBar db;
    uint64_t cmdq;
    uint64_t eq0;
    uint64_t buf;           /* 4 KiB scratch for command inputs/outputs */
    uint32_t cmdq_log;
    uint32_t eq0_log;
    uint32_t cmd_pi;
    uint32_t eq0_ci;
    uint32_t next_token;
} Vhca;

/* ---- plumbing -------------------------------------------------------- */

static void vhca_map(Vhca *v)
{
    qpci_device_enable(v->dev);
    v->reg = qpci_iomap(v->dev, VHCA_REG_BAR, NULL);
    v->db = qpci_iomap(v->dev, VHCA_DB_BAR, NULL);
}

static Vhca *vhca_start(const char *extra)
{
    Vhca *v = g_new0(Vhca, 1);

    v->qts = qtest_initf("-machine q35 -nodefaults "
                         "-device vhca,id=vhca0,addr=04.0,ports=2,"
                         "comp-vectors=2,node-guid=0x%" PRIx64 "%s",
                         (uint64_t)NODE_GUID, extra ? extra : "");
    pc_alloc_init(&v->alloc, v->qts, 0);
    v->bus = qpci_new_pc(v->qts, &v->alloc);
    v->dev = qpci_device_find(v->bus, VHCA_DEVFN);
    g_assert(v->dev);
    vhca_map(v);
    v->cmdq_log = CMDQ_LOG;
    v->eq0_log = EQ0_LOG;
    v->cmdq = guest_alloc(&v->alloc,
                          sizeof(struct vhca_cmd) << VHCA_MAX_LOG_CMDQ);
    v->eq0 = guest_alloc(&v->alloc, sizeof(struct vhca_eqe) << EQ0_LOG);
    v->buf = guest_alloc(&v->alloc, 4096);
    v->next_token = 0x1000;
    return v;
}

/* A second vhca in the same QEMU, sharing v's bus and guest allocator. */
static Vhca *vhca_sibling(Vhca *v, int devfn)
{
    Vhca *w = g_new0(Vhca, 1);

    w->qts = v->qts;
    w->bus = v->bus;
    w->dev = qpci_device_find(v->bus, devfn);
    g_assert(w->dev);
    vhca_map(w);
    w->cmdq_log = CMDQ_LOG;
    w->eq0_log = EQ0_LOG;
    w->cmdq = guest_alloc(&v->alloc, sizeof(struct vhca_cmd) << CMDQ_LOG);
    w->eq0 = guest_alloc(&v->alloc, sizeof(struct vhca_eqe) << EQ0_LOG);
    w->buf = guest_alloc(&v->alloc, 4096);
    w->next_token = 0x2000;
    return w;
}

static void vhca_sibling_free(Vhca *w)
{
    g_free(w->dev);
    g_free(w);
}

static void vhca_stop(Vhca *v)
{
    g_free(v->dev);
    qpci_free_pc(v->bus);
    alloc_destroy(&v->alloc);
    qtest_quit(v->qts);
    g_free(v);
}

static uint32_t rd(Vhca *v, uint32_t reg)
{
    return qpci_io_readl(v->dev, v->reg, reg);
}

static void wr(Vhca *v, uint32_t reg, uint32_t val)
{
    qpci_io_writel(v->dev, v->reg, reg, val);
}

static void db_write(Vhca *v, uint32_t offset, uint32_t val)
{
    qpci_io_writel(v->dev, v->db, offset, val);
}

static void vhca_program(Vhca *v, uint64_t cmdq, uint32_t cmdq_log,
                         uint64_t eq0, uint32_t eq0_log)
{
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    wr(v, VHCA_REG_CMDQ_BASE_LO, (uint32_t)cmdq);
    wr(v, VHCA_REG_CMDQ_BASE_HI, cmdq >> 32);
    wr(v, VHCA_REG_CMDQ_LOG_SIZE, cmdq_log);
    wr(v, VHCA_REG_EQ0_BASE_LO, (uint32_t)eq0);
    wr(v, VHCA_REG_EQ0_BASE_HI, eq0 >> 32);
    wr(v, VHCA_REG_EQ0_LOG_SIZE, eq0_log);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_ENABLE);
}

/* Reset, zero the rings, program the queues and enable: a driver's probe. */
static void vhca_bringup(Vhca *v)
{
    qtest_memset(v->qts, v->cmdq, 0, sizeof(struct vhca_cmd) << v->cmdq_log);
    qtest_memset(v->qts, v->eq0, 0, sizeof(struct vhca_eqe) << v->eq0_log);
    v->cmd_pi = 0;
    v->eq0_ci = 0;
    vhca_program(v, v->cmdq, v->cmdq_log, v->eq0, v->eq0_log);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
}

static void vhca_arm_eq0(Vhca *v)
{
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, v->eq0_ci, 1));
}

static void vhca_submit(Vhca *v, struct vhca_cmd *cmd)
{
    uint32_t index = v->cmd_pi & ((1u << v->cmdq_log) - 1);
    uint64_t slot = v->cmdq + (uint64_t)index * sizeof(*cmd);

    qtest_memwrite(v->qts, slot, cmd, sizeof(*cmd));
    v->cmd_pi++;
    db_write(v, VHCA_DB_CMDQ_PI, v->cmd_pi);
}

/* Next EQE on EQ 0, waiting for it; false if none comes. */
static bool vhca_try_eqe(Vhca *v, struct vhca_eqe *eqe, int polls)
{
    uint64_t slot = v->eq0 + (uint64_t)(v->eq0_ci & ((1u << v->eq0_log) - 1)) *
                    sizeof(*eqe);
    uint8_t want = vhca_eqe_owner(v->eq0_ci, v->eq0_log);
    int i;

    for (i = 0; i < polls; i++) {
        qtest_memread(v->qts, slot, eqe, sizeof(*eqe));
        if ((eqe->owner & VHCA_EQE_OWNER_BIT) == want) {
            v->eq0_ci++;
            db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, v->eq0_ci, 0));
            return true;
        }
    }
    return false;
}

static void vhca_next_eqe(Vhca *v, struct vhca_eqe *eqe)
{
    g_assert(vhca_try_eqe(v, eqe, POLL_LIMIT));
}

static void cmd_init(Vhca *v, struct vhca_cmd *cmd, uint16_t opcode)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = cpu_to_le16(opcode);
    cmd->token = cpu_to_le32(v->next_token++);
}

static void cmd_out(Vhca *v, struct vhca_cmd *cmd, uint32_t len)
{
    cmd->out_addr = cpu_to_le64(v->buf);
    cmd->out_len = cpu_to_le32(len);
}

/* Submit a command and wait for its completion; returns the status. */
static uint8_t vhca_exec(Vhca *v, struct vhca_cmd *cmd, uint32_t result[2])
{
    struct vhca_eqe eqe;

    vhca_submit(v, cmd);
    vhca_next_eqe(v, &eqe);
    g_assert_cmpuint(eqe.type, ==, VHCA_EQE_CMD_DONE);
    g_assert_cmphex(le32_to_cpu(eqe.data.cmd_done.token), ==,
                    le32_to_cpu(cmd->token));
    if (result) {
        result[0] = le32_to_cpu(eqe.data.cmd_done.result[0]);
        result[1] = le32_to_cpu(eqe.data.cmd_done.result[1]);
    }
    return eqe.data.cmd_done.status;
}

static uint8_t vhca_simple(Vhca *v, uint16_t opcode, uint32_t handle,
                           uint32_t result[2])
{
    struct vhca_cmd cmd;

    cmd_init(v, &cmd, opcode);
    cmd.in.handle.handle = cpu_to_le32(handle);
    return vhca_exec(v, &cmd, result);
}

static uint8_t vhca_query_port(Vhca *v, uint8_t port,
                               struct vhca_port_attr *attr)
{
    struct vhca_cmd cmd;
    uint8_t status;

    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd_out(v, &cmd, sizeof(*attr));
    cmd.in.port.port = port;
    status = vhca_exec(v, &cmd, NULL);
    if (attr) {
        qtest_memread(v->qts, v->buf, attr, sizeof(*attr));
    }
    return status;
}

static uint8_t vhca_query_table(Vhca *v, uint16_t opcode, uint8_t port,
                                uint16_t index, uint32_t result[2])
{
    struct vhca_cmd cmd;

    cmd_init(v, &cmd, opcode);
    cmd_out(v, &cmd, sizeof(struct vhca_gid));
    cmd.in.table.port = port;
    cmd.in.table.index = cpu_to_le16(index);
    return vhca_exec(v, &cmd, result);
}

static uint8_t vhca_create_eq(Vhca *v, uint64_t base, uint8_t log_size,
                              uint16_t vector, uint32_t *eqn)
{
    struct vhca_cmd cmd;
    uint32_t result[2];
    uint8_t status;

    cmd_init(v, &cmd, VHCA_CMD_CREATE_EQ);
    cmd.in.create_eq.base = cpu_to_le64(base);
    cmd.in.create_eq.log_size = log_size;
    cmd.in.create_eq.vector = cpu_to_le16(vector);
    status = vhca_exec(v, &cmd, result);
    if (eqn) {
        *eqn = result[0];
    }
    return status;
}

/* The device must still execute commands. */
static void vhca_assert_alive(Vhca *v)
{
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    g_assert_cmpuint(vhca_query_port(v, 1, NULL), ==, VHCA_CMD_OK);
}

/* The command bottom half runs asynchronously: poll for its verdict. */
static uint32_t vhca_wait_fatal(Vhca *v)
{
    uint32_t status = 0;
    int i;

    for (i = 0; i < POLL_LIMIT; i++) {
        status = rd(v, VHCA_REG_STATUS);
        if (status & VHCA_STATUS_FATAL) {
            break;
        }
    }
    return status;
}

static void vhca_assert_fatal(Vhca *v, enum vhca_fatal code)
{
    uint32_t status = vhca_wait_fatal(v);

    g_assert_cmphex(status & (VHCA_STATUS_FATAL | VHCA_STATUS_ENABLED), ==,
                    VHCA_STATUS_FATAL);
    g_assert_cmpuint(VHCA_STATUS_FATAL_CODE(status), ==, code);
    /* QEMU still answers, and a reset and bring-up recovers. */
    g_assert_cmphex(rd(v, VHCA_REG_VERSION) >> 16, ==, VHCA_ABI_MAJOR);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, 0);
    vhca_bringup(v);
    vhca_assert_alive(v);
}

static void qom_set_link(Vhca *v, const char *prop, bool up)
{
    QDict *rsp = qtest_qmp(v->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'vhca0', 'property': %s, 'value': %i}}",
                           prop, up);

    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

/* Let the SM sweep, collect the port events. */
static int vhca_collect_port_events(Vhca *v, struct vhca_eqe *events, int max)
{
    int n = 0;

    qtest_clock_step(v->qts, SM_SETTLE_NS);
    while (n < max && vhca_try_eqe(v, &events[n], 50)) {
        g_assert_cmpuint(events[n].type, ==, VHCA_EQE_PORT_EVENT);
        n++;
    }
    return n;
}

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

/* Point an MSI-X vector's message at addr and unmask it. */
static void msix_route(Vhca *v, uint16_t vector, uint64_t addr, uint32_t data)
{
    uint64_t entry = v->dev->msix_table_off + vector * PCI_MSIX_ENTRY_SIZE;
    QPCIBar table = v->dev->msix_table_bar;

    qpci_io_writel(v->dev, table, entry + PCI_MSIX_ENTRY_LOWER_ADDR,
                   (uint32_t)addr);
    qpci_io_writel(v->dev, table, entry + PCI_MSIX_ENTRY_UPPER_ADDR,
                   addr >> 32);
    qpci_io_writel(v->dev, table, entry + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(v->dev, table, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

/* Route an MSI-X vector to a word of guest RAM. */
static uint64_t msix_route_to_ram(Vhca *v, uint16_t vector)
{
    uint64_t word = guest_alloc(&v->alloc, 4096);

    qtest_writel(v->qts, word, 0);
    msix_route(v, vector, word, 0xcafe0000 | vector);
    return word;
}

/* Whether the vector fired since the last call. */
static bool msix_fired(Vhca *v, uint64_t word)
{
    uint32_t val = qtest_readl(v->qts, word);

    qtest_writel(v->qts, word, 0);
    return val != 0;
}

/* Wait until the next EQ 0 entry is visible, without consuming it. */
static void vhca_wait_eqe_visible(Vhca *v)
{
    uint64_t slot = v->eq0 + (uint64_t)(v->eq0_ci & ((1u << v->eq0_log) - 1)) *
                    sizeof(struct vhca_eqe);
    uint8_t want = vhca_eqe_owner(v->eq0_ci, v->eq0_log);
    uint64_t owner_addr = slot + offsetof(struct vhca_eqe, owner);
    int i;

    for (i = 0; i < POLL_LIMIT; i++) {
        if ((qtest_readb(v->qts, owner_addr) & VHCA_EQE_OWNER_BIT) == want) {
            return;
        }
    }
    g_assert_not_reached();
}

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
    /* Data path limits: vhca-test-dpcmds.c.inc checks them. */
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

#include "vhca-test-ports.c.inc"
#include "vhca-test-malformed.c.inc"
#include "vhca-test-datapath.c.inc"
#include "vhca-test-sma.c.inc"
#include "vhca-test-sa.c.inc"
#include "vhca-test-bounds.c.inc"
#include "vhca-test-rings.c.inc"
#include "vhca-test-reset.c.inc"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/vhca/regs/identity", test_identity);
    qtest_add_func("/vhca/regs/access-sizes", test_access_sizes);
    qtest_add_func("/vhca/regs/reset", test_reset);
    qtest_add_func("/vhca/cmd/roundtrip-msix", test_cmd_roundtrip_msix);
    qtest_add_func("/vhca/cmd/query-device", test_query_device);
    qtest_add_func("/vhca/cmd/query-port", test_query_port);
    qtest_add_func("/vhca/cmd/query-gid-pkey", test_query_gid_pkey);
    qtest_add_func("/vhca/cmd/set-node-desc", test_node_desc);
    qtest_add_func("/vhca/cmd/pd", test_pd);
    qtest_add_func("/vhca/cmd/eq", test_eq);
    qtest_add_func("/vhca/port/active", test_port_active);
    qtest_add_func("/vhca/port/lid-stable", test_port_lid_stable);
    qtest_add_func("/vhca/port/link-down-up", test_port_link);
    qtest_add_func("/vhca/port/link-before-enable",
                   test_port_link_before_enable);
    qtest_add_func("/vhca/fabric/shared-switch", test_fabric_shared_switch);
    qtest_add_func("/vhca/fabric/properties", test_fabric_two_devices);
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
    vhca_datapath_tests_add();
    vhca_sma_tests_add();
    vhca_sa_tests_add();
    qtest_add_func("/vhca/bounds/lengths", test_bounds_lengths);
    qtest_add_func("/vhca/bounds/order", test_bounds_order);
    qtest_add_func("/vhca/bounds/ports-tables", test_bounds_ports_tables);
    qtest_add_func("/vhca/bounds/handles", test_bounds_handles);
    qtest_add_func("/vhca/bounds/create-eq", test_bounds_create_eq);
    qtest_add_func("/vhca/bounds/eq-table-full", test_bounds_eq_table_full);
    qtest_add_func("/vhca/bounds/pd-exhaustion", test_bounds_pd_exhaustion);
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
    qtest_add_func("/vhca/reset/mid-batch", test_reset_mid_batch);
    qtest_add_func("/vhca/reset/system-mid-batch",
                   test_reset_system_mid_batch);
    qtest_add_func("/vhca/reset/events-pending", test_reset_events_pending);

    return g_test_run();
}
