/*
 * vhca payload copy benchmark (make bench-copy; not part of make test).
 *
 * Posts N RDMA WRITEs, RDMA READs and SENDs between the two ports of one
 * device through the qtest protocol and reads QEMU's CPU time (the
 * process CPU clock, clock_getcpuclockid: every thread, nanoseconds)
 * before and after each row, so that a loaded host changes the figures
 * far less than wall time would.  The WQEs and receive WQEs are written
 * once; each batch of 16 is one doorbell and one completion read, and the
 * 8-byte row of each operation measures what a message costs besides its
 * payload (qtest protocol, doorbell, WQE, completion).  The payload's cost
 * per byte is (row - 8-byte row) / size.  Host memcpy of the same size,
 * in this process, is the reference.
 *
 * Environment: VHCA_BENCH_N messages per row (default 8192),
 * VHCA_BENCH_REPS rows per size and operation, the lowest kept (default 5),
 * QTEST_QEMU_BINARY the QEMU to measure (main's for "before").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"
#include <time.h>

#define BENCH_BATCH     (1u << DP_WQ_LOG)
#define BENCH_IOVA      0x6000000000ull
#define BENCH_PAGES     (DP_BUF_SIZE / 4096)

typedef struct Bench {
    Dp *dp;
    DpPair p;
    DpMem m;
    uint32_t scattered_key;     /* B's 64 KiB over every other 4 KiB page */
    pid_t qemu;
    uint32_t n;                 /* messages per row */
    uint32_t reps;              /* rows per size and operation */
} Bench;

static uint64_t bench_cpu_ns(clockid_t clk)
{
    struct timespec ts;

    g_assert_cmpint(clock_gettime(clk, &ts), ==, 0);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t bench_qemu_ns(Bench *b)
{
    clockid_t clk;

    g_assert_cmpint(clock_getcpuclockid(b->qemu, &clk), ==, 0);
    return bench_cpu_ns(clk);
}

/* B's 64 KiB region over 16 pages no two of which are adjacent. */
static uint32_t bench_mr_scattered(Dp *dp)
{
    uint64_t pages = dp_alloc(dp, 2 * DP_BUF_SIZE);
    uint64_t list = dp_alloc(dp, BENCH_PAGES * 8);
    uint64_t raw[BENCH_PAGES];
    struct vhca_cmd_create_mr in;
    uint32_t key, i;

    for (i = 0; i < BENCH_PAGES; i++) {
        raw[i] = cpu_to_le64(pages + 2 * i * 4096ull);
    }
    qtest_memwrite(dp->v->qts, list, raw, sizeof(raw));
    dp_mr_desc(&in, dp->pd, BENCH_IOVA, DP_BUF_SIZE, list, BENCH_PAGES,
               VHCA_BUF_DIRECT);
    in.access = cpu_to_le32(DP_ALL_ACCESS);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key), ==, VHCA_CMD_OK);
    return key;
}

/* Fill A's send queue with one WQE repeated, the last of each batch
 * signaled. */
static void bench_fill_sq(Bench *b, uint8_t opcode, uint64_t raddr,
                          uint32_t rkey, uint32_t len)
{
    DpWqe w;
    uint32_t i;

    for (i = 0; i < BENCH_BATCH; i++) {
        dp_wqe(&w, i, opcode, i == BENCH_BATCH - 1 ? VHCA_WQE_F_SIGNALED : 0);
        if (opcode != VHCA_WQE_SEND) {
            dp_wqe_raddr(&w, raddr, rkey);
        }
        dp_wqe_sge(&w, b->m.a, len, b->m.akey);
        dp_put_send(b->dp, &b->p.a, &w);
    }
}

/* Fill B's receive queue with receive WQEs of len bytes, announced by
 * bench_row's doorbells (producer indexes stay multiples of the batch). */
static void bench_fill_rq(Bench *b, uint32_t len)
{
    uint8_t w[1u << DP_RQ_SHIFT] = { 0 };
    struct vhca_rwqe_hdr *h = (void *)w;
    struct vhca_sge *sge = (void *)(w + sizeof(*h));
    uint32_t i;

    h->num_sge = 1;
    sge->addr = cpu_to_le64(b->m.b);
    sge->length = cpu_to_le32(len);
    sge->lkey = cpu_to_le32(b->m.bkey);
    for (i = 0; i < BENCH_BATCH; i++) {
        h->wr_id = cpu_to_le64(i);
        qtest_memwrite(b->dp->v->qts, b->p.b.rq + ((uint64_t)i << DP_RQ_SHIFT),
                       w, sizeof(w));
    }
}

/* The rings for messages of len bytes; bench_row announces them. */
static void bench_fill(Bench *b, uint8_t opcode, uint64_t raddr,
                       uint32_t rkey, uint32_t len)
{
    bench_fill_sq(b, opcode, raddr, rkey, len);
    b->p.a.sq_pi -= BENCH_BATCH;
    if (opcode == VHCA_WQE_SEND) {
        bench_fill_rq(b, len);
    }
}

/* Wait for the completion of the last message of a batch on cq, whose
 * consumer index then moves past the batch's count completions. */
static void bench_wait_batch(Dp *dp, DpCq *cq, uint32_t count)
{
    struct vhca_cqe cqe;
    uint32_t last = cq->ci + count - 1;
    uint64_t off = (uint64_t)(last & ((1u << cq->log) - 1)) * 64;
    int polls = 0;

    do {
        qtest_memread(dp->v->qts, cq->ring + off, &cqe, sizeof(cqe));
        g_assert_cmpint(++polls, <, POLL_LIMIT);
    } while ((cqe.owner & 1) != vhca_eqe_owner(last, cq->log));
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
    cq->ci += count;
    qtest_writel(dp->v->qts, cq->dbrec, cq->ci);
}

/* N messages in batches: QEMU's CPU ns per message. */
static double bench_row(Bench *b, uint8_t opcode)
{
    Dp *dp = b->dp;
    uint32_t batches = b->n / BENCH_BATCH, i;
    uint64_t before = bench_qemu_ns(b);

    for (i = 0; i < batches; i++) {
        if (opcode == VHCA_WQE_SEND) {
            b->p.b.rq_pi += BENCH_BATCH;
            dp_db64(dp->v, 0, VHCA_DB_RQ,
                    vhca_db_data_value(b->p.b.h, 0, b->p.b.rq_pi));
        }
        b->p.a.sq_pi += BENCH_BATCH;
        dp_db64(dp->v, 0, VHCA_DB_SQ,
                vhca_db_data_value(b->p.a.h, 0, b->p.a.sq_pi));
        bench_wait_batch(dp, &b->p.acq, 1);
        if (opcode == VHCA_WQE_SEND) {
            bench_wait_batch(dp, &b->p.bcq, BENCH_BATCH);
        }
    }
    return (double)(bench_qemu_ns(b) - before) / (batches * BENCH_BATCH);
}

/* The rings for messages of len bytes, one row: CPU ns per message. */
static double bench_row_of(Bench *b, uint8_t opcode, uint64_t raddr,
                           uint32_t rkey, uint32_t len)
{
    bench_fill(b, opcode, raddr, rkey, len);
    return bench_row(b, opcode);
}

/*
 * One operation at 8 bytes and at len, b->reps times alternately after a
 * warm-up row, the lowest of each kept (other load only ever adds CPU
 * time: cache misses, a slower clock): prints the line.
 */
static void bench_op(Bench *b, const char *name, uint8_t opcode,
                     uint64_t raddr, uint32_t rkey, uint32_t len,
                     double memcpy_ns_per_byte)
{
    double base = G_MAXDOUBLE, full = G_MAXDOUBLE, per_byte;
    uint32_t i;

    bench_row_of(b, opcode, raddr, rkey, len);
    for (i = 0; i < b->reps; i++) {
        base = MIN(base, bench_row_of(b, opcode, raddr, rkey, 8));
        full = MIN(full, bench_row_of(b, opcode, raddr, rkey, len));
    }
    per_byte = (full - base) / len;
    printf("%-28s %7u %9.0f %9.0f %9.4f %9.0f %7.1f%%\n", name, len, base,
           full, per_byte, per_byte > 0 ? 1000.0 / per_byte : 0,
           per_byte > 0 ? 100.0 * memcpy_ns_per_byte / per_byte : 0);
}

/*
 * Host memcpy of len bytes between two buffers, CPU ns per byte.  Both
 * page-aligned, as guest pages are: two g_malloc()ed 64 KiB buffers sit
 * 64 KiB + 16 bytes apart, and with glibc 2.36 on AMD Zen hosts a copy
 * whose (dst - src) & 0xfff is 1..63 takes `rep movsb` at a twentieth of
 * the speed (glibc bug 30994; scripts/bench-memcpy.c).
 */
static double bench_memcpy(uint32_t len, uint32_t n)
{
    uint8_t *x = aligned_alloc(4096, len), *y = aligned_alloc(4096, len);
    uint64_t before, after;
    uint32_t i;

    g_assert_true(x && y);
    memset(x, 1, len);
    memset(y, 2, len);
    before = bench_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    for (i = 0; i < n; i++) {
        x[i % len] = i;
        memcpy(y, x, len);
        __asm__ volatile("" : : "r"(y) : "memory");
    }
    after = bench_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    free(x);
    free(y);
    return (double)(after - before) / n / len;
}

static pid_t bench_read_pid(const char *path)
{
    g_autofree char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return atoi(text);
}

int main(int argc, char **argv)
{
    g_autofree char *dir = g_dir_make_tmp("vhca-bench-XXXXXX", NULL);
    g_autofree char *pidfile = g_build_filename(dir, "qemu.pid", NULL);
    g_autofree char *extra = g_strdup_printf(" -pidfile %s", pidfile);
    const char *n_env = getenv("VHCA_BENCH_N");
    const char *reps_env = getenv("VHCA_BENCH_REPS");
    double mc64, mc4;
    Bench b = { 0 };

    b.n = n_env ? atoi(n_env) : 8192;
    b.n = MAX(b.n / BENCH_BATCH, 1) * BENCH_BATCH;
    b.reps = MAX(reps_env ? atoi(reps_env) : 5, 1);
    b.dp = dp_start_with(extra);
    b.qemu = bench_read_pid(pidfile);
    dp_pair(b.dp, &b.p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(b.dp, &b.m, DP_ALL_ACCESS);
    b.scattered_key = bench_mr_scattered(b.dp);
    dp_fill(b.dp, b.m.a, DP_BUF_SIZE, 3);
    mc64 = bench_memcpy(DP_BUF_SIZE, b.n * b.reps);
    mc4 = bench_memcpy(4096, b.n * b.reps * 16);

    printf("vhca copy benchmark: %u messages per row, lowest of %u rows, "
           "QEMU CPU time (all threads)\n", b.n, b.reps);
    printf("host memcpy: 64 KiB %.3f ns/B (%.0f MB/s), 4 KiB %.3f ns/B "
           "(%.0f MB/s)\n", mc64, 1000.0 / mc64, mc4, 1000.0 / mc4);
    printf("%-28s %7s %9s %9s %9s %9s %8s\n", "operation", "bytes",
           "ns/msg@8", "ns/msg", "ns/B", "MB/s", "memcpy");
    bench_op(&b, "RDMA WRITE, physical MRs", VHCA_WQE_RDMA_WRITE, b.m.b,
             b.m.bkey, DP_BUF_SIZE, mc64);
    /* Page offsets 16 bytes apart: glibc's slow rep movsb case on AMD
     * Zen, which vhca-place.c copies in pieces (vhca_copy_body). */
    bench_op(&b, "RDMA WRITE, 16 B page offset", VHCA_WQE_RDMA_WRITE,
             b.m.b + 16, b.m.bkey, DP_BUF_SIZE - 64, mc64);
    bench_op(&b, "RDMA WRITE, scattered pages", VHCA_WQE_RDMA_WRITE,
             BENCH_IOVA, b.scattered_key, DP_BUF_SIZE, mc64);
    bench_op(&b, "RDMA READ, physical MRs", VHCA_WQE_RDMA_READ, b.m.b,
             b.m.bkey, DP_BUF_SIZE, mc64);
    bench_op(&b, "RDMA READ, scattered pages", VHCA_WQE_RDMA_READ,
             BENCH_IOVA, b.scattered_key, DP_BUF_SIZE, mc64);
    bench_op(&b, "SEND, physical MRs", VHCA_WQE_SEND, 0, 0, 4096, mc4);
    dp_assert_same(b.dp, b.m.a, b.m.b, 4096);
    dp_stop(b.dp);
    unlink(pidfile);
    rmdir(dir);
    return 0;
}
