/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_pair.h - two RC QPs connected to each other, for the C test programs
 * (odp_invalidate.c, last_byte.c): qp[0] on one port, qp[1] on another
 * port of the same device or on a port of another device, each with its
 * own CQ.  Include after ud_self.h (check, must).
 */
#ifndef VHCA_RC_PAIR_H
#define VHCA_RC_PAIR_H

struct rc_pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	uint16_t lid[2];
	int port[2];
};

/* An RC QP of pd completing sends on send_cq and receives on recv_cq
 * (they may be one CQ), depth WRs each way. */
static inline struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *send_cq,
				   struct ibv_cq *recv_cq, int depth)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = send_cq, .recv_cq = recv_cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return must(ibv_create_qp(pd, &attr), "ibv_create_qp");
}

#define RC_DEFAULT_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			   IBV_ACCESS_REMOTE_READ)
#define RC_DEFAULT_TIMEOUT 14	/* perftest's: 67 ms, one process's two ports */

/*
 * qp (on port `port`) to RTS, connected to dest_qpn behind dlid, allowing
 * the remote access rights `access`, with the local ACK timeout
 * 4.096 us * 2^timeout (IBA 9.7.6.1.3) and 7 retries.
 */
static inline void rc_connect_with(struct ibv_qp *qp, int port,
				   uint32_t dest_qpn, uint16_t dlid,
				   unsigned int access, uint8_t timeout)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = port,
		.qp_access_flags = access,
	};

	check("modify to INIT", ibv_modify_qp(qp, &attr, IBV_QP_STATE |
					      IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					      IBV_QP_ACCESS_FLAGS), 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_1024;
	attr.dest_qp_num = dest_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 1;		/* 0.01 ms: a responder fault's RNR wait */
	attr.ah_attr.dlid = dlid;
	attr.ah_attr.port_num = port;
	check("modify to RTR", ibv_modify_qp(qp, &attr, IBV_QP_STATE |
					     IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					     IBV_QP_MAX_DEST_RD_ATOMIC |
					     IBV_QP_MIN_RNR_TIMER), 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = timeout;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;		/* infinite: faults take what they take */
	attr.max_rd_atomic = 1;
	check("modify to RTS", ibv_modify_qp(qp, &attr, IBV_QP_STATE |
					     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					     IBV_QP_MAX_QP_RD_ATOMIC), 0);
}

/* rc_connect_with the default timeout, allowing `access`. */
static inline void rc_connect_access(struct ibv_qp *qp, int port,
				     uint32_t dest_qpn, uint16_t dlid,
				     unsigned int access)
{
	rc_connect_with(qp, port, dest_qpn, dlid, access, RC_DEFAULT_TIMEOUT);
}

/* rc_connect_with remote write and read, with local ACK timeout `timeout`. */
static inline void rc_connect_timeout(struct ibv_qp *qp, int port,
				      uint32_t dest_qpn, uint16_t dlid,
				      uint8_t timeout)
{
	rc_connect_with(qp, port, dest_qpn, dlid, RC_DEFAULT_ACCESS, timeout);
}

/* rc_connect_with remote write and read and the default timeout. */
static inline void rc_connect(struct ibv_qp *qp, int port, uint32_t dest_qpn,
			      uint16_t dlid)
{
	rc_connect_with(qp, port, dest_qpn, dlid, RC_DEFAULT_ACCESS,
			RC_DEFAULT_TIMEOUT);
}

/* qp[i] of pd[i] on port[i] (pd[0] and pd[1] may be one PD), connected. */
static inline void rc_create(struct rc_pair *rc, struct ibv_pd *pd[2],
			     const int port[2], int depth)
{
	struct ibv_port_attr attr;
	int i;

	for (i = 0; i < 2; i++) {
		rc->port[i] = port[i];
		check("query port", ibv_query_port(pd[i]->context, port[i], &attr), 0);
		rc->lid[i] = attr.lid;
		rc->cq[i] = must(ibv_create_cq(pd[i]->context, 2 * depth, NULL, NULL, 0),
				 "ibv_create_cq");
		rc->qp[i] = rc_qp(pd[i], rc->cq[i], rc->cq[i], depth);
	}
	for (i = 0; i < 2; i++)
		rc_connect(rc->qp[i], port[i], rc->qp[1 - i]->qp_num, rc->lid[1 - i]);
}

static inline void rc_destroy(struct rc_pair *rc)
{
	int i;

	for (i = 0; i < 2; i++) {
		check("destroy QP", ibv_destroy_qp(rc->qp[i]), 0);
		check("destroy CQ", ibv_destroy_cq(rc->cq[i]), 0);
	}
}

#endif /* VHCA_RC_PAIR_H */
