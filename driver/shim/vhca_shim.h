/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_shim.h - state shared by the shim files (kernel C only).
 *
 * struct vhca_kapi_device is the per-PCI-function state.  The core sees it
 * only as an opaque pointer it passes back to the vhca_kapi_* services.
 * It embeds the ib_device first, so ib_alloc_device() allocates it and
 * ib_dealloc_device() frees it.
 */
#ifndef VHCA_SHIM_H
#define VHCA_SHIM_H

#include <linux/interrupt.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include "vhca_core.h"

#define VHCA_DRV_NAME "vhca"

struct vhca_irq {
	struct vhca_kapi_device *kdev;
	unsigned int vector;
	bool requested;
	char name[32];
};

struct vhca_kapi_device {
	struct ib_device ibdev;		/* must be first (ib_alloc_device) */
	struct pci_dev *pdev;
	void __iomem *regs;		/* BAR 0 */
	void __iomem *db;		/* BAR 4, doorbell page 0 */
	struct vhca_core_device *core;
	unsigned int num_vectors;	/* MSI-X vectors allocated */
	struct vhca_irq irqs[VHCA_MAX_VECTORS];
	bool events_enabled;		/* ib_dispatch_event allowed */
};

struct vhca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct vhca_kapi_device *to_kdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vhca_kapi_device, ibdev);
}

/* pci.c */
int vhca_pci_register(void);
void vhca_pci_unregister(void);

/* irq.c */
int vhca_irq_setup(struct vhca_kapi_device *kdev);
void vhca_irq_teardown(struct vhca_kapi_device *kdev);

/* ib.c */
int vhca_ib_register(struct vhca_kapi_device *kdev);
void vhca_ib_unregister(struct vhca_kapi_device *kdev);

#endif /* VHCA_SHIM_H */
