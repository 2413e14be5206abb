// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* An ODP umem keeps its pages as an hmm_dma_map (7.3): HMM_PFN_* flags in
 * map.pfn_list, DMA addresses from hmm_dma_map_pfn; no dma_list with
 * ODP_*_ALLOWED_BIT flags any more. */
#include <linux/hmm.h>
#include <rdma/ib_umem_odp.h>

static __used dma_addr_t vhca_probe(struct ib_umem_odp *odp, size_t i)
{
	if (!(odp->map.pfn_list[i] & HMM_PFN_VALID))
		return 0;
	return hmm_dma_map_pfn(odp->umem.ibdev->dma_device, &odp->map, i, NULL);
}
