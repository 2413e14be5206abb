// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fake kernel half of vhca_kunit.ko: vhca_kapi.h's memory, DMA and
 * logging services on real kernel objects (so KASAN, lockdep and kmemleak
 * watch the core exactly as in vhca.ko; locking is driver/shim/sync.c
 * itself, allocating through vhca_kapi_zalloc() here, and the memory model
 * driver/shim/barrier.c and atomic.c), plus what the tests
 * need on top: allocation-failure injection, a count of live objects, and
 * a list of live "DMA" buffers the fake device checks its accesses against.
 * MMIO, port events and synchronize_irq reach the fake device through its
 * environment (fake_env.c).
 */
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "fake_internal.h"

static DEFINE_SPINLOCK(fake_kernel_lock);
static unsigned long long fail_at;	/* under fake_kernel_lock */
static unsigned long long allocations;
static long long outstanding;
static unsigned int warnings;
static unsigned int kernel_errors;
static LIST_HEAD(dma_buffers);

struct fake_dma_buffer {
	struct list_head node;
	unsigned long long start;
	size_t size;
};

void vhca_fake_fail_allocation(unsigned long long n)
{
	unsigned long flags;

	spin_lock_irqsave(&fake_kernel_lock, flags);
	fail_at = n;
	allocations = 0;
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
}

unsigned long long vhca_fake_allocations(void)
{
	return READ_ONCE(allocations);
}

long long vhca_fake_outstanding(void)
{
	return READ_ONCE(outstanding);
}

unsigned int vhca_fake_warnings(void)
{
	return READ_ONCE(warnings);
}

unsigned int vhca_fake_kernel_errors(void)
{
	return READ_ONCE(kernel_errors);
}

void vhca_fake_kernel_reset(void)
{
	unsigned long flags;

	spin_lock_irqsave(&fake_kernel_lock, flags);
	fail_at = 0;
	allocations = 0;
	outstanding = 0;
	warnings = 0;
	kernel_errors = 0;
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
}

/* Counts an allocation; false when it is the one to fail. */
static bool allocation_allowed(void)
{
	unsigned long flags;
	bool allowed;

	spin_lock_irqsave(&fake_kernel_lock, flags);
	allowed = ++allocations != fail_at;
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
	return allowed;
}

static void count_object(long long delta)
{
	unsigned long flags;

	spin_lock_irqsave(&fake_kernel_lock, flags);
	outstanding += delta;
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
}

static void *object_alloc(size_t size)
{
	void *ptr;

	if (!allocation_allowed())
		return NULL;
	ptr = kzalloc(size, GFP_KERNEL);
	if (ptr)
		count_object(1);
	return ptr;
}

static void object_free(void *ptr)
{
	if (!ptr)
		return;
	kfree(ptr);
	count_object(-1);
}

/* ---- memory ---- */

void *vhca_kapi_zalloc(size_t size)
{
	return object_alloc(size);
}

void vhca_kapi_free(void *ptr)
{
	object_free(ptr);
}

/* ---- DMA: kzalloc'd, "bus address" = kernel virtual address ---- */

bool vhca_fake_dma_live(unsigned long long addr, size_t len)
{
	struct fake_dma_buffer *buf;
	unsigned long flags;
	bool live = false;

	spin_lock_irqsave(&fake_kernel_lock, flags);
	list_for_each_entry(buf, &dma_buffers, node) {
		if (addr >= buf->start && len <= buf->size &&
		    addr - buf->start <= buf->size - len) {
			live = true;
			break;
		}
	}
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
	return live;
}

int vhca_kapi_dma_alloc(struct vhca_kapi_device *kdev, size_t size,
			struct vhca_kapi_dma_buf *buf)
{
	struct fake_dma_buffer *tracker;
	unsigned long flags;
	void *cpu;

	memset(buf, 0, sizeof(*buf));
	if (!size || !allocation_allowed())
		return -ENOMEM;
	/* Like dma_alloc_coherent: zeroed and page aligned (kmalloc aligns
	 * power-of-two sizes naturally). */
	cpu = kzalloc(max_t(size_t, PAGE_SIZE, roundup_pow_of_two(size)),
		      GFP_KERNEL);
	if (!cpu)
		return -ENOMEM;
	tracker = kzalloc(sizeof(*tracker), GFP_KERNEL);
	if (!tracker) {
		kfree(cpu);
		return -ENOMEM;
	}
	tracker->start = (unsigned long long)(uintptr_t)cpu;
	tracker->size = size;
	spin_lock_irqsave(&fake_kernel_lock, flags);
	list_add(&tracker->node, &dma_buffers);
	outstanding++;
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
	buf->cpu = cpu;
	buf->dma = tracker->start;
	buf->size = size;
	return 0;
}

void vhca_kapi_dma_free(struct vhca_kapi_device *kdev,
			struct vhca_kapi_dma_buf *buf)
{
	struct fake_dma_buffer *tracker, *found = NULL;
	unsigned long flags;

	if (!buf->cpu)
		return;
	/* The device must not be able to write into memory we give back. */
	if (vhca_fake_owns_ring(vhca_fake_of(kdev), buf->dma)) {
		pr_err("vhca_kunit: DMA ring 0x%llx freed while the device uses it\n",
		       buf->dma);
		spin_lock_irqsave(&fake_kernel_lock, flags);
		kernel_errors++;
		spin_unlock_irqrestore(&fake_kernel_lock, flags);
	}
	spin_lock_irqsave(&fake_kernel_lock, flags);
	list_for_each_entry(tracker, &dma_buffers, node) {
		if (tracker->start == buf->dma) {
			found = tracker;
			list_del(&tracker->node);
			outstanding--;
			break;
		}
	}
	if (!found)
		warnings++;	/* freeing a buffer that is not live */
	spin_unlock_irqrestore(&fake_kernel_lock, flags);
	kfree(found);
	kfree(buf->cpu);
	memset(buf, 0, sizeof(*buf));
}

/* The fake's interrupts are irq_work items (fake_env.c). */
void vhca_kapi_synchronize_irq(struct vhca_kapi_device *kdev,
			       unsigned int vector)
{
	vhca_fake_sync_vector(kdev, vector);
}

/* Spinlocks, semaphores, completions: driver/shim/sync.c, linked in, on
 * top of vhca_kapi_zalloc() above. */

/* ---- logging: printk with a prefix the KUnit log parser ignores ---- */

void vhca_kapi_log(struct vhca_kapi_device *kdev, int level, const char *fmt,
		   ...)
{
	struct va_format vaf;
	va_list args;

	/* Every message counts and is printed, rate-limited or not: the
	 * suites count them. */
	level &= ~VHCA_KAPI_LOG_RATELIMITED;
	if (level <= VHCA_KAPI_LOG_WARN) {
		unsigned long flags;

		spin_lock_irqsave(&fake_kernel_lock, flags);
		warnings++;
		spin_unlock_irqrestore(&fake_kernel_lock, flags);
	}
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	printk(KERN_INFO "vhca_kunit core(level %d): %pV", level, &vaf);
	va_end(args);
}
