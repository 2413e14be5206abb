/*
 * QTest testcase for vhca: device memory (vhca_hw_verbs.h "Device
 * memory") - ALLOC_DM, FREE_DM and REG_DM_MR with every refusal, BAR 3
 * read and written by the CPU, and the data path (local SGEs, RDMA WRITE
 * and READ, SEND, atomics) into and out of it through a zero-based region.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define DM_DEFAULT_SIZE (256 * 1024)

static uint8_t dm_alloc(Dp *dp, uint64_t length, uint8_t log_align,
                        uint32_t *offset)
{
    struct vhca_cmd_alloc_dm_in in = {
        .length = cpu_to_le64(length),
        .log_align = log_align,
    };
    struct vhca_cmd cmd;
    uint32_t result[2] = { 0 };
    uint8_t status;

    cmd_init(dp->v, &cmd, VHCA_CMD_ALLOC_DM);
    memcpy(cmd.in.raw, &in, sizeof(in));
    status = dp_exec(dp, &cmd, result);
    *offset = result[0];
    return status;
}

static uint8_t dm_reg_mr(Dp *dp, uint32_t pd, uint32_t offset, uint64_t len,
                         uint32_t access, uint32_t *key)
{
    struct vhca_cmd_reg_dm_mr_in in = {
        .dm_offset = cpu_to_le32(offset),
        .pdn = cpu_to_le32(pd),
        .length = cpu_to_le64(len),
        .access = cpu_to_le32(access),
        .key_variant = 0x5d,
    };
    struct vhca_cmd cmd;
    uint32_t result[2] = { 0 };
    uint8_t status;

    cmd_init(dp->v, &cmd, VHCA_CMD_REG_DM_MR);
    memcpy(cmd.in.raw, &in, sizeof(in));
    status = dp_exec(dp, &cmd, result);
    *key = result[0];
    return status;
}

static void test_dm_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_device_attr attr;
    uint32_t a, b, c, key, other;

    dp_query_device(dp, &attr);
    g_assert_cmpuint(le64_to_cpu(attr.max_dm_size), ==, DM_DEFAULT_SIZE);
    g_assert_true(le32_to_cpu(attr.dev_caps) & VHCA_DEV_CAP_DM);

    /* Whole pages, first fit, aligned as asked. */
    g_assert_cmpuint(dm_alloc(dp, 100, 6, &a), ==, VHCA_CMD_OK);
    g_assert_cmphex(a, ==, 0);
    g_assert_cmpuint(dm_alloc(dp, 5000, 0, &b), ==, VHCA_CMD_OK);
    g_assert_cmphex(b, ==, 0x1000);
    g_assert_cmpuint(dm_alloc(dp, 4, 14, &c), ==, VHCA_CMD_OK);
    g_assert_cmphex(c, ==, 0x4000);
    /* Refused: sizes, alignment, no room left. */
    g_assert_cmpuint(dm_alloc(dp, 0, 0, &other), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_alloc(dp, DM_DEFAULT_SIZE + 1, 0, &other), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_alloc(dp, 4, VHCA_DM_MAX_LOG_ALIGN + 1, &other), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_alloc(dp, DM_DEFAULT_SIZE, 0, &other), ==,
                     VHCA_CMD_NO_RESOURCES);

    /* A region inside one allocation only, on a PD, with valid rights. */
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, b + 4096 + 8, 4096, DP_ALL_ACCESS,
                               &key), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, 0x2000 + 8, 0, DP_ALL_ACCESS,
                               &key), ==, VHCA_CMD_OK);   /* b's 2nd page */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, 0x3000, 4, DP_ALL_ACCESS, &key),
                     ==, VHCA_CMD_BAD_PARAM);             /* a free page */
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, DM_DEFAULT_SIZE - 4, 8,
                               DP_ALL_ACCESS, &key), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_reg_mr(dp, 999, b, 64, DP_ALL_ACCESS, &key), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, b, 64, VHCA_ACCESS_REMOTE_WRITE,
                               &key), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, b, 64, 1u << 10, &key), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, b + 8, 5000, DP_ALL_ACCESS, &key),
                     ==, VHCA_CMD_OK);
    g_assert_cmphex(key & 0xff, ==, 0x5d);

    /* A region holds its allocation and its PD; REREG_MR refuses it. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b, NULL), ==,
                     VHCA_CMD_BUSY);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_PD, dp->pd, NULL), ==,
                     VHCA_CMD_BUSY);
    {
        struct vhca_cmd_create_mr in;

        memset(&in, 0, sizeof(in));
        in.iova = cpu_to_le64(dp_alloc(dp, 4096));
        in.length = cpu_to_le64(4096);
        in.pdn = cpu_to_le32(dp->pd);
        in.access = cpu_to_le32(DP_ALL_ACCESS);
        in.flags = VHCA_MR_F_PHYSICAL;
        g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_REREG_MR, key, &in,
                                    sizeof(in), NULL), ==,
                         VHCA_CMD_BAD_HANDLE);
    }
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);

    /* FREE_DM names an allocation by its first byte. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b + 4096, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b + 8, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, DM_DEFAULT_SIZE, NULL),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* b's pages are free again: the first fit of two pages, cleared. */
    g_assert_cmpuint(dm_alloc(dp, 8192, 0, &other), ==, VHCA_CMD_OK);
    g_assert_cmphex(other, ==, b);
    {
        QPCIBar bar = qpci_iomap(dp->v->dev, VHCA_DM_BAR, NULL);
        uint32_t page = 0xdeadbeef;

        qpci_memwrite(dp->v->dev, bar, b + 4096 + 8, &page, 4);
        g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, b, NULL), ==,
                         VHCA_CMD_OK);
        g_assert_cmpuint(dm_alloc(dp, 8192, 0, &other), ==, VHCA_CMD_OK);
        qpci_memread(dp->v->dev, bar, b + 4096 + 8, &page, 4);
        g_assert_cmphex(page, ==, 0);
        qpci_iounmap(dp->v->dev, bar);
    }
    dp_stop(dp);
}

/* dm-size=0: no device memory, no BAR 3. */
static void test_dm_none(void)
{
    Dp *dp = dp_start_with(",dm-size=0");
    struct vhca_device_attr attr;
    uint32_t offset;

    dp_query_device(dp, &attr);
    g_assert_cmpuint(le64_to_cpu(attr.max_dm_size), ==, 0);
    g_assert_false(le32_to_cpu(attr.dev_caps) & VHCA_DEV_CAP_DM);
    g_assert_cmpuint(dm_alloc(dp, 4, 0, &offset), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(qpci_config_readl(dp->v->dev, PCI_BASE_ADDRESS_3), ==, 0);
    dp_stop(dp);
}

static void dm_rdma(Dp *dp, DpPair *p, uint64_t wr_id, uint8_t opcode,
                    uint64_t raddr, uint32_t rkey, uint64_t laddr,
                    uint32_t len, uint32_t lkey)
{
    DpWqe w;

    dp_wqe(&w, wr_id, opcode, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, raddr, rkey);
    dp_wqe_sge(&w, laddr, len, lkey);
    dp_post_send(dp, &p->a, &w);
}

/* The bytes at BAR 3 offset off equal guest memory at addr. */
static void dm_assert_same(Dp *dp, QPCIBar bar, uint64_t off, uint64_t addr,
                           uint32_t len)
{
    g_autofree uint8_t *dm = g_malloc(len);
    g_autofree uint8_t *mem = g_malloc(len);

    qpci_memread(dp->v->dev, bar, off, dm, len);
    qtest_memread(dp->v->qts, addr, mem, len);
    g_assert_cmpmem(dm, len, mem, len);
}

static void test_dm_data_path(void)
{
    Dp *dp = dp_start();
    QPCIBar bar = qpci_iomap(dp->v->dev, VHCA_DM_BAR, NULL);
    struct vhca_cqe cqe;
    uint32_t base, key;
    uint8_t pattern[256];
    uint64_t val;
    DpPair p;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    g_assert_cmpuint(dm_alloc(dp, 8192, 0, &base), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dm_alloc(dp, 8192, 0, &base), ==, VHCA_CMD_OK);
    g_assert_cmphex(base, ==, 0x2000);
    /* Zero-based from 16 bytes into the allocation. */
    g_assert_cmpuint(dm_reg_mr(dp, dp->pd, base + 16, 8192 - 16, DP_ALL_ACCESS,
                               &key), ==, VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);

    /* RDMA WRITE into device memory, across its page boundary. */
    dp_fill(dp, m.a, 4096, 3);
    dm_rdma(dp, &p, 1, VHCA_WQE_RDMA_WRITE, 4000, key, m.a, 1000, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dm_assert_same(dp, bar, base + 16 + 4000, m.a, 1000);

    /* The CPU writes BAR 3; RDMA READ brings it out. */
    for (i = 0; i < sizeof(pattern); i++) {
        pattern[i] = i ^ 0x5a;
    }
    qpci_memwrite(dp->v->dev, bar, base + 16 + 64, pattern, sizeof(pattern));
    dm_rdma(dp, &p, 2, VHCA_WQE_RDMA_READ, 64, key, m.a + 8192, 256, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dm_assert_same(dp, bar, base + 16 + 64, m.a + 8192, 256);

    /* A SEND whose local SGE is device memory (the lkey). */
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, 64, 256, key);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 256);
    dm_assert_same(dp, bar, base + 16 + 64, m.b, 256);

    /* FETCH_AND_ADD on device memory. */
    val = cpu_to_le64(0x100000001ull);
    qpci_memwrite(dp->v->dev, bar, base + 16 + 512, &val, 8);
    dp_atomic(dp, &p.a, 4, VHCA_WQE_ATOMIC_FETCH_AND_ADD, 512, key, 5, 0,
              m.a + 256, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    qpci_memread(dp->v->dev, bar, base + 16 + 512, &val, 8);
    g_assert_cmphex(le64_to_cpu(val), ==, 0x100000006ull);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.a + 256), ==, 0x100000001ull);

    /* Past the region's end (its allocation's end): refused, nothing
     * written beyond it. */
    val = 0x1122334455667788ull;
    qpci_memwrite(dp->v->dev, bar, base + 8192, &val, 8);
    dm_rdma(dp, &p, 5, VHCA_WQE_RDMA_WRITE, 8192 - 16 - 32, key, m.a, 64,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));
    qpci_memread(dp->v->dev, bar, base + 8192, &val, 8);
    g_assert_cmphex(val, ==, 0x1122334455667788ull);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_FREE_DM, base, NULL), ==,
                     VHCA_CMD_OK);
    qpci_iounmap(dp->v->dev, bar);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dm/commands", test_dm_commands);
    qtest_add_func("/vhca/dm/none", test_dm_none);
    qtest_add_func("/vhca/dm/data-path", test_dm_data_path);
    return g_test_run();
}
