// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * pci.c - PCI probe and remove: BAR mapping, then the bring-up order of
 * driver/include/vhca_core.h, the PHC (ptp.c) before the IB device.  Remove undoes it in reverse; the device is
 * reset (vhca_core_stop) before its rings are freed (vhca_core_destroy).
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "vhca_shim.h"

static const struct pci_device_id vhca_pci_ids[] = {
	{ PCI_DEVICE(VHCA_PCI_VENDOR_ID, VHCA_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vhca_pci_ids);

static int vhca_pci_map(struct vhca_kapi_device *kdev)
{
	struct pci_dev *pdev = kdev->pdev;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_disable;
	err = pci_request_selected_regions(pdev,
					   BIT(VHCA_REG_BAR) | BIT(VHCA_DB_BAR),
					   VHCA_DRV_NAME);
	if (err)
		goto err_disable;
	err = -ENOMEM;
	kdev->regs = pci_iomap(pdev, VHCA_REG_BAR, VHCA_REG_BAR_SIZE);
	if (!kdev->regs)
		goto err_release;
	kdev->db = pci_iomap(pdev, VHCA_DB_BAR, VHCA_DB_PAGE_SIZE);
	if (!kdev->db)
		goto err_unmap_regs;
	return 0;

err_unmap_regs:
	pci_iounmap(pdev, kdev->regs);
err_release:
	pci_release_selected_regions(pdev, BIT(VHCA_REG_BAR) | BIT(VHCA_DB_BAR));
err_disable:
	pci_clear_master(pdev);
	pci_disable_device(pdev);
	return err;
}

static void vhca_pci_unmap(struct vhca_kapi_device *kdev)
{
	struct pci_dev *pdev = kdev->pdev;

	pci_iounmap(pdev, kdev->db);
	pci_iounmap(pdev, kdev->regs);
	pci_release_selected_regions(pdev, BIT(VHCA_REG_BAR) | BIT(VHCA_DB_BAR));
	pci_clear_master(pdev);
	pci_disable_device(pdev);
}

static int vhca_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vhca_kapi_device *kdev;
	int err;

	kdev = ib_alloc_device(vhca_kapi_device, ibdev);
	if (!kdev)
		return -ENOMEM;
	kdev->pdev = pdev;
	pci_set_drvdata(pdev, kdev);

	err = vhca_pci_map(kdev);
	if (err)
		goto err_free;
	err = vhca_core_create(kdev, &kdev->core);
	if (err)
		goto err_unmap;
	err = vhca_irq_setup(kdev);
	if (err)
		goto err_destroy;
	err = vhca_core_start(kdev->core, kdev->num_vectors);
	if (err)
		goto err_stop;
	vhca_ptp_init(kdev);
	err = vhca_ib_register(kdev);
	if (err)
		goto err_ptp;
	return 0;

err_ptp:
	vhca_ptp_cleanup(kdev);
err_stop:
	vhca_core_stop(kdev->core);
	vhca_irq_teardown(kdev);
err_destroy:
	vhca_core_destroy(kdev->core);
err_unmap:
	vhca_pci_unmap(kdev);
err_free:
	dev_err(&pdev->dev, "probe failed: %d\n", err);
	ib_dealloc_device(&kdev->ibdev);
	return err;
}

static void vhca_remove(struct pci_dev *pdev)
{
	struct vhca_kapi_device *kdev = pci_get_drvdata(pdev);

	vhca_ib_unregister(kdev);
	vhca_ptp_cleanup(kdev);
	vhca_core_stop(kdev->core);
	vhca_irq_teardown(kdev);
	vhca_core_destroy(kdev->core);
	vhca_pci_unmap(kdev);
	ib_dealloc_device(&kdev->ibdev);
}

static struct pci_driver vhca_pci_driver = {
	.name = VHCA_DRV_NAME,
	.id_table = vhca_pci_ids,
	.probe = vhca_probe,
	.remove = vhca_remove,
};

int vhca_pci_register(void)
{
	return pci_register_driver(&vhca_pci_driver);
}

void vhca_pci_unregister(void)
{
	pci_unregister_driver(&vhca_pci_driver);
}
