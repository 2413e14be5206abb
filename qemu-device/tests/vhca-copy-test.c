/*
 * QTest testcase for vhca: the payload copy (vhca-sgl.c, vhca-dma-map.c).
 *
 * Runs of plain guest RAM are copied once, host pointer to host pointer;
 * everything else takes the bounce path through vhca_dma_read/_write.
 * These cases pin what must hold on both: copies spanning many pages with
 * unaligned starts and ends, through physical regions (one run, also with
 * page offsets 16 bytes apart, which vhca-sgl.c copies in pieces), page
 * lists of adjacent pages (joined into one run) and of scattered pages
 * (one run per page), into a receive WQE of two SGEs; source and
 * destination overlapping (memmove); the device's own BAR as source or
 * destination (refused: DMA fault, nothing written, device alive); MMIO of
 * another device as the source (bounce path, the values the CPU reads);
 * ROM as the source (read directly) and as the destination (refused).
 * Every byte is compared, and the bytes around each destination are
 * checked untouched.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define COPY_SIBLING    " -device vhca,id=vhca1,addr=05.0,ports=1," \
                        "node-guid=0x5254000000002000"
#define COPY_IOVA       0x6000000000ull
#define COPY_GUARD      64          /* bytes checked untouched either side */
/* The top of the PC BIOS image: ROM in every PC machine. */
#define COPY_ROM_ADDR   0xfffff000ull

/* Every byte of [addr, addr + len) holds value. */
static void copy_assert_filled(Dp *dp, uint64_t addr, uint32_t len,
                               uint8_t value)
{
    g_autofree uint8_t *x = g_malloc(len);
    uint32_t i;

    qtest_memread(dp->v->qts, addr, x, len);
    for (i = 0; i < len; i++) {
        g_assert_cmphex(x[i], ==, value);
    }
}

/* The COPY_GUARD bytes either side of [dst, dst + len) still hold
 * guard_value. */
static void copy_assert_guards(Dp *dp, uint64_t dst, uint32_t len,
                               uint8_t guard_value)
{
    copy_assert_filled(dp, dst - COPY_GUARD, COPY_GUARD, guard_value);
    copy_assert_filled(dp, dst + len, COPY_GUARD, guard_value);
}

/* len bytes at dst equal those at src, byte by byte; the bytes around dst
 * are still 0. */
static void copy_assert(Dp *dp, uint64_t src, uint64_t dst, uint32_t len)
{
    g_autofree uint8_t *x = g_malloc(len);
    g_autofree uint8_t *y = g_malloc(len);
    uint32_t i;

    qtest_memread(dp->v->qts, src, x, len);
    qtest_memread(dp->v->qts, dst, y, len);
    for (i = 0; i < len; i++) {
        g_assert_cmphex(y[i], ==, x[i]);
    }
    copy_assert_guards(dp, dst, len, 0);
}

/* A region at iova over npages adjacent 4 KiB pages from base, listed one
 * by one: the copy joins them into one run. */
static uint32_t copy_mr_adjacent(Dp *dp, uint64_t iova, uint64_t base,
                                 uint32_t npages)
{
    g_autofree uint64_t *raw = g_new(uint64_t, npages);
    uint64_t list = dp_alloc(dp, npages * 8);
    struct vhca_cmd_create_mr in;
    uint32_t key, i;

    for (i = 0; i < npages; i++) {
        raw[i] = cpu_to_le64(base + i * 4096ull);
    }
    qtest_memwrite(dp->v->qts, list, raw, npages * 8);
    dp_mr_desc(&in, dp->pd, iova, npages * 4096ull, list, npages,
               VHCA_BUF_DIRECT);
    in.access = cpu_to_le32(DP_ALL_ACCESS);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key), ==, VHCA_CMD_OK);
    return key;
}

/* An RDMA WRITE or READ of len bytes that must succeed. */
static void copy_rdma(Dp *dp, DpPair *p, uint8_t opcode, uint64_t raddr,
                      uint32_t rkey, uint64_t laddr, uint32_t len,
                      uint32_t lkey)
{
    struct vhca_cqe cqe;
    DpWqe w;

    dp_wqe(&w, opcode, opcode, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, raddr, rkey);
    dp_wqe_sge(&w, laddr, len, lkey);
    dp_post_send(dp, &p->a, &w);
    dp_expect_cqe(dp, &p->acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==,
                     opcode == VHCA_WQE_RDMA_READ ? len : 0);
}

static void test_copy_many_pages(void)
{
    Dp *dp = dp_start();
    uint64_t pages[4], adj = dp_alloc(dp, 8 * 4096);
    uint32_t adj_key, list_key, i;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    adj_key = copy_mr_adjacent(dp, COPY_IOVA, adj, 8);
    list_key = dp_mr_pages(dp, COPY_IOVA + (1ull << 30), pages,
                           DP_ALL_ACCESS);
    dp_fill(dp, m.a, DP_BUF_SIZE, 5);

    /* Physical regions on both sides: 50001 bytes, unaligned ends. */
    copy_rdma(dp, &p, VHCA_WQE_RDMA_WRITE, m.b + 4001, m.bkey, m.a + 123,
              50001, m.akey);
    copy_assert(dp, m.a + 123, m.b + 4001, 50001);

    /* Offsets in the page 16 bytes apart (vhca-place.c's vhca_copy_body
     * pieces, the glibc rep movsb case): 40000 bytes. */
    qtest_memset(dp->v->qts, m.b, 0, DP_BUF_SIZE);
    copy_rdma(dp, &p, VHCA_WQE_RDMA_WRITE, m.b + 116, m.bkey, m.a + 100,
              40000, m.akey);
    copy_assert(dp, m.a + 100, m.b + 116, 40000);

    /* Into 8 adjacent pages of a page list, from byte 777 to 100 bytes
     * before the end. */
    copy_rdma(dp, &p, VHCA_WQE_RDMA_WRITE, COPY_IOVA + 777, adj_key,
              m.a + 9, 8 * 4096 - 877, m.akey);
    copy_assert(dp, m.a + 9, adj + 777, 8 * 4096 - 877);

    /* READ out of scattered pages (the list names pages 3, 2, 1, 0). */
    dp_fill(dp, pages[0], 4096, 1);
    dp_fill(dp, pages[1], 4096, 2);
    dp_fill(dp, pages[2], 4096, 3);
    dp_fill(dp, pages[3], 4096, 4);
    qtest_memset(dp->v->qts, m.b, 0xee, DP_BUF_SIZE);
    copy_rdma(dp, &p, VHCA_WQE_RDMA_READ, COPY_IOVA + (1ull << 30) + 250,
              list_key, m.b + 1001, 4 * 4096 - 500, m.bkey);
    for (i = 0; i < 4; i++) {
        uint64_t from = i ? 0 : 250, to = i == 3 ? 4096 - 250 : 4096;

        dp_assert_same(dp, pages[3 - i] + from,
                       m.b + 1001 + i * 4096 - 250 + from, to - from);
    }
    copy_assert_guards(dp, m.b + 1001, 4 * 4096 - 500, 0xee);

    /* SEND of 20000 bytes into two SGEs. */
    qtest_memset(dp->v->qts, m.b, 0, DP_BUF_SIZE);
    dp_post_recv(dp, &p.b, 0xb1, m.b + 100, 7000, m.bkey, m.b + 20000,
                 13000);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a + 1, 20000,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 20000);
    copy_assert(dp, m.a + 1, m.b + 100, 7000);
    copy_assert(dp, m.a + 7001, m.b + 20000, 13000);
    dp_stop(dp);
}

/* An RDMA WRITE within one buffer, shifted by shift bytes: the result is
 * memmove's (a run is read before it is written). */
static void copy_overlap_one(Dp *dp, DpPair *p, DpMem *m, uint64_t from,
                             int64_t shift, uint32_t len)
{
    g_autofree uint8_t *want = g_malloc(DP_BUF_SIZE);
    g_autofree uint8_t *got = g_malloc(DP_BUF_SIZE);

    dp_fill(dp, m->a, DP_BUF_SIZE, (uint8_t)len);
    qtest_memread(dp->v->qts, m->a, want, DP_BUF_SIZE);
    memmove(want + from + shift, want + from, len);
    copy_rdma(dp, p, VHCA_WQE_RDMA_WRITE, m->a + from + shift, m->akey,
              m->a + from, len, m->akey);
    qtest_memread(dp->v->qts, m->a, got, DP_BUF_SIZE);
    g_assert_cmpint(memcmp(want, got, DP_BUF_SIZE), ==, 0);
}

static void test_copy_overlap(void)
{
    Dp *dp = dp_start();
    DpPair p;
    DpMem m;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    /* Within one page, forwards and backwards. */
    copy_overlap_one(dp, &p, &m, 100, 64, 3000);
    copy_overlap_one(dp, &p, &m, 164, -64, 3000);
    /* Across many pages of one physical region (one run). */
    copy_overlap_one(dp, &p, &m, 1000, 4100, 40000);
    copy_overlap_one(dp, &p, &m, 9000, -8193, 40000);
    /* Shifted by less than 64 bytes: memmove, never pieces in order. */
    copy_overlap_one(dp, &p, &m, 1000, 16, 40000);
    copy_overlap_one(dp, &p, &m, 2000, -48, 40000);
    dp_stop(dp);
}

/*
 * A SEND of len bytes from src into a receive SGE at dst, either under the
 * local DMA lkey (kernel QPs), one of them not to be copied: the
 * responder's copy (vhca_sgl_copy reads the sender's SGL and writes the
 * receive WQE's in one step) meets a DMA fault either way, the receive
 * completes in LOC_PROT_ERR (DMA_FAULT) and the sender sees REM_OP_ERR,
 * also when the fault was the sender's own source.
 */
static void copy_send_faults(Dp *dp, DpPair *p, uint64_t src, uint32_t skey,
                             uint64_t dst, uint32_t dkey, uint32_t len)
{
    struct vhca_cqe cqe;

    dp_pair(dp, p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_post_recv(dp, &p->b, 0xb2, dst, len, dkey, 0, 0);
    dp_send(dp, &p->a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, src, len, skey);
    dp_expect_cqe(dp, &p->acq, &cqe, VHCA_WC_REM_OP_ERR);
    dp_expect_cqe(dp, &p->bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_DMA_FAULT);
}

static void test_copy_own_bar(void)
{
    Dp *dp = dp_start();
    uint64_t bar = dp->v->reg.addr;
    uint32_t version = rd(dp->v, VHCA_REG_VERSION);
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, DP_BUF_SIZE, 9);
    /* Out of the register BAR, out of the doorbell BAR. */
    qtest_memset(dp->v->qts, m.b, 0, DP_BUF_SIZE);
    copy_send_faults(dp, &p, bar, VHCA_LOCAL_DMA_LKEY, m.b + COPY_GUARD,
                     m.bkey, 64);
    copy_send_faults(dp, &p, dp->v->db.addr + 4096, VHCA_LOCAL_DMA_LKEY,
                     m.b + COPY_GUARD, m.bkey, 4096);
    copy_assert_filled(dp, m.b, DP_BUF_SIZE, 0);
    /* Into them: nothing written, the device as it was. */
    copy_send_faults(dp, &p, m.a, m.akey, bar, VHCA_LOCAL_DMA_LKEY, 64);
    copy_send_faults(dp, &p, m.a, m.akey, dp->v->db.addr,
                     VHCA_LOCAL_DMA_LKEY, 4096);
    g_assert_cmphex(rd(dp->v, VHCA_REG_VERSION), ==, version);
    g_assert_cmpuint(rd(dp->v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);
    dp_stop(dp);
}

static void test_copy_not_ram(void)
{
    Dp *dp = dp_start_with(COPY_SIBLING);
    Vhca *w = vhca_sibling(dp->v, QPCI_DEVFN(5, 0));
    uint8_t table[32];          /* two entries of the table */
    struct vhca_cqe cqe;
    QPCIBar msix;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    /* MMIO of another device as the source: its MSI-X table (BAR 2,
     * entries masked: vector control 1), as the CPU reads it. */
    msix = qpci_iomap(w->dev, VHCA_MSIX_BAR, NULL);
    qtest_memread(dp->v->qts, msix.addr, table, sizeof(table));
    g_assert_cmphex(table[12], ==, 1);
    g_assert_cmphex(table[28], ==, 1);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_post_recv(dp, &p.b, 0xb3, m.b + COPY_GUARD, sizeof(table), m.bkey, 0,
                 0);
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, msix.addr,
            sizeof(table), VHCA_LOCAL_DMA_LKEY);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    copy_assert(dp, msix.addr, m.b + COPY_GUARD, sizeof(table));

    /* ROM as the source (read directly), 4 KiB up to its last byte. */
    dp_post_recv(dp, &p.b, 0xb4, m.b + 4096, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 4, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, COPY_ROM_ADDR,
            4096, VHCA_LOCAL_DMA_LKEY);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, COPY_ROM_ADDR, m.b + 4096, 4096);
    /* ROM as the destination: refused, the ROM unchanged. */
    copy_send_faults(dp, &p, m.a, m.akey, COPY_ROM_ADDR, VHCA_LOCAL_DMA_LKEY,
                     4096);
    dp_assert_same(dp, COPY_ROM_ADDR, m.b + 4096, 4096);
    vhca_sibling_free(w);
    dp_stop(dp);
}

/* Bus mastering of device w's function on or off. */
static void copy_bus_master(Vhca *w, bool on)
{
    uint16_t cmd = qpci_config_readw(w->dev, PCI_COMMAND);

    cmd = on ? cmd | PCI_COMMAND_MASTER : cmd & ~PCI_COMMAND_MASTER;
    qpci_config_writew(w->dev, PCI_COMMAND, cmd);
}

/*
 * The destination device's bus mastering off and on again, then off: the
 * RAM ranges vhca-dma-map.c keeps follow each change of its address
 * space.  Back on, a WRITE lands; off, its side of the copy is refused
 * (REM_OP_ERR for the sender), nothing lands, and the device, unable to
 * write its EQ 0 either, stops (EQ0_DMA).
 */
static void test_copy_bus_master(void)
{
    Dp *dp = g_new0(Dp, 1), *dw = g_new0(Dp, 1);
    uint64_t abuf, bbuf;
    uint32_t akey, bkey;
    struct vhca_cqe cqe;
    DpPair p;

    dp->v = vhca_start(COPY_SIBLING);
    dw->v = vhca_sibling(dp->v, QPCI_DEVFN(5, 0));
    dw->mem = dp->v;
    dp_setup(dp, 2);
    dp_setup(dw, 1);
    abuf = dp_alloc(dp, 16384);
    bbuf = dp_alloc(dw, 16384);
    akey = dp_mr_phys(dp, dp->pd, abuf, 16384, DP_ALL_ACCESS);
    bkey = dp_mr_phys(dw, dw->pd, bbuf, 16384, DP_ALL_ACCESS);
    dp_pair_devices(dp, dw, &p);
    dp_fill(dp, abuf, 16384, 31);
    dp_write(dp, &p.a, 1, bbuf, bkey, abuf, 4096, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    copy_bus_master(dw->v, false);
    copy_bus_master(dw->v, true);
    dp_write(dp, &p.a, 2, bbuf + 4096, bkey, abuf + 4096, 4096, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, abuf, bbuf, 8192);

    copy_bus_master(dw->v, false);
    dp_write(dp, &p.a, 3, bbuf + 8192, bkey, abuf, 8192, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_OP_ERR);
    copy_assert_filled(dp, bbuf + 8192, 8192, 0);
    copy_bus_master(dw->v, true);
    vhca_assert_fatal(dw->v, VHCA_FATAL_EQ0_DMA);
    vhca_sibling_free(dw->v);
    g_free(dw);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/copy/many-pages", test_copy_many_pages);
    qtest_add_func("/vhca/copy/overlap", test_copy_overlap);
    qtest_add_func("/vhca/copy/own-bar", test_copy_own_bar);
    qtest_add_func("/vhca/copy/not-ram", test_copy_not_ram);
    qtest_add_func("/vhca/copy/bus-master", test_copy_bus_master);
    return g_test_run();
}
