// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * odp_atomic_write.c DEVICE - ATOMIC WRITE (IBA 1.5 9.4.6,
 * ibv_wr_atomic_write) into an on-demand paging region whose pages are
 * absent (Documentation/driver.md "On-demand paging").
 *
 * The device announces it: IBV_ODP_SUPPORT_ATOMIC_WRITE in the RC ODP
 * caps (rdma-core 65; bit 7, IB_UVERBS_ODP_SUPPORT_ATOMIC_WRITE, which
 * rdma-core 44's headers do not name).  Two RC QPs of DEVICE, port 1 <->
 * port 2, the target an ODP MR over two pages of an anonymous mapping:
 * each page is dropped (madvise(MADV_DONTNEED)) before an ATOMIC WRITE
 * lands in it, so the responder faults (RNR NAK while the driver maps the
 * page) and the 8 bytes must then be in the process's new page.
 * Before Linux 7.3 ib_uverbs has no such bit to pass on: with the second
 * argument "without-cap" the caps must NOT announce it (the driver claims
 * nothing the kernel cannot say), and the device's data path is checked
 * all the same.
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "odp_atomic_write: ok".
 */
#include <sys/mman.h>

#include "ud_self.h"
#include "rc_pair.h"

#define ODP_SUPPORT_ATOMIC_WRITE (1u << 7)
#define ODP_LEN (2 * 4096)
#define WR_ID 11

/* qp (its qp_ex: ATOMIC WRITE) posts one signaled ATOMIC WRITE; its status. */
static int atomic_write(struct rc_pair *rc, uint64_t value, void *to,
			uint32_t rkey)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(rc->qp[0]);
	struct ibv_wc wc;
	long spins = 0;
	int n;

	ibv_wr_start(qpx);
	qpx->wr_id = WR_ID;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rkey, (uintptr_t)to, &value);
	check("post", ibv_wr_complete(qpx), 0);
	while ((n = ibv_poll_cq(rc->cq[0], 1, &wc)) == 0 && spins++ < 200000000L)
		;
	check("one completion", n == 1 && wc.wr_id == WR_ID, 1);
	return wc.status;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	struct ibv_pd *pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	struct ibv_device_attr_ex attr;
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_port_attr port;
	struct ibv_mr *odp_mr;
	struct rc_pair rc;
	uint64_t *target;
	char *odp;
	int announced = !(argc > 2 && !strcmp(argv[2], "without-cap"));
	int i;

	check("query device", ibv_query_device_ex(ctx, NULL, &attr), 0);
	check(announced ? "RC ODP caps: ATOMIC WRITE" : "RC ODP caps: no ATOMIC WRITE bit",
	      !!(attr.odp_caps.per_transport_caps.rc_odp_caps &
		 ODP_SUPPORT_ATOMIC_WRITE), announced);
	odp = mmap(NULL, ODP_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	must(odp == MAP_FAILED ? NULL : odp, "mmap");
	odp_mr = must(ibv_reg_mr(pd, odp, ODP_LEN, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND),
		      "ODP ibv_reg_mr");

	for (i = 0; i < 2; i++) {
		rc.port[i] = i + 1;
		check("query port", ibv_query_port(ctx, rc.port[i], &port), 0);
		rc.lid[i] = port.lid;
		rc.cq[i] = must(ibv_create_cq(ctx, 8, NULL, NULL, 0), "ibv_create_cq");
		init.send_cq = init.recv_cq = rc.cq[i];
		rc.qp[i] = must(ibv_create_qp_ex(ctx, &init), "ibv_create_qp_ex");
	}
	for (i = 0; i < 2; i++)
		rc_connect(rc.qp[i], rc.port[i], rc.qp[1 - i]->qp_num, rc.lid[1 - i]);

	for (i = 0; i < 2; i++) {
		uint64_t value = 0x0123456789abcdefULL + i;

		target = (uint64_t *)(odp + i * 4096 + 64);
		*target = 1;	/* a page of the process's ... */
		check("drop the page", madvise(odp, ODP_LEN, MADV_DONTNEED), 0);
		/* ... gone: the device faults on its next access */
		check("ATOMIC WRITE into an absent ODP page",
		      atomic_write(&rc, value, target, odp_mr->rkey),
		      IBV_WC_SUCCESS);
		check("the 8 bytes in the new page", *target == value, 1);
	}
	rc_destroy(&rc);
	check("dereg", ibv_dereg_mr(odp_mr), 0);
	check("dealloc PD", ibv_dealloc_pd(pd), 0);
	check("close", ibv_close_device(ctx), 0);
	printf("odp_atomic_write: ok\n");
	return 0;
}
