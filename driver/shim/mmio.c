// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* mmio.c - register (BAR 0) and doorbell (BAR 4) access for the core. */
#include <linux/io.h>

#include "vhca_shim.h"

unsigned int vhca_kapi_reg_read32(struct vhca_kapi_device *kdev,
				  unsigned int offset)
{
	return readl(kdev->regs + offset);
}

void vhca_kapi_reg_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			   unsigned int value)
{
	writel(value, kdev->regs + offset);
}

void vhca_kapi_db_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned int value)
{
	/* writel orders the ring entries written before it (memory-barriers.txt
	 * "KERNEL I/O BARRIER EFFECTS"). */
	writel(value, kdev->db + offset);
}

void vhca_kapi_db_write64(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned long long value)
{
	/* One 64-bit write (the device takes object and index together);
	 * writeq orders the WQEs written before it like writel. */
	writeq(value, kdev->db + offset);
}
