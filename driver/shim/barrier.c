// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * barrier.c - the ordering half of the kernel memory model for the core
 * (vhca_kapi.h "the kernel memory model"): DMA barriers, READ_ONCE /
 * WRITE_ONCE and acquire/release of 32-bit values.  One kernel primitive
 * per function.  Linked into vhca.ko and vhca_kunit.ko alike.
 */
#include <linux/compiler.h>
#include <asm/barrier.h>

#include "vhca_kapi.h"

void vhca_kapi_dma_rmb(void)
{
	dma_rmb();
}

void vhca_kapi_dma_wmb(void)
{
	dma_wmb();
}

void vhca_kapi_dma_mb(void)
{
	dma_mb();
}

unsigned int vhca_kapi_read_once32(const unsigned int *p)
{
	return READ_ONCE(*p);
}

void vhca_kapi_write_once32(unsigned int *p, unsigned int value)
{
	WRITE_ONCE(*p, value);
}

unsigned int vhca_kapi_load_acquire32(const unsigned int *p)
{
	return smp_load_acquire(p);
}

void vhca_kapi_store_release32(unsigned int *p, unsigned int value)
{
	smp_store_release(p, value);
}

void *vhca_kapi_load_acquire_ptr(void *const *p)
{
	return smp_load_acquire(p);
}
