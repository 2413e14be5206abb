/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * fake_device.h - the in-kernel test double of the vhca device behind the
 * core's boundary (vhca_kapi.h), for vhca_kunit.ko.
 *
 * Seen by the C KUnit suites and the C++ test bodies alike, so it follows
 * vhca_kapi.h's rules: no kernel header, no <stdint.h> names in prototypes.
 *
 * The model (the same behaviour as qemu-device/ and driver/tests/
 * fake_device.cpp, written again because that one is host C++ with the
 * standard library): registers, RESET/ENABLE, the command queue executed
 * asynchronously by a work item (the real device's bottom half), EQ 0 and
 * completion EQs with owner bits and arming, and MSI-X "interrupts"
 * delivered through irq_work, i.e. in hard-IRQ context like the real
 * ones, to vhca_core_irq().  DMA addresses are kernel virtual addresses of
 * kzalloc'd buffers, so KASAN checks every device access too.
 *
 * The fake kernel half (kapi.c) implements vhca_kapi.h with real kernel
 * objects (kzalloc, spinlock_t, semaphores, completions: lockdep, KASAN and
 * kmemleak see them) plus allocation-failure injection and accounting.
 */
#ifndef VHCA_KUNIT_FAKE_DEVICE_H
#define VHCA_KUNIT_FAKE_DEVICE_H

#include "vhca_core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vhca_fake;

/* Configuration before vhca_core_create (defaults: 2 ports, 3 vectors,
 * 8 PDs, device ABI = driver ABI). */
struct vhca_fake_config {
	unsigned int num_ports;
	unsigned int num_vectors;
	unsigned int max_pd;
	unsigned int version;
	int fail_enable;	/* ENABLE -> FATAL BAD_CMDQ_CONFIG */
};

/* A fake device and its kapi device; NULL when out of memory. */
struct vhca_fake *vhca_fake_create(const struct vhca_fake_config *config);
/* Stops the bottom half and the interrupts: call after vhca_core_stop and
 * before vhca_core_destroy (what free_irq does for the real shim). */
void vhca_fake_quiesce(struct vhca_fake *fake);
void vhca_fake_destroy(struct vhca_fake *fake);
struct vhca_kapi_device *vhca_fake_kdev(struct vhca_fake *fake);
/* The core that interrupts go to (NULL: none). */
void vhca_fake_set_core(struct vhca_fake *fake, struct vhca_core_device *core);

/* ---- behaviour switches ---- */
/* Consume commands but never complete them. */
void vhca_fake_set_hang(struct vhca_fake *fake, int hang);
/* Completes the hung commands now (a late device). */
void vhca_fake_complete_hung(struct vhca_fake *fake);
/* Every command with this opcode completes with this status
 * (status < 0: no longer forced). */
void vhca_fake_force_status(struct vhca_fake *fake, unsigned int opcode,
			    int status);
void vhca_fake_set_port(struct vhca_fake *fake, unsigned int port,
			unsigned int state, unsigned int lid);

/* ---- events ---- */
/* Writes an EQE (owner byte last) and raises the EQ's vector if armed;
 * -ENOSPC when the EQ is full, -EINVAL when it does not exist. */
int vhca_fake_post_eqe(struct vhca_fake *fake, unsigned int eqn,
		       const struct vhca_eqe *eqe);
int vhca_fake_post_port_event(struct vhca_fake *fake, unsigned int port,
			      unsigned int subtype, unsigned int state,
			      unsigned int lid);
/* Waits (up to timeout_ms) until the driver has consumed every event of
 * the EQ and re-armed it; 0 or -ETIMEDOUT. */
int vhca_fake_wait_consumed(struct vhca_fake *fake, unsigned int eqn,
			    unsigned int timeout_ms);

/* ---- observations ---- */
int vhca_fake_enabled(struct vhca_fake *fake);
unsigned int vhca_fake_resets(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_pi(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_ci(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_log(struct vhca_fake *fake);
/* Commands consumed so far; the last VHCA_FAKE_CMD_LOG are kept, with the
 * ring index each was read from. */
#define VHCA_FAKE_CMD_LOG	512
unsigned int vhca_fake_num_executed(struct vhca_fake *fake);
/* i-th executed command (0-based, must be among the last
 * VHCA_FAKE_CMD_LOG); its ring slot in *slot when slot is not NULL. */
const struct vhca_cmd *vhca_fake_executed(struct vhca_fake *fake,
					  unsigned int i, unsigned int *slot);
unsigned int vhca_fake_count_opcode(struct vhca_fake *fake,
				    unsigned int opcode);
/* EQ doorbells written so far, the last VHCA_FAKE_DB_LOG kept. */
#define VHCA_FAKE_DB_LOG	1024
unsigned int vhca_fake_num_eq_doorbells(struct vhca_fake *fake);
unsigned int vhca_fake_eq_doorbell(struct vhca_fake *fake, unsigned int i);
unsigned int vhca_fake_eq_producer(struct vhca_fake *fake, unsigned int eqn);
unsigned int vhca_fake_eq_log(struct vhca_fake *fake, unsigned int eqn);
int vhca_fake_eq_live(struct vhca_fake *fake, unsigned int eqn);
unsigned int vhca_fake_irqs(struct vhca_fake *fake, unsigned int vector);
unsigned int vhca_fake_pds_allocated(struct vhca_fake *fake);
/* Device accesses outside any live DMA buffer, bad doorbells, commands
 * that overran the ring: the tests expect 0. */
unsigned int vhca_fake_protocol_errors(struct vhca_fake *fake);

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
void vhca_fake_kernel_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_KUNIT_FAKE_DEVICE_H */
