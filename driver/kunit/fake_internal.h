/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* Between the two halves of the fake kernel (kapi.c, fake_env.c); C only. */
#ifndef VHCA_KUNIT_FAKE_INTERNAL_H
#define VHCA_KUNIT_FAKE_INTERNAL_H

#include <linux/types.h>

#include "kunit_fake.h"

/* The core's handle on the fake device: the device's environment. */
struct vhca_kapi_device {
	struct vhca_fake_env *env;
};

struct vhca_fake *vhca_fake_of(struct vhca_kapi_device *kdev);

/* synchronize_irq() of the fake's vector: irq_work_sync. */
void vhca_fake_sync_vector(struct vhca_kapi_device *kdev, unsigned int vector);

/* True when [addr, addr + len) lies inside one live DMA buffer. */
bool vhca_fake_dma_live(unsigned long long addr, size_t len);

#endif /* VHCA_KUNIT_FAKE_INTERNAL_H */
