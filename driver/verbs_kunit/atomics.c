// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * atomics.c - atomics under concurrency (IBA 9.4.5, atomic_cap
 * IB_ATOMIC_HCA: atomic between the QPs of this HCA): WORKERS RC pairs,
 * one kernel thread each, all on the same 8-byte word of b.buf2.
 *
 * The threads start together (bound to CPU 0 and 1 when there are two)
 * and sleep briefly every ATOMICS_PER_POST operations, so their posts
 * interleave even on one CPU; worker 0 must have seen the other's
 * operations between its own.
 *
 * atomic_concurrent_fadd: each thread does ROUNDS fetch-and-adds of 1,
 * ATOMICS_PER_POST per post call; the word ends at exactly
 * WORKERS * ROUNDS and the originals returned are all distinct.
 * atomic_concurrent_cmp_swap: each thread increments the word ROUNDS
 * times with compare-and-swap loops (retrying with the value a failed
 * CMP_SWP returned); the word ends at the exact sum again and every
 * successful swap saw a distinct value.
 */
#include <linux/kthread.h>
#include <linux/sort.h>

#include "verbs_kunit.h"

#define WORKERS 2
#define ROUNDS 128
#define ATOMICS_PER_POST 8

struct worker {
	struct pair p;
	atomic_t *start;		/* workers spin until all are up */
	struct ib_mr *mr;		/* the word's region, bound by p.qb */
	bool cmp_swap;
	u64 *results;			/* this worker's slots in a.buf2 */
	u64 results_dma;
	u64 seen[ROUNDS];		/* originals of successful operations */
	int lost;			/* CMP_SWPs that found another value */
	int err;
	struct completion done;
};

static int post_atomic(struct worker *w, u64 wr_id, u64 slot_dma,
		       enum ib_wr_opcode opcode, u64 compare_add, u64 swap,
		       struct ib_send_wr *next, struct ib_atomic_wr *aw,
		       struct ib_sge *sge)
{
	sge->addr = slot_dma;
	sge->length = 8;
	sge->lkey = pd->local_dma_lkey;
	memset(aw, 0, sizeof(*aw));
	aw->wr.wr_id = wr_id;
	aw->wr.opcode = opcode;
	aw->wr.send_flags = IB_SEND_SIGNALED;
	aw->wr.sg_list = sge;
	aw->wr.num_sge = 1;
	aw->wr.next = next;
	aw->remote_addr = w->mr->iova;
	aw->rkey = w->mr->rkey;
	aw->compare_add = compare_add;
	aw->swap = swap;
	return 0;
}

static int worker_fadd(struct worker *w)
{
	struct ib_atomic_wr aw[ATOMICS_PER_POST];
	struct ib_sge sge[ATOMICS_PER_POST];
	const struct ib_send_wr *bad;
	int i, j, err;

	for (i = 0; i < ROUNDS; i += ATOMICS_PER_POST) {
		for (j = ATOMICS_PER_POST - 1; j >= 0; j--)
			post_atomic(w, i + j, w->results_dma + (i + j) * 8,
				    IB_WR_ATOMIC_FETCH_AND_ADD, 1, 0,
				    j + 1 < ATOMICS_PER_POST ? &aw[j + 1].wr : NULL,
				    &aw[j], &sge[j]);
		err = ib_post_send(w->p.qa, &aw[0].wr, &bad);
		if (err)
			return err;
		for (j = 0; j < ATOMICS_PER_POST; j++)
			if (expect_wc("atomic_concurrent_fadd", w->p.cqa, i + j,
				      IB_WC_FETCH_ADD, 0))
				return -EIO;
		/* Let the other worker in, even on one CPU. */
		usleep_range(20, 50);
	}
	ib_dma_sync_single_for_cpu(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	for (i = 0; i < ROUNDS; i++)
		w->seen[i] = w->results[i];
	return 0;
}

static int worker_cmp_swap(struct worker *w)
{
	struct ib_atomic_wr aw;
	struct ib_sge sge;
	const struct ib_send_wr *bad;
	u64 expected = 0, got, wr_id = 0;
	int done = 0, err;

	while (done < ROUNDS) {
		post_atomic(w, wr_id, w->results_dma, IB_WR_ATOMIC_CMP_AND_SWP,
			    expected, expected + 1, NULL, &aw, &sge);
		err = ib_post_send(w->p.qa, &aw.wr, &bad);
		if (err)
			return err;
		if (expect_wc("atomic_concurrent_cmp_swap", w->p.cqa, wr_id,
			      IB_WC_COMP_SWAP, 0))
			return -EIO;
		wr_id++;
		ib_dma_sync_single_for_cpu(ibdev, a.dma2, BUF_SIZE,
					   DMA_BIDIRECTIONAL);
		got = READ_ONCE(*w->results);
		if (got == expected) {
			w->seen[done++] = got;
			expected = got + 1;
			if (done % ATOMICS_PER_POST == 0)
				usleep_range(20, 50);
		} else {
			expected = got;	/* lost the race: retry from there */
			w->lost++;
		}
		if (wr_id > 100 * ROUNDS)
			return -ELOOP;
	}
	return 0;
}

static int worker_fn(void *arg)
{
	struct worker *w = arg;

	atomic_dec(w->start);
	while (atomic_read(w->start) > 0)
		cpu_relax();
	w->err = w->cmp_swap ? worker_cmp_swap(w) : worker_fadd(w);
	complete(&w->done);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	u64 l = *(const u64 *)x, r = *(const u64 *)y;

	return l < r ? -1 : l > r;
}

/* The word and the sorted originals: 0, 1, ..., WORKERS * ROUNDS - 1. */
static void check_result(const char *name, struct worker *w)
{
	static u64 all[WORKERS * ROUNDS];
	int i, k = 0;
	u64 word;

	for (i = 0; i < WORKERS; i++)
		if (w[i].err) {
			fail(name, "worker %d: %d", i, w[i].err);
			return;
		}
	ib_dma_sync_single_for_cpu(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	word = *(u64 *)b.buf2;
	if (word != WORKERS * ROUNDS) {
		fail(name, "word %llu, expected %u", word, WORKERS * ROUNDS);
		return;
	}
	for (i = 0; i < WORKERS; i++) {
		memcpy(all + k, w[i].seen, sizeof(w[i].seen));
		k += ROUNDS;
	}
	/* How often worker 0's originals jumped: the other's ran between.
	 * Without that the case proves nothing. */
	for (i = 1, k = 0; i < ROUNDS; i++)
		k += w[0].seen[i] != w[0].seen[i - 1] + 1;
	kunit_info(verbs_kunit_test,
		   "worker 0 interleaved %d times, compare-and-swaps lost %d + %d\n",
		   k, w[0].lost, w[1].lost);
	if (!k) {
		fail(name, "the workers did not interleave");
		return;
	}
	k = WORKERS * ROUNDS;
	sort(all, k, sizeof(all[0]), cmp_u64, NULL);
	for (i = 0; i < k; i++)
		if (all[i] != i) {
			fail(name, "originals not distinct: sorted[%d] = %llu",
			     i, all[i]);
			return;
		}
}

static void run(const char *name, struct worker *w, bool cmp_swap)
{
	struct task_struct *task[WORKERS] = {};
	atomic_t start = ATOMIC_INIT(WORKERS);
	int i;

	*(u64 *)b.buf2 = 0;
	memset(a.buf2, 0xff, BUF_SIZE);
	sync_for_device();
	for (i = 0; i < WORKERS; i++) {
		w[i].cmp_swap = cmp_swap;
		w[i].err = -EINPROGRESS;
		w[i].start = &start;
		w[i].lost = 0;
		init_completion(&w[i].done);
		/* One CPU each where there are enough. */
		task[i] = kthread_create(worker_fn, &w[i], "vhca_kt_atomic%d", i);
		if (IS_ERR(task[i])) {
			w[i].err = PTR_ERR(task[i]);
			atomic_dec(&start);
			complete(&w[i].done);
			continue;
		}
		if (num_online_cpus() >= WORKERS && cpu_online(i))
			kthread_bind(task[i], i);
		wake_up_process(task[i]);
	}
	for (i = 0; i < WORKERS; i++)
		wait_for_completion(&w[i].done);
	check_result(name, w);
}

/* WORKERS pairs, each with the region of the word bound on its qb, run
 * with every worker doing fetch-and-adds or compare-and-swap loops. */
static void run_workers(const char *name, bool cmp_swap)
{
	static struct worker w[WORKERS];
	int i, n = 0;

	for (i = 0; i < WORKERS; i++, n++) {
		if (pair_create(&w[i].p, NULL))
			break;
		w[i].mr = frwr_create(name, pd, w[i].p.qb, w[i].p.cqb, b.dma2,
				      BUF_SIZE, IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_ATOMIC);
		if (!w[i].mr) {
			pair_destroy(&w[i].p);
			break;
		}
		w[i].results = a.buf2 + i * (BUF_SIZE / WORKERS);
		w[i].results_dma = a.dma2 + i * (BUF_SIZE / WORKERS);
	}
	if (n == WORKERS)
		run(name, w, cmp_swap);
	else
		fail(name, "setup of worker %d", n);
	for (i = 0; i < n; i++) {
		ib_dereg_mr(w[i].mr);
		pair_destroy(&w[i].p);
	}
}

static void atomic_concurrent_fadd(struct kunit *test)
{
	run_workers(test->name, false);
}

static void atomic_concurrent_cmp_swap(struct kunit *test)
{
	run_workers(test->name, true);
}

static struct kunit_case atomics_cases[] = {
	KUNIT_CASE(atomic_concurrent_fadd),
	KUNIT_CASE(atomic_concurrent_cmp_swap),
	{}
};

static struct kunit_suite atomics_suite = VERBS_SUITE(atomics, atomics_cases);
kunit_test_suite(atomics_suite);
