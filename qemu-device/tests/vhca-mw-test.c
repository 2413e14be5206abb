/*
 * QTest testcase for vhca: memory windows (IBA 10.6.7) - ALLOC_MW and
 * DEALLOC_MW, BIND_MW WQEs of type 1 and type 2 windows, remote access
 * through a window's key checked against its range, rights and QP, local
 * and remote invalidation, and every refused bind.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define MW_REMOTE (VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ)
#define MR_BINDABLE (VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_MW_BIND)

static uint8_t mw_alloc(Dp *dp, uint32_t pd, uint8_t type, uint8_t variant,
                        uint32_t *key)
{
    struct vhca_cmd cmd;
    uint32_t result[2] = { 0 };
    uint8_t status;

    cmd_init(dp->v, &cmd, VHCA_CMD_ALLOC_MW);
    cmd.in.raw[0] = pd;
    cmd.in.raw[4] = type;
    cmd.in.raw[5] = variant;
    status = dp_exec(dp, &cmd, result);
    *key = result[0];
    return status;
}

static void mw_bind(Dp *dp, DpQp *qp, uint64_t wr_id, uint32_t mw_key,
                    uint32_t mr_key, uint64_t addr, uint64_t len,
                    uint32_t access)
{
    struct vhca_wqe_bind_mw *b;
    DpWqe w;

    dp_wqe(&w, wr_id, VHCA_WQE_BIND_MW, VHCA_WQE_F_SIGNALED);
    b = (void *)(w.b + w.off);
    b->mw_key = cpu_to_le32(mw_key);
    b->mr_key = cpu_to_le32(mr_key);
    b->addr = cpu_to_le64(addr);
    b->length = cpu_to_le64(len);
    b->access = cpu_to_le32(access);
    w.off += sizeof(*b);
    dp_post_send(dp, qp, &w);
}

static void mw_inv(Dp *dp, DpQp *qp, uint64_t wr_id, uint8_t opcode,
                   uint32_t key, uint64_t addr, uint32_t lkey)
{
    struct vhca_wqe_ctrl *c;
    DpWqe w;

    dp_wqe(&w, wr_id, opcode, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = cpu_to_le32(key);
    if (opcode == VHCA_WQE_SEND_WITH_INV) {
        dp_wqe_sge(&w, addr, 16, lkey);
    }
    dp_post_send(dp, qp, &w);
}

/* A writes 64 bytes through rkey at raddr: the status A sees (after a
 * refusal B's QP reports the access error; the pair is then spent). */
static uint8_t mw_write(Dp *dp, DpPair *p, uint64_t wr_id, uint64_t raddr,
                        uint32_t rkey, const DpMem *m)
{
    struct vhca_cqe cqe;

    dp_write(dp, &p->a, wr_id, raddr, rkey, m->a, 64, m->akey);
    g_assert_true(dp_poll_cq(dp, &p->acq, &cqe));
    if (cqe.status == VHCA_WC_REM_ACCESS_ERR) {
        g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT,
                                    VHCA_QP_EV_ACCESS_ERR, p->b.h));
    }
    return cqe.status;
}

static void expect_bind(Dp *dp, DpQp *qp, DpCq *cq, uint8_t status)
{
    struct vhca_cqe cqe;

    dp_expect_cqe(dp, cq, &cqe, status);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_BIND_MW);
}

static void test_mw_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_device_attr attr;
    struct vhca_cmd cmd;
    uint32_t key, key2, mr, result[2];
    uint64_t buf = dp_alloc(dp, 4096);

    cmd_init(dp->v, &cmd, VHCA_CMD_QUERY_DEVICE);
    cmd_out(dp->v, &cmd, sizeof(attr));
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_OK);
    qtest_memread(dp->v->qts, dp->v->buf, &attr, sizeof(attr));
    g_assert_cmphex(le32_to_cpu(attr.dev_caps) &
                    (VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2), ==,
                    VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2);
    g_assert_cmpuint(le32_to_cpu(attr.max_mw), ==, le32_to_cpu(attr.max_mr));

    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_1, 0x21, &key), ==,
                     VHCA_CMD_OK);
    g_assert_cmphex(key & 0xff, ==, 0x21);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_2, 0x22, &key2), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(key >> 8, !=, key2 >> 8);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, 0, 0, &result[0]), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, 3, 0, &result[0]), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(mw_alloc(dp, 999, VHCA_MW_TYPE_1, 0, &result[0]), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* Windows and regions share keys, not commands. */
    mr = dp_mr_phys(dp, dp->pd, buf, 4096, MR_BINDABLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW, mr, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW, 4000u << 8, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* A window holds its PD. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, mr, NULL), ==,
                     VHCA_CMD_OK);
    /* Any variant names the window (binds change it). */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW, key ^ 1, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_PD, dp->pd, NULL), ==,
                     VHCA_CMD_BUSY);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW, key2, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW, key2, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_stop(dp);
}

/* Type 1: bound and rebound on any QP of the PD, unbound by length 0. */
static void test_mw_type1(void)
{
    Dp *dp = dp_start();
    uint32_t mw, mr, key;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 64, 7);
    mr = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, MR_BINDABLE);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_1, 0x30, &mw), ==,
                     VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    /* Not bound: refused. */
    g_assert_cmpuint(mw_write(dp, &p, 1, m.b, mw, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key = (mw & ~0xffu) | 0x31;
    mw_bind(dp, &p.b, 0xb1, key, mr, m.b + 4096, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    g_assert_cmpuint(mw_write(dp, &p, 2, m.b + 8192 - 64, key, &m), ==,
                     VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b + 8192 - 64, 64);
    g_assert_cmpuint(mw_write(dp, &p, 3, m.b + 8192, key, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);   /* past the window */

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    g_assert_cmpuint(mw_write(dp, &p, 4, m.b + 4096, mw, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);   /* the old variant */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    /* A region with bound windows stays as it is. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, mr, NULL), ==,
                     VHCA_CMD_BUSY);
    {
        struct vhca_cmd_create_mr in;

        memset(&in, 0, sizeof(in));
        in.iova = cpu_to_le64(m.b);
        in.length = cpu_to_le64(4096);
        in.pdn = cpu_to_le32(dp->pd);
        in.access = cpu_to_le32(MR_BINDABLE);
        in.flags = VHCA_MR_F_PHYSICAL;
        g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_REREG_MR, mr, &in, sizeof(in),
                                    NULL), ==, VHCA_CMD_BUSY);
    }
    /* Rebind on another QP of the PD (the window follows), then unbind. */
    mw_bind(dp, &p.a, 0xa1, key, mr, m.b, 4096, VHCA_ACCESS_REMOTE_WRITE);
    expect_bind(dp, &p.a, &p.acq, VHCA_WC_SUCCESS);
    g_assert_cmpuint(mw_write(dp, &p, 5, m.b, key, &m), ==, VHCA_WC_SUCCESS);
    mw_bind(dp, &p.b, 0xb2, key, mr, m.b, 0, 0);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    g_assert_cmpuint(mw_write(dp, &p, 6, m.b, key, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, mr, NULL), ==,
                     VHCA_CMD_OK);
    dp_stop(dp);
}

/* Type 2: bound to one QP, used and invalidated only through it. */
static void test_mw_type2(void)
{
    Dp *dp = dp_start();
    uint32_t mw, mr, key;
    struct vhca_cqe cqe;
    DpPair p, other;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    mr = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, MR_BINDABLE);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_2, 0x40, &mw), ==,
                     VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key = (mw & ~0xffu) | 0x41;
    mw_bind(dp, &p.b, 0xb1, key, mr, m.b, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    g_assert_cmpuint(mw_write(dp, &p, 1, m.b, key, &m), ==, VHCA_WC_SUCCESS);
    /* Another connection of the PD cannot use it, nor invalidate it. */
    dp_pair(dp, &other, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    g_assert_cmpuint(mw_write(dp, &other, 2, m.b, key, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);
    dp_pair(dp, &other, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    mw_inv(dp, &other.b, 0xc1, VHCA_WQE_LOCAL_INV, key, 0, 0);
    dp_expect_cqe(dp, &other.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    /* Bound: a second bind fails until it is invalidated. */
    mw_bind(dp, &p.b, 0xb2, (key & ~0xffu) | 0x42, mr, m.b, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_MW_BIND_ERR);

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    g_assert_cmpuint(mw_write(dp, &p, 3, m.b, key, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);   /* bound to the old QP */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, mr, NULL), ==,
                     VHCA_CMD_BUSY);
    /* LOCAL_INV needs the QP it is bound to: the spent pair's B. */
    mw_inv(dp, &p.b, 0xb3, VHCA_WQE_LOCAL_INV, key, 0, 0);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_ACCESS_RIGHTS);
    dp_stop(dp);
}

/* Type 2 invalidation: LOCAL_INV on its QP, SEND_WITH_INV arriving on it. */
static void test_mw_type2_invalidate(void)
{
    Dp *dp = dp_start();
    uint32_t mw, mr, key;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    mr = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, MR_BINDABLE);
    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_2, 0x50, &mw), ==,
                     VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key = (mw & ~0xffu) | 0x51;
    mw_bind(dp, &p.b, 0xb1, key, mr, m.b, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    mw_inv(dp, &p.b, 0xb2, VHCA_WQE_LOCAL_INV, key, 0, 0);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_LOCAL_INV);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, mr, NULL), ==,
                     VHCA_CMD_OK);  /* nothing bound to it now */

    mr = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, MR_BINDABLE);
    key = (mw & ~0xffu) | 0x52;
    mw_bind(dp, &p.b, 0xb3, key, mr, m.b, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    g_assert_cmpuint(mw_write(dp, &p, 1, m.b, key, &m), ==, VHCA_WC_SUCCESS);
    dp_post_recv(dp, &p.b, 0xb4, m.b + 8192, 64, mr, 0, 0);
    mw_inv(dp, &p.a, 2, VHCA_WQE_SEND_WITH_INV, key, m.a, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.flags, ==, VHCA_CQE_F_INV);
    g_assert_cmphex(le32_to_cpu(cqe.imm_inv), ==, key);
    g_assert_cmpuint(mw_write(dp, &p, 3, m.b, key, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);
    /* Free again: it binds with a new variant. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    mw_bind(dp, &p.b, 0xb5, (key & ~0xffu) | 0x53, mr, m.b, 64, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    /* Deallocated while bound: its key is gone. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_MW,
                               (key & ~0xffu) | 0x53, NULL), ==, VHCA_CMD_OK);
    g_assert_cmpuint(mw_write(dp, &p, 4, m.b, (key & ~0xffu) | 0x53, &m), ==,
                     VHCA_WC_REM_ACCESS_ERR);
    dp_stop(dp);
}

/* Binds the device refuses (MW_BIND_ERR), and keys used where they may not. */
static void test_mw_refused(void)
{
    Dp *dp = dp_start();
    uint32_t mw, mr, plain, readonly, other_pd, other_mw, result[2];
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpQp ud;
    DpCq udcq;
    DpWqe w;
    static const struct {
        const char *what;
        int mr;                 /* 0 mr, 1 plain, 2 readonly */
        uint64_t off, len;
        uint32_t access;
        uint8_t verr;
    } cases[] = {
        { "region without MW_BIND", 1, 0, 64, MW_REMOTE,
          VHCA_VERR_ACCESS_RIGHTS },
        { "past the region", 0, DP_BUF_SIZE - 32, 64, MW_REMOTE,
          VHCA_VERR_BOUNDS },
        { "remote write, region without local write", 2, 0, 64,
          VHCA_ACCESS_REMOTE_WRITE, VHCA_VERR_ACCESS_RIGHTS },
        { "a local right", 0, 0, 64, VHCA_ACCESS_LOCAL_WRITE,
          VHCA_VERR_ACCESS_RIGHTS },
    };
    uint32_t keys[3];
    size_t i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    mr = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, MR_BINDABLE);
    plain = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, VHCA_ACCESS_LOCAL_WRITE);
    readonly = dp_mr_phys(dp, dp->pd, m.b, DP_BUF_SIZE, VHCA_ACCESS_MW_BIND);
    keys[0] = mr;
    keys[1] = plain;
    keys[2] = readonly;
    g_assert_cmpuint(mw_alloc(dp, dp->pd, VHCA_MW_TYPE_1, 0x60, &mw), ==,
                     VHCA_CMD_OK);
    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
        mw_bind(dp, &p.b, i, mw, keys[cases[i].mr], m.b + cases[i].off,
                cases[i].len, cases[i].access);
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_MW_BIND_ERR);
        g_test_message("%s: vendor_err %u", cases[i].what, cqe.vendor_err);
        g_assert_cmpuint(cqe.vendor_err, ==, cases[i].verr);
    }
    /* A window of another PD. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    other_pd = result[0];
    g_assert_cmpuint(mw_alloc(dp, other_pd, VHCA_MW_TYPE_2, 0x61, &other_mw),
                     ==, VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    mw_bind(dp, &p.b, 9, other_mw, mr, m.b, 64, MW_REMOTE);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_MW_BIND_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_PD_MISMATCH);
    /* A window's key as an lkey: windows give remote access only. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    mw_bind(dp, &p.b, 10, mw, mr, m.b, 4096, MW_REMOTE);
    expect_bind(dp, &p.b, &p.bcq, VHCA_WC_SUCCESS);
    dp_send(dp, &p.b, 11, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.b, 16, mw);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_BAD_KEY);
    /* Binding is for connected QPs (IBA 10.6.7.2). */
    dp_create_cq(dp, &udcq, DP_CQ_LOG);
    dp_create_qp(dp, &ud, VHCA_QPT_UD, &udcq, &udcq);
    g_assert_cmpuint(dp_to_init(dp, &ud, 1, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &ud, 0, 0, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &ud, 0), ==, VHCA_CMD_OK);
    dp_wqe(&w, 12, VHCA_WQE_BIND_MW, VHCA_WQE_F_SIGNALED);
    w.off += sizeof(struct vhca_wqe_bind_mw);
    dp_post_send(dp, &ud, &w);
    dp_expect_cqe(dp, &udcq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_BAD_WQE);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/mw/commands", test_mw_commands);
    qtest_add_func("/vhca/mw/type1", test_mw_type1);
    qtest_add_func("/vhca/mw/type2", test_mw_type2);
    qtest_add_func("/vhca/mw/type2-invalidate", test_mw_type2_invalidate);
    qtest_add_func("/vhca/mw/refused", test_mw_refused);
    return g_test_run();
}
