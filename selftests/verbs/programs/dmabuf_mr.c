// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dmabuf_mr.c DEVICE - a memory region over a dma-buf (ibv_reg_dmabuf_mr,
 * Documentation/verbs.md): the device reads and writes the exporter's
 * pages, the ones the process sees through the exporter.
 *
 * The exporter is udmabuf (CONFIG_UDMABUF, /dev/udmabuf: Debian's 6.12
 * and 7.3) where the kernel has it: a dma-buf over the pages of a sealed
 * memfd, which the process also maps, so what the device did is read back
 * without the exporter's help.  Elsewhere (Debian's 6.1) it is vgem, the
 * virtual GEM driver rdma-core's own dma-buf tests allocate from: a dumb
 * buffer on its primary node exported with PRIME, the dma-buf mapped.
 * Two RC QPs of DEVICE, port 1 <-> port 2, a plain MR, and a dma-buf MR
 * over the buffer's second page (offset 4096) at an IOVA of its own:
 *  - RDMA WRITE from the plain MR into the dma-buf MR (rkey, IOVA): the
 *    data is in the process's view of the page;
 *  - RDMA READ out of it (rkey) and RDMA WRITE from it (lkey as the
 *    local SGE) into the plain MR: the bytes the process put there arrive;
 *  - a write past the region's end: REM_ACCESS_ERR;
 *  - IBV_ACCESS_ON_DEMAND on a dma-buf, and a range beyond the dma-buf:
 *    refused (EINVAL).
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "dmabuf_mr: ok".
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/udmabuf.h>

#include "ud_self.h"
#include "rc_pair.h"

#define BUF_LEN (2 * 4096)
#define MR_OFF 4096		/* the region: the dma-buf's second page */
#define MR_LEN 4096
#define IOVA 0x7e5000000000ULL	/* not the process's address of anything */
#define WR_ID 9

static int must_fd(int fd, const char *what)
{
	must(fd < 0 ? NULL : &fd, what);
	return fd;
}

/* A dma-buf over a sealed memfd of BUF_LEN bytes; *view maps the memfd. */
static int udmabuf_create(char **view)
{
	int dev = must_fd(open("/dev/udmabuf", O_RDWR), "open /dev/udmabuf");
	int memfd = must_fd(memfd_create("dmabuf_mr", MFD_ALLOW_SEALING),
			    "memfd_create");
	struct udmabuf_create create = { .size = BUF_LEN };
	int fd;

	check("ftruncate", ftruncate(memfd, BUF_LEN), 0);
	/* udmabuf takes only memfds that cannot shrink under it */
	check("seal", fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	create.memfd = memfd;
	fd = must_fd(ioctl(dev, UDMABUF_CREATE, &create), "UDMABUF_CREATE");
	*view = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	must(*view == MAP_FAILED ? NULL : *view, "mmap the memfd");
	close(memfd);
	close(dev);
	return fd;
}

/*
 * The three DRM calls a vgem dma-buf needs, as include/uapi/drm/drm.h and
 * drm_mode.h define them (libdrm's headers are not on the build host).
 */
struct drm_version_arg {
	int major, minor, patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct drm_create_dumb_arg {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct drm_prime_handle_arg {
	uint32_t handle, flags;
	int32_t fd;
};
#define DRM_IOCTL_VERSION_NR		_IOWR('d', 0x00, struct drm_version_arg)
#define DRM_IOCTL_PRIME_HANDLE_TO_FD_NR	_IOWR('d', 0x2d, struct drm_prime_handle_arg)
#define DRM_IOCTL_MODE_CREATE_DUMB_NR	_IOWR('d', 0xb2, struct drm_create_dumb_arg)

/* vgem's primary node (its render node refuses dumb buffers), or -1. */
static int vgem_open(void)
{
	char path[32], name[16];
	int i, dev;

	for (i = 0; i < 16; i++) {
		struct drm_version_arg v = { .name_len = sizeof(name) - 1, .name = name };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		dev = open(path, O_RDWR | O_CLOEXEC);
		if (dev < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (ioctl(dev, DRM_IOCTL_VERSION_NR, &v) == 0 && !strcmp(name, "vgem"))
			return dev;
		close(dev);
	}
	return -1;
}

/* A dma-buf of BUF_LEN bytes from vgem; *view maps the dma-buf. */
static int vgem_dmabuf_create(char **view)
{
	int dev = must_fd(vgem_open(), "no /dev/udmabuf and no vgem (modprobe vgem)");
	struct drm_create_dumb_arg dumb = { .height = 1, .width = BUF_LEN / 4, .bpp = 32 };
	struct drm_prime_handle_arg prime = { .flags = O_CLOEXEC | O_RDWR };

	check("vgem CREATE_DUMB", ioctl(dev, DRM_IOCTL_MODE_CREATE_DUMB_NR, &dumb), 0);
	check("vgem buffer of BUF_LEN bytes", dumb.size == BUF_LEN, 1);
	prime.handle = dumb.handle;
	check("PRIME_HANDLE_TO_FD", ioctl(dev, DRM_IOCTL_PRIME_HANDLE_TO_FD_NR, &prime), 0);
	*view = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, prime.fd, 0);
	must(*view == MAP_FAILED ? NULL : *view, "mmap the vgem dma-buf");
	close(dev);		/* the dma-buf keeps the buffer */
	return prime.fd;
}

/* A dma-buf of BUF_LEN zeroed bytes and *view, the process's map of it. */
static int dmabuf_create(char **view)
{
	if (access("/dev/udmabuf", F_OK) == 0)
		return udmabuf_create(view);
	printf("no /dev/udmabuf: the dma-buf is vgem's\n");
	return vgem_dmabuf_create(view);
}

/* One signaled RDMA op of len bytes on the port 1 QP; its status. */
static int rdma_op(struct rc_pair *rc, enum ibv_wr_opcode op, uint64_t local,
		   uint32_t lkey, uint64_t remote, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { local, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = WR_ID, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = remote, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;
	long spins = 0;
	int n;

	check("post", ibv_post_send(rc->qp[0], &wr, &bad), 0);
	while ((n = ibv_poll_cq(rc->cq[0], 1, &wc)) == 0 && spins++ < 200000000L)
		;
	check("one completion", n == 1 && wc.wr_id == WR_ID, 1);
	return wc.status;
}

static void expect(const char *what, const char *got, const char *text)
{
	printf("%s: \"%.40s\"\n", what, got);
	if (strcmp(got, text)) {
		fprintf(stderr, "dmabuf_mr: %s: expected \"%s\"\n", what, text);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	struct ibv_pd *pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	struct ibv_pd *pds[2] = { pd, pd };
	const int ports[2] = { 1, 2 };
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	static char plain[4096];
	const char *text;
	struct ibv_mr *mr, *plain_mr, *bad;
	struct rc_pair rc;
	char *view;
	int fd;

	fd = dmabuf_create(&view);
	plain_mr = must(ibv_reg_mr(pd, plain, sizeof(plain), access), "ibv_reg_mr");
	mr = must(ibv_reg_dmabuf_mr(pd, MR_OFF, MR_LEN, IOVA, fd, access),
		  "ibv_reg_dmabuf_mr");
	check("lkey == rkey", mr->lkey == mr->rkey, 1);
	rc_create(&rc, pds, ports, 4);

	text = "written into the dma-buf by the device";
	strcpy(plain, text);
	check("RDMA WRITE into the dma-buf MR",
	      rdma_op(&rc, IBV_WR_RDMA_WRITE, (uintptr_t)plain, plain_mr->lkey,
		      IOVA + 100, mr->rkey, strlen(text) + 1), IBV_WC_SUCCESS);
	expect("the dma-buf's page", view + MR_OFF + 100, text);

	text = "read out of the dma-buf by the device";
	strcpy(view + MR_OFF + 3000, text);
	memset(plain, 0, sizeof(plain));
	check("RDMA READ from the dma-buf MR",
	      rdma_op(&rc, IBV_WR_RDMA_READ, (uintptr_t)plain, plain_mr->lkey,
		      IOVA + 3000, mr->rkey, strlen(text) + 1), IBV_WC_SUCCESS);
	expect("read", plain, text);

	text = "sent from the dma-buf MR as the local SGE";
	strcpy(view + MR_OFF + 8, text);
	check("RDMA WRITE from the dma-buf MR (lkey)",
	      rdma_op(&rc, IBV_WR_RDMA_WRITE, IOVA + 8, mr->lkey,
		      (uintptr_t)plain + 1024, plain_mr->rkey, strlen(text) + 1),
	      IBV_WC_SUCCESS);
	expect("written", plain + 1024, text);
	check("the dma-buf's first page untouched", view[100] | view[3000], 0);

	check("RDMA WRITE past the region's end",
	      rdma_op(&rc, IBV_WR_RDMA_WRITE, (uintptr_t)plain, plain_mr->lkey,
		      IOVA + MR_LEN - 8, mr->rkey, 64), IBV_WC_REM_ACCESS_ERR);
	rc_destroy(&rc);

	bad = ibv_reg_dmabuf_mr(pd, 0, BUF_LEN, IOVA, fd,
				access | IBV_ACCESS_ON_DEMAND);
	/* not among REG_DMABUF_MR's access flags in ib_uverbs */
	check("ODP dma-buf MR refused (EINVAL)", !bad && errno == EINVAL, 1);
	bad = ibv_reg_dmabuf_mr(pd, MR_OFF, BUF_LEN, IOVA, fd, access);
	check("a range beyond the dma-buf refused (EINVAL)", !bad && errno == EINVAL, 1);

	check("dereg the dma-buf MR", ibv_dereg_mr(mr), 0);
	check("dereg", ibv_dereg_mr(plain_mr), 0);
	close(fd);
	check("dealloc PD", ibv_dealloc_pd(pd), 0);
	check("close", ibv_close_device(ctx), 0);
	printf("dmabuf_mr: ok\n");
	return 0;
}
