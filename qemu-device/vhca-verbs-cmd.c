/*
 * vhca - the data path commands (vhca_hw_verbs.h): their buffer checks and
 * dispatch, the data doorbells, and the life cycle (init, reset, unrealize)
 * of the data path tables.
 *
 * vhca-cmd.c hands every opcode this file knows to
 * vhca_verbs_cmd_execute(); the checks are the ones of vhca-cmd-check.c
 * (lengths, then buffer addresses), then each handler checks its input and
 * the device state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca.h"
#include "vhca-wqe.h"
#include "trace.h"

typedef struct VhcaVerbsCmdInfo {
    uint16_t opcode;
    const char *name;
    uint32_t in_size;       /* bytes needed at in_addr, 0: none */
    uint32_t out_size;      /* bytes written at out_addr, 0: none */
} VhcaVerbsCmdInfo;

static const VhcaVerbsCmdInfo vhca_verbs_cmds[] = {
    { VHCA_CMD_CREATE_CQ, "CREATE_CQ", sizeof(struct vhca_cmd_create_cq), 0 },
    { VHCA_CMD_DESTROY_CQ, "DESTROY_CQ", 0, 0 },
    { VHCA_CMD_RESIZE_CQ, "RESIZE_CQ", sizeof(struct vhca_cmd_create_cq), 0 },
    /* 128 bytes with the receive doorbell record, 64 from a minor 0 driver */
    { VHCA_CMD_CREATE_QP, "CREATE_QP", VHCA_CMD_CREATE_QP_V0_LEN, 0 },
    { VHCA_CMD_MODIFY_QP, "MODIFY_QP", sizeof(struct vhca_qp_context), 0 },
    { VHCA_CMD_QUERY_QP, "QUERY_QP", 0, sizeof(struct vhca_qp_context) },
    { VHCA_CMD_DESTROY_QP, "DESTROY_QP", 0, 0 },
    { VHCA_CMD_CREATE_SRQ, "CREATE_SRQ", sizeof(struct vhca_cmd_create_srq),
      0 },
    { VHCA_CMD_MODIFY_SRQ, "MODIFY_SRQ", 0, 0 },
    { VHCA_CMD_QUERY_SRQ, "QUERY_SRQ", 0, 0 },
    { VHCA_CMD_DESTROY_SRQ, "DESTROY_SRQ", 0, 0 },
    { VHCA_CMD_RESIZE_SRQ, "RESIZE_SRQ", sizeof(struct vhca_cmd_create_srq),
      0 },
    { VHCA_CMD_CREATE_MR, "CREATE_MR", sizeof(struct vhca_cmd_create_mr), 0 },
    { VHCA_CMD_ALLOC_MR, "ALLOC_MR", 0, 0 },
    { VHCA_CMD_DESTROY_MR, "DESTROY_MR", 0, 0 },
    { VHCA_CMD_REREG_MR, "REREG_MR", sizeof(struct vhca_cmd_create_mr), 0 },
    { VHCA_CMD_ALLOC_MW, "ALLOC_MW", 0, 0 },
    { VHCA_CMD_DEALLOC_MW, "DEALLOC_MW", 0, 0 },
    { VHCA_CMD_ODP_MAP, "ODP_MAP", 8, 0 },    /* one page address at least */
    { VHCA_CMD_ODP_INVALIDATE, "ODP_INVALIDATE", 0, 0 },
    { VHCA_CMD_ODP_RESUME, "ODP_RESUME", 0, 0 },
    { VHCA_CMD_ALLOC_XRCD, "ALLOC_XRCD", 0, 0 },
    { VHCA_CMD_DEALLOC_XRCD, "DEALLOC_XRCD", 0, 0 },
    { VHCA_CMD_ATTACH_MCAST, "ATTACH_MCAST", 0, 0 },
    { VHCA_CMD_DETACH_MCAST, "DETACH_MCAST", 0, 0 },
};

static const VhcaVerbsCmdInfo *vhca_verbs_cmd_info(uint16_t opcode)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(vhca_verbs_cmds); i++) {
        if (vhca_verbs_cmds[i].opcode == opcode) {
            return &vhca_verbs_cmds[i];
        }
    }
    return NULL;
}

bool vhca_verbs_cmd_known(uint16_t opcode)
{
    return vhca_verbs_cmd_info(opcode) != NULL;
}

const char *vhca_verbs_cmd_name(uint16_t opcode)
{
    const VhcaVerbsCmdInfo *info = vhca_verbs_cmd_info(opcode);

    return info ? info->name : NULL;
}

/* Lengths and buffer addresses, in the order of device.md "Command queue". */
static uint8_t vhca_verbs_cmd_check(const VhcaVerbsCmdInfo *info,
                                    uint64_t in_addr, uint32_t in_len,
                                    uint64_t out_addr, uint32_t out_len,
                                    const char **why)
{
    if (in_len > VHCA_CMD_MAX_IN_LEN || out_len > VHCA_CMD_MAX_OUT_LEN) {
        *why = "in_len or out_len above the maximum";
        return VHCA_CMD_BAD_SIZE;
    }
    if (info->in_size) {
        if (in_len < info->in_size) {
            *why = "in_len too small";
            return VHCA_CMD_BAD_SIZE;
        }
        if (in_addr == 0 || in_addr + info->in_size < in_addr) {
            *why = "in_addr is 0 or wraps";
            return VHCA_CMD_BAD_ADDR;
        }
    }
    if (info->out_size) {
        if (out_len < info->out_size) {
            *why = "out_len too small";
            return VHCA_CMD_BAD_SIZE;
        }
        if (out_addr == 0 || out_addr + info->out_size < out_addr) {
            *why = "out_addr is 0 or wraps";
            return VHCA_CMD_BAD_ADDR;
        }
    }
    return VHCA_CMD_OK;
}

uint8_t vhca_verbs_cmd_execute(VhcaState *s, const struct vhca_cmd *raw,
                               uint32_t result[2], const char **why)
{
    uint16_t opcode = le16_to_cpu(raw->opcode);
    const VhcaVerbsCmdInfo *info = vhca_verbs_cmd_info(opcode);
    uint64_t in_addr = le64_to_cpu(raw->in_addr);
    uint64_t out_addr = le64_to_cpu(raw->out_addr);
    uint32_t handle = le32_to_cpu(raw->in.handle.handle);
    uint8_t status;

    status = vhca_verbs_cmd_check(info, in_addr, le32_to_cpu(raw->in_len),
                                  out_addr, le32_to_cpu(raw->out_len), why);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    *why = "rejected by the handler (see the log line before)";
    switch (opcode) {
    case VHCA_CMD_CREATE_CQ:
        return vhca_cmd_create_cq(s, in_addr, result);
    case VHCA_CMD_DESTROY_CQ:
        return vhca_cmd_destroy_cq(s, handle);
    case VHCA_CMD_RESIZE_CQ:
        return vhca_cmd_resize_cq(s, handle, in_addr);
    case VHCA_CMD_CREATE_QP:
        return vhca_cmd_create_qp(s, in_addr, le32_to_cpu(raw->in_len),
                                  result);
    case VHCA_CMD_MODIFY_QP:
        return vhca_cmd_modify_qp(s, handle, in_addr);
    case VHCA_CMD_QUERY_QP:
        return vhca_cmd_query_qp(s, handle, out_addr);
    case VHCA_CMD_DESTROY_QP:
        return vhca_cmd_destroy_qp(s, handle);
    case VHCA_CMD_CREATE_SRQ:
        return vhca_cmd_create_srq(s, in_addr, le32_to_cpu(raw->in_len),
                                   result);
    case VHCA_CMD_MODIFY_SRQ:
        return vhca_cmd_modify_srq(s, (const void *)raw->in.raw);
    case VHCA_CMD_QUERY_SRQ:
        return vhca_cmd_query_srq(s, handle, result);
    case VHCA_CMD_DESTROY_SRQ:
        return vhca_cmd_destroy_srq(s, handle);
    case VHCA_CMD_RESIZE_SRQ:
        return vhca_cmd_resize_srq(s, handle, in_addr, result);
    case VHCA_CMD_CREATE_MR:
        return vhca_cmd_create_mr(s, in_addr, result);
    case VHCA_CMD_ALLOC_MR:
        return vhca_cmd_alloc_mr(s, (const void *)raw->in.raw, result);
    case VHCA_CMD_DESTROY_MR:
        return vhca_cmd_destroy_mr(s, handle);
    case VHCA_CMD_REREG_MR:
        return vhca_cmd_rereg_mr(s, handle, in_addr);
    case VHCA_CMD_ALLOC_MW:
        return vhca_cmd_alloc_mw(s, (const void *)raw->in.raw, result);
    case VHCA_CMD_DEALLOC_MW:
        return vhca_cmd_dealloc_mw(s, handle);
    case VHCA_CMD_ODP_MAP:
        return vhca_cmd_odp_map(s, (const void *)raw->in.raw, in_addr,
                                le32_to_cpu(raw->in_len));
    case VHCA_CMD_ODP_INVALIDATE:
        return vhca_cmd_odp_invalidate(s, (const void *)raw->in.raw);
    case VHCA_CMD_ODP_RESUME:
        return vhca_cmd_odp_resume(s, (const void *)raw->in.raw);
    case VHCA_CMD_ALLOC_XRCD:
        return vhca_cmd_alloc_xrcd(s, result);
    case VHCA_CMD_DEALLOC_XRCD:
        return vhca_cmd_dealloc_xrcd(s, handle);
    case VHCA_CMD_ATTACH_MCAST:
    case VHCA_CMD_DETACH_MCAST:
        return vhca_cmd_mcast(s, opcode == VHCA_CMD_ATTACH_MCAST,
                              (const void *)raw->in.raw);
    default:
        *why = "no handler";
        return VHCA_CMD_INTERNAL;
    }
}

/* 64-bit data doorbells on page 0 or a user page (vhca_hw_verbs.h). */
void vhca_verbs_doorbell(VhcaState *s, uint32_t page, hwaddr offset,
                         uint64_t value)
{
    if (!vhca_is_enabled(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: data doorbell while not "
                      "enabled ignored\n");
        trace_vhca_reject("db-data-disabled", offset);
        return;
    }
    switch (offset) {
    case VHCA_DB_SQ:
    case VHCA_DB_RQ:
        vhca_wq_doorbell(s, page, offset, value);
        break;
    case VHCA_DB_CQ:
        vhca_cq_doorbell(s, page, value);
        break;
    case VHCA_DB_SRQ:
        vhca_srq_doorbell(s, page, value);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: unknown data doorbell 0x%"
                      HWADDR_PRIx "\n", offset);
        trace_vhca_reject("db-data-unknown", offset);
        break;
    }
}

/* The limits of the objects that work (QUERY_DEVICE). */
void vhca_verbs_device_attr(struct vhca_device_attr *attr)
{
    attr->max_mr_size = cpu_to_le64(VHCA_MAX_MR_SIZE);
    attr->page_size_cap = cpu_to_le64(VHCA_PAGE_SIZE_CAP);
    attr->max_mr = cpu_to_le32(VHCA_MAX_MR - 1);
    attr->max_mw = cpu_to_le32(VHCA_MAX_MR - 1);    /* one key table */
    attr->dev_caps = cpu_to_le32(VHCA_DEV_CAP_MW_TYPE_1 |
                                 VHCA_DEV_CAP_MW_TYPE_2 |
                                 VHCA_DEV_CAP_XRC |
                                 VHCA_DEV_CAP_CQE_TIMESTAMP |
                                 VHCA_DEV_CAP_ODP |
                                 VHCA_DEV_CAP_ODP_IMPLICIT |
                                 VHCA_DEV_CAP_ATOMIC_WRITE |
                                 VHCA_DEV_CAP_FLUSH_GLOBAL |
                                 VHCA_DEV_CAP_FLUSH_PERSISTENT |
                                 VHCA_DEV_CAP_SRQ_RESIZE);
    attr->hca_core_clock_khz = cpu_to_le32(VHCA_CORE_CLOCK_KHZ);
    attr->max_cq = cpu_to_le32(VHCA_MAX_CQ);
    attr->max_cqe = cpu_to_le32(VHCA_MAX_CQE);
    attr->max_qp = cpu_to_le32(VHCA_MAX_QP);
    attr->max_qp_wr = cpu_to_le32(VHCA_MAX_QP_WR);
    attr->max_sge = cpu_to_le32(VHCA_WQE_MAX_SGE);
    attr->max_qp_rd_atom = cpu_to_le32(VHCA_MAX_RD_ATOM);
    attr->max_srq = cpu_to_le32(VHCA_MAX_SRQ);
    attr->max_srq_wr = cpu_to_le32(VHCA_MAX_QP_WR);
    attr->max_xrcd = cpu_to_le32(VHCA_MAX_XRCD - 1);
    attr->max_mcast_grp = cpu_to_le32(VHCA_MAX_MCAST_GRP);
    attr->max_mcast_qp_attach = cpu_to_le32(VHCA_MAX_MCAST_QP_ATTACH);
}

void vhca_verbs_init(VhcaState *s)
{
    vhca_mr_init(s);
    vhca_cq_init(s);
    vhca_qp_init(s);
    vhca_srq_init(s);
    vhca_xrc_init(s);
    vhca_mcast_init(s);
    s->transport_bh = qemu_bh_new(vhca_transport_bh, s);
}

/* QPs first: they hold references on CQs. */
void vhca_verbs_reset(VhcaState *s)
{
    if (!s->qps) {
        return;
    }
    qemu_bh_cancel(s->transport_bh);
    vhca_qp_reset(s);
    vhca_mcast_reset(s);
    vhca_srq_reset(s);
    vhca_xrc_reset(s);
    vhca_cq_reset(s);
    vhca_mr_reset(s);
}

void vhca_verbs_unrealize(VhcaState *s)
{
    if (!s->qps) {
        return;
    }
    vhca_verbs_reset(s);
    qemu_bh_delete(s->transport_bh);
    s->transport_bh = NULL;
    vhca_qp_unrealize(s);
    g_free(s->cqs);
    s->cqs = NULL;
    g_free(s->srqs);
    s->srqs = NULL;
    vhca_xrc_unrealize(s);
    g_free(s->mcast);
    s->mcast = NULL;
    g_free(s->mrs);
    s->mrs = NULL;
}
