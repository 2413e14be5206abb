/*
 * vhca - direct access to guest RAM for the payload copy (vhca-dma-map.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_DMA_MAP_H
#define HW_INFINIBAND_VHCA_DMA_MAP_H

#include "vhca.h"

typedef struct VhcaRamMap VhcaRamMap;

/* One run of a translated region, mapped for a direct copy. */
typedef struct VhcaDmaMap {
    uint8_t *host;          /* the run's bytes in QEMU */
    uint64_t len;           /* mapped (<= asked) */
    AddressSpace *as;       /* NULL: device memory, nothing to unmap */
    bool write;
} VhcaDmaMap;

/*
 * Map the start of piece (len bytes asked) for reading or writing: false
 * if it is not plain guest RAM (the caller uses vhca_piece_read/_write).
 */
void vhca_dma_map_realize(VhcaState *s);
void vhca_dma_map_unrealize(VhcaState *s);
bool vhca_dma_map(VhcaState *s, const VhcaDmaPiece *piece, uint64_t len,
                  bool write, VhcaDmaMap *m);
void vhca_dma_unmap(VhcaDmaMap *m, uint64_t accessed);

#endif
