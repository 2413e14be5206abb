// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * vhca_verbs_kunit.ko - the kernel verbs cases of a vhca device as KUnit
 * suites (make check-verbs loads it after vhca.ko, in the debug kernel;
 * Documentation/testing-guest-tiers.md "check-verbs").  Uses only
 * ib_core's kernel verbs API, as a ULP would: one PD, an RC QP on port 1 connected to an
 * RC QP on port 2 of the same device, memory addressed with the PD's
 * local_dma_lkey, fast-registration regions (IB_WR_REG_MR) for the remote
 * side of RDMA, and more QP pairs (util.c) for the cases that break a QP
 * on purpose.
 *
 * KUnit runs every suite when the module loads and prints KTAP to the
 * kernel log.  This file: the module, and the fixture every suite shares
 * (suite_init/suite_exit): the device, its PD and the two port sides with
 * their CQ, main RC QP and DMA buffers.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "verbs_kunit.h"

static char *device = "vhca0";
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "ib_device to test (two ports, both ACTIVE)");

struct ib_device *ibdev;
struct ib_pd *pd;
struct side a = { .port = 1 }, b = { .port = 2 };
struct completion cq_event;
atomic_t cq_events;
struct kunit *verbs_kunit_test;

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(&cq_events);
	complete(&cq_event);
}

/* The port's LID and MTU once it is ACTIVE (up to 10 s: the SM). */
static int wait_port_active(struct side *s)
{
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
	return 0;
}

static int map_page(void **buf, u64 *dma)
{
	*buf = (void *)__get_free_page(GFP_KERNEL | __GFP_ZERO);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(ibdev, *buf, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
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
	int err;

	err = wait_port_active(s);
	if (err)
		return err;
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
	err = map_page(&s->buf, &s->dma);
	return err ? err : map_page(&s->buf2, &s->dma2);
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
	*s = (struct side){ .port = s->port };
}

void verbs_suite_exit(struct kunit_suite *suite)
{
	teardown_side(&a);
	teardown_side(&b);
	if (pd)
		ib_dealloc_pd(pd);
	pd = NULL;
	if (ibdev)
		ib_device_put(ibdev);
	ibdev = NULL;
}

/*
 * The device named `device`, with a reference (ib_device_put), or NULL.
 * ib_device_get_by_name is no longer exported (7.3): as ib_core offers
 * it to any module, a client's add callback sees every registered device
 * (ib_register_client calls it for each, synchronously).  It takes the
 * reference and declines every device (non-zero), so the client attaches
 * to none and its unregistration right after calls no remove.  The same
 * on every kernel vhca builds for: no probe needed.
 */
static struct ib_device *found_device;

static int find_device_add(struct ib_device *dev)
{
	if (!found_device && !strcmp(dev_name(&dev->dev), device) &&
	    ib_device_try_get(dev))
		found_device = dev;
	return -EOPNOTSUPP;
}

static struct ib_client find_device_client = {
	.name = "vhca_verbs_kunit",
	.add = find_device_add,
};

static struct ib_device *find_device(void)
{
	struct ib_device *dev;

	found_device = NULL;
	if (ib_register_client(&find_device_client))
		return NULL;
	ib_unregister_client(&find_device_client);
	dev = found_device;
	found_device = NULL;
	return dev;
}

/* A failure here fails the suite: KUnit prints "# failed to initialize"
 * and none of its cases, which check-verbs reports as the suite missing. */
int verbs_suite_init(struct kunit_suite *suite)
{
	static const struct pair_opts rc = { .type = IB_QPT_RC };
	int err;

	init_completion(&cq_event);
	ibdev = find_device();
	if (!ibdev) {
		pr_err(TAG "%s: no ib_device %s\n", suite->name, device);
		return -ENODEV;
	}
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd)) {
		err = PTR_ERR(pd);
		pd = NULL;
		goto error;
	}
	err = setup_side(&a);
	if (!err)
		err = setup_side(&b);
	if (!err)
		err = connect_qp(a.qp, a.port, b.qp->qp_num, &rc);
	if (!err)
		err = connect_qp(b.qp, b.port, a.qp->qp_num, &rc);
	if (!err)
		return 0;
error:
	pr_err(TAG "%s: PD, CQ/QP/buffers or RTS of the main pair: %d\n",
	       suite->name, err);
	verbs_suite_exit(suite);
	return err;
}

int verbs_test_init(struct kunit *test)
{
	verbs_kunit_test = test;
	return 0;
}

void verbs_test_exit(struct kunit *test)
{
	verbs_kunit_test = NULL;
}

MODULE_DESCRIPTION("vhca kernel verbs KUnit suites");
MODULE_LICENSE("Dual BSD/GPL");
