/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_kapi.h - the kernel services the driver core (freestanding C++)
 * needs, implemented by the C shims in driver/shim (and, for the host unit
 * tests, by driver/tests/fake_kernel.cpp and fake_memory_model.cpp; for
 * the KUnit suites, by driver/kunit/kapi.c and fake_env.c with
 * driver/shim/sync.c, barrier.c and atomic.c linked in; in both, the MMIO
 * functions reach the fake device of driver/fake).
 *
 * This header is seen by two compilers with two different C libraries: the
 * kernel's (uint64_t = unsigned long long) and gcc's freestanding one
 * (uint64_t = unsigned long).  So no prototype here uses the <stdint.h>
 * typedefs: 64-bit values are spelled "unsigned long long", sizes "size_t"
 * (unsigned long in both), everything else plain int/unsigned int.
 *
 * Context rules (the core relies on them; the shims guarantee them):
 *  - vhca_kapi_zalloc, vhca_kapi_dma_alloc, vhca_kapi_*_create,
 *    vhca_kapi_sema_down, vhca_kapi_wait_timeout, vhca_kapi_msleep and
 *    vhca_kapi_synchronize_irq may sleep: process context only.
 *  - Everything else is callable from hard-IRQ context.
 */
#ifndef VHCA_KAPI_H
#define VHCA_KAPI_H

#if defined(__KERNEL__) && !defined(__cplusplus)
#include <linux/types.h>
#else
#include <stddef.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The shim's per-PCI-function state; opaque to the core, which only hands
 * it back to the functions below. */
struct vhca_kapi_device;

/* ---- memory (GFP_KERNEL, zeroed; NULL on failure) ---- */
void *vhca_kapi_zalloc(size_t size);
void vhca_kapi_free(void *ptr);

/* ---- DMA-coherent buffers (zeroed, at least page aligned) ---- */
struct vhca_kapi_dma_buf {
	void *cpu;			/* kernel virtual address */
	unsigned long long dma;		/* bus address the device uses */
	size_t size;
};
/* 0 or -ENOMEM; on failure *buf is left zeroed. */
int vhca_kapi_dma_alloc(struct vhca_kapi_device *kdev, size_t size,
			struct vhca_kapi_dma_buf *buf);
/* Frees a buffer from vhca_kapi_dma_alloc; a zeroed buf is a no-op. */
void vhca_kapi_dma_free(struct vhca_kapi_device *kdev,
			struct vhca_kapi_dma_buf *buf);

/* ---- MMIO: BAR 0 registers and BAR 4 doorbell page 0 (32-bit) ---- */
unsigned int vhca_kapi_reg_read32(struct vhca_kapi_device *kdev,
				  unsigned int offset);
/* writel(): orders all earlier writes to DMA memory before the MMIO. */
void vhca_kapi_reg_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			   unsigned int value);
void vhca_kapi_db_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned int value);
/* writeq(): a 64-bit data doorbell (vhca_hw_verbs.h "Data doorbells").
 * Like writel it orders all earlier writes to DMA memory (the WQEs) before
 * the MMIO, so no separate write barrier is needed before a doorbell. */
void vhca_kapi_db_write64(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned long long value);

/* ---- the kernel memory model (driver/shim/barrier.c, atomic.c) ----
 * The core's shared-memory accesses use these and nothing else (no
 * compiler __atomic builtins): each is a one-line wrapper of the kernel
 * primitive it names (Documentation/memory-barriers.txt), so the core
 * follows LKMM exactly as C code would.  They are out-of-line calls: on
 * the data path that is one call per index update or per CQE, cheap next
 * to the DMA accesses and the doorbell they order.
 *
 * DMA barriers (asm/barrier.h), for memory the device reads or writes: */
/* dma_rmb(): reads of a ring entry after its owner/valid byte. */
void vhca_kapi_dma_rmb(void);
/* dma_wmb(): writes of a ring entry before the byte that hands it over. */
void vhca_kapi_dma_wmb(void);
/* dma_mb(): the reads of consumed ring entries before the store that hands
 * their slots back to the device (a CQ doorbell record); and a send
 * record's producer index store before the load of its device flags. */
void vhca_kapi_dma_mb(void);

/* Plain 32-bit values shared between CPUs (or with the device, for a
 * doorbell record): READ_ONCE / WRITE_ONCE, smp_load_acquire /
 * smp_store_release. */
unsigned int vhca_kapi_read_once32(const unsigned int *p);
void vhca_kapi_write_once32(unsigned int *p, unsigned int value);
unsigned int vhca_kapi_load_acquire32(const unsigned int *p);
void vhca_kapi_store_release32(unsigned int *p, unsigned int value);
/* smp_load_acquire() of a pointer; xchg() / cmpxchg() of a pointer (fully
 * ordered); cmpxchg returns the value it found (== old when it stored). */
void *vhca_kapi_load_acquire_ptr(void *const *p);
void *vhca_kapi_xchg_ptr(void **p, void *value);
void *vhca_kapi_cmpxchg_ptr(void **p, void *old, void *value);

/* atomic_t: the core embeds this struct, which has atomic_t's layout
 * (the shim checks it at compile time). */
struct vhca_kapi_atomic {
	int counter;
};
int vhca_kapi_atomic_read(const struct vhca_kapi_atomic *v);
int vhca_kapi_atomic_read_acquire(const struct vhca_kapi_atomic *v);
void vhca_kapi_atomic_set_release(struct vhca_kapi_atomic *v, int i);
/* atomic_add_return() (fully ordered), atomic_add_return_release(). */
int vhca_kapi_atomic_add_return(struct vhca_kapi_atomic *v, int i);
int vhca_kapi_atomic_add_return_release(struct vhca_kapi_atomic *v, int i);

/* Bitmaps of unsigned long (linux/bitops.h): test_and_set_bit_lock()
 * (acquire), clear_bit_unlock() (release), test_bit(). */
int vhca_kapi_test_and_set_bit_lock(unsigned int nr, unsigned long *addr);
void vhca_kapi_clear_bit_unlock(unsigned int nr, unsigned long *addr);
int vhca_kapi_test_bit(unsigned int nr, const unsigned long *addr);

/* ---- spinlocks (IRQ-safe) ---- */
struct vhca_kapi_lock;
/* One lockdep class per kind of lock: with a single class (one
 * spin_lock_init() site), lockdep would join the chains of unrelated locks,
 * e.g. a QP's send lock taken under a ULP lock and a CQ's lock, and report
 * cycles that cannot happen. */
enum vhca_kapi_lock_class {
	VHCA_LOCK_COMMAND_QUEUE,
	VHCA_LOCK_COMPLETION_QUEUE,
	VHCA_LOCK_SEND_QUEUE,
	VHCA_LOCK_RECEIVE_QUEUE,
	VHCA_LOCK_SHARED_RECEIVE_QUEUE,
	VHCA_LOCK_CLASSES
};
struct vhca_kapi_lock *vhca_kapi_lock_create(enum vhca_kapi_lock_class cls);
void vhca_kapi_lock_destroy(struct vhca_kapi_lock *lock);
unsigned long vhca_kapi_lock_irqsave(struct vhca_kapi_lock *lock);
void vhca_kapi_unlock_irqrestore(struct vhca_kapi_lock *lock,
				 unsigned long flags);

/* ---- counting semaphores (sleeping down) ---- */
struct vhca_kapi_sema;
struct vhca_kapi_sema *vhca_kapi_sema_create(unsigned int count);
void vhca_kapi_sema_destroy(struct vhca_kapi_sema *sema);
void vhca_kapi_sema_down(struct vhca_kapi_sema *sema);
void vhca_kapi_sema_up(struct vhca_kapi_sema *sema);

/* ---- completions ---- */
struct vhca_kapi_completion;
struct vhca_kapi_completion *vhca_kapi_completion_create(void);
void vhca_kapi_completion_destroy(struct vhca_kapi_completion *c);
void vhca_kapi_completion_reinit(struct vhca_kapi_completion *c);
void vhca_kapi_complete(struct vhca_kapi_completion *c);
/* 0 when completed, -ETIMEDOUT after timeout_ms (uninterruptible). */
int vhca_kapi_wait_timeout(struct vhca_kapi_completion *c,
			   unsigned int timeout_ms);
void vhca_kapi_msleep(unsigned int ms);

/* ---- logging (dev_printk on the PCI device) ---- */
enum vhca_kapi_log_level {
	VHCA_KAPI_LOG_ERR = 3,
	VHCA_KAPI_LOG_WARN = 4,
	VHCA_KAPI_LOG_INFO = 6,
	VHCA_KAPI_LOG_DEBUG = 7,
	/* OR'ed into a level: a message that guest activity can repeat at
	 * will (a failed command), printed only while the kernel's rate
	 * limit allows (printk_ratelimited's interval and burst). */
	VHCA_KAPI_LOG_RATELIMITED = 0x100,
};
void vhca_kapi_log(struct vhca_kapi_device *kdev, int level, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

/* ---- interrupts ----
 * synchronize_irq() of MSI-X vector `vector` (0..num_vectors-1) of the
 * device: returns once every handler already running for it
 * (vhca_core_irq) has returned, so a handler that starts later sees every
 * store made before the call.  May sleep: process context only, never
 * from that vector's handler.  A vector without a handler is a no-op. */
void vhca_kapi_synchronize_irq(struct vhca_kapi_device *kdev,
			       unsigned int vector);

/* ---- IB asynchronous events ----
 * A port event from EQ 0 (event is an enum vhca_port_event of vhca_hw.h,
 * already validated by the core).  Called from hard-IRQ context; the shim
 * turns it into an ib_event and ib_dispatch_event()s it once the ib_device
 * is registered, and drops it before. */
void vhca_kapi_port_event(struct vhca_kapi_device *kdev, unsigned int port,
			  unsigned int event);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_KAPI_H */
