/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_odp.h - on-demand paging (ODP): memory regions whose pages may
 * be absent from the device's translation, the page-fault event, and the
 * commands that fill, clear and resume.  Included by vhca_hw_verbs.h.
 *
 * The model is mlx5's (drivers/infiniband/hw/mlx5/odp.c): CREATE_MR with
 * VHCA_MR_F_ODP gives a region whose translation table has pages.npages
 * entries, every one absent.  An access (a requester's SGE, the target of
 * an RDMA WRITE/READ/atomic, a receive buffer) that needs an absent page
 * does not fail:
 *  - the device writes a VHCA_EQE_PAGE_FAULT on EQ 0 naming the QP, the
 *    region's key and the byte range the access needs;
 *  - requester fault (subtype VHCA_PF_REQUESTER): the WQE stays at the
 *    head of the send queue and the send queue stops until ODP_RESUME;
 *  - responder fault (subtype VHCA_PF_RESPONDER, RC or XRC target): the
 *    request is answered with an RNR NAK carrying the responder's min_rnr_timer
 *    (IBA 9.7.5.2.8), the receive WQE is not consumed, and the requester
 *    sends the request again after the timer (its rnr_retry counts); UC
 *    and UD drop the message, as they drop one without a receive WQE.
 * The driver makes the pages present (ODP_MAP), then for a requester
 * fault sends ODP_RESUME.  ODP_INVALIDATE makes pages absent again; the
 * device never touches an absent page, and every access runs to its end
 * before a command executes, so once ODP_INVALIDATE completes the device
 * no longer uses the pages it named (the mmu notifier may free them).
 */
#ifndef VHCA_HW_ODP_H
#define VHCA_HW_ODP_H

#ifndef VHCA_HW_H
#error "include vhca_hw.h instead"
#endif

/*
 * struct vhca_cmd_create_mr.flags: an ODP region.  pages.addr must be 0,
 * pages.mode VHCA_BUF_DIRECT, pages.npages the entries of the translation
 * (enough for first_byte_offset + length), pages.page_shift their size.
 */
#define VHCA_MR_F_ODP			(1u << 1)

/*
 * Implicit ODP (VHCA_DEV_CAP_ODP_IMPLICIT), with VHCA_MR_F_ODP: a region
 * over the whole 64-bit address space (iova 0, length UINT64_MAX,
 * first_byte_offset 0; pages.addr 0, pages.npages 0, pages.mode DIRECT,
 * pages.page_shift the size of its pages), as mlx5's implicit MR.  Its
 * translation is sparse: entry i (the page at address i << page_shift)
 * exists only while present; ODP_MAP creates the device's table
 * for it and ODP_INVALIDATE frees what holds no present page.  Every
 * region's translation counts against one device budget: an ODP_MAP that
 * would exceed it is refused with VHCA_CMD_NO_RESOURCES and changes
 * nothing (the driver then resumes the QP with VHCA_ODP_RESUME_F_ERROR).
 */
#define VHCA_MR_F_ODP_IMPLICIT		(1u << 2)

/* Page fault event: enum vhca_verbs_eqe_type VHCA_EQE_PAGE_FAULT. */
enum vhca_page_fault_subtype {
	VHCA_PF_REQUESTER		= 0x01,	/* send queue stopped: ODP_RESUME */
	VHCA_PF_RESPONDER		= 0x02,	/* RNR NAK sent (RC) or message dropped */
};

#define VHCA_PF_F_WRITE			(1u << 0)	/* the access writes the pages */

struct vhca_eqe_page_fault {
	vhca_le32	qpn;		/* the QP's handle (as vhca_cqe.qpn) */
	vhca_le32	key;		/* the region's key (a window's region) */
	vhca_le64	addr;		/* first byte of the access, region address space */
	vhca_le32	len;		/* bytes of the access from addr */
	uint8_t		flags;		/* VHCA_PF_F_* */
	uint8_t		rsvd[3];
};
VHCA_SIZE_CHECK(struct vhca_eqe_page_fault, 24);

/*
 * ODP_MAP and ODP_INVALIDATE inline input: entries [first_page,
 * first_page + npages) of the translation of the ODP region key, where
 * first_page is first_page_hi << 32 | first_page (first_page_hi is 0 for
 * a region that is not implicit, whose entries all fit 32 bits).  ODP_MAP
 * reads npages le64 page addresses at in_addr (in_len >= 8 * npages,
 * at most VHCA_ODP_MAX_MAP pages per command), each aligned to the
 * region's page size and in guest memory.
 */
#define VHCA_ODP_MAX_MAP		(VHCA_CMD_MAX_IN_LEN / 8)

struct vhca_cmd_odp_range_in {
	vhca_le32	key;
	vhca_le32	first_page;	/* low 32 bits of the first entry */
	vhca_le32	npages;
	vhca_le32	first_page_hi;	/* high 32 bits (implicit regions) */
	uint8_t		rsvd[16];
};
VHCA_SIZE_CHECK(struct vhca_cmd_odp_range_in, 32);

/*
 * ODP_RESUME inline input.  With VHCA_ODP_RESUME_F_ERROR (the driver could
 * not make the pages present: the range is not mapped in the process)
 * the next fault of the QP is an error instead of an event: a stopped
 * requester's WQE completes with LOC_PROT_ERR (vendor error DMA_FAULT),
 * an RC responder answers the retried request with a remote access NAK
 * (QP to ERR, IB_EVENT_QP_ACCESS_ERR), as for any access error, and a UD
 * responder completes the receive WQE of the next datagram with
 * LOC_PROT_ERR.
 */
#define VHCA_ODP_RESUME_F_ERROR		(1u << 0)

struct vhca_cmd_odp_resume_in {
	vhca_le32	qpn;		/* the QP's handle */
	uint8_t		flags;		/* VHCA_ODP_RESUME_F_* */
	uint8_t		rsvd[27];
};
VHCA_SIZE_CHECK(struct vhca_cmd_odp_resume_in, 32);

#endif /* VHCA_HW_ODP_H */
