// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * query.c - what the device reports: ib_query_device (limits non-zero
 * and consistent, atomic_cap IB_ATOMIC_HCA with masked atomics off, the
 * local DMA lkey and memory management extensions), ib_query_port of
 * both ports (ACTIVE, LIDs, MTU, table lengths), ib_query_gid (index 0:
 * the subnet prefix and the port GUID) and ib_query_pkey (index 0: the
 * default full-membership P_Key 0xffff).
 */
#include <rdma/ib_cache.h>

#include "verbs_kunit.h"

static void query_device(struct kunit *test)
{
	const char *name = test->name;
	struct ib_udata uhw = { .outlen = 0, .inlen = 0 };
	struct ib_device_attr attr = {};
	int err;

	err = ibdev->ops.query_device(ibdev, &attr, &uhw);
	if (err) {
		fail(name, "query_device: %d", err);
		return;
	}
	kunit_info(test, "device: max_qp %d max_qp_wr %d max_sge %d/%d max_cq %d max_cqe %d max_mr %d max_pd %d max_srq %d max_srq_wr %d max_qp_rd_atom %d atomic_cap %d masked %d\n",
		attr.max_qp, attr.max_qp_wr, attr.max_send_sge,
		attr.max_recv_sge, attr.max_cq, attr.max_cqe, attr.max_mr,
		attr.max_pd, attr.max_srq, attr.max_srq_wr,
		attr.max_qp_rd_atom, attr.atomic_cap, attr.masked_atomic_cap);
	if (attr.max_qp < 4 || attr.max_qp_wr < 64 || attr.max_send_sge < 2 ||
	    attr.max_recv_sge < 2 || attr.max_cq < 4 || attr.max_cqe < 64 ||
	    attr.max_mr < 4 || attr.max_pd < 2 || attr.max_srq < 1 ||
	    attr.max_srq_wr < 16 || attr.max_srq_sge < 1 ||
	    attr.max_qp_rd_atom < 1 || attr.max_qp_init_rd_atom < 1 ||
	    attr.max_mr_size < BUF_SIZE || !(attr.page_size_cap & PAGE_SIZE) ||
	    attr.max_fast_reg_page_list_len < 1 || attr.max_pkeys < 1) {
		fail(name, "a limit is zero or too small (see above)");
		return;
	}
	if (attr.atomic_cap != IB_ATOMIC_HCA ||
	    attr.masked_atomic_cap != IB_ATOMIC_NONE) {
		fail(name, "atomic_cap %d masked_atomic_cap %d, expected %d %d",
		     attr.atomic_cap, attr.masked_atomic_cap, IB_ATOMIC_HCA,
		     IB_ATOMIC_NONE);
		return;
	}
	if (!(attr.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    !(attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY) ||
	    !attr.sys_image_guid || !attr.vendor_id) {
		fail(name, "cap flags 0x%llx kernel 0x%llx sys_image_guid %llx vendor %x",
		     attr.device_cap_flags, attr.kernel_cap_flags,
		     be64_to_cpu(attr.sys_image_guid), attr.vendor_id);
		return;
	}
	/* ib_core's copy is the same. */
	if (ibdev->attrs.atomic_cap != attr.atomic_cap ||
	    ibdev->attrs.max_qp != attr.max_qp) {
		fail(name, "ibdev->attrs differ from query_device");
		return;
	}
}

static int check_port(const char *name, struct side *s)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, s->port, &attr);
	if (err) {
		fail(name, "port %u: %d", s->port, err);
		return err;
	}
	if (attr.state != IB_PORT_ACTIVE || attr.phys_state != 5 /* LinkUp */ ||
	    !attr.lid || attr.lid >= 0xc000 || attr.lid != s->lid ||
	    !attr.sm_lid || attr.active_mtu < IB_MTU_256 ||
	    attr.active_mtu > attr.max_mtu || !attr.gid_tbl_len ||
	    !attr.pkey_tbl_len || attr.max_msg_sz < BUF_SIZE ||
	    !attr.active_width || !attr.active_speed) {
		fail(name, "port %u: state %d phys %d lid %u sm_lid %u mtu %d/%d gids %d pkeys %u msg %u width %u speed %u",
		     s->port, attr.state, attr.phys_state, attr.lid,
		     attr.sm_lid, attr.active_mtu, attr.max_mtu,
		     attr.gid_tbl_len, attr.pkey_tbl_len, attr.max_msg_sz,
		     attr.active_width, attr.active_speed);
		return -EIO;
	}
	return 0;
}

/* GID 0 is the subnet prefix and a port GUID; P_Key 0 the default. */
static int check_gid_pkey(const char *name, struct side *s, __be64 *guid)
{
	struct ib_port_attr pattr;
	union ib_gid gid;
	u16 pkey;
	int err;

	err = ib_query_port(ibdev, s->port, &pattr);
	if (!err)
		err = rdma_query_gid(ibdev, s->port, 0, &gid);
	if (!err)
		err = ib_query_pkey(ibdev, s->port, 0, &pkey);
	if (err) {
		fail(name, "port %u: %d", s->port, err);
		return err;
	}
	if (be64_to_cpu(gid.global.subnet_prefix) != pattr.subnet_prefix ||
	    !gid.global.interface_id || (pkey & 0x7fff) != 0x7fff ||
	    !(pkey & 0x8000)) {
		fail(name, "port %u: gid %pI6 (prefix 0x%llx) pkey 0x%x",
		     s->port, gid.raw, pattr.subnet_prefix, pkey);
		return -EIO;
	}
	/* Outside the tables: refused. */
	if (!ib_query_pkey(ibdev, s->port, pattr.pkey_tbl_len, &pkey)) {
		fail(name, "port %u: P_Key index %u answered", s->port,
		     pattr.pkey_tbl_len);
		return -EIO;
	}
	*guid = gid.global.interface_id;
	return 0;
}

static void query_port(struct kunit *test)
{
	if (!check_port(test->name, &a))
		check_port(test->name, &b);
}

static void query_gid_pkey(struct kunit *test)
{
	__be64 guid1, guid2;

	if (check_gid_pkey(test->name, &a, &guid1) ||
	    check_gid_pkey(test->name, &b, &guid2))
		return;
	KUNIT_EXPECT_NE_MSG(test, be64_to_cpu(guid1), be64_to_cpu(guid2),
			    "both ports have the same port GUID");
}

static struct kunit_case query_cases[] = {
	KUNIT_CASE(query_device),
	KUNIT_CASE(query_port),
	KUNIT_CASE(query_gid_pkey),
	{}
};

static struct kunit_suite query_suite = VERBS_SUITE(query, query_cases);
kunit_test_suite(query_suite);
