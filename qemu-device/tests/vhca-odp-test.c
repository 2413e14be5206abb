/*
 * QTest testcase for vhca: on-demand paging (uapi/vhca_hw_odp.h) - ODP
 * regions with absent pages, the page-fault event of a requester (the
 * send queue stops with the WQE at its head until ODP_RESUME) and of an
 * RC responder (RNR NAK, the requester sends again), ODP_MAP,
 * ODP_INVALIDATE (the device never touches invalidated pages; remapped to
 * other pages, the data goes there), ODP_RESUME, and every refused input.
 * Implicit regions (VHCA_MR_F_ODP_IMPLICIT): the whole address space, 64-bit
 * page indexes in ODP_MAP/ODP_INVALIDATE and the fault event, the sparse
 * table's budget.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define ODP_IOVA        0x7f0000001000ull
#define ODP_PAGES       3
#define ODP_LEN         (ODP_PAGES * 4096u)
#define RNR_TIMER_NS    10000   /* min_rnr_timer 1 of dp_pair: 10 us */

typedef struct Odp {
    uint32_t key;
    uint64_t pages[ODP_PAGES];
} Odp;

static void odp_desc(struct vhca_cmd_create_mr *in, uint32_t pd,
                     uint32_t access, uint32_t npages)
{
    dp_mr_desc(in, pd, ODP_IOVA, ODP_LEN, 0, npages, VHCA_BUF_DIRECT);
    in->access = cpu_to_le32(access);
    in->flags = VHCA_MR_F_ODP;
}

/* An ODP region of ODP_PAGES absent pages, and pages to map into it. */
static void odp_create(Dp *dp, Odp *o, uint32_t access)
{
    struct vhca_cmd_create_mr in;
    int i;

    odp_desc(&in, dp->pd, access, ODP_PAGES);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &o->key), ==, VHCA_CMD_OK);
    for (i = 0; i < ODP_PAGES; i++) {
        o->pages[i] = dp_alloc(dp, 4096);
        g_assert_cmphex(o->pages[i] & 4095, ==, 0);
    }
}

static uint8_t odp_cmd(Dp *dp, uint16_t opcode, uint32_t key, uint64_t first,
                       uint32_t npages, const uint64_t *pages,
                       uint32_t in_len)
{
    struct vhca_cmd_odp_range_in *r;
    struct vhca_cmd cmd;
    uint64_t le[8];
    uint32_t i;

    cmd_init(dp->v, &cmd, opcode);
    r = (void *)cmd.in.raw;
    r->key = cpu_to_le32(key);
    r->first_page = cpu_to_le32((uint32_t)first);
    r->first_page_hi = cpu_to_le32(first >> 32);
    r->npages = cpu_to_le32(npages);
    if (pages) {
        for (i = 0; i < npages && i < 8; i++) {
            le[i] = cpu_to_le64(pages[i]);
        }
        qtest_memwrite(dp->v->qts, dp->v->buf, le, 8 * MIN(npages, 8u));
        cmd.in_addr = cpu_to_le64(dp->v->buf);
        cmd.in_len = cpu_to_le32(in_len);
    }
    return dp_exec(dp, &cmd, NULL);
}

static uint8_t odp_map(Dp *dp, const Odp *o, uint32_t first, uint32_t n)
{
    return odp_cmd(dp, VHCA_CMD_ODP_MAP, o->key, first, n, &o->pages[first],
                   8 * n);
}

static uint8_t odp_inval(Dp *dp, const Odp *o, uint32_t first, uint32_t n)
{
    return odp_cmd(dp, VHCA_CMD_ODP_INVALIDATE, o->key, first, n, NULL, 0);
}

/* Take the one page-fault event of subtype for QP h; check what it names. */
static void expect_fault(Dp *dp, uint8_t subtype, uint32_t h, uint32_t key,
                         uint64_t addr, uint32_t len, uint8_t flags)
{
    struct vhca_eqe_page_fault pf;
    int i;

    dp_poll_events(dp);
    for (i = 0; i < dp->nevents; i++) {
        if (dp->events[i].type == VHCA_EQE_PAGE_FAULT) {
            break;
        }
    }
    g_assert_cmpint(i, <, dp->nevents);
    g_assert_cmpuint(dp->events[i].subtype, ==, subtype);
    memcpy(&pf, dp->events[i].data.raw, sizeof(pf));
    dp->events[i] = dp->events[--dp->nevents];
    g_assert_cmphex(le32_to_cpu(pf.qpn), ==, h);
    g_assert_cmphex(le32_to_cpu(pf.key), ==, key);
    g_assert_cmphex(le64_to_cpu(pf.addr), ==, addr);
    g_assert_cmpuint(le32_to_cpu(pf.len), ==, len);
    g_assert_cmpuint(pf.flags, ==, flags);
}

/* What the driver does after it resolved a fault, of either subtype. */
static void resume(Dp *dp, uint32_t h)
{
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, h, NULL), ==,
                     VHCA_CMD_OK);
}

static uint8_t resume_flags(Dp *dp, uint32_t h, uint8_t flags)
{
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, VHCA_CMD_ODP_RESUME);
    cmd.in.handle.handle = cpu_to_le32(h);
    cmd.in.raw[4] = flags;
    return dp_exec(dp, &cmd, NULL);
}

static void expect_no_fault(Dp *dp)
{
    dp_poll_events(dp);
    g_assert_cmpint(dp->nevents, ==, 0);
}

/* A CQE of wr_id, running the main loop (ODP_RESUME's bottom half) and
 * the clock (RNR waits) for it. */
static void wait_cqe(Dp *dp, DpCq *cq, uint64_t wr_id, uint8_t status)
{
    struct vhca_cqe cqe;

    dp_step_cqe(dp, cq, &cqe, RNR_TIMER_NS, 100, status);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
}

/* An RC pair, two physical 64 KiB buffers and an ODP region. */
static void odp_setup(Dp *dp, DpPair *p, DpMem *m, Odp *o, uint32_t access)
{
    dp_pair(dp, p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, m, DP_ALL_ACCESS);
    odp_create(dp, o, access);
}

static void test_odp_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_mr in;
    uint32_t phys, key;
    uint64_t bad[1];
    DpPair p;
    Odp o;

    g_assert_cmphex(dp_dev_caps(dp) & VHCA_DEV_CAP_ODP, ==, VHCA_DEV_CAP_ODP);

    /* CREATE_MR refusals of the ODP flag. */
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES);
    in.flags |= VHCA_MR_F_PHYSICAL;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES - 1);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES);
    in.pages.addr = cpu_to_le64(dp->v->buf);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES);
    in.pages.mode = VHCA_BUF_CONTIG;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES);
    in.pages.page_shift = 11;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);

    odp_create(dp, &o, VHCA_ACCESS_LOCAL_WRITE);
    phys = dp_mr_phys(dp, dp->pd, o.pages[0], 4096, VHCA_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(odp_map(dp, &o, 0, ODP_PAGES), ==, VHCA_CMD_OK);
    /* ODP_MAP refusals. */
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, phys, 0, 1, o.pages, 8),
                     ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key ^ 1, 0, 1, o.pages,
                             8), ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 2, 2, o.pages, 16),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 0, o.pages, 8),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 2, o.pages, 8),
                     ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 513, o.pages,
                             4096), ==, VHCA_CMD_BAD_PARAM);
    bad[0] = o.pages[0] + 8;
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 1, bad, 8), ==,
                     VHCA_CMD_BAD_PARAM);
    bad[0] = 0;
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 1, bad, 8), ==,
                     VHCA_CMD_BAD_PARAM);
    bad[0] = 1ull << 50;     /* not guest memory */
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 0, 1, bad, 8), ==,
                     VHCA_CMD_BAD_ADDR);
    /* ODP_INVALIDATE refusals. */
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_INVALIDATE, phys, 0, 1, NULL,
                             0), ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(odp_inval(dp, &o, 0, 0), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_inval(dp, &o, 3, 1), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_inval(dp, &o, 1, 3), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_inval(dp, &o, 0, ODP_PAGES), ==, VHCA_CMD_OK);
    /* ODP_RESUME: no such QP; a QP that is not stopped is left alone. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, 999, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, p.a.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(resume_flags(dp, p.a.h, 2), ==, VHCA_CMD_BAD_PARAM);
    /* REREG_MR makes an ODP region of a paged one, and back. */
    key = phys;
    odp_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE, ODP_PAGES);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_REREG_MR, key, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_OK);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, key, 0, 1, o.pages, 8),
                     ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, key, 0, 1, o.pages, 8),
                     ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, o.key, NULL), ==,
                     VHCA_CMD_OK);
    dp_stop(dp);
}

/*
 * Requester: an RDMA WRITE from pages 0..2 of an ODP region faults; the
 * WQE and the one behind it wait; a partial map and RESUME fault again
 * on the same WQE; the full map and RESUME complete both, data checked.
 */
static void test_odp_requester(void)
{
    Dp *dp = dp_start();
    uint64_t dst = dp_alloc(dp, 3 * 4096);
    uint32_t dkey = dp_mr_phys(dp, dp->pd, dst, 3 * 4096, DP_ALL_ACCESS);
    uint64_t src = ODP_IOVA + 0x800;
    uint32_t len = 2 * 4096;
    DpPair p;
    Odp o;
    int i;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    odp_create(dp, &o, VHCA_ACCESS_LOCAL_WRITE);
    for (i = 0; i < ODP_PAGES; i++) {
        dp_fill(dp, o.pages[i], 4096, 0x10 + i);
    }
    dp_write(dp, &p.a, 1, dst, dkey, src, len, o.key);
    expect_fault(dp, VHCA_PF_REQUESTER, p.a.h, o.key, src, len, 0);
    dp_write(dp, &p.a, 2, dst + 0x1000, dkey, src + 0x1000, 64, o.key);
    qtest_clock_step(dp->v->qts, DP_ACK_TIMEOUT_NS);
    dp_expect_no_cqe(dp, &p.acq);
    expect_no_fault(dp);

    g_assert_cmpuint(odp_map(dp, &o, 0, 2), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, p.a.h, NULL), ==,
                     VHCA_CMD_OK);
    qtest_clock_step(dp->v->qts, 1);
    expect_fault(dp, VHCA_PF_REQUESTER, p.a.h, o.key, src, len, 0);
    dp_expect_no_cqe(dp, &p.acq);

    g_assert_cmpuint(odp_map(dp, &o, 2, 1), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, p.a.h, NULL), ==,
                     VHCA_CMD_OK);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_SUCCESS);
    wait_cqe(dp, &p.acq, 2, VHCA_WC_SUCCESS);
    dp_assert_same(dp, dst, o.pages[0] + 0x800, 0x800);
    dp_assert_same(dp, dst + 0x800, o.pages[1], 4096);
    dp_assert_same(dp, dst + 0x1800, o.pages[2], 0x800);
    expect_no_fault(dp);
    dp_stop(dp);
}

/*
 * RC responder: an RDMA WRITE into, an RDMA READ from and a SEND into an
 * ODP region of B each fault at B (event on B's QP) and are answered RNR;
 * once mapped, A's retry completes and the data is right.
 */
static void test_odp_responder(void)
{
    Dp *dp = dp_start();
    DpMem m;
    DpPair p;
    Odp o;

    odp_setup(dp, &p, &m, &o, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 0x33);

    dp_write(dp, &p.a, 1, ODP_IOVA + 100, o.key, m.a, 200, m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA + 100, 200,
                 VHCA_PF_F_WRITE);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(odp_map(dp, &o, 0, 1), ==, VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_SUCCESS);
    dp_assert_same(dp, o.pages[0] + 100, m.a, 200);

    /* READ from page 1 (absent): fault, RNR, then the data. */
    dp_fill(dp, o.pages[1], 4096, 0x44);
    {
        DpWqe w;

        dp_wqe(&w, 2, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
        dp_wqe_raddr(&w, ODP_IOVA + 4096, o.key);
        dp_wqe_sge(&w, m.a + 4096, 512, m.akey);
        dp_post_send(dp, &p.a, &w);
    }
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA + 4096, 512,
                 0);
    g_assert_cmpuint(odp_map(dp, &o, 1, 1), ==, VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 2, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 4096, o.pages[1], 512);

    /* SEND into a receive buffer on page 2: the receive WQE stays. */
    dp_post_recv(dp, &p.b, 77, ODP_IOVA + 2 * 4096, 256, o.key, 0, 0);
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 256,
            m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA + 2 * 4096,
                 256, VHCA_PF_F_WRITE);
    dp_expect_no_cqe(dp, &p.bcq);
    g_assert_cmpuint(odp_map(dp, &o, 2, 1), ==, VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 3, VHCA_WC_SUCCESS);
    wait_cqe(dp, &p.bcq, 77, VHCA_WC_SUCCESS);
    dp_assert_same(dp, o.pages[2], m.a, 256);
    expect_no_fault(dp);
    dp_stop(dp);
}

/*
 * Invalidation: after ODP_INVALIDATE the old page is never written
 * again (the next WRITE faults); remapped to another page (the guest's
 * munmap and new mmap, or swap), the data goes to the new page.
 */
static void test_odp_invalidate(void)
{
    Dp *dp = dp_start();
    uint64_t fresh = dp_alloc(dp, 4096);
    uint8_t before[64], after[64];
    DpMem m;
    DpPair p;
    Odp o;

    odp_setup(dp, &p, &m, &o, DP_ALL_ACCESS);
    g_assert_cmpuint(odp_map(dp, &o, 0, ODP_PAGES), ==, VHCA_CMD_OK);
    dp_fill(dp, m.a, 64, 0x55);
    dp_write(dp, &p.a, 1, ODP_IOVA, o.key, m.a, 64, m.akey);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_SUCCESS);
    dp_assert_same(dp, o.pages[0], m.a, 64);

    g_assert_cmpuint(odp_inval(dp, &o, 0, 1), ==, VHCA_CMD_OK);
    dp_fill(dp, o.pages[0], 64, 0x66);
    qtest_memread(dp->v->qts, o.pages[0], before, sizeof(before));
    dp_fill(dp, m.a, 64, 0x77);
    dp_write(dp, &p.a, 2, ODP_IOVA, o.key, m.a, 64, m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA, 64,
                 VHCA_PF_F_WRITE);
    /* RNR retries fault again, reported once until ODP_RESUME. */
    qtest_clock_step(dp->v->qts, 4 * RNR_TIMER_NS);
    expect_no_fault(dp);
    qtest_memread(dp->v->qts, o.pages[0], after, sizeof(after));
    g_assert_cmpmem(before, sizeof(before), after, sizeof(after));
    dp_expect_no_cqe(dp, &p.acq);

    o.pages[0] = fresh;
    g_assert_cmpuint(odp_map(dp, &o, 0, 1), ==, VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 2, VHCA_WC_SUCCESS);
    dp_assert_same(dp, fresh, m.a, 64);
    dp_stop(dp);
}

/* A requester stopped on a fault is flushed when its QP goes to ERR. */
static void test_odp_stopped_flush(void)
{
    Dp *dp = dp_start();
    DpMem m;
    DpPair p;
    Odp o;

    odp_setup(dp, &p, &m, &o, VHCA_ACCESS_LOCAL_WRITE);
    dp_write(dp, &p.a, 1, m.b, m.bkey, ODP_IOVA, 64, o.key);
    expect_fault(dp, VHCA_PF_REQUESTER, p.a.h, o.key, ODP_IOVA, 64, 0);
    g_assert_cmpuint(dp_set_state(dp, &p.a, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_WR_FLUSH_ERR);
    /* The driver's late RESUME finds nothing to do. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ODP_RESUME, p.a.h, NULL), ==,
                     VHCA_CMD_OK);
    expect_no_fault(dp);
    dp_stop(dp);
}

/*
 * A fault the driver cannot resolve (ODP_RESUME_F_ERROR): the requester's
 * WQE completes with LOC_PROT_ERR; the responder NAKs the retried request
 * (remote access error at the requester, access error event at B).
 */
static void test_odp_resume_error(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpMem m;
    DpPair p, q;
    Odp o;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    odp_create(dp, &o, DP_ALL_ACCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_write(dp, &p.a, 1, m.b, m.bkey, ODP_IOVA, 64, o.key);
    expect_fault(dp, VHCA_PF_REQUESTER, p.a.h, o.key, ODP_IOVA, 64, 0);
    g_assert_cmpuint(resume_flags(dp, p.a.h, VHCA_ODP_RESUME_F_ERROR), ==,
                     VHCA_CMD_OK);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_LOC_PROT_ERR);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);

    dp_pair(dp, &q, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_write(dp, &q.a, 2, ODP_IOVA, o.key, m.a, 64, m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, q.b.h, o.key, ODP_IOVA, 64,
                 VHCA_PF_F_WRITE);
    g_assert_cmpuint(resume_flags(dp, q.b.h, VHCA_ODP_RESUME_F_ERROR), ==,
                     VHCA_CMD_OK);
    for (int i = 0; i < 100 && !dp_poll_cq(dp, &q.acq, &cqe); i++) {
        qtest_clock_step(dp->v->qts, RNR_TIMER_NS);
    }
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                q.b.h));
    expect_no_fault(dp);
    dp_stop(dp);
}

/*
 * UD receive into an ODP page (vhca_hw_odp.h; mlx5 advertises UD SRQ
 * receives and drops such a datagram too): the datagram that finds the
 * page absent is dropped with a fault event and the receive WQE stays;
 * after ODP_MAP and ODP_RESUME the next datagram lands in it.  A fault the
 * driver cannot resolve (ODP_RESUME_F_ERROR) fails the WQE: LOC_PROT_ERR.
 */
static void test_odp_ud_recv(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    Odp o;

    dp_pair(dp, &p, VHCA_QPT_UD, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    odp_create(dp, &o, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 0x5a);
    dp_post_recv(dp, &p.b, 0xb1, ODP_IOVA, 40 + 256, o.key, 0, 0);
    dp_ud_send(dp, &p.a, 1, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 256,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA, 40 + 256,
                 VHCA_PF_F_WRITE);
    dp_expect_no_cqe(dp, &p.bcq);

    g_assert_cmpuint(odp_map(dp, &o, 0, 1), ==, VHCA_CMD_OK);
    resume(dp, p.b.h);
    dp_ud_send(dp, &p.a, 2, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 256,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_assert_same(dp, o.pages[0] + 40, m.a, 256);
    expect_no_fault(dp);

    /* Page 1 faults; the driver cannot map it. */
    dp_post_recv(dp, &p.b, 0xb2, ODP_IOVA + 4096, 40 + 256, o.key, 0, 0);
    dp_ud_send(dp, &p.a, 3, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 256,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, o.key, ODP_IOVA + 4096,
                 40 + 256, VHCA_PF_F_WRITE);
    g_assert_cmpuint(resume_flags(dp, p.b.h, VHCA_ODP_RESUME_F_ERROR), ==,
                     VHCA_CMD_OK);
    dp_ud_send(dp, &p.a, 4, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 256,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb2);
    dp_stop(dp);
}

/* ---- implicit ODP (VHCA_MR_F_ODP_IMPLICIT) ---- */

/* Page index 0x7f0000001: above 32 bits, first_page_hi 7. */
#define IMP_ADDR        0x7f0000001000ull
#define IMP_PAGE        (IMP_ADDR >> 12)
#define IMP_LAST_PAGE   (UINT64_MAX >> 12)      /* the top page of 64-bit space */

static void implicit_desc(struct vhca_cmd_create_mr *in, uint32_t pd,
                          uint32_t access)
{
    dp_mr_desc(in, pd, 0, UINT64_MAX, 0, 0, VHCA_BUF_DIRECT);
    in->access = cpu_to_le32(access);
    in->flags = VHCA_MR_F_ODP | VHCA_MR_F_ODP_IMPLICIT;
}

static uint32_t implicit_create(Dp *dp, uint32_t access)
{
    struct vhca_cmd_create_mr in;
    uint32_t key;

    implicit_desc(&in, dp->pd, access);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key), ==, VHCA_CMD_OK);
    return key;
}

static uint8_t implicit_map(Dp *dp, uint32_t key, uint64_t first,
                            uint32_t n, const uint64_t *pages)
{
    return odp_cmd(dp, VHCA_CMD_ODP_MAP, key, first, n, pages, 8 * n);
}

static uint8_t implicit_inval(Dp *dp, uint32_t key, uint64_t first,
                              uint32_t n)
{
    return odp_cmd(dp, VHCA_CMD_ODP_INVALIDATE, key, first, n, NULL, 0);
}

/* CREATE_MR of an implicit region, its refusals, 64-bit page ranges. */
static void test_implicit_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_mr in;
    uint64_t page = dp_alloc(dp, 4096);
    uint32_t key;
    Odp o;

    g_assert_cmphex(dp_dev_caps(dp) & VHCA_DEV_CAP_ODP_IMPLICIT, ==,
                    VHCA_DEV_CAP_ODP_IMPLICIT);

    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.flags = VHCA_MR_F_ODP_IMPLICIT;          /* without VHCA_MR_F_ODP */
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.iova = cpu_to_le64(4096);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.length = cpu_to_le64(1ull << 40);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.pages.npages = cpu_to_le32(1);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.first_byte_offset = cpu_to_le32(8);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    implicit_desc(&in, dp->pd, VHCA_ACCESS_LOCAL_WRITE);
    in.pages.page_shift = 40;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);

    key = implicit_create(dp, VHCA_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, &page), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, IMP_LAST_PAGE, 1, &page), ==,
                     VHCA_CMD_OK);
    /* Past the top of the address space, or wrapping around it. */
    g_assert_cmpuint(implicit_map(dp, key, IMP_LAST_PAGE + 1, 1, &page), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, key, IMP_LAST_PAGE, 2,
                             (uint64_t[]){ page, page }, 16), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(implicit_inval(dp, key, IMP_LAST_PAGE, 2), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(implicit_inval(dp, key, IMP_PAGE, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    /* 2^32 - 1 pages from 0: walks the table, not the range. */
    g_assert_cmpuint(implicit_inval(dp, key, 0, UINT32_MAX), ==, VHCA_CMD_OK);
    g_assert_cmpuint(implicit_inval(dp, key, IMP_LAST_PAGE, 1), ==,
                     VHCA_CMD_OK);

    /* A region that is not implicit has no entry above 32 bits. */
    odp_create(dp, &o, VHCA_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(odp_cmd(dp, VHCA_CMD_ODP_MAP, o.key, 1ull << 32, 1,
                             o.pages, 8), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(implicit_inval(dp, o.key, 1ull << 32, 1), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, &page), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_stop(dp);
}

/*
 * Faults of an implicit region carry the 64-bit address: a responder
 * RDMA WRITE across two pages above 4 GiB of page index, then a
 * requester SEND from there; ODP_INVALIDATE makes the page absent again
 * and the old page is not written.
 */
static void test_implicit_faults(void)
{
    Dp *dp = dp_start();
    uint64_t pages[2] = { dp_alloc(dp, 4096), dp_alloc(dp, 4096) };
    uint64_t dst = IMP_ADDR + 4096 - 100;
    uint8_t before[64], after[64];
    uint32_t key;
    DpMem m;
    DpPair p;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    key = implicit_create(dp, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 0x21);

    dp_write(dp, &p.a, 1, dst, key, m.a, 200, m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, key, dst, 200,
                 VHCA_PF_F_WRITE);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, pages), ==,
                     VHCA_CMD_OK);
    resume(dp, p.b.h);
    /* The second page is still absent: the retry faults on it. */
    qtest_clock_step(dp->v->qts, 4 * RNR_TIMER_NS);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, key, dst, 200,
                 VHCA_PF_F_WRITE);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE + 1, 1, &pages[1]), ==,
                     VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 1, VHCA_WC_SUCCESS);
    dp_assert_same(dp, pages[0] + 4096 - 100, m.a, 100);
    dp_assert_same(dp, pages[1], m.a + 100, 100);

    /* Requester: a SEND from the implicit region into B's buffer. */
    dp_post_recv(dp, &p.b, 9, m.b, 256, m.bkey, 0, 0);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, IMP_ADDR, 64,
            key);
    wait_cqe(dp, &p.acq, 2, VHCA_WC_SUCCESS);
    wait_cqe(dp, &p.bcq, 9, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.b, pages[0], 64);

    g_assert_cmpuint(implicit_inval(dp, key, IMP_PAGE, 2), ==, VHCA_CMD_OK);
    qtest_memread(dp->v->qts, pages[0], before, sizeof(before));
    dp_fill(dp, m.a, 64, 0x77);
    dp_write(dp, &p.a, 3, IMP_ADDR, key, m.a, 64, m.akey);
    expect_fault(dp, VHCA_PF_RESPONDER, p.b.h, key, IMP_ADDR, 64,
                 VHCA_PF_F_WRITE);
    qtest_memread(dp->v->qts, pages[0], after, sizeof(after));
    g_assert_cmpmem(before, sizeof(before), after, sizeof(after));
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, &pages[1]), ==,
                     VHCA_CMD_OK);
    resume(dp, p.b.h);
    wait_cqe(dp, &p.acq, 3, VHCA_WC_SUCCESS);
    dp_assert_same(dp, pages[1], m.a, 64);
    expect_no_fault(dp);
    dp_stop(dp);
}

/* Explicit ODP regions of n entries while the budget lets them be made. */
static void use_budget(Dp *dp, uint32_t n)
{
    struct vhca_cmd_create_mr in;
    uint8_t status;

    do {
        dp_mr_desc(&in, dp->pd, 0, (uint64_t)n * 4096, 0, n, VHCA_BUF_DIRECT);
        in.flags = VHCA_MR_F_ODP;
        status = dp_create_mr_in(dp, &in, NULL);
    } while (status == VHCA_CMD_OK);
    g_assert_cmpuint(status, ==, VHCA_CMD_NO_RESOURCES);
}

/*
 * The sparse table's leaves (512 entries each) count in the device's page
 * list budget: with room for two leaves, a third is refused (NO_RESOURCES,
 * nothing mapped: an ODP_MAP across two new leaves with room for one
 * maps neither), an invalidated leaf gives its room back, and so does
 * DESTROY_MR.
 */
static void test_implicit_budget(void)
{
    Dp *dp = dp_start();
    uint64_t page = dp_alloc(dp, 4096);
    uint64_t two[2] = { page, page };
    struct vhca_cmd_create_mr in;
    uint32_t key, room;
    uint32_t n;

    /* Room for exactly two leaves, in a region made and freed. */
    dp_mr_desc(&in, dp->pd, 0, 1024 * 4096, 0, 1024, VHCA_BUF_DIRECT);
    in.flags = VHCA_MR_F_ODP;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &room), ==, VHCA_CMD_OK);
    for (n = 1u << 20; n; n >>= 1) {
        use_budget(dp, n);
    }
    key = implicit_create(dp, VHCA_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, &page), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, room, NULL), ==,
                     VHCA_CMD_OK);

    g_assert_cmpuint(implicit_map(dp, key, 0, 1, &page), ==, VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, 5, 1, &page), ==, VHCA_CMD_OK);
    /* Leaves 0x3ff and 0x400 are new: room for one, neither is made. */
    g_assert_cmpuint(implicit_map(dp, key, 0x3ff * 512 + 511, 2, two), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE, 1, &page), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE + 512, 1, &page), ==,
                     VHCA_CMD_NO_RESOURCES);
    /* Leaf 0 keeps page 5 after page 0 goes; then it goes too. */
    g_assert_cmpuint(implicit_inval(dp, key, 0, 1), ==, VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE + 512, 1, &page), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(implicit_inval(dp, key, 5, 1), ==, VHCA_CMD_OK);
    g_assert_cmpuint(implicit_map(dp, key, IMP_PAGE + 512, 1, &page), ==,
                     VHCA_CMD_OK);
    /* DESTROY_MR gives both leaves back. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    key = implicit_create(dp, VHCA_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(implicit_map(dp, key, 0x3ff * 512 + 511, 2, two), ==,
                     VHCA_CMD_OK);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/odp/commands", test_odp_commands);
    qtest_add_func("/vhca/odp/requester", test_odp_requester);
    qtest_add_func("/vhca/odp/responder", test_odp_responder);
    qtest_add_func("/vhca/odp/invalidate", test_odp_invalidate);
    qtest_add_func("/vhca/odp/stopped-flush", test_odp_stopped_flush);
    qtest_add_func("/vhca/odp/resume-error", test_odp_resume_error);
    qtest_add_func("/vhca/odp/ud-recv", test_odp_ud_recv);
    qtest_add_func("/vhca/odp/implicit-commands", test_implicit_commands);
    qtest_add_func("/vhca/odp/implicit-faults", test_implicit_faults);
    qtest_add_func("/vhca/odp/implicit-budget", test_implicit_budget);
    return g_test_run();
}
