/*
 * vhca qtest library: the data path (MRs, CQs, QPs, WQEs, completions)
 * between the two ports of one device, shared by the data path programs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_QTEST_DP_H
#define VHCA_QTEST_DP_H

#include "vhca-qtest.h"
#include "hw/infiniband/vhca/uapi/vhca_hw_verbs.h"
#include "hw/infiniband/vhca/uapi/vhca_hw_wire.h"
/* The MADs' layouts and numbers, the fabric's (vhca-mad.h). */
#include "vhca-bth.h"
#include "vhca-pma.h"
#include "vhca-sa.h"
#include "vhca-switch-sma.h"
#include "vhca-trap-mad.h"

#define DP_CQ_LOG       6
#define DP_WQ_LOG       4
#define DP_SQ_SHIFT     8       /* 256-byte send WQEs */
#define DP_RQ_SHIFT     6       /* 64-byte receive WQEs: 3 SGEs */
#define DP_QKEY         0x11111111u
#define DP_ALL_ACCESS   (VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE | \
                         VHCA_ACCESS_REMOTE_READ | VHCA_ACCESS_REMOTE_ATOMIC)
#define DP_MAX_EVENTS   16
/* RC local ACK timeout: 4.096 us * 2^14, retried 7 times. */
#define DP_TIMEOUT      14
#define DP_RETRY_CNT    7
#define DP_ACK_TIMEOUT_NS   (4096ll << DP_TIMEOUT)

typedef struct DpCq {
    uint32_t cqn;
    uint64_t ring;
    uint64_t dbrec;
    uint32_t ci;
    uint8_t log;
    uint64_t pages[4];      /* ring in 4 KiB pages (a page list), or 0 */
} DpCq;

typedef struct DpQp {
    uint32_t h;
    uint8_t type;
    uint64_t sq;
    uint64_t rq;
    uint8_t sq_log;
    uint64_t sq_pages[8];   /* SQ in 4 KiB pages (a page list), or 0 */
    uint32_t sq_pi;
    uint32_t rq_pi;
    uint64_t rq_dbrec;      /* receive doorbell record, 0: RQ doorbells */
    uint64_t sq_dbrec;      /* send doorbell record (vhca-sqpoll-test.c) */
    DpCq *scq;
    DpCq *rcq;
} DpQp;

typedef struct Dp {
    Vhca *v;
    uint32_t pd;
    uint32_t eqn;
    uint64_t eq_ring;
    uint32_t eq_ci;
    uint16_t lid[3];
    Vhca *mem;              /* whose guest allocator (siblings: the first) */
    struct vhca_eqe events[DP_MAX_EVENTS];  /* non-command EQ 0 events */
    int nevents;
} Dp;

/* Two connected QPs on ports 1 and 2, each with its own CQ (dp_pair). */
typedef struct DpPair {
    DpCq acq, bcq;
    DpQp a, b;
} DpPair;

/* Builders of WQEs in a 256-byte buffer. */
typedef struct DpWqe {
    uint8_t b[1u << DP_SQ_SHIFT];
    uint32_t off;
} DpWqe;

#define DP_BUF_SIZE     (64 * 1024)

/* Two 64 KiB buffers with physical regions, one per side (dp_mem). */
typedef struct DpMem {
    uint64_t a, b;
    uint32_t akey, bkey;
} DpMem;

uint8_t dp_exec(Dp *dp, struct vhca_cmd *cmd, uint32_t result[2]);
void dp_poll_events(Dp *dp);
bool dp_take_event(Dp *dp, uint8_t type, uint8_t subtype,
                   uint32_t handle);
uint8_t dp_simple(Dp *dp, uint16_t opcode, uint32_t handle,
                  uint32_t result[2]);
uint8_t dp_exec_in(Dp *dp, uint16_t opcode, uint32_t handle,
                   const void *in, uint32_t len, uint32_t result[2]);
uint64_t dp_alloc(Dp *dp, uint64_t size);
void dp_db64(Vhca *v, uint32_t page, uint32_t offset, uint64_t val);
void dp_setup(Dp *dp, int ports);
/* A completion EQ on vector 1 and a PD (dp_setup without the ports). */
void dp_setup_eq_pd(Dp *dp);
Dp *dp_start_with(const char *extra);
Dp *dp_start(void);
Dp *dp_start_unmanaged(const char *extra);
void dp_stop(Dp *dp);
/* qom-get / qom-set of an integer property of vhca0. */
uint64_t dp_qom_get_uint(Dp *dp, const char *name);
void dp_qom_set_uint(Dp *dp, const char *name, uint64_t value);
void dp_buf_contig(struct vhca_buf_desc *d, uint64_t addr,
                   uint64_t bytes);
uint8_t dp_create_cq_at(Dp *dp, DpCq *cq, uint8_t log, uint32_t eqn,
                        uint32_t db_page);
void dp_create_cq(Dp *dp, DpCq *cq, uint8_t log);
bool dp_poll_cq(Dp *dp, DpCq *cq, struct vhca_cqe *cqe);
void dp_expect_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe,
                   uint8_t status);
void dp_expect_no_cqe(Dp *dp, DpCq *cq);
/* A CQE of status, the virtual clock stepped step_ns at a time for it (at
 * most steps times: a timer's retry, resend or RNR retry to come). */
void dp_step_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe, int64_t step_ns,
                 int steps, uint8_t status);
uint8_t dp_create_qp_full(Dp *dp, DpQp *qp, uint8_t type, uint8_t port,
                          DpCq *scq, DpCq *rcq, uint32_t pd);
/* With a receive doorbell record at dbrec (dp_post_recv then stores the
 * producer index there instead of ringing the RQ doorbell). */
uint8_t dp_create_qp_dbrec(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                           DpCq *rcq, uint64_t dbrec);
/* With a send doorbell record at sq_dbrec (no receive record). */
uint8_t dp_create_qp_sq_dbrec(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                              DpCq *rcq, uint64_t sq_dbrec);
void dp_create_qp(Dp *dp, DpQp *qp, uint8_t type, DpCq *scq,
                  DpCq *rcq);
uint8_t dp_modify(Dp *dp, DpQp *qp, struct vhca_qp_context *ctx);
void dp_ctx(struct vhca_qp_context *ctx, uint8_t state, uint32_t mask);
uint8_t dp_to_init(Dp *dp, DpQp *qp, uint8_t port, uint32_t access);
uint8_t dp_to_rtr(Dp *dp, DpQp *qp, uint16_t dlid, uint32_t dest_qpn,
                  uint8_t min_rnr_timer);
uint8_t dp_to_rts_timers(Dp *dp, DpQp *qp, uint8_t rnr_retry,
                         uint8_t timeout, uint8_t retry_cnt);
uint8_t dp_to_rts(Dp *dp, DpQp *qp, uint8_t rnr_retry);
uint8_t dp_set_state(Dp *dp, DpQp *qp, uint8_t state);
void dp_pair(Dp *dp, DpPair *p, uint8_t type, uint32_t b_access,
             uint8_t rnr_retry);
/* dp_pair's CQs (2^DP_CQ_LOG CQEs) and QPs of type, in RESET. */
void dp_pair_create(Dp *dp, DpPair *p, uint8_t type);
/* An RC pair across two devices (dp port 2 to dw port 1). */
void dp_pair_devices(Dp *dp, Dp *dw, DpPair *p);
/* The RTS pair across two devices of QPs already created in p. */
void dp_pair_devices_connect(Dp *dp, Dp *dw, DpPair *p);
/* The RTS pair of QPs already created in p (a on port 1, b on port 2). */
void dp_pair_connect(Dp *dp, DpPair *p, uint32_t b_access, uint8_t rnr_retry);
/* QPs a (port 1) and b (port 2) of dp, created, to RTR towards each other
 * (dp_pair_connect's first half, with a's access too). */
void dp_qps_to_rtr(Dp *dp, DpQp *a, uint32_t a_access, DpQp *b,
                   uint32_t b_access);
/* Then both to RTS (dp_pair_connect's second half). */
void dp_qps_to_rts(Dp *dp, DpQp *a, DpQp *b, uint8_t rnr_retry);
uint32_t dp_mr_phys(Dp *dp, uint32_t pd, uint64_t addr, uint64_t len,
                    uint32_t access);
void dp_query_device(Dp *dp, struct vhca_device_attr *attr);
/* A 4-page region at iova whose list names pages[3], [2], [1], [0]. */
uint32_t dp_mr_pages(Dp *dp, uint64_t iova, uint64_t *pages, uint32_t access);
void dp_wqe(DpWqe *w, uint64_t wr_id, uint8_t opcode, uint8_t flags);
void dp_wqe_raddr(DpWqe *w, uint64_t addr, uint32_t rkey);
/* The atomic segment (vhca_wqe_atomic).  ATOMIC_WRITE's 8 bytes in memory
 * order are swap = ldq_le_p(bytes): stored as le64, they arrive unchanged. */
void dp_wqe_atomic(DpWqe *w, uint64_t raddr, uint32_t rkey,
                   uint64_t compare_add, uint64_t swap);
/* The FLUSH segment (vhca_wqe_flush): the range, placement type (VHCA_
 * FLUSH_GLOBAL/_PERSISTENT) and selectivity (VHCA_FLUSH_RANGE/_MR). */
void dp_wqe_flush(DpWqe *w, uint64_t raddr, uint32_t rkey, uint32_t len,
                  uint8_t type, uint8_t level);
void dp_wqe_sge(DpWqe *w, uint64_t addr, uint32_t len, uint32_t lkey);
void dp_put_send(Dp *dp, DpQp *qp, const DpWqe *w);
void dp_post_send(Dp *dp, DpQp *qp, const DpWqe *w);
void dp_post_recv(Dp *dp, DpQp *qp, uint64_t wr_id, uint64_t addr,
                  uint32_t len, uint32_t lkey, uint64_t addr2,
                  uint32_t len2);
void dp_fill(Dp *dp, uint64_t addr, uint32_t len, uint8_t seed);
void dp_assert_same(Dp *dp, uint64_t a, uint64_t b, uint32_t len);
uint8_t dp_query_qp(Dp *dp, uint32_t h, struct vhca_qp_context *ctx);
void dp_wqe_reg_mr(Dp *dp, DpWqe *w, uint64_t wr_id, uint32_t key,
                   uint64_t iova, uint64_t pages[2], uint32_t access);
void dp_reg_mr(Dp *dp, DpQp *qp, uint64_t wr_id, uint32_t key,
               uint64_t iova, uint64_t pages[2], uint32_t access);
void dp_write(Dp *dp, DpQp *qp, uint64_t wr_id, uint64_t raddr,
              uint32_t rkey, uint64_t laddr, uint32_t len,
              uint32_t lkey);
/* A signaled CMP_AND_SWP or FETCH_AND_ADD; the original value lands in the
 * 8 bytes at laddr. */
void dp_atomic(Dp *dp, DpQp *qp, uint64_t wr_id, uint8_t opcode,
               uint64_t raddr, uint32_t rkey, uint64_t compare_add,
               uint64_t swap, uint64_t laddr, uint32_t lkey);
uint32_t dp_alloc_mr(Dp *dp, uint8_t variant);
uint32_t dp_dev_caps(Dp *dp);   /* QUERY_DEVICE's dev_caps */
void dp_special(Dp *dp, DpQp *qp, DpCq *cq, uint8_t type, uint8_t port);
void dp_mem(Dp *dp, DpMem *m, uint32_t b_access);
void dp_send(Dp *dp, DpQp *qp, uint64_t wr_id, uint8_t opcode,
             uint8_t flags, uint64_t addr, uint32_t len, uint32_t lkey);
void dp_ud_send(Dp *dp, DpQp *qp, uint64_t wr_id, uint16_t dlid,
                uint32_t qpn, uint32_t qkey, bool grh, uint64_t addr,
                uint32_t len, uint32_t lkey);
void dp_assert_state(Dp *dp, DpQp *qp, uint8_t state);
/* B refused A's request as invalid (a responder error, IBA 9.9.3.1.2):
 * A's completion REM_INV_REQ_ERR, B in ERR with a REQ_ERR QP event. */
void dp_expect_invalid_request(Dp *dp, DpPair *p, struct vhca_cqe *cqe);
uint8_t dp_create_mr_in(Dp *dp, struct vhca_cmd_create_mr *in,
                        uint32_t *key);
void dp_mr_desc(struct vhca_cmd_create_mr *in, uint32_t pd,
                uint64_t iova, uint64_t len, uint64_t list,
                uint32_t npages, uint8_t mode);

/*
 * SMPs from port 1's SMI QP (an SM's view: vhca-switch-test, vhca-sm-off-
 * test): a Get or Set of attr/mod, LID-routed (path NULL) or directed
 * route out of path's hops as the guest's SMI hands it on (hop pointer 1).
 */

typedef struct SwRig {
    Dp *dp;
    DpMem m;
    DpCq cq;
    DpQp smi;
    uint64_t tid;
} SwRig;

void sw_start_on(SwRig *r, Dp *dp);
void sw_start_port(SwRig *r, Dp *dp, uint8_t port);
uint8_t dp_set_port_cap(Dp *dp, uint8_t port, uint32_t set, uint32_t clear);
void sw_start(SwRig *r);
void sw_req(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
            uint8_t hops, uint8_t *req);
bool sw_send(SwRig *r, const uint8_t *req, uint16_t dlid, uint8_t *resp);
bool sw_get(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
            uint8_t hops, uint16_t dlid, uint8_t *resp);
uint16_t sw_set(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
                uint8_t hops, uint16_t dlid, const uint8_t *data,
                uint8_t *resp);
bool sw_trap(SwRig *r, uint16_t num, uint64_t tid, uint16_t dlid, bool dr,
             uint8_t path_port, uint8_t *req, uint8_t *resp);

/*
 * SubnAdm MADs from the GSI QPs of ports 1 and 2 to the SA at LID 1, QPN 1
 * (vhca-qtest-sa.c; vhca-sa-test, vhca-sm-arb-test); answers land in
 * receive slots of SA_RECV_SLOT bytes of m.b.
 */
#define SA_RECV_SLOT    512         /* GRH + MAD, rounded */

typedef struct SaRig {
    Dp *dp;
    DpMem m;
    DpCq cq;
    DpQp gsi[3];                    /* per port */
    uint64_t wr_id;
    uint64_t tid;
} SaRig;

void sa_start_on(SaRig *r, Dp *dp);
void sa_start(SaRig *r);
void sa_mad(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
            const uint8_t *rec, size_t reclen, uint8_t *mad);
void sa_send(SaRig *r, int port, const uint8_t *mad, uint32_t len);
void sa_post_recvs(SaRig *r, int port, int n);
void sa_answer(SaRig *r, int port, int i, uint8_t *resp);
uint16_t sa_query(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
                  const uint8_t *rec, size_t reclen, uint8_t *resp);
void sa_port_gid(SaRig *r, int port, uint8_t *gid);
/* An SRQ of 2^DP_WQ_LOG WQEs (dp_create_srq_rec: dbrec 0 = doorbells). */
typedef struct DpSrq {
    uint32_t srqn;
    uint64_t ring;
    uint32_t pi;
    uint64_t dbrec;         /* 0: SRQ doorbells */
    uint8_t log_size;       /* after RESIZE_SRQ; 0: DP_WQ_LOG */
} DpSrq;
/* The CREATE_SRQ input of a new ring (dp_srq_in), then the command. */
void dp_srq_in(Dp *dp, DpSrq *srq, struct vhca_cmd_create_srq *in,
               uint32_t pd, uint8_t shift);
uint8_t dp_srq_exec(Dp *dp, DpSrq *srq, struct vhca_cmd_create_srq *in);
uint8_t dp_create_srq_rec(Dp *dp, DpSrq *srq, uint32_t pd, uint8_t shift,
                          uint32_t limit, uint64_t dbrec);
uint8_t dp_create_srq(Dp *dp, DpSrq *srq, uint32_t pd, uint8_t shift,
                      uint32_t limit);
void dp_srq_post(Dp *dp, DpSrq *srq, uint64_t wr_id, uint64_t addr,
                 uint32_t len, uint32_t lkey);

#endif
