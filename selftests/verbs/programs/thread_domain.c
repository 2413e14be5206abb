// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * thread_domain.c DEVICE - thread domains and single-threaded CQs
 * (provider/pd.c): the queues of a QP created through a parent domain with
 * a thread domain take no lock, and a second user while one is inside
 * (here: ibv_post_send between ibv_wr_start and ibv_wr_complete) aborts the
 * process instead of corrupting the ring; the same on a QP without a
 * thread domain waits for the lock (the child is still spinning when its
 * alarm fires).  The same for a CQ created IBV_CREATE_CQ_ATTR_SINGLE_-
 * THREADED (ibv_poll_cq inside ibv_start_poll).  Traffic through the
 * lock-free queues arrives (a UD QP on port 1 sending to itself), and a
 * thread domain named by a parent domain cannot be freed (EBUSY).
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "thread_domain: ok".
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ud_self.h"

/* How a child doing `misuse` on ud ends: the signal that ended it. */
static int child_misuse(struct ud *ud, void (*misuse)(struct ud *ud))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(3);	/* a lock that is really taken spins until then */
		misuse(ud);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* ibv_post_send while the same QP's ibv_wr_start batch is open (the
 * child's queues are copies of the parent's pinned pages, so it must not
 * get as far as a doorbell: it stops at the lock either way). */
static void post_inside_batch(struct ud *ud)
{
	struct ibv_sge sge = { (uintptr_t)ud->buf, 8, ud->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.wr.ud = { .ah = ud->ah, .remote_qpn = ud->qp->qp_num, .remote_qkey = QKEY },
	}, *bad_wr;

	ibv_wr_start(ibv_qp_to_qp_ex(ud->qp));
	ibv_post_send(ud->qp, &wr, &bad_wr);
}

/* ibv_poll_cq while ibv_start_poll holds the CQ (a completion waits: it
 * was in the ring when the child's copy of it was made). */
static void poll_inside_poll(struct ud *ud)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc;

	if (ibv_start_poll(ud->cq, &attr))
		_exit(2);	/* no completion to hold the CQ with */
	ibv_poll_cq(ibv_cq_ex_to_cq(ud->cq), 1, &wc);
}

static struct ibv_pd *parent_domain(struct ibv_context *ctx, struct ibv_pd *pd,
				    struct ibv_td *td)
{
	struct ibv_parent_domain_init_attr attr = { .pd = pd, .td = td };

	return must(ibv_alloc_parent_domain(ctx, &attr), "ibv_alloc_parent_domain");
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	struct ibv_td_init_attr td_attr = {};
	struct ibv_pd *pd, *with_td, *without_td;
	struct ibv_td *td;
	struct ud ud;
	int i;

	pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	td = must(ibv_alloc_td(ctx, &td_attr), "ibv_alloc_td");
	with_td = parent_domain(ctx, pd, td);
	without_td = parent_domain(ctx, pd, NULL);

	/* A thread domain's QP: traffic, then a second user aborts. */
	ud_create(ctx, with_td, 0, &ud);
	for (i = 0; i < 4; i++)
		check("send through the thread domain's QP", ud_send(&ud, 64), 0);
	check("completions", ud_poll(&ud, 8), 8);
	check("thread domain QP, post inside a batch: signal",
	      child_misuse(&ud, post_inside_batch), SIGABRT);
	ud_destroy(&ud);
	check("free the thread domain of a parent domain",
	      ibv_dealloc_td(td), EBUSY);

	/* Without a thread domain the lock is real: the child spins. */
	ud_create(ctx, without_td, 0, &ud);
	check("locked QP, post inside a batch: signal",
	      child_misuse(&ud, post_inside_batch), SIGALRM);
	ud_destroy(&ud);

	/* A single-threaded CQ: the same check on its poll. */
	ud_create(ctx, without_td, IBV_CREATE_CQ_ATTR_SINGLE_THREADED, &ud);
	check("send", ud_send(&ud, 64), 0);
	usleep(200000);		/* its completions are in the ring */
	check("single-threaded CQ, poll inside a poll: signal",
	      child_misuse(&ud, poll_inside_poll), SIGABRT);
	check("completions", ud_poll(&ud, 2), 2);
	ud_destroy(&ud);

	check("free the parent domains", ibv_dealloc_pd(with_td) |
	      ibv_dealloc_pd(without_td), 0);
	check("free the thread domain", ibv_dealloc_td(td), 0);
	check("free the PD", ibv_dealloc_pd(pd), 0);
	ibv_close_device(ctx);
	printf("thread_domain: ok\n");
	return 0;
}
