// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * atomic.c - the read-modify-write half of the kernel memory model for
 * the core (vhca_kapi.h "the kernel memory model"): atomic_t, xchg /
 * cmpxchg of pointers and the bitmap bit operations.  One kernel
 * primitive per function.  Linked into vhca.ko and vhca_kunit.ko alike.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>

#include "vhca_kapi.h"

/* The core embeds struct vhca_kapi_atomic where the kernel expects an
 * atomic_t: same size, same place of the counter. */
static_assert(sizeof(struct vhca_kapi_atomic) == sizeof(atomic_t));
static_assert(offsetof(struct vhca_kapi_atomic, counter) ==
	      offsetof(atomic_t, counter));

static atomic_t *to_atomic(struct vhca_kapi_atomic *v)
{
	return (atomic_t *)v;
}

static const atomic_t *to_const_atomic(const struct vhca_kapi_atomic *v)
{
	return (const atomic_t *)v;
}

int vhca_kapi_atomic_read(const struct vhca_kapi_atomic *v)
{
	return atomic_read(to_const_atomic(v));
}

int vhca_kapi_atomic_read_acquire(const struct vhca_kapi_atomic *v)
{
	return atomic_read_acquire(to_const_atomic(v));
}

void vhca_kapi_atomic_set_release(struct vhca_kapi_atomic *v, int i)
{
	atomic_set_release(to_atomic(v), i);
}

int vhca_kapi_atomic_add_return(struct vhca_kapi_atomic *v, int i)
{
	return atomic_add_return(i, to_atomic(v));
}

int vhca_kapi_atomic_add_return_release(struct vhca_kapi_atomic *v, int i)
{
	return atomic_add_return_release(i, to_atomic(v));
}

void *vhca_kapi_xchg_ptr(void **p, void *value)
{
	return xchg(p, value);
}

void *vhca_kapi_cmpxchg_ptr(void **p, void *old, void *value)
{
	return cmpxchg(p, old, value);
}

int vhca_kapi_test_and_set_bit_lock(unsigned int nr, unsigned long *addr)
{
	return test_and_set_bit_lock(nr, addr);
}

void vhca_kapi_clear_bit_unlock(unsigned int nr, unsigned long *addr)
{
	clear_bit_unlock(nr, addr);
}

int vhca_kapi_test_bit(unsigned int nr, const unsigned long *addr)
{
	return test_bit(nr, addr);
}
