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
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define PORT 1
#define QKEY 0x11111111u

static void check(const char *what, long got, long expected)
{
	printf("%s: %ld\n", what, got);
	if (got != expected) {
		fprintf(stderr, "thread_domain: %s: got %ld, expected %ld\n",
			what, got, expected);
		exit(1);
	}
}

static void *must(void *ptr, const char *what)
{
	if (!ptr) {
		fprintf(stderr, "thread_domain: %s: %s\n", what, strerror(errno));
		exit(1);
	}
	return ptr;
}

struct ud {
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	char buf[4096];
};

/* A UD QP on port 1 through pd (a parent domain), in RTS, sending to itself. */
static void ud_create(struct ibv_context *ctx, struct ibv_pd *pd, uint32_t cq_flags,
		      struct ud *ud)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS, .flags = cq_flags,
	};
	struct ibv_qp_init_attr_ex qp_attr = {
		.qp_type = IBV_QPT_UD, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = PORT,
				    .qkey = QKEY };
	struct ibv_port_attr port;
	struct ibv_ah_attr ah_attr = { .port_num = PORT };

	ud->cq = must(ibv_create_cq_ex(ctx, &cq_attr), "ibv_create_cq_ex");
	qp_attr.send_cq = qp_attr.recv_cq = ibv_cq_ex_to_cq(ud->cq);
	ud->qp = must(ibv_create_qp_ex(ctx, &qp_attr), "ibv_create_qp_ex");
	check("modify to INIT", ibv_modify_qp(ud->qp, &attr, IBV_QP_STATE |
					      IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					      IBV_QP_QKEY), 0);
	attr.qp_state = IBV_QPS_RTR;
	check("modify to RTR", ibv_modify_qp(ud->qp, &attr, IBV_QP_STATE), 0);
	attr.qp_state = IBV_QPS_RTS;
	check("modify to RTS", ibv_modify_qp(ud->qp, &attr, IBV_QP_STATE |
					     IBV_QP_SQ_PSN), 0);
	check("query port", ibv_query_port(ctx, PORT, &port), 0);
	ah_attr.dlid = port.lid;
	ud->ah = must(ibv_create_ah(pd, &ah_attr), "ibv_create_ah");
	ud->mr = must(ibv_reg_mr(pd, ud->buf, sizeof(ud->buf), IBV_ACCESS_LOCAL_WRITE),
		      "ibv_reg_mr");
}

static void ud_destroy(struct ud *ud)
{
	check("destroy QP", ibv_destroy_qp(ud->qp), 0);
	check("destroy CQ", ibv_destroy_cq(ibv_cq_ex_to_cq(ud->cq)), 0);
	check("destroy AH", ibv_destroy_ah(ud->ah), 0);
	check("dereg MR", ibv_dereg_mr(ud->mr), 0);
}

/* One SEND of `len` bytes at buf to itself, received at buf + 2048. */
static int ud_send(struct ud *ud, uint32_t len)
{
	struct ibv_sge rsge = { (uintptr_t)ud->buf + 2048, len + 40, ud->mr->lkey };
	struct ibv_sge ssge = { (uintptr_t)ud->buf, len, ud->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 }, *bad_rwr;
	struct ibv_send_wr swr = {
		.wr_id = 2, .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ud->ah, .remote_qpn = ud->qp->qp_num, .remote_qkey = QKEY },
	}, *bad_swr;

	if (ibv_post_recv(ud->qp, &rwr, &bad_rwr))
		return -1;
	return ibv_post_send(ud->qp, &swr, &bad_swr);
}

/* Waits for `want` successful completions. */
static int ud_poll(struct ud *ud, int want)
{
	struct ibv_poll_cq_attr attr = {};
	int done = 0, spins = 0;

	while (done < want && spins++ < 10000000) {
		if (ibv_start_poll(ud->cq, &attr))
			continue;
		do {
			if (ud->cq->status != IBV_WC_SUCCESS)
				return -1;
			done++;
		} while (!ibv_next_poll(ud->cq));
		ibv_end_poll(ud->cq);
	}
	return done;
}

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
	struct ibv_device **list = must(ibv_get_device_list(NULL), "device list");
	struct ibv_td_init_attr td_attr = {};
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd, *with_td, *without_td;
	struct ibv_td *td;
	struct ud ud;
	int i;

	for (i = 0; list[i] && !ctx; i++)
		if (argc > 1 && !strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	must(ctx, "open the device");
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
	ibv_free_device_list(list);
	printf("thread_domain: ok\n");
	return 0;
}
