// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* mem.c - kernel memory for the core (vhca_kapi.h "memory"). */
#include <linux/slab.h>

#include "vhca_kapi.h"

void *vhca_kapi_zalloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

void vhca_kapi_free(void *ptr)
{
	kfree(ptr);
}
