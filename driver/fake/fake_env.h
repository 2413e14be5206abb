/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * fake_env.h - what the fake vhca device (driver/fake) needs from the
 * environment it runs in, and nothing else: the host unit tests supply it
 * in driver/tests/fake_kernel.cpp (single-threaded, the device runs when a
 * test or a waiting command runs it), vhca_kunit.ko in
 * driver/kunit/fake_env.c (a spinlock, a work item as the device's bottom
 * half, irq_work as its MSI-X vectors).
 *
 * Seen by C and by the freestanding C++ of the fake, so it follows
 * vhca_kapi.h's type rules: no <stdint.h> names in prototypes.
 */
#ifndef VHCA_FAKE_ENV_H
#define VHCA_FAKE_ENV_H

#include "vhca_kapi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vhca_core_device;

/* The environment's state for one fake device; opaque to the fake. */
struct vhca_fake_env;

/* The device's own lock around its model: taken by every entry point
 * (MMIO from the core, the bottom half, the test's controls), never held
 * while the core runs.  IRQ-safe: doorbells come from the core's
 * interrupt handler. */
unsigned long vhca_fake_env_lock(struct vhca_fake_env *env);
void vhca_fake_env_unlock(struct vhca_fake_env *env, unsigned long flags);

/* Commands were posted: run vhca_fake_run_commands() soon, outside the
 * doorbell write (the real device's bottom half).  Called locked. */
void vhca_fake_env_kick(struct vhca_fake_env *env);

/* MSI-X vector `vector` fires: run vhca_fake_deliver_irq() for it soon (at
 * once is allowed only where nothing is locked).  Called locked. */
void vhca_fake_env_raise(struct vhca_fake_env *env, unsigned int vector);

/* Runs the core's interrupt handler (vhca_core_irq) for `vector` in the
 * environment's interrupt context.  Called unlocked. */
void vhca_fake_env_irq_handler(struct vhca_fake_env *env,
			       struct vhca_core_device *core,
			       unsigned int vector);

/* Nonzero when [addr, addr + len) lies inside one live DMA buffer of the
 * environment's vhca_kapi_dma_alloc(); "bus addresses" are CPU addresses. */
int vhca_fake_env_dma_live(struct vhca_fake_env *env, unsigned long long addr,
			   size_t len);

/* The core broke the device's protocol (DMA outside live memory, a bad
 * doorbell or register, a ring overrun): the host fails the test at once,
 * KUnit logs it (the fixture fails on the device's protocol_errors). */
void vhca_fake_env_report(struct vhca_fake_env *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* VHCA_FAKE_ENV_H */
