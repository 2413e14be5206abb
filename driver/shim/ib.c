// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ib.c - the ib_device: its ops table, registration and asynchronous
 * events.  Each op converts between ib_verbs types and the vhca_hw.h
 * structs and calls the core.
 *
 * vhca_dev_ops has the device-level verbs; the data path ops of verbs.c
 * (vhca_verbs_ops) and the user contexts of uverbs.c (vhca_uverbs_ops)
 * are added by two more ib_set_device_ops calls at registration.  With
 * every op ib_device_check_mandatory asks for, the device is a
 * kernel-verbs provider: ib_mad, ib_cm, IPoIB and user verbs attach.
 */
#include <linux/module.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"
#include "compat.h"

static int vhca_ib_query_device(struct ib_device *ibdev,
				struct ib_device_attr *props,
				struct ib_udata *udata)
{
	const struct vhca_device_attr *attr =
		vhca_core_device_attr(to_kdev(ibdev)->core);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	props->fw_ver = le64_to_cpu(attr->fw_version);
	props->sys_image_guid = cpu_to_be64(le64_to_cpu(attr->sys_image_guid));
	props->max_mr_size = le64_to_cpu(attr->max_mr_size);
	props->page_size_cap = le64_to_cpu(attr->page_size_cap);
	props->vendor_id = le32_to_cpu(attr->vendor_id);
	props->vendor_part_id = le32_to_cpu(attr->vendor_part_id);
	props->hw_ver = le32_to_cpu(attr->hw_version);
	props->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
		vhca_flush_cap_flags(le32_to_cpu(attr->dev_caps));
	props->max_pd = le32_to_cpu(attr->max_pd);
	props->max_qp = le32_to_cpu(attr->max_qp);
	props->max_qp_wr = le32_to_cpu(attr->max_qp_wr);
	props->max_send_sge = le32_to_cpu(attr->max_sge);
	props->max_recv_sge = le32_to_cpu(attr->max_sge);
	props->max_sge_rd = le32_to_cpu(attr->max_sge);
	props->max_cq = le32_to_cpu(attr->max_cq);
	props->max_cqe = le32_to_cpu(attr->max_cqe);
	props->max_mr = le32_to_cpu(attr->max_mr);
	props->max_srq = le32_to_cpu(attr->max_srq);
	props->max_srq_wr = le32_to_cpu(attr->max_srq_wr);
	props->max_srq_sge = le32_to_cpu(attr->max_sge);
	props->max_ah = le32_to_cpu(attr->max_ah);
	props->max_mcast_grp = le32_to_cpu(attr->max_mcast_grp);
	props->max_mcast_qp_attach = le32_to_cpu(attr->max_mcast_qp_attach);
	props->max_total_mcast_qp_attach =
		props->max_mcast_grp * props->max_mcast_qp_attach;
	props->max_qp_rd_atom = le32_to_cpu(attr->max_qp_rd_atom);
	props->max_qp_init_rd_atom = props->max_qp_rd_atom;
	props->atomic_cap = IB_ATOMIC_NONE;
	/* CQE timestamps: a 64-bit count at hca_core_clock kHz (vhca_hw.h) */
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_DM)
		props->max_dm_size = le64_to_cpu(attr->max_dm_size);
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_CQE_TIMESTAMP) {
		props->hca_core_clock = le32_to_cpu(attr->hca_core_clock_khz);
		props->timestamp_mask = U64_MAX;
	}
	/* tag matching SRQs (uapi/vhca_hw_tm.h); userspace only */
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_TAG_MATCHING) {
		props->tm_caps.max_rndv_hdr_size = VHCA_TM_MAX_RNDV_HDR;
		props->tm_caps.max_num_tags = VHCA_TM_MAX_TAGS;
		props->tm_caps.flags = IB_TM_CAP_RNDV_RC;
		props->tm_caps.max_ops = 1u << VHCA_TM_MAX_LOG_OPS;
		props->tm_caps.max_sge = VHCA_TM_MAX_SGE;
	}
	props->max_pkeys = VHCA_PKEY_TABLE_LEN;
	vhca_verbs_query_device(to_kdev(ibdev), props);
	return 0;
}

static int vhca_ib_query_port(struct ib_device *ibdev, u32 port,
			      struct ib_port_attr *props)
{
	struct vhca_port_attr attr;
	int err;

	err = vhca_core_query_port(to_kdev(ibdev)->core, port, &attr);
	if (err)
		return err;
	/* vhca_hw.h uses the IBA PortInfo encodings, which are also those of
	 * enum ib_port_state, ib_port_phys_state, ib_mtu, ib_port_width and
	 * ib_port_speed. */
	props->state = attr.state;
	props->phys_state = attr.phys_state;
	props->max_mtu = attr.max_mtu;
	props->active_mtu = attr.active_mtu;
	props->phys_mtu = ib_mtu_enum_to_int(attr.max_mtu);
	props->lid = le16_to_cpu(attr.lid);
	props->sm_lid = le16_to_cpu(attr.sm_lid);
	props->lmc = attr.lmc;
	props->sm_sl = attr.sm_sl;
	props->active_width = attr.active_width;
	props->active_speed = attr.active_speed;
	props->port_cap_flags = le32_to_cpu(attr.port_cap_flags);
	props->max_msg_sz = le32_to_cpu(attr.max_msg_sz);
	props->gid_tbl_len = le16_to_cpu(attr.gid_tbl_len);
	props->pkey_tbl_len = le16_to_cpu(attr.pkey_tbl_len);
	props->subnet_timeout = attr.subnet_timeout;
	props->max_vl_num = attr.max_vl_num;
	props->subnet_prefix = le64_to_cpu(attr.subnet_prefix);
	props->qkey_viol_cntr = le32_to_cpu(attr.qkey_viol_cntr);
	props->bad_pkey_cntr = le32_to_cpu(attr.bad_pkey_cntr);
	return 0;
}

#ifdef VHCA_HAVE_QUERY_PORT_SPEED
/*
 * ibv_query_port_speed: the port's effective data rate in 100 Mb/s units,
 * the active width times the active lane speed of PortInfo (IBA 14.2.5.6,
 * ib_port_attr_to_speed_info as mlx5 answers for a physical port), 0 while
 * the port is down (no link, no rate).
 */
static int vhca_ib_query_port_speed(struct ib_device *ibdev, u32 port,
				    u64 *speed)
{
	struct ib_port_speed_info info;
	struct ib_port_attr attr = {};
	int err;

	err = vhca_ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	if (attr.state == IB_PORT_DOWN) {
		*speed = 0;
		return 0;
	}
	err = ib_port_attr_to_speed_info(&attr, &info);
	if (err)
		return err;
	*speed = info.rate;
	return 0;
}
#endif

static int vhca_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
			     union ib_gid *gid)
{
	struct vhca_gid raw;
	int err;

	if (index < 0)
		return -EINVAL;
	err = vhca_core_query_gid(to_kdev(ibdev)->core, port, index, &raw);
	if (err)
		return err;
	BUILD_BUG_ON(sizeof(gid->raw) != sizeof(raw.raw));
	memcpy(gid->raw, raw.raw, sizeof(gid->raw));
	return 0;
}

static int vhca_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			      u16 *pkey)
{
	unsigned short value;
	int err;

	err = vhca_core_query_pkey(to_kdev(ibdev)->core, port, index, &value);
	if (err)
		return err;
	*pkey = value;
	return 0;
}

static int vhca_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
				      struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer vhca_ib_get_link_layer(struct ib_device *ibdev,
						   u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int vhca_ib_modify_device(struct ib_device *ibdev, int mask,
				 struct ib_device_modify *props)
{
	struct vhca_node_desc desc = {};
	int err;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;
	BUILD_BUG_ON(sizeof(desc.desc) != IB_DEVICE_NODE_DESC_MAX);
	memcpy(desc.desc, props->node_desc, sizeof(desc.desc));
	err = vhca_core_set_node_desc(to_kdev(ibdev)->core, &desc);
	if (err)
		return err;
	memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

/*
 * The CA's agents announce themselves in PortInfo:CapabilityMask (IBA
 * 14.2.5.6): ib_cm sets IB_PORT_CM_SUP (IPoIB connected mode and rdma_cm
 * need it), ib_srpt IB_PORT_DEVICE_MGMT_SUP (srp_daemon finds targets by
 * it in the SA's PortInfoRecords), ib_umad IB_PORT_SM when opensm opens
 * issmN.  The device keeps the mask; its SMA and the SA report it.
 * Shutting a port down is not supported.
 */
static_assert(VHCA_PORT_CAP_SM == IB_PORT_SM);
static_assert(VHCA_PORT_CAP_CM == IB_PORT_CM_SUP);
static_assert(VHCA_PORT_CAP_DEVICE_MGMT == IB_PORT_DEVICE_MGMT_SUP);
static_assert(VHCA_PORT_CAP_SNMP_TUNNEL == IB_PORT_SNMP_TUNNEL_SUP);
static_assert(VHCA_PORT_CAP_VENDOR_CLASS == IB_PORT_VENDOR_CLASS_SUP);
static_assert(VHCA_PORT_CAP_BOOT_MGMT == IB_PORT_BOOT_MGMT_SUP);

/*
 * The MAD layer asks a CA's process_mad for what the CA itself must answer
 * (IBA 14.2.2.2): a directed-route SMP at the end of its path (C14-9:3/4,
 * without process_mad the kernel drops it), one of hop count 0 that an SM
 * here sends to its own port, and the PerfMgt queries of sysfs' counters.
 * The device's SMA or PMA answers (VHCA_CMD_MAD_IFC); SMInfo, responses
 * and the rest go on to the MAD agents, so an SM here (opensm) gets the
 * other SMs' SMInfo by directed route (14.4.1).  LID-routed SMPs never
 * come here: the device answers those on the wire.
 */
static int vhca_ib_process_mad(struct ib_device *ibdev, int mad_flags,
			       u32 port, const struct ib_wc *in_wc,
			       const struct ib_grh *in_grh,
			       const struct ib_mad *in, struct ib_mad *out,
			       size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	u8 class = in->mad_hdr.mgmt_class;
	int ret;

	BUILD_BUG_ON(sizeof(struct vhca_mad) != sizeof(*in));
	if ((class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	     class != IB_MGMT_CLASS_PERF_MGMT) ||
	    (in->mad_hdr.method & IB_MGMT_METHOD_RESP))
		return IB_MAD_RESULT_SUCCESS;
	ret = vhca_core_mad_ifc(to_kdev(ibdev)->core, port,
				(const struct vhca_mad *)in,
				(struct vhca_mad *)out);
	if (ret < 0)
		return IB_MAD_RESULT_FAILURE;
	if (!ret)
		return IB_MAD_RESULT_SUCCESS;
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static int vhca_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			       struct ib_port_modify *props)
{
	if (mask & IB_PORT_SHUTDOWN)
		return -EOPNOTSUPP;
	if (!props->set_port_cap_mask && !props->clr_port_cap_mask)
		return 0;
	return vhca_core_set_port_cap(to_kdev(ibdev)->core, port,
				      props->set_port_cap_mask,
				      props->clr_port_cap_mask);
}

static void vhca_ib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 fw = ibdev->attrs.fw_ver;

	snprintf(str, IB_FW_VERSION_NAME_MAX, VHCA_FW_VERSION_FMT,
		 VHCA_FW_VERSION_ARGS(fw));
}

/*
 * hca_type and hw_rev: ib_core leaves these sysfs files to the driver;
 * libibumad reads them for ibstat's "CA type" and "Hardware version".
 */
static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "vhca\n");
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t hw_rev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(device);

	return sysfs_emit(buf, "%#x\n", ibdev->attrs.hw_ver);
}
static DEVICE_ATTR_RO(hw_rev);

static struct attribute *vhca_device_attrs[] = {
	&dev_attr_hca_type.attr,
	&dev_attr_hw_rev.attr,
	NULL,
};

static const struct attribute_group vhca_device_attr_group = {
	.attrs = vhca_device_attrs,
};

static int vhca_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vhca_pd *pd = container_of(ibpd, struct vhca_pd, ibpd);
	unsigned int pdn;
	int err;

	err = vhca_core_alloc_pd(to_kdev(ibpd->device)->core, &pdn);
	if (err)
		return err;
	pd->pdn = pdn;
	return 0;
}

static int vhca_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vhca_pd *pd = container_of(ibpd, struct vhca_pd, ibpd);
	int err;

	err = vhca_core_dealloc_pd(to_kdev(ibpd->device)->core, pd->pdn);
	/* ib_core cannot undo a PD destruction; a device that refuses it is
	 * reset at remove anyway, which drops every PD. */
	if (err)
		ibdev_warn(ibpd->device, "DEALLOC_PD %u failed: %d\n",
			   pd->pdn, err);
	return 0;
}

static const struct ib_device_ops vhca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = VHCA_RDMA_DRIVER_ID,

	.alloc_pd = vhca_ib_alloc_pd,
	.dealloc_pd = vhca_ib_dealloc_pd,
	.device_group = &vhca_device_attr_group,
	.get_dev_fw_str = vhca_ib_get_dev_fw_str,
	.get_link_layer = vhca_ib_get_link_layer,
	.get_port_immutable = vhca_ib_get_port_immutable,
	.modify_device = vhca_ib_modify_device,
	.modify_port = vhca_ib_modify_port,
	.process_mad = vhca_ib_process_mad,
	.query_device = vhca_ib_query_device,
	.query_gid = vhca_ib_query_gid,
	.query_pkey = vhca_ib_query_pkey,
	.query_port = vhca_ib_query_port,
#ifdef VHCA_HAVE_QUERY_PORT_SPEED
	.query_port_speed = vhca_ib_query_port_speed,	/* 7.3 */
#endif

	INIT_RDMA_OBJ_SIZE(ib_pd, vhca_pd, ibpd),
};

/* vhca_port_event (vhca_hw.h) -> IBA 11.6.3 asynchronous event. */
static int vhca_ib_event_type(unsigned int event, enum ib_event_type *type)
{
	switch (event) {
	case VHCA_PORT_EV_ACTIVE:
		*type = IB_EVENT_PORT_ACTIVE;
		return 0;
	case VHCA_PORT_EV_DOWN:
		*type = IB_EVENT_PORT_ERR;
		return 0;
	case VHCA_PORT_EV_LID_CHANGE:
		*type = IB_EVENT_LID_CHANGE;
		return 0;
	case VHCA_PORT_EV_SM_CHANGE:
		*type = IB_EVENT_SM_CHANGE;
		return 0;
	case VHCA_PORT_EV_PKEY_CHANGE:
		*type = IB_EVENT_PKEY_CHANGE;
		return 0;
	case VHCA_PORT_EV_GID_CHANGE:
		*type = IB_EVENT_GID_CHANGE;
		return 0;
	case VHCA_PORT_EV_CLIENT_REREGISTER:
		*type = IB_EVENT_CLIENT_REREGISTER;
		return 0;
	default:
		return -EINVAL;
	}
}

void vhca_kapi_port_event(struct vhca_kapi_device *kdev, unsigned int port,
			  unsigned int event)
{
	struct ib_event ibevent = {};

	/* Before registration and from unregistration on there is nobody to
	 * tell; vhca_ib_register replays the port states afterwards. */
	if (!READ_ONCE(kdev->events_enabled))
		return;
	if (vhca_ib_event_type(event, &ibevent.event))
		return;
	ibevent.device = &kdev->ibdev;
	ibevent.element.port_num = port;
	/* Safe in hard-IRQ context: it allocates GFP_ATOMIC and queues work. */
	ib_dispatch_event(&ibevent);
}

int vhca_ib_register(struct vhca_kapi_device *kdev)
{
	struct ib_device *ibdev = &kdev->ibdev;
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);
	unsigned int comp_vectors = vhca_core_num_comp_vectors(kdev->core);
	int err;

	/* GUIDs are numbers in vhca_hw.h; ib_core keeps them big-endian. */
	ibdev->node_guid = cpu_to_be64(le64_to_cpu(attr->node_guid));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = vhca_core_num_ports(kdev->core);
	/* ULPs spread CQs over comp vectors and assume at least one. */
	ibdev->num_comp_vectors = max(comp_vectors, 1u);
	ibdev->dev.parent = &kdev->pdev->dev;
	ib_set_device_ops(ibdev, &vhca_dev_ops);
	ib_set_device_ops(ibdev, &vhca_stats_ops);	/* rdma statistic */
	ib_set_device_ops(ibdev, &vhca_restrack_ops);	/* rdma resource -d */
	/* The data path (verbs*.c) makes it a kernel-verbs provider. */
	ib_set_device_ops(ibdev, &vhca_verbs_ops);
	ib_set_device_ops(ibdev, &vhca_compat_ops);
	ib_set_device_ops(ibdev, &vhca_uverbs_ops);	/* user verbs */
	vhca_uapi_register(kdev);	/* import, device memory */
	vhca_verbs_register(kdev);

	err = ib_register_device(ibdev, "vhca%d", &kdev->pdev->dev);
	if (err) {
		dev_err(&kdev->pdev->dev, "ib_register_device: %d\n", err);
		vhca_odp_cleanup(kdev);
		return err;
	}
	WRITE_ONCE(kdev->events_enabled, true);
	/* Ports that went ACTIVE while registering: refresh ib_core's cache. */
	err = vhca_core_replay_port_events(kdev->core);
	if (err)
		ibdev_warn(ibdev, "port state replay failed: %d\n", err);
	ibdev_info(ibdev, "%u port(s), %u completion vector(s)\n",
		   ibdev->phys_port_cnt, comp_vectors);
	return 0;
}

void vhca_ib_unregister(struct vhca_kapi_device *kdev)
{
	WRITE_ONCE(kdev->events_enabled, false);
	/* No handler is still inside vhca_kapi_port_event after this. */
	synchronize_irq(pci_irq_vector(kdev->pdev, 0));
	ib_unregister_device(&kdev->ibdev);
	vhca_odp_cleanup(kdev);
}
