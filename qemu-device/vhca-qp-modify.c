/*
 * vhca - MODIFY_QP: the QP state machine (IBA 10.3.1, 11.2.4.2 table 91).
 *
 * The table mirrors Linux's ib_modify_qp_is_ok() (drivers/infiniband/core/
 * verbs.c) for the QP types the device has, without alternate paths and
 * path migration (not supported: those attribute bits are refused).  A
 * transition is checked first, every attribute value next, and only then
 * applied, so a refused MODIFY_QP changes nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-transport.h"     /* vhca_rc_window_sqd */
#include "trace.h"

#define A(x)        VHCA_QP_ATTR_##x
#define NTYPES      (VHCA_QPT_GSI + 1)
#define NSTATES     (VHCA_QPS_ERR + 1)

typedef struct VhcaQpTransition {
    bool valid;
    uint32_t req[NTYPES];
    uint32_t opt[NTYPES];
} VhcaQpTransition;

#define SPECIAL_QKEY    (A(PKEY_INDEX) | A(QKEY))
#define CUR_QKEY        (A(CUR_STATE) | A(QKEY))
/* Optional attributes of every transition into RTS (from RTR, RTS, SQD). */
#define TO_RTS_OPTIONAL {                                           \
    [VHCA_QPT_UD] = CUR_QKEY,                                       \
    [VHCA_QPT_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),                 \
    [VHCA_QPT_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), \
    [VHCA_QPT_SMI] = CUR_QKEY,                                      \
    [VHCA_QPT_GSI] = CUR_QKEY,                                      \
}
/* IBA 10.3.1: from every state but RESET a QP may go to RESET and ERR. */
#define TO_RESET_AND_ERR                                            \
    [VHCA_QPS_RESET] = { .valid = true },                           \
    [VHCA_QPS_ERR] = { .valid = true }
/* Required into INIT from RESET, optional from INIT to INIT. */
#define INIT_ATTRS {                                                \
    [VHCA_QPT_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),              \
    [VHCA_QPT_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),      \
    [VHCA_QPT_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),      \
    [VHCA_QPT_SMI] = SPECIAL_QKEY,                                  \
    [VHCA_QPT_GSI] = SPECIAL_QKEY,                                  \
}

static const VhcaQpTransition vhca_qp_table[NSTATES][NSTATES] = {
    [VHCA_QPS_RESET] = {
        [VHCA_QPS_RESET] = { .valid = true },
        [VHCA_QPS_INIT] = {
            .valid = true,
            .req = INIT_ATTRS,
        },
    },
    [VHCA_QPS_INIT] = {
        TO_RESET_AND_ERR,
        [VHCA_QPS_INIT] = {
            .valid = true,
            .opt = INIT_ATTRS,
        },
        [VHCA_QPS_RTR] = {
            .valid = true,
            .req = {
                [VHCA_QPT_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
                [VHCA_QPT_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
                                A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
            },
            .opt = {
                [VHCA_QPT_UD] = A(PKEY_INDEX) | A(QKEY),
                [VHCA_QPT_UC] = A(ACCESS_FLAGS) | A(PKEY_INDEX),
                [VHCA_QPT_RC] = A(ACCESS_FLAGS) | A(PKEY_INDEX),
                [VHCA_QPT_SMI] = SPECIAL_QKEY,
                [VHCA_QPT_GSI] = SPECIAL_QKEY,
            },
        },
    },
    [VHCA_QPS_RTR] = {
        TO_RESET_AND_ERR,
        [VHCA_QPS_RTS] = {
            .valid = true,
            .req = {
                [VHCA_QPT_UD] = A(SQ_PSN),
                [VHCA_QPT_UC] = A(SQ_PSN),
                [VHCA_QPT_RC] = A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
                                A(SQ_PSN) | A(MAX_QP_RD_ATOMIC),
                [VHCA_QPT_SMI] = A(SQ_PSN),
                [VHCA_QPT_GSI] = A(SQ_PSN),
            },
            .opt = TO_RTS_OPTIONAL,
        },
    },
    [VHCA_QPS_RTS] = {
        TO_RESET_AND_ERR,
        [VHCA_QPS_RTS] = {
            .valid = true,
            .opt = TO_RTS_OPTIONAL,
        },
        [VHCA_QPS_SQD] = {
            .valid = true,
            .opt = {
                [VHCA_QPT_UD] = A(EN_SQD_ASYNC_NOTIFY),
                [VHCA_QPT_UC] = A(EN_SQD_ASYNC_NOTIFY),
                [VHCA_QPT_RC] = A(EN_SQD_ASYNC_NOTIFY),
                [VHCA_QPT_SMI] = A(EN_SQD_ASYNC_NOTIFY),
                [VHCA_QPT_GSI] = A(EN_SQD_ASYNC_NOTIFY),
            },
        },
    },
    [VHCA_QPS_SQD] = {
        TO_RESET_AND_ERR,
        [VHCA_QPS_RTS] = {
            .valid = true,
            .opt = TO_RTS_OPTIONAL,
        },
        [VHCA_QPS_SQD] = {
            .valid = true,
            .opt = {
                [VHCA_QPT_UD] = A(PKEY_INDEX) | A(QKEY),
                [VHCA_QPT_UC] = A(AV) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
                [VHCA_QPT_RC] = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) |
                                A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) |
                                A(MAX_DEST_RD_ATOMIC) | A(ACCESS_FLAGS) |
                                A(PKEY_INDEX) | A(MIN_RNR_TIMER),
                [VHCA_QPT_SMI] = SPECIAL_QKEY,
                [VHCA_QPT_GSI] = SPECIAL_QKEY,
            },
        },
    },
    [VHCA_QPS_SQE] = {
        TO_RESET_AND_ERR,
        [VHCA_QPS_RTS] = {
            .valid = true,
            .opt = {
                [VHCA_QPT_UD] = CUR_QKEY,
                [VHCA_QPT_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
                [VHCA_QPT_SMI] = CUR_QKEY,
                [VHCA_QPT_GSI] = CUR_QKEY,
            },
        },
    },
    [VHCA_QPS_ERR] = {
        TO_RESET_AND_ERR,
    },
};

/*
 * The XRC halves follow RC's rows (IBA A14.2.2; ib_modify_qp_is_ok() has
 * them so), less what each half has no use for: the initiator receives
 * nothing (no responder resources or RNR timer required into RTR), the
 * target sends nothing (no retry counts or initiator depth into RTS).
 */
static uint32_t vhca_qp_xrc_not_required(uint8_t type)
{
    return type == VHCA_QPT_XRC_INI ? A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER) :
           type == VHCA_QPT_XRC_TGT ? A(RETRY_CNT) | A(RNR_RETRY) |
                                      A(MAX_QP_RD_ATOMIC) : 0;
}

/* ib_modify_qp_is_ok(), over the table above. */
bool vhca_qp_transition_ok(uint8_t cur, uint8_t next, uint8_t type,
                           uint32_t mask, const char **why)
{
    const VhcaQpTransition *t;
    uint32_t relaxed = vhca_qp_xrc_not_required(type);
    uint32_t req, opt;

    if (vhca_qpt_is_xrc(type)) {
        type = VHCA_QPT_RC;
    }
    if (cur >= NSTATES || next >= NSTATES || type == 0 || type >= NTYPES) {
        *why = "state or type out of range";
        return false;
    }
    if ((mask & A(CUR_STATE)) && cur != VHCA_QPS_RTR &&
        cur != VHCA_QPS_RTS && cur != VHCA_QPS_SQD && cur != VHCA_QPS_SQE) {
        *why = "cur_state given outside RTR/RTS/SQD/SQE";
        return false;
    }
    t = &vhca_qp_table[cur][next];
    if (!t->valid) {
        *why = "transition not allowed";
        return false;
    }
    req = t->req[type] & ~relaxed;
    opt = t->opt[type] | (t->req[type] & relaxed);
    if ((mask & req) != req) {
        *why = "a required attribute is missing";
        return false;
    }
    if (mask & ~(req | opt | A(STATE))) {
        *why = "an attribute not allowed in this transition";
        return false;
    }
    return true;
}

/* Range checks of the attribute values named by the mask. */
static const char *vhca_qp_attr_error(VhcaState *s, const VhcaQp *qp,
                                      const struct vhca_qp_context *ctx,
                                      uint32_t mask)
{
    if ((mask & A(PKEY_INDEX)) &&
        le16_to_cpu(ctx->pkey_index) >= VHCA_PKEY_TABLE_LEN) {
        return "pkey_index out of range";
    }
    if ((mask & A(PORT)) && (ctx->port < 1 || ctx->port > s->num_ports)) {
        return "no such port";
    }
    if ((mask & A(AV)) && (ctx->av.port > s->num_ports ||
                           ctx->av.sgid_index >= VHCA_GID_TABLE_LEN)) {
        return "address vector port or sgid_index out of range";
    }
    if ((mask & A(PATH_MTU)) && (ctx->path_mtu < 1 || ctx->path_mtu > 5)) {
        return "path_mtu out of range";
    }
    if ((mask & A(DEST_QPN)) && le32_to_cpu(ctx->dest_qpn) > VHCA_DB_OBJ_MASK) {
        return "dest_qpn above 24 bits";
    }
    if ((mask & A(RQ_PSN)) && le32_to_cpu(ctx->rq_psn) > VHCA_DB_OBJ_MASK) {
        return "rq_psn above 24 bits";
    }
    if ((mask & A(SQ_PSN)) && le32_to_cpu(ctx->sq_psn) > VHCA_DB_OBJ_MASK) {
        return "sq_psn above 24 bits";
    }
    if ((mask & A(MAX_QP_RD_ATOMIC)) && ctx->max_rd_atomic > VHCA_MAX_RD_ATOM) {
        return "max_rd_atomic too big";
    }
    if ((mask & A(MAX_DEST_RD_ATOMIC)) &&
        ctx->max_dest_rd_atomic > VHCA_MAX_RD_ATOM) {
        return "max_dest_rd_atomic too big";
    }
    if ((mask & A(MIN_RNR_TIMER)) && ctx->min_rnr_timer > 31) {
        return "min_rnr_timer above 31";
    }
    if ((mask & A(TIMEOUT)) && ctx->timeout > 31) {
        return "timeout above 31";
    }
    if ((mask & A(RETRY_CNT)) && ctx->retry_cnt > 7) {
        return "retry_cnt above 7";
    }
    if ((mask & A(RNR_RETRY)) && ctx->rnr_retry > 7) {
        return "rnr_retry above 7";
    }
    if ((mask & A(ACCESS_FLAGS)) &&
        (le32_to_cpu(ctx->access_flags) & ~(VHCA_ACCESS_LOCAL_WRITE |
         VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ |
         VHCA_ACCESS_REMOTE_ATOMIC | VHCA_ACCESS_FLUSH))) {
        return "unknown access flags";
    }
    return NULL;
}

static void vhca_qp_apply(VhcaQp *qp, const struct vhca_qp_context *ctx,
                          uint32_t mask)
{
    if (mask & A(PKEY_INDEX)) {
        qp->pkey_index = le16_to_cpu(ctx->pkey_index);
    }
    if (mask & A(PORT)) {
        qp->port = ctx->port;
    }
    if (mask & A(QKEY)) {
        qp->qkey = le32_to_cpu(ctx->qkey);
    }
    if (mask & A(AV)) {
        qp->av = ctx->av;
    }
    if (mask & A(PATH_MTU)) {
        qp->path_mtu = ctx->path_mtu;
    }
    if (mask & A(DEST_QPN)) {
        qp->dest_qpn = le32_to_cpu(ctx->dest_qpn);
    }
    if (mask & A(RQ_PSN)) {
        qp->rq_psn = le32_to_cpu(ctx->rq_psn);
    }
    if (mask & A(SQ_PSN)) {
        qp->sq_psn = le32_to_cpu(ctx->sq_psn);
    }
    if (mask & A(MAX_QP_RD_ATOMIC)) {
        qp->max_rd_atomic = ctx->max_rd_atomic;
    }
    if (mask & A(MAX_DEST_RD_ATOMIC)) {
        qp->max_dest_rd_atomic = ctx->max_dest_rd_atomic;
    }
    if (mask & A(MIN_RNR_TIMER)) {
        qp->min_rnr_timer = ctx->min_rnr_timer;
    }
    if (mask & A(TIMEOUT)) {
        qp->timeout = ctx->timeout;
    }
    if (mask & A(RETRY_CNT)) {
        qp->retry_cnt = ctx->retry_cnt;
    }
    if (mask & A(RNR_RETRY)) {
        qp->rnr_retry = ctx->rnr_retry;
    }
    if (mask & A(ACCESS_FLAGS)) {
        qp->access_flags = le32_to_cpu(ctx->access_flags);
    }
    if (mask & A(EN_SQD_ASYNC_NOTIFY)) {
        qp->en_sqd_async_notify = ctx->en_sqd_async_notify;
    }
}

/* IBA 10.3.1: RESET forgets the queues' contents (no completions). */
static void vhca_qp_to_reset(VhcaQp *qp)
{
    vhca_rc_reset_qp(qp);
    qp->comm_est_sent = false;
    qp->sq.pi = qp->sq.ci = 0;
    qp->rq.pi = qp->rq.ci = 0;
    qp->sq.dbrec_bad = qp->rq.dbrec_bad = false;
    qp->state = VHCA_QPS_RESET;
}

uint8_t vhca_cmd_modify_qp(VhcaState *s, uint32_t handle, uint64_t in_addr)
{
    VhcaQp *qp = vhca_qp_get(s, handle);
    struct vhca_qp_context ctx;
    const char *why = NULL;
    uint32_t mask;
    uint8_t next;

    if (!qp) {
        trace_vhca_qp_reject("modify: no such QP", handle);
        return VHCA_CMD_BAD_HANDLE;
    }
    if (vhca_dma_read(s, in_addr, &ctx, sizeof(ctx)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    mask = le32_to_cpu(ctx.attr_mask);
    next = (mask & A(STATE)) ? ctx.state : qp->state;
    if ((mask & A(CUR_STATE)) && ctx.cur_state != qp->state) {
        why = "cur_state is not the QP's state";
    } else if (!vhca_qp_transition_ok(qp->state, next, qp->type, mask, &why)) {
        /* why set */
    } else {
        why = vhca_qp_attr_error(s, qp, &ctx, mask);
        if (why) {
            qemu_log_mask(LOG_GUEST_ERROR, "vhca: MODIFY_QP %u: %s\n",
                          handle, why);
            trace_vhca_qp_reject(why, handle);
            return VHCA_CMD_BAD_PARAM;
        }
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: MODIFY_QP %u %u->%u mask 0x%x: "
                      "%s\n", handle, qp->state, next, mask, why);
        trace_vhca_qp_reject(why, handle);
        return VHCA_CMD_BAD_STATE;
    }
    vhca_qp_apply(qp, &ctx, mask);
    trace_vhca_qp_modify(handle, qp->state, next, mask);
    if (next == qp->state) {
        return VHCA_CMD_OK;
    }
    switch (next) {
    case VHCA_QPS_RESET:
        vhca_qp_to_reset(qp);
        break;
    case VHCA_QPS_INIT:
        if (qp->type == VHCA_QPT_SMI || qp->type == VHCA_QPT_GSI) {
            qp->port = qp->special_port;
        }
        qp->state = next;
        break;
    case VHCA_QPS_ERR:
        vhca_qp_to_error(s, qp);
        break;
    case VHCA_QPS_SQD:
        /*
         * Execution is synchronous; a WQE waiting for an RNR or ACK
         * timeout retry stays at the head of the queue until RTS.  Across
         * the wire the requests in flight are answered (and resent) first
         * (vhca_rc_window_sqd).
         */
        qp->state = next;
        if (qp->en_sqd_async_notify && !vhca_rc_window_sqd(s, qp)) {
            vhca_qp_event(s, qp, VHCA_QP_EV_SQ_DRAINED);
        }
        break;
    case VHCA_QPS_RTS:
        qp->state = next;
        qemu_bh_schedule(s->transport_bh);
        break;
    default:
        qp->state = next;
        break;
    }
    return VHCA_CMD_OK;
}
