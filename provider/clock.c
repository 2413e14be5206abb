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
 * so without a PHC a wall-clock timestamp is the device count plus an
 * offset measured once per context: the clock read between two
 * clock_gettime() calls.
 *
 * With a PTP hardware clock (the driver's driver/shim/ptp.c, answered by
 * VHCA_UCONTEXT_RESP_CLOCK_INFO) the wall-clock form is the PHC's time,
 * as mlx5's (mlx5dv_get_clock_info, mlx5dv_ts_to_ns): the count converted
 * with the kernel's timecounter from the read-only struct vhca_clock_info
 * page (uapi/vhca-abi.h), which follows every settime, adjtime and
 * adjfine of /dev/ptpN; clock_gettime() of the PHC and the stamps agree.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
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

/* The PHC's page, read-only; none from a kernel without a PHC (or
 * without VHCA_UCONTEXT_RESP_CLOCK_INFO), or if it cannot be mapped. */
static void vhca_clock_info_map(struct vhca_context *ctx,
				const struct vhca_alloc_ucontext_resp *drv)
{
	void *page;

	if (!(drv->comp_mask & VHCA_UCONTEXT_RESP_CLOCK_INFO))
		return;
	page = mmap(NULL, VHCA_UVERBS_PAGE_SIZE, PROT_READ, MAP_SHARED,
		    ctx->ibv_ctx.context.cmd_fd, drv->clock_info_mmap_offset);
	if (page != MAP_FAILED)
		ctx->clock_info = page;
}

/* From the context's creation or import: whether the device has a clock,
 * the PHC's page, and the offset of CLOCK_REALTIME from the clock (the
 * midpoint of the two reads around it) for when there is no PHC. */
void vhca_clock_init(struct vhca_context *ctx,
		     const struct vhca_alloc_ucontext_resp *drv)
{
	uint64_t before, device;

	ctx->has_clock = vhca_clock_khz(ctx, drv) == VHCA_CORE_CLOCK_KHZ;
	if (!ctx->has_clock)
		return;
	vhca_clock_info_map(ctx, drv);
	before = realtime_ns();
	device = vhca_read_clock(ctx);
	ctx->realtime_offset_ns = before + (realtime_ns() - before) / 2 - device;
}

void vhca_clock_cleanup(struct vhca_context *ctx)
{
	if (ctx->clock_info)
		munmap((void *)ctx->clock_info, VHCA_UVERBS_PAGE_SIZE);
}

/* A consistent copy of the page: the fields between two equal, even
 * reads of sign (vhca-abi.h; the kernel writes for a few instructions). */
static void vhca_clock_info_read(const volatile struct vhca_clock_info *page,
				 struct vhca_clock_info *ci)
{
	const volatile _Atomic uint32_t *sign =
		(const volatile _Atomic uint32_t *)&page->sign;
	uint32_t seq;

	do {
		seq = atomic_load_explicit(sign, memory_order_acquire);
		if (seq & VHCA_CLOCK_INFO_KERNEL_UPDATING)
			continue;
		ci->nsec = page->nsec;
		ci->cycles = page->cycles;
		ci->frac = page->frac;
		ci->mult = page->mult;
		ci->shift = page->shift;
		ci->mask = page->mask;
		atomic_thread_fence(memory_order_acquire);
	} while ((seq & VHCA_CLOCK_INFO_KERNEL_UPDATING) ||
		 seq != atomic_load_explicit(sign, memory_order_relaxed));
}

/* A CQE's count as wall-clock ns: the PHC's time (the kernel's
 * timecounter_cyc2time, as mlx5dv_ts_to_ns), else CLOCK_REALTIME's. */
uint64_t vhca_clock_wallclock_ns(struct vhca_context *ctx, uint64_t count)
{
	struct vhca_clock_info ci;
	uint64_t delta;

	if (!ctx->clock_info)
		return count + ctx->realtime_offset_ns;
	vhca_clock_info_read(ctx->clock_info, &ci);
	delta = (count - ci.cycles) & ci.mask;
	if (delta > ci.mask / 2) {	/* stamped before the last update */
		delta = (ci.cycles - count) & ci.mask;
		return ci.nsec - ((delta * ci.mult - ci.frac) >> ci.shift);
	}
	return ci.nsec + ((delta * ci.mult + ci.frac) >> ci.shift);
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
