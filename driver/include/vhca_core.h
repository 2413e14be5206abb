/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_core.h - the driver core's entry points, called by the C shims.
 *
 * Every function returns 0 or a negative errno (the Linux values, see
 * vhca_errno.h).  The same type rules as vhca_kapi.h apply: no <stdint.h>
 * typedefs in prototypes.  The vhca_hw.h structs are fine to share: their
 * layout is fixed by size checks and identical under both compilers.
 *
 * Life cycle (driver/shim/pci.c):
 *   vhca_core_create            read VERSION/CAPS, allocate the command
 *                               queue and EQ 0, RESET, program, ENABLE
 *   (shim: MSI-X vectors, request_irq -> vhca_core_irq)
 *   vhca_core_start             arm EQ 0, QUERY_DEVICE, completion EQs
 *   (shim: ib_register_device, then vhca_core_replay_port_events)
 *   ... verbs ...
 *   (shim: ib_unregister_device)
 *   vhca_core_stop              DESTROY_EQ, then RESET (device stops DMA)
 *   (shim: free_irq)
 *   vhca_core_destroy           free rings and memory
 */
#ifndef VHCA_CORE_H
#define VHCA_CORE_H

#include "vhca_hw.h"
#include "vhca_kapi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vhca_core_device;

/* Command timeout used unless a test sets another one. */
#define VHCA_CORE_CMD_TIMEOUT_MS	5000

int vhca_core_create(struct vhca_kapi_device *kdev,
		     struct vhca_core_device **out);
/* MSI-X vectors the device offers (VHCA_REG_CAPS): 1 + completion vectors. */
unsigned int vhca_core_max_vectors(const struct vhca_core_device *dev);
/* num_vectors: how many MSI-X vectors the shim got (>= 1); completion EQs
 * are created on vectors 1..num_vectors-1. */
int vhca_core_start(struct vhca_core_device *dev, unsigned int num_vectors);
/* The interrupt handler of MSI-X vector `vector`. Hard-IRQ context.
 * Returns the number of events it consumed: 0 means the interrupt had
 * nothing to consume (the shim answers IRQ_NONE, see driver/shim/irq.c). */
unsigned int vhca_core_irq(struct vhca_core_device *dev, unsigned int vector);
void vhca_core_stop(struct vhca_core_device *dev);
void vhca_core_destroy(struct vhca_core_device *dev);

void vhca_core_set_cmd_timeout(struct vhca_core_device *dev,
			       unsigned int timeout_ms);

/* Valid after vhca_core_start. */
const struct vhca_device_attr *
vhca_core_device_attr(const struct vhca_core_device *dev);
unsigned int vhca_core_num_ports(const struct vhca_core_device *dev);
unsigned int vhca_core_num_comp_vectors(const struct vhca_core_device *dev);

/* Sends a VHCA_PORT_EV_ACTIVE through vhca_kapi_port_event for every port
 * that is ACTIVE now: events that arrived before the ib_device was
 * registered were dropped by the shim. */
int vhca_core_replay_port_events(struct vhca_core_device *dev);

/* Verbs (process context). Ports are 1-based. */
int vhca_core_query_port(struct vhca_core_device *dev, unsigned int port,
			 struct vhca_port_attr *attr);
int vhca_core_query_gid(struct vhca_core_device *dev, unsigned int port,
			unsigned int index, struct vhca_gid *gid);
int vhca_core_query_pkey(struct vhca_core_device *dev, unsigned int port,
			 unsigned int index, unsigned short *pkey);
int vhca_core_set_node_desc(struct vhca_core_device *dev,
			    const struct vhca_node_desc *desc);
/* ib_modify_port's capability bits; -EINVAL outside VHCA_PORT_CAP_SETTABLE. */
int vhca_core_set_port_cap(struct vhca_core_device *dev, unsigned int port,
			   unsigned int set, unsigned int clear);
/*
 * process_mad: a MAD the port's own agents answer (VHCA_CMD_MAD_IFC):
 * 1 with the answer in *out, 0 when it is for the MAD agents.
 */
int vhca_core_mad_ifc(struct vhca_core_device *dev, unsigned int port,
		      const struct vhca_mad *in, struct vhca_mad *out);
int vhca_core_alloc_pd(struct vhca_core_device *dev, unsigned int *pdn);
int vhca_core_dealloc_pd(struct vhca_core_device *dev, unsigned int pdn);
/* XRC domains (IBA A14.2.1): -EOPNOTSUPP without VHCA_DEV_CAP_XRC. */
int vhca_core_alloc_xrcd(struct vhca_core_device *dev, unsigned int *xrcdn);
int vhca_core_dealloc_xrcd(struct vhca_core_device *dev, unsigned int xrcdn);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_CORE_H */
