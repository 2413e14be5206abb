/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * kunit_fake.h - the fake device of driver/fake (vhca_fake.h) in
 * vhca_kunit.ko, and the fake kernel around it.
 *
 * fake_env.c is the device's environment (driver/fake/fake_env.h): a
 * spinlock, a work item as the device's bottom half (the command queue
 * executes asynchronously, as on the real device), and irq_work items as
 * its MSI-X vectors, so vhca_core_irq() runs in hard-IRQ context like the
 * real interrupts.  DMA addresses are kernel virtual addresses of
 * kzalloc'd buffers, so KASAN checks every device access too.
 *
 * kapi.c implements vhca_kapi.h with real kernel objects (kzalloc,
 * spinlock_t, semaphores, completions: lockdep, KASAN and kmemleak see
 * them) plus allocation-failure injection and accounting.
 *
 * Seen by the C KUnit suites and the C++ test bodies alike: vhca_kapi.h's
 * type rules.
 */
#ifndef VHCA_KUNIT_FAKE_H
#define VHCA_KUNIT_FAKE_H

#include "../fake/vhca_fake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A fake device in its environment, with its kapi device (NULL config:
 * the defaults); NULL when out of memory. */
struct vhca_fake *vhca_fake_create(const struct vhca_fake_config *config);
/* Stops the bottom half and the interrupts: call after vhca_core_stop and
 * before vhca_core_destroy (what free_irq does for the real shim). */
void vhca_fake_quiesce(struct vhca_fake *fake);
void vhca_fake_destroy(struct vhca_fake *fake);
struct vhca_kapi_device *vhca_fake_kdev(struct vhca_fake *fake);
/* Waits (up to timeout_ms) until the driver has consumed every event of
 * the EQ and re-armed it; 0 or -ETIMEDOUT. */
int vhca_fake_wait_consumed(struct vhca_fake *fake, unsigned int eqn,
			    unsigned int timeout_ms);

/* Port events the core reported through vhca_kapi_port_event. */
#define VHCA_FAKE_EVENT_LOG	256
unsigned int vhca_fake_num_port_events(struct vhca_fake *fake);
void vhca_fake_port_event(struct vhca_fake *fake, unsigned int i,
			  unsigned int *port, unsigned int *event);

/* ---- the fake kernel (kapi.c) ---- */
/* Allocation number n (1-based, counting zalloc, DMA buffers and lock,
 * semaphore and completion objects from now on) fails; 0 = none. */
void vhca_fake_fail_allocation(unsigned long long n);
unsigned long long vhca_fake_allocations(void);
/* Objects allocated through vhca_kapi_* and not freed yet. */
long long vhca_fake_outstanding(void);
/* Log lines the core printed at WARN or ERR level, plus frees of DMA
 * buffers that were not live. */
unsigned int vhca_fake_warnings(void);
/* DMA buffers freed while the device still owned them (a ring of a live
 * queue): the tests expect 0. */
unsigned int vhca_fake_kernel_errors(void);
void vhca_fake_kernel_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_KUNIT_FAKE_H */
