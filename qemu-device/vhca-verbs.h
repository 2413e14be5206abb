/*
 * vhca - the data path objects: buffers, memory regions, CQs, QPs.
 *
 * vhca-buf.c        buffer descriptors (CONTIG/DIRECT/INDIRECT page lists)
 * vhca-mr.c         memory keys, CREATE/ALLOC/DESTROY_MR, address translation
 * vhca-odp.c        on-demand paging: absent pages, page faults, ODP_* commands
 * vhca-odp-table.c  the sparse translation of an implicit ODP region
 * vhca-cq.c         completion queues, CQE writing, arming, CQ doorbell
 * vhca-qp.c         queue pairs: CREATE/QUERY/DESTROY_QP, flushing
 * vhca-qp-modify.c  MODIFY_QP: the IBA 11.2.4.2 state/attribute table
 * vhca-srq.c        shared receive queues
 * vhca-xrc.c        XRC domains, XRC target QPs bound to XRC SRQs
 * vhca-mcast.c      multicast attachments
 * vhca-mw.c         memory windows: ALLOC_MW/DEALLOC_MW, BIND_MW
 * vhca-dm.c         device memory (BAR 3): ALLOC_DM/FREE_DM, REG_DM_MR
 * vhca-tm.c         tag matching SRQs (vhca-tm-rndv.c: rendezvous READs)
 * vhca-wqe.c/.h     WQE decoding and validation (pure functions)
 * vhca-transport.c  requester: send queue execution, RNR, completions
 * vhca-rc.c         RC reliability: PSNs, ACK timeout, retries, duplicates
 * vhca-rc-window.c  the RC requester across the wire (rc-window=N in flight)
 * vhca-responder.c  responder: receives, RDMA/atomic targets, datagrams
 * vhca-verbs-cmd.c  dispatch and input checks of the data path commands
 * vhca-sgl.c, vhca-dma-map.c, vhca-place.c  the payload copy
 *
 * Everything runs with the BQL held: doorbells in vCPU threads, bottom
 * halves, timers and netdev receives in the main loop, and the sq-poll
 * thread takes it for each pass (Documentation/device-qemu.md "Threading
 * model").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_VERBS_H
#define HW_INFINIBAND_VHCA_VERBS_H

#include "vhca_hw.h"
#include "vhca-odp-table.h"     /* implicit ODP regions' translation */

typedef struct VhcaState VhcaState;

/* Limits of this implementation (QUERY_DEVICE). */
#define VHCA_MAX_MR             4096    /* keys 1.. (index 0 is the DMA lkey) */
#define VHCA_MAX_MR_PAGES       (1u << 20)  /* page list entries per region */
#define VHCA_MAX_MR_SIZE        (1ull << 40)
/* Page list entries of all regions together (64 MiB of device memory). */
#define VHCA_MAX_MR_LIST_ENTRIES    (1ull << 23)
#define VHCA_MAX_CQ             1024
/* The device clock: ns of the VM's virtual time (uapi VHCA_DB_CLOCK). */
static inline uint64_t vhca_clock_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}
#define VHCA_MAX_CQE            ((1u << VHCA_MAX_LOG_CQ) - 1)
#define VHCA_MAX_QP             1024    /* QPNs 2..1025 */
#define VHCA_FIRST_QPN          2
#define VHCA_QP_SLOTS           (VHCA_MAX_QP + 2 * VHCA_MAX_PORTS)
#define VHCA_MAX_QP_WR          ((1u << VHCA_MAX_LOG_WQ) - 1)
#define VHCA_MAX_SRQ            256
#define VHCA_MAX_XRCD           256     /* XRC domains 1..255 */
#define VHCA_MAX_MCAST_GRP      256
#define VHCA_MAX_MCAST_QP_ATTACH 16     /* QPs per group and device */
#define VHCA_MCAST_SLOTS        1024    /* attachments of a device */
#define VHCA_MAX_RD_ATOM        16
/* Page sizes a buffer descriptor may use: 4 KiB .. 1 GiB. */
#define VHCA_PAGE_SIZE_CAP      (((1ull << (VHCA_MAX_PAGE_SHIFT + 1)) - 1) & \
                                 ~((1ull << VHCA_MIN_PAGE_SHIFT) - 1))
/* WQEs executed per doorbell before the rest is left to the bottom half. */
#define VHCA_WQE_BATCH          64

/*
 * A buffer described by struct vhca_buf_desc, with its page list copied
 * into device memory at command time.  A CONTIG buffer has no list.
 */
typedef struct VhcaBuf {
    bool contig;
    uint8_t page_shift;
    uint32_t npages;
    uint64_t addr;          /* CONTIG: first byte */
    uint64_t *pages;        /* DIRECT/INDIRECT: npages page addresses */
} VhcaBuf;

typedef struct VhcaMr {
    bool valid;
    bool frwr;              /* ALLOC_MR: bound by REG_MR WQEs */
    bool bound;             /* CREATE_MR, or a FRWR region after REG_MR */
    bool physical;          /* iova is a DMA address */
    bool window;            /* ALLOC_MW (vhca-mw.c): bound by BIND_MW */
    bool dm;                /* REG_DM_MR (vhca-dm.c): iova 0 is dm_host */
    bool odp;               /* VHCA_MR_F_ODP: pages entries 0 are absent */
    bool odp_implicit;      /* VHCA_MR_F_ODP_IMPLICIT: odp_table instead */
    uint8_t mw_type;        /* windows: VHCA_MW_TYPE_* */
    uint8_t variant;
    uint32_t parent;        /* bound windows: the region's index */
    uint32_t bound_qpn;     /* bound windows: the QP of the last bind */
    uint32_t pdn;
    uint32_t access;
    uint32_t max_pages;
    uint32_t first_byte_offset;
    uint64_t iova;
    uint64_t length;
    VhcaBuf pages;
    struct VhcaOdpTable *odp_table; /* implicit ODP (vhca-odp-table.c) */
    uint32_t dm_alloc;      /* dm regions: their allocation's BAR 3 offset */
    uint8_t *dm_host;       /* dm regions: BAR 3 memory at iova 0 */
} VhcaMr;

/* Internal vendor error of vhca_mr_translate: an absent page of an ODP
 * region (vhca-odp.c).  Never written in a CQE. */
#define VHCA_VERR_ODP_FAULT     0xff

/* The last page fault vhca_odp_check() found, for its event. */
typedef struct VhcaOdpFault {
    uint32_t key;
    uint32_t len;
    uint64_t addr;
    bool write;
} VhcaOdpFault;

/* One translated piece of a memory access: DMA address and length, or
 * the device's own memory (BAR 3, a device memory region). */
typedef struct VhcaDmaPiece {
    uint64_t addr;
    uint64_t len;
    uint8_t *host;          /* not NULL: device memory, addr unused */
} VhcaDmaPiece;

/* A device memory allocation (vhca-dm.c), by its first page in BAR 3. */
typedef struct VhcaDm {
    bool valid;
    uint32_t npages;
    uint32_t mrs;           /* regions on it: FREE_DM is BUSY */
} VhcaDm;

#define VHCA_CQ_ARM_NONE        0
#define VHCA_CQ_ARM_NEXT        1
#define VHCA_CQ_ARM_SOLICITED   2

typedef struct VhcaCq {
    bool valid;
    bool error;             /* overflowed or unwritable: CQEs dropped */
    uint8_t log_size;
    uint8_t arm;            /* VHCA_CQ_ARM_* */
    uint32_t eqn;
    uint32_t db_page;
    uint32_t users;         /* QPs that complete into it */
    uint64_t dbrec;
    uint32_t pi;            /* free running */
    uint32_t ci;            /* as last read from the dbrec or doorbell */
    uint32_t last_solicited;    /* pi + 1 of the last solicited/error CQE */
    VhcaBuf buf;
} VhcaCq;

/* A work queue in guest memory; pi from doorbells, ci the device's. */
typedef struct VhcaWq {
    uint8_t log_size;
    uint8_t wqe_shift;
    uint32_t pi;            /* from the doorbell or the doorbell record */
    uint32_t ci;
    uint64_t dbrec;         /* struct vhca_wq_dbrec, 0: none */
    bool dbrec_bad;         /* dbrec_bad_pi was refused (logged once) */
    uint32_t dbrec_bad_pi;
    VhcaBuf buf;
} VhcaWq;

typedef struct VhcaTm VhcaTm;  /* vhca-tm.c */

typedef struct VhcaSrq {
    bool valid;
    bool xrc;               /* VHCA_SRQ_F_XRC: in xrcdn, completes to cqn */
    VhcaTm *tm;             /* VHCA_SRQ_F_TM: tag list; operations to cqn */
    uint32_t xrcdn;
    uint32_t cqn;
    uint32_t pdn;
    uint32_t db_page;
    uint32_t limit;         /* armed limit, 0 = disarmed */
    uint32_t users;         /* QPs attached */
    VhcaWq wq;
} VhcaSrq;

/* An XRC domain (IBA A14.2.1): users are its XRC SRQs and target QPs. */
typedef struct VhcaXrcd {
    bool valid;
    uint32_t users;
} VhcaXrcd;

/* One QP attached to one multicast group (IBA 10.5). */
typedef struct VhcaMcast {
    bool valid;
    uint16_t mlid;
    uint32_t qp_handle;
    uint8_t mgid[16];
} VhcaMcast;

/* What a QP's send queue timer is running for. */
typedef enum VhcaSqWait {
    VHCA_SQ_WAIT_RNR,       /* the RNR NAK's timer (IBA 9.7.5.2.8) */
    VHCA_SQ_WAIT_ACK,       /* the local ACK timeout (IBA 9.7.6.1.3) */
} VhcaSqWait;

/*
 * An RC responder resource (IBA 9.7.5.1.2): an RDMA READ or atomic request
 * the responder executed, kept so that a duplicate of it is answered
 * again (READ: executed again; atomic: the saved original value).
 */
typedef struct VhcaRdRes {
    bool valid;
    uint8_t opcode;         /* VHCA_WQE_RDMA_READ or an atomic */
    uint32_t psn;           /* the request's PSN */
    uint32_t packets;       /* PSNs it uses (READ: response packets) */
    uint64_t atomic_orig;
} VhcaRdRes;

/*
 * Send WQEs in flight across the wire at most: the largest rc-window
 * (IBA 9.7 lets the send queue run ahead of its ACKs; READ/atomic also
 * by max_rd_atomic).
 */
#define VHCA_RC_WINDOW          64

/* A request on the wire, waiting for its answer (vhca-rc-window.c). */
typedef struct VhcaRcFlight {
    uint64_t wr_id;         /* what its completion needs of the WQE */
    uint32_t length;
    uint8_t opcode;
    uint8_t flags;
    uint32_t psn;           /* first PSN of the request */
    uint32_t packets;       /* PSNs it uses */
    bool answered;          /* ACKed, NAKed, or its READ/atomic data in */
    uint8_t ack;            /* VhcaAck: how it completes once answered */
} VhcaRcFlight;

typedef struct VhcaQp {
    VhcaState *dev;
    bool valid;
    uint32_t handle;        /* CREATE_QP result, doorbells, CQE qpn */
    uint32_t qpn;           /* on the wire (0/1 for SMI/GSI) */
    uint8_t type;           /* enum vhca_qp_type */
    uint8_t special_port;   /* SMI/GSI: their port */
    uint8_t flags;
    uint32_t pdn;
    uint32_t send_cqn;
    uint32_t recv_cqn;
    uint32_t srqn;          /* with VHCA_QP_F_HAS_SRQ; XRC_TGT: the last
                             * request's XRC SRQ (vhca-xrc.c) */
    uint32_t xrcdn;         /* XRC_TGT: its XRC domain */
    uint32_t db_page;
    uint32_t max_inline;
    VhcaWq sq;
    VhcaWq rq;

    /* Attributes (struct vhca_qp_context), host order. */
    uint8_t state;
    uint8_t path_mtu;
    uint8_t port;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    uint8_t min_rnr_timer;
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t en_sqd_async_notify;
    uint16_t pkey_index;
    uint32_t qkey;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t dest_qpn;
    uint32_t access_flags;
    struct vhca_av av;      /* as the guest gave it (little-endian) */

    /*
     * Requester state of the WQE at sq.ci (vhca-transport.c, vhca-rc.c):
     * RNR retries (IBA 9.7.5.2.8) and transport retries (IBA 9.7.6.1.3).
     */
    uint8_t rnr_left;
    uint8_t retry_left;
    uint8_t sq_wait;        /* VhcaSqWait: what sq_timer is running for */
    bool wqe_started;       /* the counters belong to the WQE at sq.ci */
    bool sq_waiting;        /* the send queue waits for sq_timer */
    bool retry_exhausted;   /* the last local ACK timeout expired */
    bool comm_est_sent;
    bool odp_stopped;       /* a requester page fault: until ODP_RESUME */
    bool odp_resp_fault;    /* a responder fault reported: until ODP_RESUME */
    bool odp_error;         /* ODP_RESUME_F_ERROR: the next fault fails */
    QEMUTimer *sq_timer;

    /*
     * RC requester towards a QP of another process (vhca-rc-window.c):
     * the WQEs sq.ci .. sq_sent - 1 are on the wire waiting for their
     * ACK, READ response or atomic ACK; sq_send_psn is the PSN of the
     * WQE at sq_sent.  sq_sent_high is one past the last WQE ever sent
     * (resends after a rewind stay below it; SQD sends only those).
     */
    uint32_t sq_sent;
    uint32_t sq_sent_high;
    uint32_t sq_send_psn;
    bool sq_drained_due;    /* SQD: SQ_DRAINED once the window is empty */
    VhcaRcFlight flight[VHCA_RC_WINDOW];
    bool rc_nak_seq_sent;   /* responder: one sequence NAK per error */

    /* RC responder resources: recent READ/atomic requests (vhca-rc.c). */
    VhcaRdRes rd_res[VHCA_MAX_RD_ATOM];
    uint8_t rd_res_next;
} VhcaQp;

/* vhca-buf.c */
uint8_t vhca_buf_load(VhcaState *s, const struct vhca_buf_desc *desc,
                      uint64_t min_bytes, uint32_t max_pages, VhcaBuf *buf,
                      const char **why);
void vhca_buf_free(VhcaBuf *buf);
uint32_t vhca_ring_max_pages(uint64_t bytes);
uint64_t vhca_buf_addr(const VhcaBuf *buf, uint64_t offset);

/* vhca-mr.c */
void vhca_mr_init(VhcaState *s);
void vhca_mr_reset(VhcaState *s);
uint8_t vhca_cmd_create_mr(VhcaState *s, uint64_t in_addr, uint32_t result[2]);
uint8_t vhca_cmd_alloc_mr(VhcaState *s, const struct vhca_cmd_alloc_mr_in *in,
                          uint32_t result[2]);
uint8_t vhca_cmd_destroy_mr(VhcaState *s, uint32_t key);
uint8_t vhca_cmd_rereg_mr(VhcaState *s, uint32_t key, uint64_t in_addr);
uint8_t vhca_mr_insert(VhcaState *s, const VhcaMr *mr, uint32_t result[2]);
/* remote_qpn of vhca_mr_translate for a local access (no windows). */
#define VHCA_MR_LOCAL UINT32_MAX
uint8_t vhca_mr_translate(VhcaState *s, uint32_t key, uint32_t pdn,
                          uint32_t access, bool allow_dma_lkey,
                          uint32_t remote_qpn, uint64_t addr, uint64_t len,
                          const VhcaMr **mr_out);
uint64_t vhca_mr_piece(const VhcaMr *mr, uint64_t addr, uint64_t len,
                       VhcaDmaPiece *piece);
uint8_t vhca_mr_local_inv(VhcaState *s, uint32_t key, uint32_t pdn,
                          uint32_t qpn);
uint8_t vhca_mr_fast_reg(VhcaState *s, uint32_t pdn,
                         const struct vhca_wqe_reg_mr *wqe);
bool vhca_pd_valid(VhcaState *s, uint32_t pdn);

/* vhca-dm.c (the commands are vhca-cmd-check.c ones) */
struct VhcaCmd;
bool vhca_dm_check_property(VhcaState *s, Error **errp);
bool vhca_dm_realize(VhcaState *s, Error **errp);
void vhca_dm_reset(VhcaState *s);
void vhca_dm_unrealize(VhcaState *s);
uint8_t vhca_cmd_alloc_dm(VhcaState *s, const struct VhcaCmd *cmd,
                          uint32_t result[2]);
uint8_t vhca_cmd_free_dm(VhcaState *s, const struct VhcaCmd *cmd,
                         uint32_t result[2]);
uint8_t vhca_cmd_reg_dm_mr(VhcaState *s, const struct VhcaCmd *cmd,
                           uint32_t result[2]);
void vhca_dm_mr_release(VhcaState *s, const VhcaMr *mr);
MemTxResult vhca_piece_read(VhcaState *s, const VhcaDmaPiece *piece,
                            void *buf, uint64_t len);
MemTxResult vhca_piece_write(VhcaState *s, const VhcaDmaPiece *piece,
                             const void *buf, uint64_t len);
/* 8 bytes (little-endian value) in one store: an atomic's target. */
MemTxResult vhca_piece_write_u64(VhcaState *s, const VhcaDmaPiece *piece,
                                 uint64_t value);

/* vhca-odp.c */
uint64_t vhca_odp_page(const VhcaMr *mr, uint64_t index);
void vhca_odp_free(VhcaState *s, VhcaMr *mr);
uint8_t vhca_odp_load(VhcaState *s, VhcaMr *mr, uint8_t flags,
                      const struct vhca_buf_desc *desc);
uint8_t vhca_odp_check(VhcaState *s, const VhcaMr *mr, uint64_t addr,
                       uint64_t len, uint32_t access);
void vhca_odp_fault_event(VhcaState *s, VhcaQp *qp, uint8_t subtype);
uint8_t vhca_cmd_odp_map(VhcaState *s, const struct vhca_cmd_odp_range_in *in,
                         uint64_t in_addr, uint32_t in_len);
uint8_t vhca_cmd_odp_invalidate(VhcaState *s,
                                const struct vhca_cmd_odp_range_in *in);
uint8_t vhca_cmd_odp_resume(VhcaState *s,
                            const struct vhca_cmd_odp_resume_in *in);
bool vhca_odp_fault_failed(VhcaQp *qp);

/* vhca-mw.c */
uint8_t vhca_cmd_alloc_mw(VhcaState *s, const struct vhca_cmd_alloc_mw_in *in,
                          uint32_t result[2]);
uint8_t vhca_cmd_dealloc_mw(VhcaState *s, uint32_t key);
bool vhca_mw_bound_to(VhcaState *s, uint32_t index);
uint8_t vhca_mw_bind(VhcaState *s, const VhcaQp *qp,
                     const struct vhca_wqe_bind_mw *wqe);
uint8_t vhca_mw_invalidate(VhcaState *s, uint32_t key, uint32_t pdn,
                           uint32_t qpn);
uint8_t vhca_mw_translate(VhcaState *s, const VhcaMr *mw, uint32_t pdn,
                          uint32_t qpn, uint32_t access, uint64_t addr,
                          uint64_t len, const VhcaMr **mr_out);
bool vhca_pd_in_use(VhcaState *s, uint32_t pdn);

/* vhca-cq.c */
void vhca_cq_init(VhcaState *s);
void vhca_cq_reset(VhcaState *s);
VhcaCq *vhca_cq_get(VhcaState *s, uint32_t cqn);
bool vhca_cq_uses_eq(VhcaState *s, uint32_t eqn);
uint8_t vhca_cmd_create_cq(VhcaState *s, uint64_t in_addr, uint32_t result[2]);
uint8_t vhca_cmd_resize_cq(VhcaState *s, uint32_t cqn, uint64_t in_addr);
uint8_t vhca_cmd_destroy_cq(VhcaState *s, uint32_t cqn);
void vhca_cq_post(VhcaState *s, uint32_t cqn, struct vhca_cqe *cqe,
                  bool solicited);
void vhca_cq_doorbell(VhcaState *s, uint32_t page, uint64_t value);

/* vhca-srq.c */
void vhca_srq_init(VhcaState *s);
void vhca_srq_reset(VhcaState *s);
VhcaSrq *vhca_srq_get(VhcaState *s, uint32_t srqn);
uint8_t vhca_cmd_create_srq(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                            uint32_t result[2]);
uint8_t vhca_cmd_modify_srq(VhcaState *s,
                            const struct vhca_cmd_srq_limit_in *in);
uint8_t vhca_cmd_query_srq(VhcaState *s, uint32_t srqn, uint32_t result[2]);
uint8_t vhca_cmd_destroy_srq(VhcaState *s, uint32_t srqn);
uint8_t vhca_cmd_resize_srq(VhcaState *s, uint32_t srqn, uint64_t in_addr,
                            uint32_t result[2]);
void vhca_srq_check_limit(VhcaState *s, uint32_t srqn);
void vhca_srq_doorbell(VhcaState *s, uint32_t page, uint64_t value);
VhcaWq *vhca_qp_recv_wq(VhcaState *s, VhcaQp *qp);
/* Receive doorbell records (vhca_hw_verbs.h): the address check of
 * CREATE_QP/CREATE_SRQ, and taking the producer index from the record. */
uint8_t vhca_wq_dbrec_check(VhcaState *s, uint64_t addr, const char **why);
void vhca_wq_read_dbrec(VhcaState *s, VhcaWq *wq, const char *kind,
                        uint32_t handle);
/* The receive queue of qp (its own or its SRQ's) with the producer index
 * of its record when the device had none left; NULL: none. */
VhcaWq *vhca_qp_recv_wq_fresh(VhcaState *s, VhcaQp *qp);

/* vhca-tm.c: tag matching SRQs (uapi/vhca_hw_tm.h) */
uint8_t vhca_tm_create(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                       VhcaSrq *srq, const char **why);
void vhca_tm_created(VhcaSrq *srq, uint32_t srqn);
void vhca_tm_free(VhcaSrq *srq);
void vhca_tm_doorbell(VhcaState *s, uint32_t srqn, uint32_t pi);

/* vhca-xrc.c */
void vhca_xrc_init(VhcaState *s);
void vhca_xrc_reset(VhcaState *s);
void vhca_xrc_unrealize(VhcaState *s);
uint8_t vhca_cmd_alloc_xrcd(VhcaState *s, uint32_t result[2]);
uint8_t vhca_cmd_dealloc_xrcd(VhcaState *s, uint32_t xrcdn);
bool vhca_xrcd_valid(VhcaState *s, uint32_t xrcdn);
bool vhca_xrcd_hold(VhcaState *s, uint32_t xrcdn);
void vhca_xrcd_release(VhcaState *s, uint32_t xrcdn);
bool vhca_xrc_bind(VhcaState *s, VhcaQp *qp, uint32_t srqn);

/* vhca-mcast.c */
void vhca_mcast_init(VhcaState *s);
void vhca_mcast_reset(VhcaState *s);
uint8_t vhca_cmd_mcast(VhcaState *s, bool attach,
                       const struct vhca_cmd_mcast_in *in);
void vhca_mcast_detach_qp(VhcaState *s, uint32_t qp_handle);
typedef void (*VhcaMcastFn)(VhcaState *s, VhcaQp *qp, void *opaque);
void vhca_mcast_foreach(VhcaState *s, uint8_t port, uint16_t mlid,
                        VhcaMcastFn fn, void *opaque);

/* vhca-qp.c */
void vhca_qp_init(VhcaState *s);
void vhca_qp_reset(VhcaState *s);
void vhca_qp_unrealize(VhcaState *s);
VhcaQp *vhca_qp_get(VhcaState *s, uint32_t handle);
VhcaQp *vhca_qp_by_qpn(VhcaState *s, uint8_t port, uint32_t qpn);
uint8_t vhca_cmd_create_qp(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                           uint32_t result[2]);
uint8_t vhca_cmd_query_qp(VhcaState *s, uint32_t handle, uint64_t out_addr);
uint8_t vhca_cmd_destroy_qp(VhcaState *s, uint32_t handle);
void vhca_qp_to_error(VhcaState *s, VhcaQp *qp);
void vhca_qp_flush(VhcaState *s, VhcaQp *qp);
/* New send WQEs announced (doorbell or send record): flush or run. */
void vhca_sq_produced(VhcaState *s, VhcaQp *qp);
void vhca_qp_event(VhcaState *s, VhcaQp *qp, uint8_t subtype);
void vhca_wq_doorbell(VhcaState *s, uint32_t page, hwaddr offset,
                      uint64_t value);

/* vhca-qp-modify.c */
uint8_t vhca_cmd_modify_qp(VhcaState *s, uint32_t handle, uint64_t in_addr);
bool vhca_qp_transition_ok(uint8_t cur, uint8_t next, uint8_t type,
                           uint32_t mask, const char **why);

/* vhca-transport.c */
void vhca_sq_process(VhcaState *s, VhcaQp *qp, uint32_t budget);
void vhca_transport_bh(void *opaque);

/* vhca-rc.c */
void vhca_qp_sq_timer(void *opaque);
void vhca_rc_reset_qp(VhcaQp *qp);

/* vhca-verbs-cmd.c */
bool vhca_verbs_cmd_known(uint16_t opcode);
const char *vhca_verbs_cmd_name(uint16_t opcode);
uint8_t vhca_verbs_cmd_execute(VhcaState *s, const struct vhca_cmd *raw,
                               uint32_t result[2], const char **why);
void vhca_verbs_device_attr(struct vhca_device_attr *attr);
void vhca_verbs_init(VhcaState *s);
void vhca_verbs_reset(VhcaState *s);
void vhca_verbs_unrealize(VhcaState *s);
void vhca_verbs_doorbell(VhcaState *s, uint32_t page, hwaddr offset,
                         uint64_t value);

#endif /* HW_INFINIBAND_VHCA_VERBS_H */
