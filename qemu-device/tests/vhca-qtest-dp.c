/*
 * vhca qtest library: the data path (vhca-qtest-dp.h): commands, EQ events,
 * CQs, QPs and their states, MRs, SRQs.  The work requests posted to them
 * are in vhca-qtest-wqe.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

/* Run a command; EQ 0 events that arrive meanwhile are kept in dp. */
uint8_t dp_exec(Dp *dp, struct vhca_cmd *cmd, uint32_t result[2])
{
    Vhca *v = dp->v;
    struct vhca_eqe eqe;

    vhca_submit(v, cmd);
    for (;;) {
        vhca_next_eqe(v, &eqe);
        if (eqe.type == VHCA_EQE_CMD_DONE) {
            break;
        }
        g_assert_cmpint(dp->nevents, <, DP_MAX_EVENTS);
        dp->events[dp->nevents++] = eqe;
    }
    g_assert_cmphex(le32_to_cpu(eqe.data.cmd_done.token), ==,
                    le32_to_cpu(cmd->token));
    if (result) {
        result[0] = le32_to_cpu(eqe.data.cmd_done.result[0]);
        result[1] = le32_to_cpu(eqe.data.cmd_done.result[1]);
    }
    return eqe.data.cmd_done.status;
}

/* Collect pending EQ 0 events (they come without a command). */
void dp_poll_events(Dp *dp)
{
    struct vhca_eqe eqe;

    while (vhca_try_eqe(dp->v, &eqe, 20)) {
        g_assert_cmpint(eqe.type, !=, VHCA_EQE_CMD_DONE);
        g_assert_cmpint(dp->nevents, <, DP_MAX_EVENTS);
        dp->events[dp->nevents++] = eqe;
    }
}

/* Whether an event of this type/subtype for handle was seen (and drop it). */
bool dp_take_event(Dp *dp, uint8_t type, uint8_t subtype,
                   uint32_t handle)
{
    int i;

    dp_poll_events(dp);
    for (i = 0; i < dp->nevents; i++) {
        if (dp->events[i].type == type && dp->events[i].subtype == subtype &&
            le32_to_cpu(dp->events[i].data.object.handle) == handle) {
            dp->events[i] = dp->events[--dp->nevents];
            return true;
        }
    }
    return false;
}

uint8_t dp_simple(Dp *dp, uint16_t opcode, uint32_t handle,
                  uint32_t result[2])
{
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, opcode);
    cmd.in.handle.handle = cpu_to_le32(handle);
    return dp_exec(dp, &cmd, result);
}

/* A command whose input structure is at v->buf. */
uint8_t dp_exec_in(Dp *dp, uint16_t opcode, uint32_t handle,
                   const void *in, uint32_t len, uint32_t result[2])
{
    struct vhca_cmd cmd;

    qtest_memwrite(dp->v->qts, dp->v->buf, in, len);
    cmd_init(dp->v, &cmd, opcode);
    cmd.in.handle.handle = cpu_to_le32(handle);
    cmd.in_addr = cpu_to_le64(dp->v->buf);
    cmd.in_len = cpu_to_le32(len);
    return dp_exec(dp, &cmd, result);
}

uint64_t dp_alloc(Dp *dp, uint64_t size)
{
    uint64_t addr = guest_alloc(&(dp->mem ? dp->mem : dp->v)->alloc, size);

    g_assert(addr);
    qtest_memset(dp->v->qts, addr, 0, size);
    return addr;
}

void dp_db64(Vhca *v, uint32_t page, uint32_t offset, uint64_t val)
{
    qpci_io_writeq(v->dev, v->db, (uint64_t)page * VHCA_DB_PAGE_SIZE + offset,
                   val);
}

/* A completion EQ on vector 1, a PD; the ports as they are. */
void dp_setup_eq_pd(Dp *dp)
{
    uint32_t result[2];

    dp->eq_ring = dp_alloc(dp, 4096);
    g_assert_cmpuint(vhca_create_eq(dp->v, dp->eq_ring, 7, 1, &dp->eqn), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    dp->pd = result[0];
}

/* Ports ACTIVE (LIDs known), a completion EQ on vector 1, a PD. */
void dp_setup(Dp *dp, int ports)
{
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];
    int port;

    vhca_bringup(dp->v);
    g_assert_cmpint(vhca_collect_port_events(dp->v, ev, 8), ==, ports);
    for (port = 1; port <= ports; port++) {
        g_assert_cmpuint(vhca_query_port(dp->v, port, &attr), ==, VHCA_CMD_OK);
        g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
        dp->lid[port] = le16_to_cpu(attr.lid);
    }
    dp_setup_eq_pd(dp);
}

/* As dp_start_with, but the ports are left as the fabric has them. */
Dp *dp_start_unmanaged(const char *extra)
{
    Dp *dp = g_new0(Dp, 1);

    dp->v = vhca_start(extra);
    vhca_bringup(dp->v);
    dp_setup_eq_pd(dp);
    return dp;
}

/* extra: more -device properties (",name=value..."), or NULL. */
Dp *dp_start_with(const char *extra)
{
    Dp *dp = g_new0(Dp, 1);

    dp->v = vhca_start(extra);
    dp_setup(dp, 2);
    return dp;
}

Dp *dp_start(void)
{
    return dp_start_with(NULL);
}

void dp_stop(Dp *dp)
{
    g_assert_cmpint(dp->nevents, ==, 0);
    vhca_assert_alive(dp->v);
    vhca_stop(dp->v);
    g_free(dp);
}

uint64_t dp_qom_get_uint(Dp *dp, const char *name)
{
    QDict *rsp = qtest_qmp(dp->v->qts, "{'execute': 'qom-get', 'arguments':"
                           " {'path': 'vhca0', 'property': %s}}", name);
    uint64_t value;

    g_assert(qdict_haskey(rsp, "return"));
    value = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return value;
}

void dp_qom_set_uint(Dp *dp, const char *name, uint64_t value)
{
    QDict *rsp = qtest_qmp(dp->v->qts, "{'execute': 'qom-set', 'arguments':"
                           " {'path': 'vhca0', 'property': %s, 'value': %"
                           PRIu64 "}}", name, value);

    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

void dp_buf_contig(struct vhca_buf_desc *d, uint64_t addr,
                   uint64_t bytes)
{
    memset(d, 0, sizeof(*d));
    d->addr = cpu_to_le64(addr);
    d->npages = cpu_to_le32(DIV_ROUND_UP(bytes, 4096));
    d->page_shift = 12;
    d->mode = VHCA_BUF_CONTIG;
}

uint8_t dp_create_cq_at(Dp *dp, DpCq *cq, uint8_t log, uint32_t eqn,
                        uint32_t db_page)
{
    struct vhca_cmd_create_cq in;
    uint32_t result[2];
    uint8_t status;

    /*
     * The qtest guest has 128 MiB: rings of more than 2^16 CQEs are not
     * allocated (nor described whole), so a larger log_size is refused
     * (BAD_PARAM), by its value or by its too small buffer.
     */
    uint64_t bytes = MAX(64ull << MIN(log, 16), 4096);

    memset(cq, 0, sizeof(*cq));
    cq->log = log;
    cq->ring = dp_alloc(dp, bytes);
    cq->dbrec = dp_alloc(dp, 4096);
    memset(&in, 0, sizeof(in));
    dp_buf_contig(&in.buf, cq->ring, bytes);
    in.dbrec_addr = cpu_to_le64(cq->dbrec);
    in.eqn = cpu_to_le32(eqn);
    in.db_page = cpu_to_le32(db_page);
    in.log_size = log;
    status = dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in), result);
    cq->cqn = result[0];
    return status;
}

void dp_create_cq(Dp *dp, DpCq *cq, uint8_t log)
{
    g_assert_cmpuint(dp_create_cq_at(dp, cq, log, dp->eqn, 0), ==,
                     VHCA_CMD_OK);
}

/* The next CQE, or false; consumes it and updates the doorbell record. */
bool dp_poll_cq(Dp *dp, DpCq *cq, struct vhca_cqe *cqe)
{
    uint64_t off = (uint64_t)(cq->ci & ((1u << cq->log) - 1)) * 64;
    uint64_t slot = cq->pages[0] ? cq->pages[off >> 12] + (off & 4095)
                                 : cq->ring + off;

    qtest_memread(dp->v->qts, slot, cqe, sizeof(*cqe));
    if ((cqe->owner & 1) != vhca_eqe_owner(cq->ci, cq->log)) {
        return false;
    }
    cq->ci++;
    qtest_writel(dp->v->qts, cq->dbrec, cq->ci);
    return true;
}

void dp_expect_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe,
                   uint8_t status)
{
    g_assert_true(dp_poll_cq(dp, cq, cqe));
    g_assert_cmpuint(cqe->status, ==, status);
}

void dp_expect_no_cqe(Dp *dp, DpCq *cq)
{
    struct vhca_cqe cqe;

    g_assert_false(dp_poll_cq(dp, cq, &cqe));
}

void dp_step_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe, int64_t step_ns,
                 int steps, uint8_t status)
{
    int i;

    for (i = 0; i < steps && !dp_poll_cq(dp, cq, cqe); i++) {
        qtest_clock_step(dp->v->qts, step_ns);
    }
    g_assert_cmpint(i, <, steps);
    g_assert_cmpuint(cqe->status, ==, status);
}

static uint8_t dp_create_qp_rec(Dp *dp, DpQp *qp, uint8_t type, uint8_t port,
                                DpCq *scq, DpCq *rcq, uint32_t pd,
                                uint64_t dbrec, uint64_t sq_dbrec)
{
    struct vhca_cmd_create_qp in;
    uint32_t result[2];
    uint8_t status;

    memset(qp, 0, sizeof(*qp));
    qp->type = type;
    qp->scq = scq;
    qp->rcq = rcq;
    qp->sq_log = DP_WQ_LOG;
    qp->sq = dp_alloc(dp, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
    qp->rq = dp_alloc(dp, 4096);
    memset(&in, 0, sizeof(in));
    in.type = type;
    in.port = port;
    in.sq_log_size = DP_WQ_LOG;
    in.rq_log_size = DP_WQ_LOG;
    in.sq_wqe_shift = DP_SQ_SHIFT;
    in.rq_wqe_shift = DP_RQ_SHIFT;
    in.pdn = cpu_to_le32(pd);
    in.send_cqn = cpu_to_le32(scq->cqn);
    in.recv_cqn = cpu_to_le32(rcq->cqn);
    in.max_inline = cpu_to_le32(128);
    dp_buf_contig(&in.sq_buf, qp->sq, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
    dp_buf_contig(&in.rq_buf, qp->rq, 1u << (DP_WQ_LOG + DP_RQ_SHIFT));
    in.rq_dbrec_addr = cpu_to_le64(dbrec);
    qp->rq_dbrec = dbrec;
    in.sq_dbrec_addr = cpu_to_le64(sq_dbrec);
    qp->sq_dbrec = sq_dbrec;
    status = dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &in, sizeof(in), result);
    qp->h = result[0];
    return status;
}

uint8_t dp_create_qp_full(Dp *dp, DpQp *qp, uint8_t type, uint8_t port,
                          DpCq *scq, DpCq *rcq, uint32_t pd)
{
    return dp_create_qp_rec(dp, qp, type, port, scq, rcq, pd, 0, 0);
}

uint8_t dp_create_qp_dbrec(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                           DpCq *rcq, uint64_t dbrec)
{
    return dp_create_qp_rec(dp, qp, type, 0, scq, rcq, dp->pd, dbrec, 0);
}

uint8_t dp_create_qp_sq_dbrec(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                              DpCq *rcq, uint64_t sq_dbrec)
{
    return dp_create_qp_rec(dp, qp, type, 0, scq, rcq, dp->pd, 0, sq_dbrec);
}

void dp_create_qp(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                  DpCq *rcq)
{
    g_assert_cmpuint(dp_create_qp_full(dp, qp, type, 0, scq, rcq, dp->pd), ==,
                     VHCA_CMD_OK);
}

uint8_t dp_modify(Dp *dp, DpQp *qp, struct vhca_qp_context *ctx)
{
    return dp_exec_in(dp, VHCA_CMD_MODIFY_QP, qp->h, ctx, sizeof(*ctx), NULL);
}

void dp_ctx(struct vhca_qp_context *ctx, uint8_t state, uint32_t mask)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->state = state;
    ctx->attr_mask = cpu_to_le32(mask | VHCA_QP_ATTR_STATE);
}

uint8_t dp_to_init(Dp *dp, DpQp *qp, uint8_t port, uint32_t access)
{
    struct vhca_qp_context ctx;

    if (qp->type == VHCA_QPT_UD) {
        dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PKEY_INDEX |
               VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_QKEY);
        ctx.qkey = cpu_to_le32(DP_QKEY);
    } else {
        dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PKEY_INDEX |
               VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_ACCESS_FLAGS);
        ctx.access_flags = cpu_to_le32(access);
    }
    ctx.port = port;
    return dp_modify(dp, qp, &ctx);
}

uint8_t dp_to_rtr(Dp *dp, DpQp *qp, uint16_t dlid, uint32_t dest_qpn,
                  uint8_t min_rnr_timer)
{
    struct vhca_qp_context ctx;

    if (qp->type == VHCA_QPT_UD) {
        dp_ctx(&ctx, VHCA_QPS_RTR, 0);
        return dp_modify(dp, qp, &ctx);
    }
    dp_ctx(&ctx, VHCA_QPS_RTR, VHCA_QP_ATTR_AV | VHCA_QP_ATTR_PATH_MTU |
           VHCA_QP_ATTR_DEST_QPN | VHCA_QP_ATTR_RQ_PSN |
           (qp->type == VHCA_QPT_RC || qp->type == VHCA_QPT_XRC_TGT ?
            VHCA_QP_ATTR_MAX_DEST_RD_ATOMIC | VHCA_QP_ATTR_MIN_RNR_TIMER : 0));
    ctx.av.dlid = cpu_to_le16(dlid);
    ctx.path_mtu = 3;                   /* 1024: several packets per message */
    ctx.dest_qpn = cpu_to_le32(dest_qpn);
    ctx.rq_psn = cpu_to_le32(0x100);
    ctx.max_dest_rd_atomic = 4;
    ctx.min_rnr_timer = min_rnr_timer;
    return dp_modify(dp, qp, &ctx);
}

/* RTR -> RTS with the RC local ACK timeout and retry count given. */
uint8_t dp_to_rts_timers(Dp *dp, DpQp *qp, uint8_t rnr_retry,
                         uint8_t timeout, uint8_t retry_cnt)
{
    struct vhca_qp_context ctx;

    /* The XRC target sends nothing: a timeout but no retry counts. */
    dp_ctx(&ctx, VHCA_QPS_RTS, VHCA_QP_ATTR_SQ_PSN |
           (qp->type == VHCA_QPT_RC || qp->type == VHCA_QPT_XRC_INI ?
            VHCA_QP_ATTR_TIMEOUT | VHCA_QP_ATTR_RETRY_CNT |
            VHCA_QP_ATTR_RNR_RETRY | VHCA_QP_ATTR_MAX_QP_RD_ATOMIC :
            qp->type == VHCA_QPT_XRC_TGT ? VHCA_QP_ATTR_TIMEOUT : 0));
    ctx.sq_psn = cpu_to_le32(0x100);     /* the peer's rq_psn */
    ctx.timeout = timeout;
    ctx.retry_cnt = retry_cnt;
    ctx.rnr_retry = rnr_retry;
    ctx.max_rd_atomic = 4;
    return dp_modify(dp, qp, &ctx);
}

uint8_t dp_to_rts(Dp *dp, DpQp *qp, uint8_t rnr_retry)
{
    return dp_to_rts_timers(dp, qp, rnr_retry, DP_TIMEOUT, DP_RETRY_CNT);
}

uint8_t dp_set_state(Dp *dp, DpQp *qp, uint8_t state)
{
    struct vhca_qp_context ctx;

    dp_ctx(&ctx, state, 0);
    return dp_modify(dp, qp, &ctx);
}

void dp_pair_create(Dp *dp, DpPair *p, uint8_t type)
{
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dp, &p->bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p->a, type, &p->acq, &p->acq);
    dp_create_qp(dp, &p->b, type, &p->bcq, &p->bcq);
}

void dp_pair(Dp *dp, DpPair *p, uint8_t type, uint32_t b_access,
             uint8_t rnr_retry)
{
    dp_pair_create(dp, p, type);
    dp_pair_connect(dp, p, b_access, rnr_retry);
}

void dp_qps_to_rtr(Dp *dp, DpQp *a, uint32_t a_access, DpQp *b,
                   uint32_t b_access)
{
    g_assert_cmpuint(dp_to_init(dp, a, 1, a_access), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, b, 2, b_access), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, a, dp->lid[2], b->h, 1), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, b, dp->lid[1], a->h, 1), ==, VHCA_CMD_OK);
}

void dp_qps_to_rts(Dp *dp, DpQp *a, DpQp *b, uint8_t rnr_retry)
{
    g_assert_cmpuint(dp_to_rts(dp, a, rnr_retry), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, b, rnr_retry), ==, VHCA_CMD_OK);
}

void dp_pair_connect(Dp *dp, DpPair *p, uint32_t b_access, uint8_t rnr_retry)
{
    dp_qps_to_rtr(dp, &p->a, DP_ALL_ACCESS, &p->b, b_access);
    dp_qps_to_rts(dp, &p->a, &p->b, rnr_retry);
}

/* Two connected RC QPs of two devices: p->a on dp's port 2, p->b on dw's
 * port 1, each with its own CQ. */
void dp_pair_devices(Dp *dp, Dp *dw, DpPair *p)
{
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dw, &p->bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p->a, VHCA_QPT_RC, &p->acq, &p->acq);
    dp_create_qp(dw, &p->b, VHCA_QPT_RC, &p->bcq, &p->bcq);
    dp_pair_devices_connect(dp, dw, p);
}

void dp_pair_devices_connect(Dp *dp, Dp *dw, DpPair *p)
{
    g_assert_cmpuint(dp_to_init(dp, &p->a, 2, DP_ALL_ACCESS), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dw, &p->b, 1, DP_ALL_ACCESS), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p->a, dw->lid[1], p->b.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dw, &p->b, dp->lid[2], p->a.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p->a, 7), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dw, &p->b, 7), ==, VHCA_CMD_OK);
}

/* A region of B over shuffled pages (a DIRECT page list). */
uint32_t dp_mr_pages(Dp *dp, uint64_t iova, uint64_t *pages,
                     uint32_t access)
{
    struct vhca_cmd_create_mr in;
    uint64_t list = dp_alloc(dp, 4096);
    uint64_t raw[4];
    uint32_t key, i;

    for (i = 0; i < 4; i++) {
        pages[i] = dp_alloc(dp, 4096);
    }
    for (i = 0; i < 4; i++) {
        raw[i] = cpu_to_le64(pages[3 - i]);
    }
    qtest_memwrite(dp->v->qts, list, raw, sizeof(raw));
    dp_mr_desc(&in, dp->pd, iova, 4 * 4096, list, 4, VHCA_BUF_DIRECT);
    in.access = cpu_to_le32(access);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key), ==, VHCA_CMD_OK);
    return key;
}

/* QUERY_DEVICE's answer. */
void dp_query_device(Dp *dp, struct vhca_device_attr *attr)
{
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(dp->v, &cmd, sizeof(*attr));
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_OK);
    qtest_memread(dp->v->qts, dp->v->buf, attr, sizeof(*attr));
}

/* A physical (iova = DMA address) region. */
uint32_t dp_mr_phys(Dp *dp, uint32_t pd, uint64_t addr, uint64_t len,
                    uint32_t access)
{
    struct vhca_cmd_create_mr in;
    uint32_t result[2];

    memset(&in, 0, sizeof(in));
    in.iova = cpu_to_le64(addr);
    in.length = cpu_to_le64(len);
    in.pdn = cpu_to_le32(pd);
    in.access = cpu_to_le32(access);
    in.flags = VHCA_MR_F_PHYSICAL;
    in.key_variant = 0x5a;
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_MR, 0, &in, sizeof(in),
                                result), ==, VHCA_CMD_OK);
    g_assert_cmphex(result[0] & 0xff, ==, 0x5a);
    return result[0];
}

uint8_t dp_query_qp(Dp *dp, uint32_t h, struct vhca_qp_context *ctx)
{
    struct vhca_cmd cmd;
    uint8_t status;

    cmd_init(dp->v, &cmd, VHCA_CMD_QUERY_QP);
    cmd.in.handle.handle = cpu_to_le32(h);
    cmd_out(dp->v, &cmd, sizeof(*ctx));
    status = dp_exec(dp, &cmd, NULL);
    qtest_memread(dp->v->qts, dp->v->buf, ctx, sizeof(*ctx));
    return status;
}

uint32_t dp_alloc_mr(Dp *dp, uint8_t variant)
{
    struct vhca_cmd cmd;
    uint32_t result[2];

    cmd_init(dp->v, &cmd, VHCA_CMD_ALLOC_MR);
    cmd.in.raw[0] = dp->pd;
    cmd.in.raw[4] = 4;
    cmd.in.raw[8] = variant;
    g_assert_cmpuint(dp_exec(dp, &cmd, result), ==, VHCA_CMD_OK);
    return result[0];
}

/* SMI/GSI QPs of both ports: QPN 0/1 on the wire, own handles locally. */
void dp_special(Dp *dp, DpQp *qp, DpCq *cq, uint8_t type, uint8_t port)
{
    struct vhca_qp_context ctx;

    g_assert_cmpuint(dp_create_qp_full(dp, qp, type, port, cq, cq, dp->pd),
                     ==, VHCA_CMD_OK);
    dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PKEY_INDEX | VHCA_QP_ATTR_QKEY);
    ctx.qkey = cpu_to_le32(0x80010000);
    g_assert_cmpuint(dp_modify(dp, qp, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_set_state(dp, qp, VHCA_QPS_RTR), ==, VHCA_CMD_OK);
    dp_ctx(&ctx, VHCA_QPS_RTS, VHCA_QP_ATTR_SQ_PSN);
    g_assert_cmpuint(dp_modify(dp, qp, &ctx), ==, VHCA_CMD_OK);
}

void dp_mem(Dp *dp, DpMem *m, uint32_t b_access)
{
    m->a = dp_alloc(dp, DP_BUF_SIZE);
    m->b = dp_alloc(dp, DP_BUF_SIZE);
    m->akey = dp_mr_phys(dp, dp->pd, m->a, DP_BUF_SIZE, DP_ALL_ACCESS);
    m->bkey = dp_mr_phys(dp, dp->pd, m->b, DP_BUF_SIZE, b_access);
}

void dp_assert_state(Dp *dp, DpQp *qp, uint8_t state)
{
    struct vhca_qp_context ctx;

    g_assert_cmpuint(dp_query_qp(dp, qp->h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(ctx.state, ==, state);
}

void dp_expect_invalid_request(Dp *dp, DpPair *p, struct vhca_cqe *cqe)
{
    dp_expect_cqe(dp, &p->acq, cqe, VHCA_WC_REM_INV_REQ_ERR);
    dp_assert_state(dp, &p->b, VHCA_QPS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_REQ_ERR,
                                p->b.h));
}

uint8_t dp_create_mr_in(Dp *dp, struct vhca_cmd_create_mr *in,
                        uint32_t *key)
{
    uint32_t result[2] = { 0, 0 };
    uint8_t status = dp_exec_in(dp, VHCA_CMD_CREATE_MR, 0, in, sizeof(*in),
                                result);

    if (key) {
        *key = result[0];
    }
    return status;
}

uint32_t dp_dev_caps(Dp *dp)
{
    struct vhca_device_attr attr;
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(dp->v, &cmd, sizeof(attr));
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_OK);
    qtest_memread(dp->v->qts, dp->v->buf, &attr, sizeof(attr));
    return le32_to_cpu(attr.dev_caps);
}

void dp_mr_desc(struct vhca_cmd_create_mr *in, uint32_t pd,
                uint64_t iova, uint64_t len, uint64_t list,
                uint32_t npages, uint8_t mode)
{
    memset(in, 0, sizeof(*in));
    in->iova = cpu_to_le64(iova);
    in->length = cpu_to_le64(len);
    in->pdn = cpu_to_le32(pd);
    in->access = cpu_to_le32(VHCA_ACCESS_LOCAL_WRITE);
    in->pages.addr = cpu_to_le64(list);
    in->pages.npages = cpu_to_le32(npages);
    in->pages.page_shift = 12;
    in->pages.mode = mode;
}

/* Shared receive queues (vhca-srq-test.c, vhca-xrc-test.c). */
void dp_srq_in(Dp *dp, DpSrq *srq, struct vhca_cmd_create_srq *in,
               uint32_t pd, uint8_t shift)
{
    memset(srq, 0, sizeof(*srq));
    srq->ring = dp_alloc(dp, 4096);
    memset(in, 0, sizeof(*in));
    dp_buf_contig(&in->buf, srq->ring, 1u << (DP_WQ_LOG + DP_RQ_SHIFT));
    in->pdn = cpu_to_le32(pd);
    in->log_size = DP_WQ_LOG;
    in->wqe_shift = shift;
}

uint8_t dp_srq_exec(Dp *dp, DpSrq *srq, struct vhca_cmd_create_srq *in)
{
    uint32_t result[2] = { 0 };
    uint8_t status;

    srq->dbrec = le64_to_cpu(in->dbrec_addr);
    status = dp_exec_in(dp, VHCA_CMD_CREATE_SRQ, 0, in, sizeof(*in), result);
    srq->srqn = result[0];
    return status;
}

uint8_t dp_create_srq_rec(Dp *dp, DpSrq *srq, uint32_t pd, uint8_t shift,
                          uint32_t limit, uint64_t dbrec)
{
    struct vhca_cmd_create_srq in;

    dp_srq_in(dp, srq, &in, pd, shift);
    in.limit = cpu_to_le32(limit);
    in.dbrec_addr = cpu_to_le64(dbrec);
    return dp_srq_exec(dp, srq, &in);
}

uint8_t dp_create_srq(Dp *dp, DpSrq *srq, uint32_t pd, uint8_t shift,
                             uint32_t limit)
{
    return dp_create_srq_rec(dp, srq, pd, shift, limit, 0);
}

void dp_srq_post(Dp *dp, DpSrq *srq, uint64_t wr_id, uint64_t addr,
                        uint32_t len, uint32_t lkey)
{
    uint8_t b[1u << DP_RQ_SHIFT] = { 0 };
    struct vhca_rwqe_hdr *h = (void *)b;
    struct vhca_sge *s = (void *)(b + sizeof(*h));
    uint8_t log = srq->log_size ? srq->log_size : DP_WQ_LOG;
    uint64_t slot = srq->ring + ((uint64_t)(srq->pi & ((1u << log) - 1))
                                 << DP_RQ_SHIFT);

    h->wr_id = cpu_to_le64(wr_id);
    h->num_sge = 1;
    s->addr = cpu_to_le64(addr);
    s->length = cpu_to_le32(len);
    s->lkey = cpu_to_le32(lkey);
    qtest_memwrite(dp->v->qts, slot, b, sizeof(b));
    srq->pi++;
    if (srq->dbrec) {
        qtest_writel(dp->v->qts, srq->dbrec, srq->pi);
        return;
    }
    dp_db64(dp->v, 0, VHCA_DB_SRQ, vhca_db_data_value(srq->srqn, 0, srq->pi));
}

/* SET_PORT_CAP: bits of port's CapabilityMask set and cleared. */
uint8_t dp_set_port_cap(Dp *dp, uint8_t port, uint32_t set, uint32_t clear)
{
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, VHCA_CMD_SET_PORT_CAP);
    cmd.in.port_cap.port = port;
    cmd.in.port_cap.set = cpu_to_le32(set);
    cmd.in.port_cap.clear = cpu_to_le32(clear);
    return dp_exec(dp, &cmd, NULL);
}
