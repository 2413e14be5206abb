// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* log.c - the core's log messages, as dev_printk on the PCI device. */
#include <linux/device.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>

#include "vhca_shim.h"

/* One limit for every rate-limited message of the core, as one
 * dev_err_ratelimited() call site would have. */
static DEFINE_RATELIMIT_STATE(vhca_log_ratelimit, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

void vhca_kapi_log(struct vhca_kapi_device *kdev, int level, const char *fmt,
		   ...)
{
	struct va_format vaf;
	va_list args;

	if ((level & VHCA_KAPI_LOG_RATELIMITED) &&
	    !__ratelimit(&vhca_log_ratelimit))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	switch (level & ~VHCA_KAPI_LOG_RATELIMITED) {
	case VHCA_KAPI_LOG_ERR:
		dev_err(&kdev->pdev->dev, "%pV", &vaf);
		break;
	case VHCA_KAPI_LOG_WARN:
		dev_warn(&kdev->pdev->dev, "%pV", &vaf);
		break;
	case VHCA_KAPI_LOG_INFO:
		dev_info(&kdev->pdev->dev, "%pV", &vaf);
		break;
	default:
		dev_dbg(&kdev->pdev->dev, "%pV", &vaf);
		break;
	}
	va_end(args);
}
