/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_kapi.h - the kernel services the driver core (freestanding C++)
 * needs, implemented by the C shims in driver/shim (and, for the host unit
 * tests, by driver/tests/fake_kernel.cpp; for the KUnit suites, by
 * driver/kunit/kapi.c).
 *
 * This header is seen by two compilers with two different C libraries: the
 * kernel's (uint64_t = unsigned long long) and gcc's freestanding one
 * (uint64_t = unsigned long).  So no prototype here uses the <stdint.h>
 * typedefs: 64-bit values are spelled "unsigned long long", sizes "size_t"
 * (unsigned long in both), everything else plain int/unsigned int.
 *
 * Context rules (the core relies on them; the shims guarantee them):
 *  - vhca_kapi_zalloc, vhca_kapi_dma_alloc, vhca_kapi_*_create,
 *    vhca_kapi_sema_down, vhca_kapi_wait_timeout and vhca_kapi_msleep
 *    may sleep: process context only.
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
/* dma_rmb(): reads of a ring entry after its owner/valid byte. */
void vhca_kapi_dma_rmb(void);
/* dma_mb(): the reads of consumed ring entries before the store that hands
 * their slots back to the device (a CQ doorbell record). */
void vhca_kapi_dma_mb(void);

/* ---- spinlocks (IRQ-safe) ---- */
struct vhca_kapi_lock;
/* One lockdep class per kind of lock: with a single class (one
 * spin_lock_init() site), lockdep would join the chains of unrelated locks,
 * e.g. a QP's send lock taken under a ULP lock and the object registry,
 * and report cycles that cannot happen. */
enum vhca_kapi_lock_class {
	VHCA_LOCK_COMMAND_QUEUE,
	VHCA_LOCK_OBJECT_REGISTRY,
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
};
void vhca_kapi_log(struct vhca_kapi_device *kdev, int level, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

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
