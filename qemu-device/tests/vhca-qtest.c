/*
 * vhca qtest library (vhca-qtest.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"
#include "vhca-mad.h"

/* ---- plumbing -------------------------------------------------------- */

void vhca_map(Vhca *v)
{
    qpci_device_enable(v->dev);
    v->reg = qpci_iomap(v->dev, VHCA_REG_BAR, NULL);
    v->db = qpci_iomap(v->dev, VHCA_DB_BAR, NULL);
}

/* vhca0 (and extra) started, its BARs not mapped yet: see vhca_start. */
Vhca *vhca_start_unmapped(const char *extra)
{
    Vhca *v = g_new0(Vhca, 1);
    /* VHCA_QTEST_DEVICE: properties every test's device gets, e.g.
     * ",sq-poll=on" (Documentation/testing.md: check-qtest with SQ polling). */
    const char *all = g_getenv("VHCA_QTEST_DEVICE");

    v->qts = qtest_initf("-machine q35 -nodefaults "
                         "-device vhca,id=vhca0,addr=04.0,ports=2,"
                         "comp-vectors=2,node-guid=0x%" PRIx64 "%s%s",
                         (uint64_t)NODE_GUID, all ? all : "",
                         extra ? extra : "");
    pc_alloc_init(&v->alloc, v->qts, 0);
    v->bus = qpci_new_pc(v->qts, &v->alloc);
    v->dev = qpci_device_find(v->bus, VHCA_DEVFN);
    g_assert(v->dev);
    v->cmdq_log = CMDQ_LOG;
    v->eq0_log = EQ0_LOG;
    v->cmdq = guest_alloc(&v->alloc,
                          sizeof(struct vhca_cmd) << VHCA_MAX_LOG_CMDQ);
    v->eq0 = guest_alloc(&v->alloc, sizeof(struct vhca_eqe) << EQ0_LOG);
    v->buf = guest_alloc(&v->alloc, 4096);
    v->next_token = 0x1000;
    return v;
}

Vhca *vhca_start(const char *extra)
{
    Vhca *v = vhca_start_unmapped(extra);

    vhca_map(v);
    return v;
}

/* A second vhca in the same QEMU, sharing v's bus and guest allocator. */
Vhca *vhca_sibling(Vhca *v, int devfn)
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

void vhca_sibling_free(Vhca *w)
{
    g_free(w->dev);
    g_free(w);
}

void vhca_stop(Vhca *v)
{
    g_free(v->dev);
    qpci_free_pc(v->bus);
    alloc_destroy(&v->alloc);
    qtest_quit(v->qts);
    g_free(v);
}

uint32_t rd(Vhca *v, uint32_t reg)
{
    return qpci_io_readl(v->dev, v->reg, reg);
}

void wr(Vhca *v, uint32_t reg, uint32_t val)
{
    qpci_io_writel(v->dev, v->reg, reg, val);
}

void db_write(Vhca *v, uint32_t offset, uint32_t val)
{
    qpci_io_writel(v->dev, v->db, offset, val);
}

void vhca_program(Vhca *v, uint64_t cmdq, uint32_t cmdq_log,
                  uint64_t eq0, uint32_t eq0_log)
{
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    v->n_early_port_events = 0;     /* the reset ends the port's life */
    wr(v, VHCA_REG_CMDQ_BASE_LO, (uint32_t)cmdq);
    wr(v, VHCA_REG_CMDQ_BASE_HI, cmdq >> 32);
    wr(v, VHCA_REG_CMDQ_LOG_SIZE, cmdq_log);
    wr(v, VHCA_REG_EQ0_BASE_LO, (uint32_t)eq0);
    wr(v, VHCA_REG_EQ0_BASE_HI, eq0 >> 32);
    wr(v, VHCA_REG_EQ0_LOG_SIZE, eq0_log);
    wr(v, VHCA_REG_CONTROL, VHCA_CONTROL_ENABLE);
}

/* Reset, zero the rings, program the queues and enable: a driver's probe. */
void vhca_bringup(Vhca *v)
{
    qtest_memset(v->qts, v->cmdq, 0, sizeof(struct vhca_cmd) << v->cmdq_log);
    qtest_memset(v->qts, v->eq0, 0, sizeof(struct vhca_eqe) << v->eq0_log);
    v->cmd_pi = 0;
    v->eq0_ci = 0;
    vhca_program(v, v->cmdq, v->cmdq_log, v->eq0, v->eq0_log);
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
}

void vhca_arm_eq0(Vhca *v)
{
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(0, v->eq0_ci, 1));
}

void vhca_submit(Vhca *v, struct vhca_cmd *cmd)
{
    uint32_t index = v->cmd_pi & ((1u << v->cmdq_log) - 1);
    uint64_t slot = v->cmdq + (uint64_t)index * sizeof(*cmd);

    qtest_memwrite(v->qts, slot, cmd, sizeof(*cmd));
    v->cmd_pi++;
    db_write(v, VHCA_DB_CMDQ_PI, v->cmd_pi);
}

/* Next EQE on EQ 0, waiting for it; false if none comes. */
bool vhca_try_eqe(Vhca *v, struct vhca_eqe *eqe, int polls)
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

void vhca_next_eqe(Vhca *v, struct vhca_eqe *eqe)
{
    g_assert(vhca_try_eqe(v, eqe, POLL_LIMIT));
}

void cmd_init(Vhca *v, struct vhca_cmd *cmd, uint16_t opcode)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = cpu_to_le16(opcode);
    cmd->token = cpu_to_le32(v->next_token++);
}

void cmd_out(Vhca *v, struct vhca_cmd *cmd, uint32_t len)
{
    cmd->out_addr = cpu_to_le64(v->buf);
    cmd->out_len = cpu_to_le32(len);
}

/* Submit a command and wait for its completion; returns the status. */
uint8_t vhca_exec(Vhca *v, struct vhca_cmd *cmd, uint32_t result[2])
{
    struct vhca_eqe eqe;

    vhca_submit(v, cmd);
    for (vhca_next_eqe(v, &eqe); eqe.type != VHCA_EQE_CMD_DONE;
         vhca_next_eqe(v, &eqe)) {
        g_assert_cmpuint(eqe.type, ==, VHCA_EQE_PORT_EVENT);
        g_assert_cmpint(v->n_early_port_events, <,
                        ARRAY_SIZE(v->early_port_events));
        v->early_port_events[v->n_early_port_events++] = eqe;
    }
    g_assert_cmphex(le32_to_cpu(eqe.data.cmd_done.token), ==,
                    le32_to_cpu(cmd->token));
    if (result) {
        result[0] = le32_to_cpu(eqe.data.cmd_done.result[0]);
        result[1] = le32_to_cpu(eqe.data.cmd_done.result[1]);
    }
    return eqe.data.cmd_done.status;
}

uint8_t vhca_simple(Vhca *v, uint16_t opcode, uint32_t handle,
                    uint32_t result[2])
{
    struct vhca_cmd cmd;

    cmd_init(v, &cmd, opcode);
    cmd.in.handle.handle = cpu_to_le32(handle);
    return vhca_exec(v, &cmd, result);
}

uint8_t vhca_query_port(Vhca *v, uint8_t port,
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

uint8_t vhca_query_table(Vhca *v, uint16_t opcode, uint8_t port,
                         uint16_t index, uint32_t result[2])
{
    struct vhca_cmd cmd;

    cmd_init(v, &cmd, opcode);
    cmd_out(v, &cmd, sizeof(struct vhca_gid));
    cmd.in.table.port = port;
    cmd.in.table.index = cpu_to_le16(index);
    return vhca_exec(v, &cmd, result);
}

uint8_t vhca_create_eq(Vhca *v, uint64_t base, uint8_t log_size,
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
void vhca_assert_alive(Vhca *v)
{
    g_assert_cmphex(rd(v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    g_assert_cmpuint(vhca_query_port(v, 1, NULL), ==, VHCA_CMD_OK);
}

/* The command bottom half runs asynchronously: poll for its verdict. */
uint32_t vhca_wait_fatal(Vhca *v)
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

void vhca_assert_fatal(Vhca *v, enum vhca_fatal code)
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

void qom_set_link(Vhca *v, const char *prop, bool up)
{
    QDict *rsp = qtest_qmp(v->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'vhca0', 'property': %s, 'value': %i}}",
                           prop, up);

    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

/*
 * PortInfo data (64 bytes) of a Set asking for lid, sm_lid and state (0:
 * no change), as opensm sends them: neighbor MTU 2048, VL0, subnet
 * timeout 17 (vhca-sm-set-test, vhca-sm-off-test).
 */
void vhca_pi_init(uint8_t *pi, uint16_t lid, uint16_t sm_lid, uint8_t state)
{
    memset(pi, 0, VHCA_SMP_DATA_SIZE);
    stq_be_p(pi + VHCA_PI(gid_prefix), VHCA_GID_PREFIX_DEFAULT);
    stw_be_p(pi + VHCA_PI(lid), lid);
    stw_be_p(pi + VHCA_PI(master_sm_lid), sm_lid);
    pi[VHCA_PI(speed_supported_state)] = state;
    pi[VHCA_PI(neighbor_mtu_sm_sl)] = VHCA_MTU_2048 << 4;
    pi[VHCA_PI(oper_vls_enforcement)] = 1 << 4;         /* VL0 */
    pi[VHCA_PI(rereg_subnet_timeout)] = 17;             /* SubnetTimeOut */
}

/*
 * A MAD (VHCA_MAD_SIZE bytes) of base version 1 with its common header
 * (IBA 13.4.3) filled, the rest zeroed.
 */
void vhca_mad_init(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version,
                   uint8_t method, uint64_t tid, uint16_t attr)
{
    memset(mad, 0, VHCA_MAD_SIZE);
    mad[VHCA_MAD(base_version)] = 1;
    mad[VHCA_MAD(mgmt_class)] = mgmt_class;
    mad[VHCA_MAD(class_version)] = class_version;
    mad[VHCA_MAD(method)] = method;
    stq_be_p(mad + VHCA_MAD(tid), tid);
    stw_be_p(mad + VHCA_MAD(attr_id), attr);
}

/* Let the SM sweep, collect the port events. */
int vhca_collect_port_events(Vhca *v, struct vhca_eqe *events, int max)
{
    int n = MIN(max, v->n_early_port_events);

    memcpy(events, v->early_port_events, n * sizeof(*events));
    v->n_early_port_events -= n;
    memmove(v->early_port_events, v->early_port_events + n,
            v->n_early_port_events * sizeof(*events));
    qtest_clock_step(v->qts, SM_SETTLE_NS);
    while (n < max && vhca_try_eqe(v, &events[n], 50)) {
        g_assert_cmpuint(events[n].type, ==, VHCA_EQE_PORT_EVENT);
        n++;
    }
    return n;
}

/* Point an MSI-X vector's message at addr and unmask it. */
void msix_route(Vhca *v, uint16_t vector, uint64_t addr, uint32_t data)
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
uint64_t msix_route_to_ram(Vhca *v, uint16_t vector)
{
    uint64_t word = guest_alloc(&v->alloc, 4096);

    qtest_writel(v->qts, word, 0);
    msix_route(v, vector, word, 0xcafe0000 | vector);
    return word;
}

/* Whether the vector fired since the last call. */
bool msix_fired(Vhca *v, uint64_t word)
{
    uint32_t val = qtest_readl(v->qts, word);

    qtest_writel(v->qts, word, 0);
    return val != 0;
}

/* Wait until the next EQ 0 entry is visible, without consuming it. */
void vhca_wait_eqe_visible(Vhca *v)
{
    vhca_wait_eqes_visible(v, 1);
}

/* Wait until the next n EQ 0 entries are visible, consuming none. */
void vhca_wait_eqes_visible(Vhca *v, uint32_t n)
{
    uint32_t index = v->eq0_ci + n - 1;
    uint64_t slot = v->eq0 + (uint64_t)(index & ((1u << v->eq0_log) - 1)) *
                    sizeof(struct vhca_eqe);
    uint8_t want = vhca_eqe_owner(index, v->eq0_log);
    uint64_t owner_addr = slot + offsetof(struct vhca_eqe, owner);
    int i;

    for (i = 0; i < POLL_LIMIT; i++) {
        if ((qtest_readb(v->qts, owner_addr) & VHCA_EQE_OWNER_BIT) == want) {
            return;
        }
    }
    g_assert_not_reached();
}

/* Where guest RAM ends (below 4 GiB: qtest machines have little RAM). */
uint64_t vhca_ram_end(Vhca *v)
{
    QDict *rsp = qtest_qmp(v->qts,
                           "{'execute': 'query-memory-size-summary'}");
    uint64_t size;

    g_assert(qdict_haskey(rsp, "return"));
    size = qdict_get_int(qdict_get_qdict(rsp, "return"), "base-memory");
    qobject_unref(rsp);
    g_assert_cmphex(size, <, 0x80000000ull);
    return size;
}

/* Whether QEMU still has a device of this id (/machine/peripheral). */
bool vhca_peripheral_has(QTestState *qts, const char *id)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'qom-list', 'arguments': "
                           "{'path': '/machine/peripheral'}}");
    QListEntry *e;
    bool found = false;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(rsp, "return"), e) {
        QDict *prop = qobject_to(QDict, qlist_entry_obj(e));

        found |= !strcmp(qdict_get_str(prop, "name"), id);
    }
    qobject_unref(rsp);
    return found;
}

/*
 * device_add of a vhca (guid) on fabric behind bus, with these embedded
 * SM properties: refused?  (Every device on a fabric must agree on them.)
 */
bool vhca_device_add_refused(QTestState *qts, uint64_t guid,
                             const char *fabric, const char *bus,
                             bool embedded_sm, int sm_priority)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                           "{'driver': 'vhca', 'node-guid': %" PRIu64 ", "
                           "'fabric': %s, 'bus': %s, 'embedded-sm': %i, "
                           "'sm-priority': %d}}", guid, fabric, bus,
                           embedded_sm, sm_priority);
    bool refused = qdict_haskey(rsp, "error");

    qobject_unref(rsp);
    return refused;
}
