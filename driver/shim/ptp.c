// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ptp.c - the PTP hardware clock (PHC) of a vhca function, as igb, e1000e
 * and mlx5 (drivers/net/ethernet/mellanox/mlx5/core/lib/clock.c) keep
 * theirs: a timecounter (include/linux/timecounter.h) over the device
 * clock, the free-running count of ns the device stamps CQEs with
 * (VHCA_DB_CLOCK of any doorbell page, uapi/vhca_hw_verbs.h), registered
 * as a ptp_clock whose parent is the PCI device (so it is
 * /sys/class/infiniband/<dev>/device/ptp/ptpN and /dev/ptpN), started at
 * the real time of probe and steered by settime, adjtime and adjfine
 * (Documentation/driver-api/ptp.rst).
 *
 * Its conversion is published in one page (struct vhca_clock_info,
 * uapi/vhca-abi.h, mlx5's clock info layout) that every user context may
 * map read-only (uverbs.c): the provider turns CQE timestamps into the
 * PHC's time with it (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK), so
 * a completion's wall-clock stamp and clock_gettime() of /dev/ptpN agree
 * whatever the PHC was set or adjusted to.
 *
 * Only with CONFIG_PTP_1588_CLOCK (built in on Debian's kernels and the
 * debug kernel): without it there is no PHC and no page, and the provider
 * keeps its offset from CLOCK_REALTIME (provider/clock.c).
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timecounter.h>

#include "vhca_shim.h"
#include "compat.h"

/*
 * ns = count * mult >> VHCA_PTP_SHIFT, mult 2^24 at the nominal rate (the
 * count is in ns).  adjfine's finest step is then 2^-24 (0.06 ppb), and at
 * the largest mult (VHCA_PTP_MAX_ADJ_PPB above nominal) count * mult stays
 * below 2^64 for 2^64 / (1.1 * 2^24) ns, about 1000 s: the timecounter
 * is advanced well before that, every VHCA_PTP_PERIOD_S.
 */
#define VHCA_PTP_SHIFT		24
#define VHCA_PTP_MAX_ADJ_PPB	100000000	/* 10% */
#define VHCA_PTP_PERIOD_S	60

struct vhca_ptp {
	struct ptp_clock_info info;
	struct ptp_clock *clock;
	struct vhca_kapi_device *kdev;
	spinlock_t lock;		/* tc, cc and the page */
	struct cyclecounter cc;
	struct timecounter tc;
	struct vhca_clock_info *page;	/* one page, mapped by user contexts */
};

#if IS_ENABLED(CONFIG_PTP_1588_CLOCK)

static u64 vhca_ptp_read_count(struct vhca_kapi_device *kdev)
{
	return readq(kdev->db + VHCA_DB_CLOCK);
}

static u64 vhca_ptp_cc_read(VHCA_CYCLECOUNTER_ARG cc)
{
	struct vhca_ptp *ptp = container_of(cc, struct vhca_ptp, cc);

	return vhca_ptp_read_count(ptp->kdev);
}

/* Under ptp->lock, after every change of tc or cc: mlx5's
 * mlx5_update_clock_info_page, the sequence of vhca-abi.h. */
static void vhca_ptp_publish(struct vhca_ptp *ptp)
{
	struct vhca_clock_info *info = ptp->page;
	u32 sign = info->sign;

	smp_store_mb(info->sign, sign | VHCA_CLOCK_INFO_KERNEL_UPDATING);
	info->cycles = ptp->tc.cycle_last;
	info->nsec = ptp->tc.nsec;
	info->frac = ptp->tc.frac;
	info->mult = ptp->cc.mult;
	smp_store_release(&info->sign, sign + 2 * VHCA_CLOCK_INFO_KERNEL_UPDATING);
}

static struct vhca_ptp *to_vptp(struct ptp_clock_info *info)
{
	return container_of(info, struct vhca_ptp, info);
}

static int vhca_ptp_gettimex64(struct ptp_clock_info *info,
			       struct timespec64 *ts,
			       struct ptp_system_timestamp *sts)
{
	struct vhca_ptp *ptp = to_vptp(info);
	unsigned long flags;
	u64 count, ns;

	spin_lock_irqsave(&ptp->lock, flags);
	ptp_read_system_prets(sts);
	count = vhca_ptp_read_count(ptp->kdev);
	ptp_read_system_postts(sts);
	ns = timecounter_cyc2time(&ptp->tc, count);
	spin_unlock_irqrestore(&ptp->lock, flags);
	*ts = ns_to_timespec64(ns);
	return 0;
}

static int vhca_ptp_settime64(struct ptp_clock_info *info,
			      const struct timespec64 *ts)
{
	struct vhca_ptp *ptp = to_vptp(info);
	unsigned long flags;

	spin_lock_irqsave(&ptp->lock, flags);
	timecounter_init(&ptp->tc, &ptp->cc, timespec64_to_ns(ts));
	vhca_ptp_publish(ptp);
	spin_unlock_irqrestore(&ptp->lock, flags);
	return 0;
}

static int vhca_ptp_adjtime(struct ptp_clock_info *info, s64 delta)
{
	struct vhca_ptp *ptp = to_vptp(info);
	unsigned long flags;

	spin_lock_irqsave(&ptp->lock, flags);
	timecounter_adjtime(&ptp->tc, delta);
	vhca_ptp_publish(ptp);
	spin_unlock_irqrestore(&ptp->lock, flags);
	return 0;
}

/*
 * scaled_ppm: parts per million with a 16-bit fraction; the PTP core has
 * checked it against max_adj.  The time so far is accumulated at the old
 * rate first (timecounter_read), then the rate changes; adjust_by_scaled_ppm
 * (6.2) computed here, as 6.1 lacks it: at most 2^24 * 6.6e9 < 2^63.
 */
static int vhca_ptp_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct vhca_ptp *ptp = to_vptp(info);
	u64 nominal = 1ull << VHCA_PTP_SHIFT;
	u64 diff = div64_u64(nominal * (u64)abs(scaled_ppm), 1000000ull << 16);
	unsigned long flags;

	spin_lock_irqsave(&ptp->lock, flags);
	timecounter_read(&ptp->tc);
	ptp->cc.mult = scaled_ppm < 0 ? nominal - diff : nominal + diff;
	vhca_ptp_publish(ptp);
	spin_unlock_irqrestore(&ptp->lock, flags);
	return 0;
}

/* The PTP core's worker (ptp_schedule_worker): keeps count - cycle_last
 * small enough for the multiplication, in the kernel and in the page. */
static long vhca_ptp_aux_work(struct ptp_clock_info *info)
{
	struct vhca_ptp *ptp = to_vptp(info);
	unsigned long flags;

	spin_lock_irqsave(&ptp->lock, flags);
	timecounter_read(&ptp->tc);
	vhca_ptp_publish(ptp);
	spin_unlock_irqrestore(&ptp->lock, flags);
	return VHCA_PTP_PERIOD_S * HZ;
}

static const struct ptp_clock_info vhca_ptp_info = {
	.owner = THIS_MODULE,
	.name = "vhca",
	.max_adj = VHCA_PTP_MAX_ADJ_PPB,
	.adjfine = vhca_ptp_adjfine,
	.adjtime = vhca_ptp_adjtime,
	.gettimex64 = vhca_ptp_gettimex64,
	.settime64 = vhca_ptp_settime64,
	.do_aux_work = vhca_ptp_aux_work,
};

static void vhca_ptp_start(struct vhca_ptp *ptp)
{
	struct vhca_clock_info *info = ptp->page;

	ptp->cc = (struct cyclecounter){
		.read = vhca_ptp_cc_read,
		.mask = CYCLECOUNTER_MASK(64),
		.mult = 1u << VHCA_PTP_SHIFT,
		.shift = VHCA_PTP_SHIFT,
	};
	info->shift = ptp->cc.shift;
	info->mask = ptp->cc.mask;
	info->overflow_period = (u64)VHCA_PTP_PERIOD_S * NSEC_PER_SEC;
	timecounter_init(&ptp->tc, &ptp->cc, ktime_get_real_ns());
	vhca_ptp_publish(ptp);
}

/*
 * At probe, before the IB device is registered (a user context maps the
 * page): a PHC when the device has its clock.  A failure leaves the
 * function without one (and user space with its CLOCK_REALTIME offset),
 * as mlx5 goes on without its PHC.
 */
void vhca_ptp_init(struct vhca_kapi_device *kdev)
{
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);
	struct vhca_ptp *ptp;
	int err = -ENOMEM;

	if (!(le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_CQE_TIMESTAMP) ||
	    le32_to_cpu(attr->hca_core_clock_khz) != VHCA_CORE_CLOCK_KHZ)
		return;
	ptp = kzalloc(sizeof(*ptp), GFP_KERNEL);
	if (!ptp)
		goto fail;
	ptp->page = (struct vhca_clock_info *)get_zeroed_page(GFP_KERNEL);
	if (!ptp->page)
		goto free_ptp;
	ptp->kdev = kdev;
	ptp->info = vhca_ptp_info;
	spin_lock_init(&ptp->lock);
	vhca_ptp_start(ptp);
	ptp->clock = ptp_clock_register(&ptp->info, &kdev->pdev->dev);
	if (IS_ERR_OR_NULL(ptp->clock)) {
		err = ptp->clock ? PTR_ERR(ptp->clock) : -EOPNOTSUPP;
		goto free_page;
	}
	ptp_schedule_worker(ptp->clock, VHCA_PTP_PERIOD_S * HZ);
	kdev->ptp = ptp;
	return;

free_page:
	free_page((unsigned long)ptp->page);
free_ptp:
	kfree(ptp);
fail:
	dev_warn(&kdev->pdev->dev, "no PTP hardware clock: %d\n", err);
}

/* At remove, after the IB device is gone.  A process may still map the
 * page (vm_insert_page took a reference): it outlives us, read-only. */
void vhca_ptp_cleanup(struct vhca_kapi_device *kdev)
{
	struct vhca_ptp *ptp = kdev->ptp;

	if (!ptp)
		return;
	kdev->ptp = NULL;
	ptp_clock_unregister(ptp->clock);
	free_page((unsigned long)ptp->page);
	kfree(ptp);
}

#else /* !CONFIG_PTP_1588_CLOCK */

void vhca_ptp_init(struct vhca_kapi_device *kdev)
{
}

void vhca_ptp_cleanup(struct vhca_kapi_device *kdev)
{
}

#endif

/* The page user contexts map (uverbs.c), NULL without a PHC. */
struct page *vhca_ptp_clock_info_page(struct vhca_kapi_device *kdev)
{
	return kdev->ptp ? virt_to_page(kdev->ptp->page) : NULL;
}
