// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flush.c DEVICE [--caps-only | --without-cap] - FLUSH (IBA 1.5 A19.4.1, the memory
 * placement extensions; ibv_wr_flush) after RDMA WRITEs.
 *
 * The device announces it: IB_UVERBS_DEVICE_FLUSH_GLOBAL and _PERSISTENT
 * in ibv_query_device_ex's device_cap_flags_ex, and regions register with
 * IBV_ACCESS_FLUSH_GLOBAL / _PERSISTENT.  Two RC QPs of DEVICE, port 1 <->
 * port 2, whose QPs allow both placement types: for each placement type
 * (global visibility, persistence, both) and selectivity (the range, the
 * whole region) an RDMA WRITE then a FLUSH of what it wrote, which
 * completes (IBV_WC_FLUSH) after the WRITE with its bytes in place; then a
 * FLUSH for persistence of a region that allows global visibility only
 * fails with IBV_WC_REM_ACCESS_ERR (rdma-core's
 * test_qp_ex_rc_flush_type_violate).
 *
 * Built by scripts/build-provider.sh against rdma-core 65's headers (44's
 * have no ibv_wr_flush); run by selftests/verbs/uverbs.py.  --caps-only:
 * the guest's provider is built for rdma-core 44, whose ibv_qp_ex has no
 * wr_flush: the capabilities and the regions only.  --without-cap: a
 * kernel without FLUSH (6.1: no IB_DEVICE_FLUSH_*, IB_ACCESS_FLUSH_*)
 * announces neither capability, refuses FLUSH regions and the provider
 * refuses a QP that asks for ibv_wr_flush.
 * Prints one line per check and "flush: ok".
 */
#include <rdma/ib_user_verbs.h>

#include "ud_self.h"
#include "rc_pair.h"

#define LEN 4096
#define QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT)

/* One signaled completion of rc's qp[0]: its status, after checking its
 * wr_id and (on success) its opcode. */
static int completion(struct rc_pair *rc, uint64_t wr_id, int opcode)
{
	struct ibv_wc wc;
	long spins = 0;
	int n;

	while ((n = ibv_poll_cq(rc->cq[0], 1, &wc)) == 0 && spins++ < 200000000L)
		;
	check("one completion", n == 1 && wc.wr_id == wr_id, 1);
	if (wc.status == IBV_WC_SUCCESS)
		check("its opcode", wc.opcode, opcode);
	return wc.status;
}

/* An RDMA WRITE of len bytes at from (in from_mr) to `to`, then a FLUSH
 * of type and level of the same range; the FLUSH's status. */
static int write_then_flush(struct rc_pair *rc, struct ibv_mr *from_mr,
			    const char *from, char *to, struct ibv_mr *to_mr,
			    size_t len, uint8_t type, uint8_t level,
			    uint64_t wr_id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(rc->qp[0]);

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, to_mr->rkey, (uintptr_t)to);
	ibv_wr_set_sge(qpx, from_mr->lkey, (uintptr_t)from, len);
	qpx->wr_id = wr_id + 1;
	ibv_wr_flush(qpx, to_mr->rkey, (uintptr_t)to, len, type, level);
	check("post WRITE and FLUSH", ibv_wr_complete(qpx), 0);
	check("WRITE", completion(rc, wr_id, IBV_WC_RDMA_WRITE), IBV_WC_SUCCESS);
	return completion(rc, wr_id + 1, IBV_WC_FLUSH);
}

/* The kernel has no FLUSH: nothing announces or accepts it. */
static int without_flush(struct ibv_context *ctx, struct ibv_pd *pd,
			 struct ibv_qp_init_attr_ex *init)
{
	static char region[LEN];
	struct ibv_device_attr_ex attr;
	struct ibv_qp *qp;

	check("query device", ibv_query_device_ex(ctx, NULL, &attr), 0);
	check("no FLUSH capability", !!(attr.device_cap_flags_ex &
		(IB_UVERBS_DEVICE_FLUSH_GLOBAL | IB_UVERBS_DEVICE_FLUSH_PERSISTENT)), 0);
	check("FLUSH_GLOBAL region refused",
	      ibv_reg_mr(pd, region, LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_FLUSH_GLOBAL) == NULL, 1);
	init->send_cq = init->recv_cq = must(ibv_create_cq(ctx, 4, NULL, NULL, 0),
					     "ibv_create_cq");
	qp = ibv_create_qp_ex(ctx, init);
	check("QP with ibv_wr_flush refused", qp == NULL, 1);
	check("... as EOPNOTSUPP", errno, EOPNOTSUPP);
	check("destroy CQ", ibv_destroy_cq(init->send_cq), 0);
	check("dealloc PD", ibv_dealloc_pd(pd), 0);
	check("close", ibv_close_device(ctx), 0);
	printf("flush: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		uint8_t type, level;
	} kinds[] = {
		{ IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE },
		{ IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE },
		{ IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE },
		{ IBV_FLUSH_GLOBAL, IBV_FLUSH_MR },
		{ IBV_FLUSH_PERSISTENT, IBV_FLUSH_MR },
	};
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	int caps_only = argc > 2 && !strcmp(argv[2], "--caps-only");
	struct ibv_pd *pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_FLUSH,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	static char src[LEN], dst[LEN], global_only[LEN];
	struct ibv_mr *src_mr, *dst_mr, *global_mr;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	struct rc_pair rc;
	unsigned int i;

	if (argc > 2 && !strcmp(argv[2], "--without-cap"))
		return without_flush(ctx, pd, &init);
	check("query device", ibv_query_device_ex(ctx, NULL, &attr), 0);
	check("FLUSH_GLOBAL capability",
	      !!(attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_GLOBAL), 1);
	check("FLUSH_PERSISTENT capability",
	      !!(attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_PERSISTENT), 1);
	src_mr = must(ibv_reg_mr(pd, src, LEN, IBV_ACCESS_LOCAL_WRITE), "ibv_reg_mr");
	dst_mr = must(ibv_reg_mr(pd, dst, LEN, QP_ACCESS), "FLUSH ibv_reg_mr");
	global_mr = must(ibv_reg_mr(pd, global_only, LEN, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_FLUSH_GLOBAL),
			 "FLUSH_GLOBAL ibv_reg_mr");
	if (caps_only) {
		printf("flush: ok\n");
		return 0;
	}

	for (i = 0; i < 2; i++) {
		rc.port[i] = i + 1;
		check("query port", ibv_query_port(ctx, rc.port[i], &port), 0);
		rc.lid[i] = port.lid;
		rc.cq[i] = must(ibv_create_cq(ctx, 16, NULL, NULL, 0), "ibv_create_cq");
		init.send_cq = init.recv_cq = rc.cq[i];
		rc.qp[i] = must(ibv_create_qp_ex(ctx, &init), "ibv_create_qp_ex");
	}
	for (i = 0; i < 2; i++)
		rc_connect_access(rc.qp[i], rc.port[i], rc.qp[1 - i]->qp_num,
				  rc.lid[1 - i], QP_ACCESS);

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t off = i * 512;

		memset(src + off, 0x40 + i, 512);
		printf("placement type %u, selectivity %u\n", kinds[i].type,
		       kinds[i].level);
		check("FLUSH after the WRITE",
		      write_then_flush(&rc, src_mr, src + off, dst + off, dst_mr, 512,
				       kinds[i].type, kinds[i].level, 10 * i),
		      IBV_WC_SUCCESS);
		check("the WRITE's bytes in place", !memcmp(dst + off, src + off, 512), 1);
	}
	/* the region allows global visibility only: persistence refused */
	check("FLUSH_PERSISTENT of a FLUSH_GLOBAL region",
	      write_then_flush(&rc, src_mr, src, global_only, global_mr, 64,
			       IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE, 100),
	      IBV_WC_REM_ACCESS_ERR);
	rc_destroy(&rc);
	check("dereg", ibv_dereg_mr(global_mr), 0);
	check("dereg", ibv_dereg_mr(dst_mr), 0);
	check("dereg", ibv_dereg_mr(src_mr), 0);
	check("dealloc PD", ibv_dealloc_pd(pd), 0);
	check("close", ibv_close_device(ctx), 0);
	printf("flush: ok\n");
	return 0;
}
