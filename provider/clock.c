// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * clock.c - the device clock: ibv_query_rt_values_ex and the CQE
 * timestamps' wall-clock form.
 *
 * The device stamps every CQE with its clock (vhca_cqe.timestamp), a
 * free-running count of nanoseconds of the VM's virtual time that any
 * doorbell page reads at VHCA_DB_CLOCK (uapi/vhca_hw_verbs.h); QUERY_DEVICE
 * reports it as hca_core_clock (kHz, 1 GHz) with a 64-bit
 * completion_timestamp_mask.  The guest's CLOCK_REALTIME runs at the same
 * rate (under TCG and KVM its clocksource follows the same virtual time),
 * so a wall-clock timestamp is the device count plus an offset measured
 * once per context: the clock read between two clock_gettime() calls.
 */
#include <errno.h>
#include <time.h>

#include "vhca.h"

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t vhca_read_clock(struct vhca_context *ctx)
{
	return *(volatile uint64_t *)((volatile char *)ctx->db + VHCA_DB_CLOCK);
}

/* The device clock's rate: from the context's answer, or from
 * ibv_query_device_ex with a kernel older than VHCA_UCONTEXT_RESP_CLOCK. */
static uint32_t vhca_clock_khz(struct vhca_context *ctx,
			       const struct vhca_alloc_ucontext_resp *drv)
{
	struct ibv_device_attr_ex attr = {};

	if (drv->comp_mask & VHCA_UCONTEXT_RESP_CLOCK)
		return drv->hca_core_clock_khz;
	if (ibv_query_device_ex(&ctx->ibv_ctx.context, NULL, &attr))
		return 0;
	return attr.hca_core_clock;
}

/* From the context's creation or import: whether the device has a clock,
 * and the offset of CLOCK_REALTIME from it (the midpoint of the two reads
 * around it). */
void vhca_clock_init(struct vhca_context *ctx,
		     const struct vhca_alloc_ucontext_resp *drv)
{
	uint64_t before, device;

	ctx->has_clock = vhca_clock_khz(ctx, drv) == VHCA_CORE_CLOCK_KHZ;
	if (!ctx->has_clock)
		return;
	before = realtime_ns();
	device = vhca_read_clock(ctx);
	ctx->realtime_offset_ns = before + (realtime_ns() - before) / 2 - device;
}

int vhca_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	struct vhca_context *ctx = to_vctx(context);

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (!ctx->has_clock)
		return EOPNOTSUPP;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		/* rdma-core's convention: the raw count in tv_nsec */
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)vhca_read_clock(ctx);
	}
	return 0;
}
