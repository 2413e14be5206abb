/*
 * vhca - command decoding and static validation (see vhca-cmd-check.h).
 *
 * Everything a command entry can be judged on without looking at device
 * state: the opcode, buffer lengths and addresses being present, ports,
 * table indexes, queue parameters.  What needs state (is this handle
 * allocated, is the table full, does DMA work) is checked in vhca-cmd.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-cmd-check.h"

static const VhcaCmdInfo vhca_cmd_infos[] = {
    { VHCA_CMD_QUERY_DEVICE, "QUERY_DEVICE", 0,
      sizeof(struct vhca_device_attr) },
    { VHCA_CMD_QUERY_PORT, "QUERY_PORT", 0, sizeof(struct vhca_port_attr) },
    { VHCA_CMD_QUERY_GID, "QUERY_GID", 0, sizeof(struct vhca_gid) },
    { VHCA_CMD_QUERY_PKEY, "QUERY_PKEY", 0, 0 },
    { VHCA_CMD_SET_NODE_DESC, "SET_NODE_DESC",
      sizeof(struct vhca_node_desc), 0 },
    { VHCA_CMD_SET_PORT_CAP, "SET_PORT_CAP", 0, 0 },
    { VHCA_CMD_MAD_IFC, "MAD_IFC", sizeof(struct vhca_mad),
      sizeof(struct vhca_mad) },
    { VHCA_CMD_CREATE_EQ, "CREATE_EQ", 0, 0 },
    { VHCA_CMD_DESTROY_EQ, "DESTROY_EQ", 0, 0 },
    { VHCA_CMD_ALLOC_PD, "ALLOC_PD", 0, 0 },
    { VHCA_CMD_DEALLOC_PD, "DEALLOC_PD", 0, 0 },
    { VHCA_CMD_ALLOC_DM, "ALLOC_DM", 0, 0 },
    { VHCA_CMD_FREE_DM, "FREE_DM", 0, 0 },
    { VHCA_CMD_REG_DM_MR, "REG_DM_MR", 0, 0 },
};

const VhcaCmdInfo *vhca_cmd_info(uint16_t opcode)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(vhca_cmd_infos); i++) {
        if (vhca_cmd_infos[i].opcode == opcode) {
            return &vhca_cmd_infos[i];
        }
    }
    return NULL;
}

const char *vhca_cmd_name(uint16_t opcode)
{
    const VhcaCmdInfo *info = vhca_cmd_info(opcode);

    return info ? info->name : "UNKNOWN";
}

/* The inline inputs of device memory commands (vhca_hw_verbs.h). */
static void vhca_cmd_decode_dm(const struct vhca_cmd *raw, VhcaCmd *cmd)
{
    const struct vhca_cmd_alloc_dm_in *alloc = (const void *)raw->in.raw;
    const struct vhca_cmd_reg_dm_mr_in *reg = (const void *)raw->in.raw;

    if (cmd->opcode == VHCA_CMD_ALLOC_DM) {
        cmd->in.alloc_dm.length = le64_to_cpu(alloc->length);
        cmd->in.alloc_dm.log_align = alloc->log_align;
        return;
    }
    cmd->in.reg_dm_mr.dm_offset = le32_to_cpu(reg->dm_offset);
    cmd->in.reg_dm_mr.pdn = le32_to_cpu(reg->pdn);
    cmd->in.reg_dm_mr.length = le64_to_cpu(reg->length);
    cmd->in.reg_dm_mr.access = le32_to_cpu(reg->access);
    cmd->in.reg_dm_mr.key_variant = reg->key_variant;
}

/* Byte-swap the entry; the inline input is decoded as its opcode says. */
void vhca_cmd_decode(const struct vhca_cmd *raw, VhcaCmd *cmd)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = le16_to_cpu(raw->opcode);
    cmd->flags = le16_to_cpu(raw->flags);
    cmd->token = le32_to_cpu(raw->token);
    cmd->in_addr = le64_to_cpu(raw->in_addr);
    cmd->in_len = le32_to_cpu(raw->in_len);
    cmd->out_len = le32_to_cpu(raw->out_len);
    cmd->out_addr = le64_to_cpu(raw->out_addr);

    switch (cmd->opcode) {
    case VHCA_CMD_QUERY_PORT:
    case VHCA_CMD_MAD_IFC:
        cmd->in.port.port = raw->in.port.port;
        break;
    case VHCA_CMD_SET_PORT_CAP:
        cmd->in.port_cap.port = raw->in.port_cap.port;
        cmd->in.port_cap.set = le32_to_cpu(raw->in.port_cap.set);
        cmd->in.port_cap.clear = le32_to_cpu(raw->in.port_cap.clear);
        break;
    case VHCA_CMD_QUERY_GID:
    case VHCA_CMD_QUERY_PKEY:
        cmd->in.table.port = raw->in.table.port;
        cmd->in.table.index = le16_to_cpu(raw->in.table.index);
        break;
    case VHCA_CMD_CREATE_EQ:
        cmd->in.create_eq.base = le64_to_cpu(raw->in.create_eq.base);
        cmd->in.create_eq.log_size = raw->in.create_eq.log_size;
        cmd->in.create_eq.vector = le16_to_cpu(raw->in.create_eq.vector);
        break;
    case VHCA_CMD_DESTROY_EQ:
    case VHCA_CMD_DEALLOC_PD:
    case VHCA_CMD_FREE_DM:
        cmd->in.handle = le32_to_cpu(raw->in.handle.handle);
        break;
    case VHCA_CMD_ALLOC_DM:
    case VHCA_CMD_REG_DM_MR:
        vhca_cmd_decode_dm(raw, cmd);
        break;
    default:
        break;
    }
}

static VhcaCmdCheck vhca_ok(void)
{
    return (VhcaCmdCheck) { VHCA_CMD_OK, NULL };
}

static VhcaCmdCheck vhca_bad(uint8_t status, const char *why)
{
    return (VhcaCmdCheck) { status, why };
}

/* Lengths and buffer addresses, common to all commands. */
static VhcaCmdCheck vhca_cmd_check_buffers(const VhcaCmd *cmd,
                                           const VhcaCmdInfo *info)
{
    if (cmd->in_len > VHCA_CMD_MAX_IN_LEN) {
        return vhca_bad(VHCA_CMD_BAD_SIZE, "in_len above VHCA_CMD_MAX_IN_LEN");
    }
    if (cmd->out_len > VHCA_CMD_MAX_OUT_LEN) {
        return vhca_bad(VHCA_CMD_BAD_SIZE,
                        "out_len above VHCA_CMD_MAX_OUT_LEN");
    }
    if (info->in_size) {
        if (cmd->in_len < info->in_size) {
            return vhca_bad(VHCA_CMD_BAD_SIZE, "in_len too small");
        }
        if (cmd->in_addr == 0) {
            return vhca_bad(VHCA_CMD_BAD_ADDR, "in_addr is 0");
        }
        if (cmd->in_addr + info->in_size < cmd->in_addr) {
            return vhca_bad(VHCA_CMD_BAD_ADDR, "in_addr wraps");
        }
    }
    if (info->out_size) {
        if (cmd->out_len < info->out_size) {
            return vhca_bad(VHCA_CMD_BAD_SIZE, "out_len too small");
        }
        if (cmd->out_addr == 0) {
            return vhca_bad(VHCA_CMD_BAD_ADDR, "out_addr is 0");
        }
        if (cmd->out_addr + info->out_size < cmd->out_addr) {
            return vhca_bad(VHCA_CMD_BAD_ADDR, "out_addr wraps");
        }
    }
    return vhca_ok();
}

static bool vhca_port_valid(uint8_t port, const VhcaCmdLimits *limits)
{
    return port >= 1 && port <= limits->num_ports;
}

static VhcaCmdCheck vhca_cmd_check_table(const VhcaCmd *cmd,
                                         const VhcaCmdLimits *limits,
                                         uint32_t table_len)
{
    if (!vhca_port_valid(cmd->in.table.port, limits)) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "no such port");
    }
    if (cmd->in.table.index >= table_len) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "table index out of range");
    }
    return vhca_ok();
}

static VhcaCmdCheck vhca_cmd_check_create_eq(const VhcaCmd *cmd,
                                             const VhcaCmdLimits *limits)
{
    uint64_t base = cmd->in.create_eq.base;
    uint8_t log_size = cmd->in.create_eq.log_size;
    uint16_t vector = cmd->in.create_eq.vector;

    if (base == 0 || (base & (VHCA_QUEUE_ALIGN - 1))) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "EQ base zero or unaligned");
    }
    if (log_size < VHCA_MIN_LOG_EQ || log_size > VHCA_MAX_LOG_EQ) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "EQ log_size out of range");
    }
    if (vector < 1 || vector >= limits->num_vectors) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "EQ vector out of range");
    }
    return vhca_ok();
}

/*
 * Device memory (vhca_hw_verbs.h "Device memory"): what the size of BAR 3
 * alone decides; the allocations themselves are checked in vhca-dm.c.
 */
static VhcaCmdCheck vhca_cmd_check_dm(const VhcaCmd *cmd,
                                      const VhcaCmdLimits *limits)
{
    uint64_t end;

    switch (cmd->opcode) {
    case VHCA_CMD_ALLOC_DM:
        if (cmd->in.alloc_dm.length == 0 ||
            cmd->in.alloc_dm.length > limits->dm_size) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "DM length 0 or above "
                            "max_dm_size");
        }
        if (cmd->in.alloc_dm.log_align > VHCA_DM_MAX_LOG_ALIGN) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "DM log_align too big");
        }
        return vhca_ok();
    case VHCA_CMD_FREE_DM:
        if (cmd->in.handle % VHCA_DM_PAGE_SIZE ||
            cmd->in.handle >= limits->dm_size) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "DM offset unaligned or "
                            "outside BAR 3");
        }
        return vhca_ok();
    default:
        end = (uint64_t)cmd->in.reg_dm_mr.dm_offset + cmd->in.reg_dm_mr.length;
        if (cmd->in.reg_dm_mr.length > limits->dm_size ||
            end > limits->dm_size) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "DM region outside BAR 3");
        }
        if (!vhca_access_flags_valid(cmd->in.reg_dm_mr.access)) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "invalid access flags");
        }
        return vhca_ok();
    }
}

/* Opcode-specific inline input. */
static VhcaCmdCheck vhca_cmd_check_input(const VhcaCmd *cmd,
                                         const VhcaCmdLimits *limits)
{
    switch (cmd->opcode) {
    case VHCA_CMD_QUERY_PORT:
    case VHCA_CMD_MAD_IFC:
        if (!vhca_port_valid(cmd->in.port.port, limits)) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "no such port");
        }
        return vhca_ok();
    case VHCA_CMD_SET_PORT_CAP:
        if (!vhca_port_valid(cmd->in.port_cap.port, limits)) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "no such port");
        }
        if ((cmd->in.port_cap.set | cmd->in.port_cap.clear) &
            ~VHCA_PORT_CAP_SETTABLE) {
            return vhca_bad(VHCA_CMD_BAD_PARAM,
                            "capability bit not settable by software");
        }
        return vhca_ok();
    case VHCA_CMD_QUERY_GID:
        return vhca_cmd_check_table(cmd, limits, VHCA_GID_TABLE_LEN);
    case VHCA_CMD_QUERY_PKEY:
        return vhca_cmd_check_table(cmd, limits, VHCA_PKEY_TABLE_LEN);
    case VHCA_CMD_CREATE_EQ:
        return vhca_cmd_check_create_eq(cmd, limits);
    case VHCA_CMD_DESTROY_EQ:
        if (cmd->in.handle == 0) {
            return vhca_bad(VHCA_CMD_BAD_PARAM, "EQ 0 cannot be destroyed");
        }
        return vhca_ok();
    case VHCA_CMD_ALLOC_DM:
    case VHCA_CMD_FREE_DM:
    case VHCA_CMD_REG_DM_MR:
        return vhca_cmd_check_dm(cmd, limits);
    default:
        return vhca_ok();
    }
}

VhcaCmdCheck vhca_cmd_check(const VhcaCmd *cmd, const VhcaCmdLimits *limits)
{
    const VhcaCmdInfo *info = vhca_cmd_info(cmd->opcode);
    VhcaCmdCheck check;

    if (!info) {
        return vhca_bad(VHCA_CMD_BAD_OPCODE, "unknown opcode");
    }
    check = vhca_cmd_check_buffers(cmd, info);
    if (check.status != VHCA_CMD_OK) {
        return check;
    }
    return vhca_cmd_check_input(cmd, limits);
}

VhcaCmdCheck vhca_odp_cmd_check(uint16_t opcode, const uint8_t in[32],
                                uint32_t in_len)
{
    const struct vhca_cmd_odp_range_in *range = (const void *)in;
    const struct vhca_cmd_odp_resume_in *resume = (const void *)in;
    uint32_t npages = le32_to_cpu(range->npages);

    if (opcode == VHCA_CMD_ODP_RESUME) {
        return resume->flags & ~VHCA_ODP_RESUME_F_ERROR ?
               vhca_bad(VHCA_CMD_BAD_PARAM, "unknown ODP_RESUME flags") :
               vhca_ok();
    }
    if (npages == 0) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "npages is 0");
    }
    if (opcode != VHCA_CMD_ODP_MAP) {
        return vhca_ok();
    }
    if (npages > VHCA_ODP_MAX_MAP) {
        return vhca_bad(VHCA_CMD_BAD_PARAM, "more pages than one command maps");
    }
    if (in_len < npages * 8u) {
        return vhca_bad(VHCA_CMD_BAD_SIZE, "in_len below 8 * npages");
    }
    return vhca_ok();
}
