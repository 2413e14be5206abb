// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* ib_device_ops.query_port_speed (UVERBS_METHOD_QUERY_PORT_SPEED,
 * ibv_query_port_speed) and ib_port_attr_to_speed_info, the IBA
 * width x speed product it answers with (7.3). */
#include <rdma/ib_verbs.h>

static int probe(struct ib_device *device, u32 port_num, u64 *speed)
{
	struct ib_port_speed_info info;
	struct ib_port_attr attr = {};

	return ib_port_attr_to_speed_info(&attr, &info);
}

const struct ib_device_ops vhca_probe_ops = { .query_port_speed = probe };
