// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* log.c - the core's log messages, as dev_printk on the PCI device. */
#include <linux/device.h>
#include <linux/printk.h>

#include "vhca_shim.h"

void vhca_kapi_log(struct vhca_kapi_device *kdev, int level, const char *fmt,
		   ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	switch (level) {
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
