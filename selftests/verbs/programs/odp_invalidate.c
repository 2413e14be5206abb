// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * odp_invalidate.c DEVICE [implicit] - an on-demand paging region follows
 * the process's page tables (Documentation/driver.md "On-demand paging").
 *
 * An ODP MR over an mmap'ed anonymous buffer, two RC QPs of DEVICE
 * connected port 1 <-> port 2, and a plain (pinned) MR.  Each round puts
 * new data in the buffer's pages and moves it both ways:
 *  - the device writes into the ODP buffer (RDMA WRITE from the plain MR,
 *    a responder page fault when the page is absent) and the process must
 *    read it there;
 *  - the process writes into the ODP buffer and the device reads it
 *    (RDMA WRITE from it into the plain MR: a requester page fault).
 * Between rounds the pages change under the region: madvise(MADV_DONTNEED)
 * (the next touch gets a new zero-filled page), then munmap and mmap
 * MAP_FIXED at the same address (a new mapping, new pages).  The mmu
 * notifier must make the device forget the old pages (ODP_INVALIDATE): a
 * device that kept them would write where the process no longer looks,
 * and send the previous round's data instead of the new one.
 * With "implicit" the ODP MR is implicit (ibv_reg_mr(pd, NULL, SIZE_MAX)):
 * the whole address space, and the buffer sits at STRADDLE, its two pages
 * on each side of a 128 MiB boundary, so the data crosses two of the
 * driver's child umems (uverbs_odp_implicit.c) and each child's notifier
 * must invalidate its page.
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "odp_invalidate: ok".
 */
#include <sys/mman.h>
#include <unistd.h>

#include "ud_self.h"
#include "rc_pair.h"

#define ODP_LEN (2 * 4096)	/* two pages: the data straddles them */
#define DATA_OFF 4000
#define WR_ID 7
/* 4 KiB below a 128 MiB (and 1 GiB) boundary, inside 47-bit user space */
#define STRADDLE ((void *)(0x500000000000UL - 4096))

/* One signaled RDMA WRITE of len bytes on the port 1 QP; its completion. */
static int rdma_write(struct rc_pair *rc, void *from, uint32_t lkey,
		      void *to, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)from, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = WR_ID, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)to, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;
	long spins = 0;
	int n;

	if (ibv_post_send(rc->qp[0], &wr, &bad))
		return -1;
	while ((n = ibv_poll_cq(rc->cq[0], 1, &wc)) == 0 && spins++ < 200000000L)
		;
	if (n != 1 || wc.wr_id != WR_ID || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "odp_invalidate: completion %d: %s\n", n,
			n == 1 ? ibv_wc_status_str(wc.status) : "none");
		return -1;
	}
	return 0;
}

static void expect(const char *what, const char *got, const char *text)
{
	if (strcmp(got, text)) {
		fprintf(stderr, "odp_invalidate: %s: found \"%.40s\", expected "
			"\"%s\" (stale pages?)\n", what, got, text);
		exit(1);
	}
	printf("%s: %s\n", what, text);
}

/* One round: the device writes into the ODP pages, then reads them. */
static void round_trip(struct rc_pair *rc, char *odp, struct ibv_mr *odp_mr,
		       char *plain, struct ibv_mr *plain_mr, const char *name)
{
	char text[64];
	uint32_t len;

	snprintf(text, sizeof(text), "into the ODP pages, %s", name);
	len = strlen(text) + 1;
	strcpy(plain, text);
	check("RDMA WRITE into ODP", rdma_write(rc, plain, plain_mr->lkey,
						odp + DATA_OFF, odp_mr->rkey,
						len), 0);
	expect("the process reads", odp + DATA_OFF, text);

	snprintf(text, sizeof(text), "out of the ODP pages, %s", name);
	len = strlen(text) + 1;
	strcpy(odp + DATA_OFF, text);
	memset(plain + 2048, 0, len);
	check("RDMA WRITE from ODP", rdma_write(rc, odp + DATA_OFF,
						odp_mr->lkey, plain + 2048,
						plain_mr->rkey, len), 0);
	expect("the device read", plain + 2048, text);
}

static char *map_at(void *where, int fixed)
{
	char *p = mmap(where, ODP_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | fixed, -1, 0);

	return must(p == MAP_FAILED ? NULL : p, "mmap");
}

/* The ODP MR: over the buffer, or implicit (the whole address space). */
static struct ibv_mr *odp_reg(struct ibv_pd *pd, char *odp, int access,
			      int implicit)
{
	access |= IBV_ACCESS_ON_DEMAND;
	if (implicit)
		return must(ibv_reg_mr(pd, NULL, SIZE_MAX, access),
			    "implicit ODP ibv_reg_mr");
	return must(ibv_reg_mr(pd, odp, ODP_LEN, access), "ODP ibv_reg_mr");
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	int implicit = argc > 2 && !strcmp(argv[2], "implicit");
	struct ibv_pd *pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	struct ibv_pd *pds[2] = { pd, pd };
	const int ports[2] = { 1, 2 };
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	static char plain[4096];
	struct ibv_mr *odp_mr, *plain_mr;
	struct ibv_device_attr_ex attr;
	struct rc_pair rc;
	char *odp;

	check("query device", ibv_query_device_ex(ctx, NULL, &attr), 0);
	check("RC ODP caps (send, recv, write, read)",
	      (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	      (attr.odp_caps.per_transport_caps.rc_odp_caps & 0xf) == 0xf, 1);
	if (implicit) {
		check("implicit ODP cap", !!(attr.odp_caps.general_caps &
					     IBV_ODP_SUPPORT_IMPLICIT), 1);
		odp = map_at(STRADDLE, MAP_FIXED_NOREPLACE);
		check("buffer across the 128 MiB boundary", odp == STRADDLE, 1);
	} else {
		odp = map_at(NULL, 0);
	}
	odp_mr = odp_reg(pd, odp, access, implicit);
	plain_mr = must(ibv_reg_mr(pd, plain, sizeof(plain), access),
			"ibv_reg_mr");
	rc_create(&rc, pds, ports, 4);

	round_trip(&rc, odp, odp_mr, plain, plain_mr, "first pages");
	round_trip(&rc, odp, odp_mr, plain, plain_mr, "same pages");

	check("madvise(MADV_DONTNEED)", madvise(odp, ODP_LEN, MADV_DONTNEED), 0);
	check("the process sees zeroes", odp[DATA_OFF], 0);
	round_trip(&rc, odp, odp_mr, plain, plain_mr, "after MADV_DONTNEED");

	check("munmap", munmap(odp, ODP_LEN), 0);
	check("mmap at the same address", map_at(odp, MAP_FIXED) == odp, 1);
	round_trip(&rc, odp, odp_mr, plain, plain_mr, "after munmap and mmap");

	/* the process's new page before the device's first touch */
	check("madvise(MADV_DONTNEED)", madvise(odp, ODP_LEN, MADV_DONTNEED), 0);
	strcpy(odp + DATA_OFF, "touched first");
	round_trip(&rc, odp, odp_mr, plain, plain_mr, "process first");

	rc_destroy(&rc);
	check("dereg ODP MR", ibv_dereg_mr(odp_mr), 0);
	check("dereg MR", ibv_dereg_mr(plain_mr), 0);
	check("munmap", munmap(odp, ODP_LEN), 0);
	check("free the PD", ibv_dealloc_pd(pd), 0);
	ibv_close_device(ctx);
	printf("odp_invalidate: ok\n");
	return 0;
}
