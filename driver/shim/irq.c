// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * irq.c - MSI-X vectors and their handlers.  Vector 0 serves EQ 0
 * (command completions, port events); vectors 1..n-1 the completion EQs.
 * Every handler just calls into the core; vhca_kapi_synchronize_irq waits
 * for them.
 *
 * A handler whose EQ held no new event answers IRQ_NONE, as nvme_irq
 * does: the device raises a vector only for an event it wrote (vhca_hw.h
 * "Event queues"), so an interrupt with nothing to consume is spurious,
 * and a vector that keeps firing with nothing to consume is a storm.
 * The kernel's spurious-interrupt detection (kernel/irq/spurious.c,
 * note_interrupt) then reports it ("irq N: nobody cared", with a stack)
 * and disables the vector, instead of the CPU spending itself on it.
 */
#include <linux/interrupt.h>
#include <linux/pci.h>

#include "vhca_shim.h"

static irqreturn_t vhca_irq_handler(int irq, void *data)
{
	struct vhca_irq *virq = data;

	return IRQ_RETVAL(vhca_core_irq(virq->kdev->core, virq->vector));
}

int vhca_irq_setup(struct vhca_kapi_device *kdev)
{
	struct pci_dev *pdev = kdev->pdev;
	unsigned int max = vhca_core_max_vectors(kdev->core);
	unsigned int i;
	int nvec, err;

	nvec = pci_alloc_irq_vectors(pdev, 1, max, PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "no MSI-X vectors: %d\n", nvec);
		return nvec;
	}
	kdev->num_vectors = nvec;
	for (i = 0; i < kdev->num_vectors; i++) {
		struct vhca_irq *virq = &kdev->irqs[i];

		virq->kdev = kdev;
		virq->vector = i;
		snprintf(virq->name, sizeof(virq->name), "vhca-eq%u@pci:%s", i,
			 pci_name(pdev));
		err = request_irq(pci_irq_vector(pdev, i), vhca_irq_handler, 0,
				  virq->name, virq);
		if (err) {
			dev_err(&pdev->dev, "request_irq vector %u: %d\n", i,
				err);
			vhca_irq_teardown(kdev);
			return err;
		}
		virq->requested = true;
	}
	return 0;
}

/* vhca_kapi.h: the core's wait for the handlers of one vector, after it
 * unpublished an object they could find (ObjectRegistry::Remove). */
void vhca_kapi_synchronize_irq(struct vhca_kapi_device *kdev,
			       unsigned int vector)
{
	if (vector < kdev->num_vectors && kdev->irqs[vector].requested)
		synchronize_irq(pci_irq_vector(kdev->pdev, vector));
}

void vhca_irq_teardown(struct vhca_kapi_device *kdev)
{
	unsigned int i;

	for (i = 0; i < kdev->num_vectors; i++) {
		struct vhca_irq *virq = &kdev->irqs[i];

		if (virq->requested)
			free_irq(pci_irq_vector(kdev->pdev, i), virq);
		virq->requested = false;
	}
	if (kdev->num_vectors)
		pci_free_irq_vectors(kdev->pdev);
	kdev->num_vectors = 0;
}
