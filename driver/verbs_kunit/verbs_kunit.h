/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs_kunit.h - what the files of vhca_verbs_kunit.ko share: the
 * device under test, its PD, the two port "sides" with their DMA buffers
 * (fixture.c: every suite's suite_init/suite_exit), how a failure reaches
 * KUnit, completion helpers and connected QP pairs (util.c).  One KUnit
 * suite per concept file, named vhca_verbs_<file>: query.c, basic.c,
 * rdma.c, ud.c, sends.c, uc.c, atomics.c, invalidate.c, ulp.c, cq.c,
 * errors_local.c, errors_remote.c, qp_states.c, drain.c (Kbuild's order
 * is the order they run in).
 */
#ifndef VHCA_VERBS_KUNIT_H
#define VHCA_VERBS_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#define TAG "vhca_verbs_kunit: "
#define BUF_SIZE PAGE_SIZE
#define MSG_LEN 1000
#define POLL_MS 5000
#define UD_QKEY 0x11111111
#define GRH_LEN 40

/* One port of the device: its main RC QP and CQ, and two DMA-mapped
 * pages (buf: SEND/RECV, buf2: RDMA target or result), addressed with
 * pd->local_dma_lkey. */
struct side {
	u32 port;
	u16 lid;
	enum ib_mtu mtu;
	struct ib_cq *cq;	/* send and receive */
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	void *buf2;
	u64 dma2;
};

extern struct ib_device *ibdev;
extern struct ib_pd *pd;
extern struct side a, b;	/* port 1, port 2 */
/* The main CQs' comp_handler counts events and completes cq_event. */
extern struct completion cq_event;
extern atomic_t cq_events;

/* The case running now (set by verbs_test_init()).  Helpers report
 * through it, also from the worker threads of atomics.c. */
extern struct kunit *verbs_kunit_test;

/* A failed check of step `name` of the running case, with the values
 * (KUnit prints file:line and the message; the case then fails). */
#define fail(name, fmt, ...) do {					\
	if (verbs_kunit_test)						\
		KUNIT_FAIL(verbs_kunit_test, "%s: " fmt, name, ##__VA_ARGS__); \
	else								\
		pr_err(TAG "%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

/* ---- fixture.c: the suites' shared set-up ---- */
/* ib_device `device` (module parameter), its PD, both sides and the main
 * RC pair a.qp <-> b.qp in RTS. */
int verbs_suite_init(struct kunit_suite *suite);
void verbs_suite_exit(struct kunit_suite *suite);
int verbs_test_init(struct kunit *test);
void verbs_test_exit(struct kunit *test);

/* A case whose function name differs from its name. */
#define VERBS_CASE(_run, _name) { .run_case = _run, .name = _name }

/* A suite of one concept file: the shared fixture around its cases. */
#define VERBS_SUITE(_name, _cases) {				\
	.name = "vhca_verbs_" #_name,				\
	.suite_init = verbs_suite_init,				\
	.suite_exit = verbs_suite_exit,				\
	.init = verbs_test_init,				\
	.exit = verbs_test_exit,				\
	.test_cases = _cases,					\
}

/* ---- util.c: data and completions ---- */
void fill(void *buf, size_t len, u8 seed);
int compare(const char *name, const void *got, const void *want, size_t len);
/* Both pages of both sides to the device / to the CPU. */
void sync_for_device(void);
void sync_for_cpu(void);
/* One completion from cq within POLL_MS: 0, or -ETIMEDOUT. */
int poll_one(struct ib_cq *cq, struct ib_wc *wc);
/* A successful completion of wr_id with opcode (and byte_len if not 0). */
int expect_wc(const char *name, struct ib_cq *cq, u64 wr_id,
	      enum ib_wc_opcode opcode, u32 byte_len);
/* A completion of wr_id with status (any opcode: error CQEs carry none). */
int expect_status(const char *name, struct ib_cq *cq, u64 wr_id,
		  enum ib_wc_status status);
/* No completion on cq for ms milliseconds. */
int expect_empty(const char *name, struct ib_cq *cq, unsigned int ms);
/* qp is in state (ib_query_qp). */
int expect_state(const char *name, struct ib_qp *qp, enum ib_qp_state state);
/* n completions wr_id, wr_id + 1, ... with IB_WC_WR_FLUSH_ERR. */
int expect_flushed(const char *name, struct ib_cq *cq, u64 wr_id, int n);

/* One-SGE receive and send with the local DMA lkey. */
int post_recv_qp(struct ib_qp *qp, u64 wr_id, u64 addr, u32 len);
int post_send_qp(struct ib_qp *qp, struct ib_send_wr *wr, u64 addr, u32 len);
int post_recv(struct side *s, u64 wr_id, u64 addr, u32 len);
int post_send(struct side *s, struct ib_send_wr *wr, u64 addr, u32 len);

/* ---- util.c: connected QP pairs between port 1 and port 2 ---- */
struct pair_opts {
	enum ib_qp_type type;		/* IB_QPT_RC (0 means RC) or IB_QPT_UC */
	u32 max_send_wr, max_recv_wr;	/* 0: 16 */
	u32 max_send_sge, max_recv_sge;	/* 0: 1 */
	u32 max_inline_data;
	int access;			/* qb's qp_access_flags; 0: all */
	u8 rnr_retry;			/* qa's; with rnr_set */
	bool rnr_set;			/* else 7 */
	u8 min_rnr_timer;		/* qb's; 0: 12 */
	struct ib_srq *srq_b;		/* qb's receives */
	int comp_vector;
	struct ib_cq *cq_a, *cq_b;	/* the caller's CQs instead of new ones */
	bool no_connect;		/* leave both QPs in RESET */
	bool rtr_only;			/* connect_qp() stops at RTR */
};

/* qa on port 1 (the requester of most cases) and qb on port 2, each with
 * its own CQ (send and receive); asynchronous events are recorded. */
struct pair {
	struct pair_opts o;
	struct ib_cq *cqa, *cqb;
	struct ib_qp *qa, *qb;
	unsigned long events_a, events_b;	/* bit n: ib_event_type n seen */
};

int pair_create(struct pair *p, const struct pair_opts *o);
void pair_destroy(struct pair *p);
/* Both QPs to RESET, then connected again (RTS). */
int pair_reset(struct pair *p);
/* qp (of port `port`) RESET -> INIT -> RTR -> RTS towards dest_qpn. */
int connect_qp(struct ib_qp *qp, u32 port, u32 dest_qpn,
	       const struct pair_opts *o);
/* Waits up to POLL_MS for event on the QP whose bits are *events. */
int wait_event_bit(const char *name, unsigned long *events,
		   enum ib_event_type event);

/* ---- util.c: fast-registration regions ---- */
/* An FRWR region over [dma, dma + len) bound with `access` by a REG_MR
 * posted on qp (whose send CQ is cq); NULL after fail(). */
struct ib_mr *frwr_create(const char *name, struct ib_pd *mpd,
			  struct ib_qp *qp, struct ib_cq *cq, u64 dma,
			  u32 len, int access);
/* REG_MR of mr (already mapped) with the next key variant. */
int frwr_rebind(const char *name, struct ib_mr *mr, struct ib_qp *qp,
		struct ib_cq *cq, int access);
/* A UD QP in RTS on port (for UD cases and REG_MR in another PD). */
int ud_qp_up(struct ib_qp *qp, u32 port);

/* ---- util.c: error completions ---- */
#define TAIL_MAX 4
/* Posts wr followed by `tails` signaled 16-byte SENDs (wr_id + 1, ...) in
 * one call: they are what an error must flush. */
int post_with_tail(const char *name, struct ib_qp *qp, struct ib_send_wr *wr,
		   int tails);
/* wr_id completed with status, the next `flushed` with WR_FLUSH_ERR,
 * nothing more, and qp is in ERR. */
int expect_qp_error(const char *name, struct ib_cq *cq, struct ib_qp *qp,
		    u64 wr_id, enum ib_wc_status status, int flushed);
/* n one-SGE receives wr_id, wr_id + 1, ... of [addr, addr + len). */
int post_recvs(const char *name, struct ib_qp *qp, u64 wr_id, int n,
	       u64 addr, u32 len);

#endif /* VHCA_VERBS_KUNIT_H */
