// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* dma.c - DMA-coherent buffers for rings and mailboxes. */
#include <linux/dma-mapping.h>

#include "vhca_shim.h"

int vhca_kapi_dma_alloc(struct vhca_kapi_device *kdev, size_t size,
			struct vhca_kapi_dma_buf *buf)
{
	dma_addr_t dma;
	void *cpu;

	memset(buf, 0, sizeof(*buf));
	/* Zeroed (dma_alloc_coherent always zeroes) and page aligned, which
	 * covers VHCA_QUEUE_ALIGN. */
	/* __GFP_NOWARN: a ring larger than the page allocator can give in
	 * one piece (a legal QP size, e.g. ib_srpt's send queue with
	 * ib_core force_mr=1, 8 MiB) fails with -ENOMEM, which the ULP
	 * handles (srpt halves the queue and retries), not with a WARNING
	 * from __alloc_pages. */
	cpu = dma_alloc_coherent(&kdev->pdev->dev, size, &dma, GFP_KERNEL | __GFP_NOWARN);
	if (!cpu)
		return -ENOMEM;
	buf->cpu = cpu;
	buf->dma = dma;
	buf->size = size;
	return 0;
}

void vhca_kapi_dma_free(struct vhca_kapi_device *kdev,
			struct vhca_kapi_dma_buf *buf)
{
	if (!buf->cpu)
		return;
	dma_free_coherent(&kdev->pdev->dev, buf->size, buf->cpu, buf->dma);
	memset(buf, 0, sizeof(*buf));
}
