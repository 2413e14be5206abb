// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * vhca_verbs_test.ko - kernel verbs test of a vhca device (loaded after
 * `vhca.ko`, see selftests/verbs/kverbs.py and `make
 * check-verbs`).  Uses only ib_core's kernel verbs API, as a ULP would:
 * one PD, an RC QP on port 1 connected to an RC QP on port 2 of the same
 * device, memory addressed with the PD's local_dma_lkey, fast-registration
 * regions (IB_WR_REG_MR) for the remote side of RDMA, and more QP pairs
 * (util.c) for the cases that break a QP on purpose.
 *
 * Runs at module load and prints one line per case:
 *   vhca_verbs_test: PASS <case>      or    vhca_verbs_test: FAIL <case>: why
 * and at the end
 *   vhca_verbs_test: done pass=N fail=M
 * The module stays loaded (rmmod it afterwards); init always returns 0 so
 * the log is the verdict.
 *
 * This file: the module, the two port sides and the order of the case
 * groups (each group lives in its own file, see vhca_verbs_test.h).
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vhca_verbs_test.h"

static char *device = "vhca0";
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "ib_device to test (two ports, both ACTIVE)");

struct ib_device *ibdev;
struct ib_pd *pd;
struct side a = { .port = 1 }, b = { .port = 2 };
int passed, failed;
struct completion cq_event;
atomic_t cq_events;

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(&cq_events);
	complete(&cq_event);
}

static int setup_side(struct side *s)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_port_attr pattr;
	int err, tries;

	for (tries = 0; tries < 100; tries++) {
		err = ib_query_port(ibdev, s->port, &pattr);
		if (err)
			return err;
		if (pattr.state == IB_PORT_ACTIVE && pattr.lid)
			break;
		msleep(100);
	}
	if (pattr.state != IB_PORT_ACTIVE) {
		pr_err(TAG "port %u not ACTIVE (%d)\n", s->port, pattr.state);
		return -ENETDOWN;
	}
	s->lid = pattr.lid;
	s->mtu = pattr.active_mtu;

	s->cq = ib_create_cq(ibdev, comp_handler, NULL, s, &cq_attr);
	if (IS_ERR(s->cq)) {
		err = PTR_ERR(s->cq);
		s->cq = NULL;
		return err;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ib_create_qp(pd, &init);
	if (IS_ERR(s->qp)) {
		err = PTR_ERR(s->qp);
		s->qp = NULL;
		return err;
	}
	s->buf = (void *)__get_free_page(GFP_KERNEL | __GFP_ZERO);
	s->buf2 = (void *)__get_free_page(GFP_KERNEL | __GFP_ZERO);
	if (!s->buf || !s->buf2)
		return -ENOMEM;
	s->dma = ib_dma_map_single(ibdev, s->buf, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, s->dma)) {
		s->dma = 0;
		return -ENOMEM;
	}
	s->dma2 = ib_dma_map_single(ibdev, s->buf2, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, s->dma2)) {
		s->dma2 = 0;
		return -ENOMEM;
	}
	pr_info(TAG "port %u: lid %u mtu %d qpn %u\n", s->port, s->lid,
		ib_mtu_enum_to_int(s->mtu), s->qp->qp_num);
	return 0;
}

static void teardown_side(struct side *s)
{
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->cq)
		ib_destroy_cq(s->cq);
	if (s->dma)
		ib_dma_unmap_single(ibdev, s->dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (s->dma2)
		ib_dma_unmap_single(ibdev, s->dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	free_page((unsigned long)s->buf);
	free_page((unsigned long)s->buf2);
}

static int __init vhca_verbs_test_init(void)
{
	static const struct pair_opts rc = { .type = IB_QPT_RC };
	int err;

	init_completion(&cq_event);
	ibdev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		fail("setup", "no ib_device %s", device);
		goto done;
	}
	pr_info(TAG "%s: kverbs_provider=%d local_dma_lkey=0x%x max_qp=%d max_cq=%d mem_mgt_ext=%d\n",
		device, ibdev->kverbs_provider, ibdev->local_dma_lkey,
		ibdev->attrs.max_qp, ibdev->attrs.max_cq,
		!!(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS));
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd)) {
		fail("setup", "ib_alloc_pd: %ld", PTR_ERR(pd));
		pd = NULL;
		goto done;
	}
	err = setup_side(&a);
	if (!err)
		err = setup_side(&b);
	if (err) {
		fail("setup", "create CQ/QP/buffers: %d", err);
		goto done;
	}
	pass("create_cq_qp");
	err = connect_qp(a.qp, a.port, b.qp->qp_num, &rc);
	if (!err)
		err = connect_qp(b.qp, b.port, a.qp->qp_num, &rc);
	if (err) {
		fail("connect", "modify to RTS: %d", err);
		goto done;
	}
	pass("connect");
	test_query();
	test_basic();
	test_rdma();
	test_ud();
	test_sends();
	test_uc();
	test_atomics();
	test_invalidate();
	test_ulp();
	test_cq();
	test_errors_local();
	test_errors_remote();
	test_qp_states();
	test_drain();
done:
	teardown_side(&a);
	teardown_side(&b);
	if (pd)
		ib_dealloc_pd(pd);
	if (ibdev)
		ib_device_put(ibdev);
	pr_info(TAG "done pass=%d fail=%d\n", passed, failed);
	return 0;
}

static void __exit vhca_verbs_test_exit(void)
{
}

module_init(vhca_verbs_test_init);
module_exit(vhca_verbs_test_exit);

MODULE_DESCRIPTION("vhca kernel verbs test");
MODULE_LICENSE("Dual BSD/GPL");
