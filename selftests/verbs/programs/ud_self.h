/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ud_self.h - the C test programs' common part (thread_domain.c, fork.c,
 * phc_timestamp.c):
 * checks that exit on a mismatch, and a UD QP on port 1 that sends to
 * itself, with an extended CQ and one registered 4 KiB buffer (sends from
 * its start, receives at +2048 after the 40-byte GRH space).
 */
#ifndef VHCA_UD_SELF_H
#define VHCA_UD_SELF_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define PORT 1
#define QKEY 0x11111111u

static inline void check(const char *what, long got, long expected)
{
	printf("%s: %ld\n", what, got);
	if (got != expected) {
		fprintf(stderr, "%s: %s: got %ld, expected %ld\n",
			program_invocation_short_name, what, got, expected);
		exit(1);
	}
}

static inline void *must(void *ptr, const char *what)
{
	if (!ptr) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name,
			what, strerror(errno));
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

/* A UD QP on port 1 through pd (a parent domain), in RTS, sending to
 * itself; its CQ gives wc_flags (IBV_WC_STANDARD_FLAGS and more). */
static inline void ud_create_wc(struct ibv_context *ctx, struct ibv_pd *pd,
				uint32_t cq_flags, uint64_t wc_flags,
				struct ud *ud)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 16, .wc_flags = wc_flags,
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

static inline void ud_create(struct ibv_context *ctx, struct ibv_pd *pd, uint32_t cq_flags,
		      struct ud *ud)
{
	ud_create_wc(ctx, pd, cq_flags, IBV_WC_STANDARD_FLAGS, ud);
}

static inline void ud_destroy(struct ud *ud)
{
	check("destroy QP", ibv_destroy_qp(ud->qp), 0);
	check("destroy CQ", ibv_destroy_cq(ibv_cq_ex_to_cq(ud->cq)), 0);
	check("destroy AH", ibv_destroy_ah(ud->ah), 0);
	check("dereg MR", ibv_dereg_mr(ud->mr), 0);
}

/* One SEND of `len` bytes at buf to itself, received at buf + 2048. */
static inline int ud_send(struct ud *ud, uint32_t len)
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
static inline int ud_poll(struct ud *ud, int want)
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

/* The device `name`, opened; exits when there is none. */
static inline struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = must(ibv_get_device_list(NULL), "device list");
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list[i] && !ctx; i++)
		if (name && !strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return must(ctx, "open the device");
}

#endif /* VHCA_UD_SELF_H */
