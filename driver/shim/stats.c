// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * stats.c - the per-port hardware counters of `rdma statistic show` and
 * /sys/class/infiniband/vhcaN/ports/P/hw_counters (ib_core's
 * alloc_hw_port_stats and get_hw_stats ops).
 *
 * The counters are the device's: the port's Performance Management Agent
 * (fabric/vhca-pma.c) keeps them and answers PerfMgt Gets over
 * VHCA_CMD_MAD_IFC, the same command process_mad uses and the same
 * agent perfquery reads across the link.  A read asks it for
 * PortCountersExtended (IBA 16.1.4.11, the 64-bit traffic counters) and
 * PortCounters (IBA 16.1.3.5, for the error counters the device counts:
 * LinkDowned, PortRcvErrors, PortXmitDiscards).  Nothing is counted here.
 *
 * Names and units are those of ib_core's PMA sysfs files (ports/P/
 * counters/) and of the other IB drivers' port counters: port_xmit_data
 * and port_rcv_data count 4-octet words, as the PMA does and perfquery
 * prints them.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

enum vhca_port_stat {
	VHCA_STAT_XMIT_DATA,
	VHCA_STAT_RCV_DATA,
	VHCA_STAT_XMIT_PACKETS,
	VHCA_STAT_RCV_PACKETS,
	VHCA_STAT_UNICAST_XMIT_PACKETS,
	VHCA_STAT_UNICAST_RCV_PACKETS,
	VHCA_STAT_MULTICAST_XMIT_PACKETS,
	VHCA_STAT_MULTICAST_RCV_PACKETS,
	VHCA_STAT_LINK_DOWNED,
	VHCA_STAT_RCV_ERRORS,
	VHCA_STAT_XMIT_DISCARDS,
	VHCA_STAT_COUNT
};

static const struct rdma_stat_desc vhca_port_stat_descs[] = {
	[VHCA_STAT_XMIT_DATA].name = "port_xmit_data",
	[VHCA_STAT_RCV_DATA].name = "port_rcv_data",
	[VHCA_STAT_XMIT_PACKETS].name = "port_xmit_packets",
	[VHCA_STAT_RCV_PACKETS].name = "port_rcv_packets",
	[VHCA_STAT_UNICAST_XMIT_PACKETS].name = "unicast_xmit_packets",
	[VHCA_STAT_UNICAST_RCV_PACKETS].name = "unicast_rcv_packets",
	[VHCA_STAT_MULTICAST_XMIT_PACKETS].name = "multicast_xmit_packets",
	[VHCA_STAT_MULTICAST_RCV_PACKETS].name = "multicast_rcv_packets",
	[VHCA_STAT_LINK_DOWNED].name = "link_downed",
	[VHCA_STAT_RCV_ERRORS].name = "port_rcv_errors",
	[VHCA_STAT_XMIT_DISCARDS].name = "port_xmit_discards",
};
static_assert(ARRAY_SIZE(vhca_port_stat_descs) == VHCA_STAT_COUNT);

/* One PerfMgt exchange with the port's PMA: the MAD and its answer. */
struct vhca_pma_query {
	struct ib_pma_mad in;
	struct ib_pma_mad out;
};

/*
 * Get(attr_id) of the port's PMA (IBA 16.1.1: PerfMgt class 0x04, class
 * version 1; PortSelect names the port, data byte 1); the answer's data
 * is left in q->out.data.  -EIO when the PMA does not answer or answers
 * with a status (IBA 13.4.7).
 */
static int vhca_pma_get(struct vhca_kapi_device *kdev, u32 port,
			__be16 attr_id, struct vhca_pma_query *q)
{
	int ret;

	BUILD_BUG_ON(sizeof(q->in) != sizeof(struct vhca_mad));
	memset(q, 0, sizeof(*q));
	q->in.mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	q->in.mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	q->in.mad_hdr.class_version = 1;
	q->in.mad_hdr.method = IB_MGMT_METHOD_GET;
	q->in.mad_hdr.attr_id = attr_id;
	q->in.data[1] = port;			/* PortSelect */
	ret = vhca_core_mad_ifc(kdev->core, port,
				(const struct vhca_mad *)&q->in,
				(struct vhca_mad *)&q->out);
	if (ret < 0)
		return ret;
	if (!ret || q->out.mad_hdr.method != IB_MGMT_METHOD_GET_RESP ||
	    q->out.mad_hdr.status)
		return -EIO;
	return 0;
}

static struct rdma_hw_stats *vhca_ib_alloc_hw_port_stats(struct ib_device *ibdev,
							 u32 port)
{
	return rdma_alloc_hw_stats_struct(vhca_port_stat_descs,
					  ARRAY_SIZE(vhca_port_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/*
 * ib_core asks for every counter at once (index is the one it wants, the
 * rest come along); returns how many it got.  Device-wide stats (port 0)
 * are not offered: alloc_hw_device_stats is not set.
 */
static int vhca_ib_get_hw_stats(struct ib_device *ibdev,
				struct rdma_hw_stats *stats, u32 port,
				int index)
{
	struct vhca_kapi_device *kdev = to_kdev(ibdev);
	const struct ib_pma_portcounters_ext *ext;
	const struct ib_pma_portcounters *pc;
	struct vhca_pma_query *q;
	u64 *v = stats->value;
	int err;

	if (!port || stats->num_counters != VHCA_STAT_COUNT)
		return -EOPNOTSUPP;
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	err = vhca_pma_get(kdev, port, IB_PMA_PORT_COUNTERS_EXT, q);
	if (err)
		goto out;
	ext = (const struct ib_pma_portcounters_ext *)q->out.data;
	v[VHCA_STAT_XMIT_DATA] = be64_to_cpu(ext->port_xmit_data);
	v[VHCA_STAT_RCV_DATA] = be64_to_cpu(ext->port_rcv_data);
	v[VHCA_STAT_XMIT_PACKETS] = be64_to_cpu(ext->port_xmit_packets);
	v[VHCA_STAT_RCV_PACKETS] = be64_to_cpu(ext->port_rcv_packets);
	v[VHCA_STAT_UNICAST_XMIT_PACKETS] =
		be64_to_cpu(ext->port_unicast_xmit_packets);
	v[VHCA_STAT_UNICAST_RCV_PACKETS] =
		be64_to_cpu(ext->port_unicast_rcv_packets);
	v[VHCA_STAT_MULTICAST_XMIT_PACKETS] =
		be64_to_cpu(ext->port_multicast_xmit_packets);
	v[VHCA_STAT_MULTICAST_RCV_PACKETS] =
		be64_to_cpu(ext->port_multicast_rcv_packets);

	err = vhca_pma_get(kdev, port, IB_PMA_PORT_COUNTERS, q);
	if (err)
		goto out;
	pc = (const struct ib_pma_portcounters *)q->out.data;
	v[VHCA_STAT_LINK_DOWNED] = pc->link_downed_counter;
	v[VHCA_STAT_RCV_ERRORS] = be16_to_cpu(pc->port_rcv_errors);
	v[VHCA_STAT_XMIT_DISCARDS] = be16_to_cpu(pc->port_xmit_discards);
	err = VHCA_STAT_COUNT;
out:
	kfree(q);
	return err;
}

const struct ib_device_ops vhca_stats_ops = {
	.alloc_hw_port_stats = vhca_ib_alloc_hw_port_stats,
	.get_hw_stats = vhca_ib_get_hw_stats,
};
