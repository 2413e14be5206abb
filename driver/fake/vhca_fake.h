/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_fake.h - the fake vhca device (driver/fake/fake_device.h) seen from
 * C: the KUnit suites (driver/kunit) and their environment
 * (driver/kunit/fake_env.c).  Every function takes the device's lock.
 * Same type rules as vhca_kapi.h: no <stdint.h> names in prototypes.
 */
#ifndef VHCA_FAKE_H
#define VHCA_FAKE_H

#include "fake_env.h"
#include "vhca_core.h"
#include "vhca_hw_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vhca_fake;

/* Configuration at creation (zeroed fields take the defaults: 2 ports,
 * 3 vectors, 8 PDs, device ABI = driver ABI). */
struct vhca_fake_config {
	unsigned int num_ports;
	unsigned int num_vectors;
	unsigned int max_pd;
	unsigned int version;
	int fail_enable;	/* ENABLE -> FATAL BAD_CMDQ_CONFIG */
	int no_data_path;	/* the device of first light: BAD_OPCODE for verbs */
};

/* The device lives in memory of vhca_fake_size() bytes the environment
 * allocates (it holds fixed tables: a few hundred KiB). */
size_t vhca_fake_size(void);
struct vhca_fake *vhca_fake_init(void *memory, struct vhca_fake_env *env,
				 const struct vhca_fake_config *config);
struct vhca_fake_env *vhca_fake_env_of(struct vhca_fake *fake);

/* ---- the environment's entry points ---- */
unsigned int vhca_fake_reg_read32(struct vhca_fake *fake, unsigned int offset);
void vhca_fake_reg_write32(struct vhca_fake *fake, unsigned int offset,
			   unsigned int value);
void vhca_fake_db_write32(struct vhca_fake *fake, unsigned int offset,
			  unsigned int value);
void vhca_fake_db_write64(struct vhca_fake *fake, unsigned int offset,
			  unsigned long long value);
/* The bottom half (after vhca_fake_env_kick). */
void vhca_fake_run_commands(struct vhca_fake *fake);
/* A raised vector fires (after vhca_fake_env_raise). */
void vhca_fake_deliver_irq(struct vhca_fake *fake, unsigned int vector);
/* Nonzero while the device may still write the DMA buffer at `dma`. */
int vhca_fake_owns_ring(struct vhca_fake *fake, unsigned long long dma);

/* ---- behaviour switches ---- */
/* The core that interrupts go to (NULL: none). */
void vhca_fake_set_core(struct vhca_fake *fake, struct vhca_core_device *core);
/* Consume commands but never complete them. */
void vhca_fake_set_hang(struct vhca_fake *fake, int hang);
/* Completes the hung commands now (a late device). */
void vhca_fake_complete_hung(struct vhca_fake *fake);
/* Every command with this opcode fails with this status instead of
 * executing (VHCA_CMD_OK or status < 0: no longer forced). */
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
/* Writes a CQE into CQ cqn as the device does and raises a completion
 * event on the CQ's EQ if the CQ is armed for it. */
void vhca_fake_post_cqe(struct vhca_fake *fake, unsigned int cqn,
			const struct vhca_cqe *cqe);
/* Every event of the EQ consumed and the EQ armed again. */
int vhca_fake_eq_idle(struct vhca_fake *fake, unsigned int eqn);

/* ---- observations ---- */
int vhca_fake_enabled(struct vhca_fake *fake);
unsigned int vhca_fake_resets(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_pi(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_ci(struct vhca_fake *fake);
unsigned int vhca_fake_cmdq_log(struct vhca_fake *fake);
/* Commands consumed so far; the last VHCA_FAKE_LOG are kept. */
#define VHCA_FAKE_LOG	1024
unsigned int vhca_fake_num_executed(struct vhca_fake *fake);
/* The i-th executed command (0-based; NULL unless among the last
 * VHCA_FAKE_LOG), copied into *cmd; its ring slot in *slot when slot is
 * not NULL. */
int vhca_fake_executed(struct vhca_fake *fake, unsigned int i,
		       struct vhca_cmd *cmd, unsigned int *slot);
unsigned int vhca_fake_count_opcode(struct vhca_fake *fake,
				    unsigned int opcode);
/* EQ doorbells written so far, the last VHCA_FAKE_LOG kept. */
unsigned int vhca_fake_num_eq_doorbells(struct vhca_fake *fake);
unsigned int vhca_fake_eq_doorbell(struct vhca_fake *fake, unsigned int i);
unsigned int vhca_fake_eq_producer(struct vhca_fake *fake, unsigned int eqn);
unsigned int vhca_fake_eq_log(struct vhca_fake *fake, unsigned int eqn);
int vhca_fake_eq_live(struct vhca_fake *fake, unsigned int eqn);
unsigned int vhca_fake_irqs(struct vhca_fake *fake, unsigned int vector);
unsigned int vhca_fake_pds_allocated(struct vhca_fake *fake);
/* Device accesses outside any live DMA buffer, bad doorbells or
 * registers, ring overruns: the tests expect 0. */
unsigned int vhca_fake_protocol_errors(struct vhca_fake *fake);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_FAKE_H */
