/*
 * vhca - command queue: fetch, execute, complete.
 *
 * The command doorbell only records the producer index and schedules
 * vhca_cmd_bh(); the bottom half (main loop, BQL held) reads each entry
 * with DMA, checks it (vhca-cmd-check.c, then the state-dependent checks
 * here), executes it, writes its output with DMA and posts a CMD_DONE EQE
 * on EQ 0.  Commands complete in order, one EQE each.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "vhca.h"
#include "vhca-cmd-check.h"
#include "vhca-transport.h"
#include "vhca-ring.h"
#include "trace.h"

typedef uint8_t (*VhcaCmdExec)(VhcaState *s, const VhcaCmd *cmd,
                               uint32_t result[2]);

void vhca_cmd_reset(VhcaState *s)
{
    s->cmdq_pi = 0;
    s->cmdq_ci = 0;
}

/* Write a command's output; the static check guaranteed out_len >= len. */
static uint8_t vhca_cmd_write_out(VhcaState *s, const VhcaCmd *cmd,
                                  const void *buf, uint32_t len)
{
    if (vhca_dma_write(s, cmd->out_addr, buf, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %s output to 0x%" PRIx64
                      " failed\n", vhca_cmd_name(cmd->opcode), cmd->out_addr);
        return VHCA_CMD_BAD_ADDR;
    }
    return VHCA_CMD_OK;
}

static uint8_t vhca_cmd_query_device(VhcaState *s, const VhcaCmd *cmd,
                                     uint32_t result[2])
{
    struct vhca_device_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.node_guid = cpu_to_le64(s->node_guid);
    attr.sys_image_guid = cpu_to_le64(s->node_guid);
    attr.fw_version = cpu_to_le64(VHCA_FW_VERSION);
    attr.vendor_id = cpu_to_le32(VHCA_VENDOR_OUI);
    attr.vendor_part_id = cpu_to_le32(VHCA_PCI_DEVICE_ID);
    attr.hw_version = cpu_to_le32(VHCA_PCI_REVISION);
    attr.num_ports = s->num_ports;
    attr.num_vectors = s->num_vectors;
    attr.max_eq = VHCA_MAX_EQS;
    attr.max_pd = cpu_to_le32(VHCA_MAX_PD);
    /* Memory regions, CQs and QPs (vhca-verbs-cmd.c); SRQs, AHs and
     * multicast stay 0. */
    vhca_verbs_device_attr(&attr);
    if (s->dm_size) {
        attr.max_dm_size = cpu_to_le64(s->dm_size);
        attr.dev_caps |= cpu_to_le32(VHCA_DEV_CAP_DM);
    }
    if (s->sq_poller) {
        attr.dev_caps |= cpu_to_le32(VHCA_DEV_CAP_SQ_POLL);
    }
    if (s->tag_matching) {
        attr.dev_caps |= cpu_to_le32(VHCA_DEV_CAP_TAG_MATCHING);
    }
    return vhca_cmd_write_out(s, cmd, &attr, sizeof(attr));
}

static VhcaPort *vhca_cmd_port(VhcaState *s, uint8_t port)
{
    /* vhca_cmd_check() validated port against num_ports. */
    return &s->ports[port - 1];
}

static uint8_t vhca_cmd_query_port(VhcaState *s, const VhcaCmd *cmd,
                                   uint32_t result[2])
{
    struct vhca_port_attr attr;

    vhca_port_attr(vhca_cmd_port(s, cmd->in.port.port), &attr);
    return vhca_cmd_write_out(s, cmd, &attr, sizeof(attr));
}

static uint8_t vhca_cmd_query_gid(VhcaState *s, const VhcaCmd *cmd,
                                  uint32_t result[2])
{
    struct vhca_gid gid;

    vhca_port_gid(vhca_cmd_port(s, cmd->in.table.port), cmd->in.table.index,
                  &gid);
    return vhca_cmd_write_out(s, cmd, &gid, sizeof(gid));
}

/* IBA 10.9.1.2: P_Key index 0 holds the default (full member) P_Key. */
static uint8_t vhca_cmd_query_pkey(VhcaState *s, const VhcaCmd *cmd,
                                   uint32_t result[2])
{
    result[0] = cmd->in.table.index == 0 ? VHCA_DEFAULT_PKEY : 0;
    return VHCA_CMD_OK;
}

static uint8_t vhca_cmd_set_node_desc(VhcaState *s, const VhcaCmd *cmd,
                                      uint32_t result[2])
{
    struct vhca_node_desc desc;
    g_autofree char *text = NULL;

    if (vhca_dma_read(s, cmd->in_addr, &desc, sizeof(desc)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: SET_NODE_DESC input at 0x%"
                      PRIx64 " unreadable\n", cmd->in_addr);
        return VHCA_CMD_BAD_ADDR;
    }
    memcpy(s->node_desc, desc.desc, sizeof(s->node_desc));
    text = g_strndup((char *)s->node_desc, sizeof(s->node_desc));
    trace_vhca_node_desc(text);
    return VHCA_CMD_OK;
}

/* ib_modify_port: the CA's agents announce themselves (IBA 14.2.5.6). */
static uint8_t vhca_cmd_set_port_cap(VhcaState *s, const VhcaCmd *cmd,
                                     uint32_t result[2])
{
    VhcaPort *port = vhca_cmd_port(s, cmd->in.port_cap.port);
    uint32_t old = port->cap_mask;

    port->cap_mask = (port->cap_mask | cmd->in.port_cap.set) &
                     ~cmd->in.port_cap.clear;
    trace_vhca_port_cap(port->num, port->cap_mask);
    if (port->cap_mask != old) {
        vhca_port_cap_changed(port);    /* Trap 144 to an SM in the guest */
    }
    return VHCA_CMD_OK;
}

/* process_mad: a MAD the port's own SMA or PMA answers (vhca_mad_ifc). */
static uint8_t vhca_cmd_mad_ifc(VhcaState *s, const VhcaCmd *cmd,
                                uint32_t result[2])
{
    struct vhca_mad req, resp;

    if (vhca_dma_read(s, cmd->in_addr, &req, sizeof(req)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: MAD_IFC input at 0x%"
                      PRIx64 " unreadable\n", cmd->in_addr);
        return VHCA_CMD_BAD_ADDR;
    }
    result[0] = vhca_mad_ifc(s, cmd->in.port.port, req.data, resp.data);
    trace_vhca_mad_ifc(cmd->in.port.port, req.data[1], req.data[3],
                       lduw_be_p(req.data + 16), result[0]);
    return result[0] ? vhca_cmd_write_out(s, cmd, &resp, sizeof(resp))
                     : VHCA_CMD_OK;
}

static uint8_t vhca_cmd_create_eq(VhcaState *s, const VhcaCmd *cmd,
                                  uint32_t result[2])
{
    uint32_t eqn;

    if (!vhca_eq_config_valid(s, cmd->in.create_eq.base,
                              cmd->in.create_eq.log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: CREATE_EQ ring at 0x%" PRIx64
                      " is not guest memory\n", cmd->in.create_eq.base);
        return VHCA_CMD_BAD_ADDR;
    }
    for (eqn = 1; eqn < VHCA_MAX_EQS; eqn++) {
        if (!s->eqs[eqn].valid) {
            vhca_eq_setup(s, eqn, cmd->in.create_eq.base,
                          cmd->in.create_eq.log_size,
                          cmd->in.create_eq.vector);
            result[0] = eqn;
            return VHCA_CMD_OK;
        }
    }
    return VHCA_CMD_NO_RESOURCES;
}

static uint8_t vhca_cmd_destroy_eq(VhcaState *s, const VhcaCmd *cmd,
                                   uint32_t result[2])
{
    uint32_t eqn = cmd->in.handle;

    if (eqn >= VHCA_MAX_EQS || !s->eqs[eqn].valid) {
        return VHCA_CMD_BAD_HANDLE;
    }
    if (vhca_cq_uses_eq(s, eqn)) {
        return VHCA_CMD_BUSY;       /* a CQ still reports to it */
    }
    vhca_eq_teardown(s, eqn);
    return VHCA_CMD_OK;
}

static uint8_t vhca_cmd_alloc_pd(VhcaState *s, const VhcaCmd *cmd,
                                 uint32_t result[2])
{
    unsigned long pdn = find_first_zero_bit(s->pd_map, VHCA_MAX_PD);

    if (pdn >= VHCA_MAX_PD) {
        return VHCA_CMD_NO_RESOURCES;
    }
    set_bit(pdn, s->pd_map);
    result[0] = pdn;
    return VHCA_CMD_OK;
}

static uint8_t vhca_cmd_dealloc_pd(VhcaState *s, const VhcaCmd *cmd,
                                   uint32_t result[2])
{
    uint32_t pdn = cmd->in.handle;

    if (pdn >= VHCA_MAX_PD || !test_bit(pdn, s->pd_map)) {
        return VHCA_CMD_BAD_HANDLE;
    }
    if (vhca_pd_in_use(s, pdn)) {
        return VHCA_CMD_BUSY;       /* a region or QP still uses it */
    }
    clear_bit(pdn, s->pd_map);
    return VHCA_CMD_OK;
}

static VhcaCmdExec vhca_cmd_exec_for(uint16_t opcode)
{
    switch (opcode) {
    case VHCA_CMD_QUERY_DEVICE:
        return vhca_cmd_query_device;
    case VHCA_CMD_QUERY_PORT:
        return vhca_cmd_query_port;
    case VHCA_CMD_QUERY_GID:
        return vhca_cmd_query_gid;
    case VHCA_CMD_QUERY_PKEY:
        return vhca_cmd_query_pkey;
    case VHCA_CMD_SET_NODE_DESC:
        return vhca_cmd_set_node_desc;
    case VHCA_CMD_SET_PORT_CAP:
        return vhca_cmd_set_port_cap;
    case VHCA_CMD_MAD_IFC:
        return vhca_cmd_mad_ifc;
    case VHCA_CMD_CREATE_EQ:
        return vhca_cmd_create_eq;
    case VHCA_CMD_DESTROY_EQ:
        return vhca_cmd_destroy_eq;
    case VHCA_CMD_ALLOC_PD:
        return vhca_cmd_alloc_pd;
    case VHCA_CMD_DEALLOC_PD:
        return vhca_cmd_dealloc_pd;
    case VHCA_CMD_ALLOC_DM:
        return vhca_cmd_alloc_dm;
    case VHCA_CMD_FREE_DM:
        return vhca_cmd_free_dm;
    case VHCA_CMD_REG_DM_MR:
        return vhca_cmd_reg_dm_mr;
    default:
        return NULL;
    }
}

/* The name of a command of vhca-cmd-check.c or of the data path. */
static const char *vhca_cmd_any_name(uint16_t opcode)
{
    const char *name = vhca_verbs_cmd_name(opcode);

    return name ? name : vhca_cmd_name(opcode);
}

static void vhca_cmd_log_failure(const VhcaCmd *cmd, uint8_t status,
                                 const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: command %s (0x%x) token 0x%x "
                  "failed with status 0x%x: %s\n", vhca_cmd_any_name(cmd->opcode),
                  cmd->opcode, cmd->token, status, why);
    trace_vhca_cmd_reject(cmd->opcode, cmd->token, status, why);
}

static uint8_t vhca_cmd_execute(VhcaState *s, const VhcaCmd *cmd,
                                uint32_t result[2])
{
    VhcaCmdLimits limits = {
        .num_ports = s->num_ports,
        .num_vectors = s->num_vectors,
        .dm_size = s->dm_size,
    };
    VhcaCmdCheck check = vhca_cmd_check(cmd, &limits);
    VhcaCmdExec exec;
    uint8_t status;

    if (check.status != VHCA_CMD_OK) {
        vhca_cmd_log_failure(cmd, check.status, check.why);
        return check.status;
    }
    exec = vhca_cmd_exec_for(cmd->opcode);
    if (!exec) {
        vhca_cmd_log_failure(cmd, VHCA_CMD_INTERNAL, "no handler");
        return VHCA_CMD_INTERNAL;
    }
    status = exec(s, cmd, result);
    if (status != VHCA_CMD_OK) {
        vhca_cmd_log_failure(cmd, status, "rejected by the handler");
    }
    return status;
}

static void vhca_cmd_complete(VhcaState *s, uint32_t token, uint8_t status,
                              const uint32_t result[2])
{
    struct vhca_eqe eqe;

    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_CMD_DONE;
    eqe.data.cmd_done.token = cpu_to_le32(token);
    eqe.data.cmd_done.status = status;
    eqe.data.cmd_done.result[0] = cpu_to_le32(result[0]);
    eqe.data.cmd_done.result[1] = cpu_to_le32(result[1]);
    vhca_eq0_post(s, &eqe);
}

/* Fetch, execute and complete the entry at the consumer index. */
static void vhca_cmd_process_one(VhcaState *s)
{
    uint64_t addr = vhca_ring_slot_addr(s->cmdq_base, s->cmdq_ci,
                                        s->cmdq_log_size,
                                        sizeof(struct vhca_cmd));
    uint32_t result[2] = { 0, 0 };
    struct vhca_cmd raw;
    VhcaCmd cmd;
    uint8_t status;

    if (vhca_dma_read(s, addr, &raw, sizeof(raw)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: command at 0x%" PRIx64
                      " unreadable\n", addr);
        vhca_fatal(s, VHCA_FATAL_CMDQ_DMA);
        return;
    }
    /*
     * A DMA the guest aimed at PCI configuration space (MMCONFIG) can reset
     * the device under our feet, e.g. through a bridge's secondary bus
     * reset; after each one, stop if the device is no longer live.
     */
    if (!vhca_is_enabled(s)) {
        return;
    }
    vhca_cmd_decode(&raw, &cmd);
    trace_vhca_cmd_start(s->cmdq_ci, vhca_cmd_any_name(cmd.opcode), cmd.opcode,
                         cmd.token);
    if (vhca_verbs_cmd_known(cmd.opcode)) {
        const char *why = NULL;

        status = vhca_verbs_cmd_execute(s, &raw, result, &why);
        if (status != VHCA_CMD_OK) {
            vhca_cmd_log_failure(&cmd, status, why);
        }
    } else {
        status = vhca_cmd_execute(s, &cmd, result);
    }
    trace_vhca_cmd_done(cmd.token, status, result[0], result[1]);
    if (!vhca_is_enabled(s)) {
        return;
    }
    s->cmdq_ci++;
    vhca_cmd_complete(s, cmd.token, status, result);
}

/*
 * The command bottom half.  Bounded: at most VHCA_CMD_BATCH entries per
 * run (then it reschedules itself), and never more than the ring holds.
 */
void vhca_cmd_bh(void *opaque)
{
    VhcaState *s = opaque;
    uint32_t size, done;

    if (!vhca_is_enabled(s)) {
        return;
    }
    size = 1u << s->cmdq_log_size;
    if (!vhca_cmdq_pi_valid(s->cmdq_pi, s->cmdq_ci, s->cmdq_log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: command producer index %u is "
                      "more than %u ahead of consumer index %u\n",
                      s->cmdq_pi, size, s->cmdq_ci);
        trace_vhca_reject("cmdq-overrun", s->cmdq_pi);
        vhca_fatal(s, VHCA_FATAL_CMDQ_OVERRUN);
        return;
    }
    for (done = 0; s->cmdq_ci != s->cmdq_pi && vhca_is_enabled(s); done++) {
        if (done == VHCA_CMD_BATCH) {
            qemu_bh_schedule(s->cmd_bh);
            return;
        }
        vhca_cmd_process_one(s);
    }
}
