/*
 * vhca - direct access to guest RAM for the payload copy (issue 12).
 *
 * vhca_sgl_copy() and vhca_sgl_read() (vhca-responder.c) move message
 * payloads.  Through vhca_dma_read/_write every byte is copied twice
 * (guest RAM into a bounce buffer, bounce buffer into guest RAM) and every
 * 4 KiB pays two address space walks.  Here a contiguous run of a
 * translated region is mapped with QEMU's DMA mapping API
 * (dma_memory_map on the PCI function's bus master address space, so a
 * vIOMMU and the bus master enable bit apply as for pci_dma_read), and the
 * caller copies once, host pointer to host pointer.
 *
 * Only plain guest RAM is mapped.  Everything else (the device's own BARs,
 * MMIO of other devices, ROM written to, unassigned addresses, bus
 * mastering off) is refused here, before address_space_map could touch
 * it, and the caller uses the bounce path, whose accesses, MEMTX errors
 * and trace events are unchanged.  address_space_map's own fallback (one
 * global bounce buffer, reads done at map time with their errors
 * dropped) is never used: the run is first found in the RAM ranges a
 * memory listener keeps (VhcaRamMap) or, failing that, translated and
 * checked with memory_access_is_direct(), under the BQL, so the flat view
 * cannot change before the mapping.
 *
 * The caller orders the copy after the device's earlier accesses with one
 * smp_mb() (what dma_memory_rw's dma_barrier gives every DMA; the
 * doorbell record protocol of vhca-sqpoll.c relies on it); the accesses
 * after the copy (the CQE) start with their own.
 *
 * The re-entrancy guard s->in_dma is not raised around a mapped copy: it
 * exists for the device's own MMIO handlers, and a mapped copy touches
 * RAM only, so no handler can run during it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/int128.h"
#include "qemu/rcu.h"
#include "vhca-qemu-compat.h"
#include "vhca-dma-map.h"
#include "trace.h"

/*
 * The plain, writable RAM of the device's DMA address space as the memory
 * API last announced it: a listener on the bus master address space,
 * cleared at the start of every topology change and refilled from its
 * sections (all under the BQL, like every DMA).  A run inside one of
 * these ranges needs no translation to know it is RAM; anything else
 * (ROM, an IOMMU's address space, ranges past the table) is translated.
 */
#define VHCA_RAM_RANGES 32

struct VhcaRamMap {
    MemoryListener listener;
    uint32_t n;
    struct {
        uint64_t start;
        uint64_t end;           /* exclusive */
    } range[VHCA_RAM_RANGES];
};

static void vhca_ram_map_begin(MemoryListener *listener)
{
    container_of(listener, VhcaRamMap, listener)->n = 0;
}

/* region_add and region_nop: every section of the new topology. */
static void vhca_ram_map_section(MemoryListener *listener,
                                 MemoryRegionSection *section)
{
    VhcaRamMap *map = container_of(listener, VhcaRamMap, listener);
    uint64_t start = section->offset_within_address_space;

    /* direct for writes implies direct for reads */
    if (!memory_access_is_direct(section->mr, true, MEMTXATTRS_UNSPECIFIED) ||
        int128_gethi(section->size) || map->n == VHCA_RAM_RANGES) {
        return;
    }
    map->range[map->n].start = start;
    map->range[map->n].end = start + int128_getlo(section->size);
    map->n++;
}

void vhca_dma_map_realize(VhcaState *s)
{
    VhcaRamMap *map = g_new0(VhcaRamMap, 1);

    map->listener.name = "vhca-ram-map";
    map->listener.begin = vhca_ram_map_begin;
    map->listener.region_add = vhca_ram_map_section;
    map->listener.region_nop = vhca_ram_map_section;
    memory_listener_register(&map->listener,
                             pci_get_address_space(&s->parent_obj));
    s->ram_map = map;
}

void vhca_dma_map_unrealize(VhcaState *s)
{
    if (s->ram_map) {
        memory_listener_unregister(&s->ram_map->listener);
        g_free(s->ram_map);
        s->ram_map = NULL;
    }
}

static bool vhca_ram_map_covers(const VhcaRamMap *map, uint64_t addr,
                                uint64_t len)
{
    uint32_t i;

    for (i = 0; map && i < map->n; i++) {
        if (addr >= map->range[i].start && addr < map->range[i].end &&
            len <= map->range[i].end - addr) {
            return true;
        }
    }
    return false;
}

/* Whether the start of [addr, addr + len) is RAM the CPU may access
 * directly in this direction (the caller holds the RCU read lock). */
static bool vhca_dma_is_ram(AddressSpace *as, uint64_t addr, uint64_t len,
                            bool write)
{
    hwaddr xlat, section_len = len;
    MemoryRegion *mr;

    mr = address_space_translate(as, addr, &xlat, &section_len, write,
                                 MEMTXATTRS_UNSPECIFIED);
    return memory_access_is_direct(mr, write, MEMTXATTRS_UNSPECIFIED);
}

bool vhca_dma_map(VhcaState *s, const VhcaDmaPiece *piece, uint64_t len,
                  bool write, VhcaDmaMap *m)
{
    AddressSpace *as = pci_get_address_space(&s->parent_obj);
    DMADirection dir = write ? DMA_DIRECTION_FROM_DEVICE
                             : DMA_DIRECTION_TO_DEVICE;
    dma_addr_t maplen = len;

    memset(m, 0, sizeof(*m));
    m->write = write;
    if (piece->host) {
        /* device memory (BAR 3, vhca-dm.c): QEMU's own bytes */
        m->host = piece->host;
        m->len = len;
        return true;
    }
    if (vhca_dma_hits_own_bars(s, piece->addr, len)) {
        return false;       /* the bounce path refuses and traces it */
    }
    RCU_READ_LOCK_GUARD();
    if (!vhca_ram_map_covers(s->ram_map, piece->addr, len) &&
        !vhca_dma_is_ram(as, piece->addr, len, write)) {
        trace_vhca_dma_map_bounce(write ? "write" : "read", piece->addr, len);
        return false;
    }
    m->host = dma_memory_map(as, piece->addr, &maplen, dir,
                             MEMTXATTRS_UNSPECIFIED);
    if (!m->host || maplen == 0) {
        trace_vhca_dma_map_bounce(write ? "write" : "read", piece->addr, len);
        m->host = NULL;
        return false;
    }
    m->as = as;
    m->len = maplen;        /* may be shorter: the rest is the next run */
    return true;
}

/* accessed: the bytes actually read or written, from the start (dirty
 * tracking and migration see exactly those). */
void vhca_dma_unmap(VhcaDmaMap *m, uint64_t accessed)
{
    if (m->as) {
        dma_memory_unmap(m->as, m->host, m->len,
                         m->write ? DMA_DIRECTION_FROM_DEVICE
                                  : DMA_DIRECTION_TO_DEVICE,
                         accessed);
    }
    m->host = NULL;
    m->as = NULL;
}
