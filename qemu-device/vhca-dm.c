/*
 * vhca - device memory (vhca_hw_verbs.h "Device memory"; mlx5's MEMIC is
 * the model): BAR 3 is dm-size bytes of RAM that the guest's CPUs read and
 * write directly, allocated in 4 KiB pages by ALLOC_DM (so that a guest
 * kernel can map one allocation, and nothing else, into a process) and
 * reached by the data path through REG_DM_MR regions, whose pieces
 * (vhca_mr_piece) are host pointers into the BAR instead of DMA addresses.
 *
 * s->dms[p] describes the allocation whose first page is page p of the
 * BAR; s->dm_map marks the pages in use.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "migration/vmstate.h"
#include "vhca.h"
#include "vhca-cmd-check.h"
#include "vhca-dma-map.h"
#include "trace.h"

static uint32_t vhca_dm_pages(const VhcaState *s)
{
    return s->dm_size / VHCA_DM_PAGE_SIZE;
}

bool vhca_dm_check_property(VhcaState *s, Error **errp)
{
    if (s->dm_size % VHCA_DM_PAGE_SIZE || s->dm_size > VHCA_MAX_DM_SIZE) {
        error_setg(errp, "vhca: dm-size must be a multiple of %u up to %u",
                   VHCA_DM_PAGE_SIZE, VHCA_MAX_DM_SIZE);
        return false;
    }
    return true;
}

/* BAR 3: plain RAM, so guest loads and stores never exit to QEMU. */
bool vhca_dm_realize(VhcaState *s, Error **errp)
{
    ERRP_GUARD();

    if (!s->dm_size) {
        return true;
    }
    memory_region_init_ram(&s->dm_bar, OBJECT(s), "vhca-dm",
                           pow2ceil(s->dm_size), errp);
    if (*errp) {
        return false;
    }
    pci_register_bar(PCI_DEVICE(s), VHCA_DM_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY, &s->dm_bar);
    s->dm_host = memory_region_get_ram_ptr(&s->dm_bar);
    s->dms = g_new0(VhcaDm, vhca_dm_pages(s));
    s->dm_map = bitmap_new(vhca_dm_pages(s));
    return true;
}

/* Every allocation freed and the memory cleared (regions went first). */
void vhca_dm_reset(VhcaState *s)
{
    if (!s->dm_size) {
        return;
    }
    memset(s->dms, 0, vhca_dm_pages(s) * sizeof(VhcaDm));
    bitmap_zero(s->dm_map, vhca_dm_pages(s));
    memset(s->dm_host, 0, s->dm_size);
}

/*
 * The BAR's RAMBlock outlives the device by an RCU grace period (the old
 * memory map holds references to it) and keeps its migration name, "<PCI
 * path>/vhca-dm", until then: a device hot-plugged into the same slot
 * meanwhile would abort QEMU registering the same name.  So the name goes
 * now, as the PCI core does for a ROM (pci_del_option_rom).
 */
void vhca_dm_unrealize(VhcaState *s)
{
    if (s->dm_size) {
        vmstate_unregister_ram(&s->dm_bar, DEVICE(s));
    }
    g_free(s->dms);
    s->dms = NULL;
    g_free(s->dm_map);
    s->dm_map = NULL;
}

static uint8_t vhca_dm_reject(uint8_t status, const char *why, uint64_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: device memory: %s (0x%" PRIx64
                  ")\n", why, val);
    trace_vhca_dm_reject(why, val);
    return status;
}

/* First fit, at multiples of the alignment: the BAR holds few pages. */
static int64_t vhca_dm_find(VhcaState *s, uint32_t npages, uint32_t step)
{
    uint32_t total = vhca_dm_pages(s);
    uint32_t p;

    for (p = 0; p + npages <= total; p += step) {
        if (find_next_bit(s->dm_map, p + npages, p) >= p + npages) {
            return p;
        }
    }
    return -1;
}

uint8_t vhca_cmd_alloc_dm(VhcaState *s, const VhcaCmd *cmd,
                          uint32_t result[2])
{
    /* vhca_cmd_check_dm: 1 <= length <= dm_size, log_align <= 20. */
    uint32_t npages = DIV_ROUND_UP(cmd->in.alloc_dm.length,
                                   VHCA_DM_PAGE_SIZE);
    uint64_t align = MAX(1ull << cmd->in.alloc_dm.log_align,
                         VHCA_DM_PAGE_SIZE);
    int64_t first = vhca_dm_find(s, npages, align / VHCA_DM_PAGE_SIZE);

    if (first < 0) {
        return vhca_dm_reject(VHCA_CMD_NO_RESOURCES, "no free range",
                              cmd->in.alloc_dm.length);
    }
    bitmap_set(s->dm_map, first, npages);
    /* The previous owner's bytes stay its own. */
    memset(s->dm_host + first * VHCA_DM_PAGE_SIZE, 0,
           (size_t)npages * VHCA_DM_PAGE_SIZE);
    s->dms[first] = (VhcaDm) { .valid = true, .npages = npages };
    result[0] = first * VHCA_DM_PAGE_SIZE;
    trace_vhca_dm_alloc(result[0], npages);
    return VHCA_CMD_OK;
}

/* The allocation starting at offset, or NULL. */
static VhcaDm *vhca_dm_lookup(VhcaState *s, uint32_t offset)
{
    uint32_t page = offset / VHCA_DM_PAGE_SIZE;

    if (offset % VHCA_DM_PAGE_SIZE || page >= vhca_dm_pages(s) ||
        !s->dms[page].valid) {
        return NULL;
    }
    return &s->dms[page];
}

uint8_t vhca_cmd_free_dm(VhcaState *s, const VhcaCmd *cmd,
                         uint32_t result[2])
{
    uint32_t offset = cmd->in.handle;
    VhcaDm *dm = vhca_dm_lookup(s, offset);

    if (!dm) {
        return vhca_dm_reject(VHCA_CMD_BAD_HANDLE, "free: no allocation",
                              offset);
    }
    if (dm->mrs) {
        return vhca_dm_reject(VHCA_CMD_BUSY, "free: regions use it", offset);
    }
    bitmap_clear(s->dm_map, offset / VHCA_DM_PAGE_SIZE, dm->npages);
    memset(dm, 0, sizeof(*dm));
    trace_vhca_dm_free(offset);
    return VHCA_CMD_OK;
}

/* The allocation that holds [offset, offset + length), or NULL. */
static VhcaDm *vhca_dm_containing(VhcaState *s, uint32_t offset,
                                  uint64_t length, uint32_t *start)
{
    uint32_t page = offset / VHCA_DM_PAGE_SIZE;
    VhcaDm *dm;

    if (page >= vhca_dm_pages(s) || !test_bit(page, s->dm_map)) {
        return NULL;
    }
    while (!s->dms[page].valid) {
        page--;         /* an in-use page lies after its allocation's first */
    }
    dm = &s->dms[page];
    *start = page * VHCA_DM_PAGE_SIZE;
    if (offset + length > *start + (uint64_t)dm->npages * VHCA_DM_PAGE_SIZE) {
        return NULL;
    }
    return dm;
}

uint8_t vhca_cmd_reg_dm_mr(VhcaState *s, const VhcaCmd *cmd,
                           uint32_t result[2])
{
    uint32_t offset = cmd->in.reg_dm_mr.dm_offset;
    VhcaMr mr = {
        .valid = true,
        .bound = true,
        .dm = true,
        .pdn = cmd->in.reg_dm_mr.pdn,
        .access = cmd->in.reg_dm_mr.access,
        .variant = cmd->in.reg_dm_mr.key_variant,
        .iova = 0,
        .length = cmd->in.reg_dm_mr.length,
    };
    VhcaDm *dm;
    uint8_t status;

    /* vhca_cmd_check_dm: inside BAR 3, access flags valid. */
    dm = vhca_dm_containing(s, offset, mr.length, &mr.dm_alloc);
    if (!dm) {
        return vhca_dm_reject(VHCA_CMD_BAD_PARAM, "region not inside one "
                              "allocation", offset);
    }
    if (!vhca_pd_valid(s, mr.pdn)) {
        return vhca_dm_reject(VHCA_CMD_BAD_HANDLE, "no such PD", mr.pdn);
    }
    mr.dm_host = s->dm_host + offset;
    status = vhca_mr_insert(s, &mr, result);
    if (status == VHCA_CMD_OK) {
        dm->mrs++;
    }
    return status;
}

/* A device memory region is destroyed (or reset): its allocation may go. */
void vhca_dm_mr_release(VhcaState *s, const VhcaMr *mr)
{
    VhcaDm *dm = vhca_dm_lookup(s, mr->dm_alloc);

    if (dm && dm->mrs) {
        dm->mrs--;
    }
}

/* Reads and writes of one translated piece (vhca_mr_piece). */
MemTxResult vhca_piece_read(VhcaState *s, const VhcaDmaPiece *piece,
                            void *buf, uint64_t len)
{
    if (piece->host) {
        memcpy(buf, piece->host, len);
        return MEMTX_OK;
    }
    return vhca_dma_read(s, piece->addr, buf, len);
}

MemTxResult vhca_piece_write(VhcaState *s, const VhcaDmaPiece *piece,
                             const void *buf, uint64_t len)
{
    if (piece->host) {
        memcpy(piece->host, buf, len);
        return MEMTX_OK;
    }
    return vhca_dma_write(s, piece->addr, buf, len);
}

/*
 * An atomic's result or an ATOMIC WRITE (IBA 9.4.5, 1.5 9.4.6): 8 aligned
 * bytes in one store.  Not memcpy or a DMA write, which store 8 bytes as
 * two overlapping words (vhca-place.c), so that a guest CPU's write
 * between them would be undone.  Plain RAM through a DMA mapping; other
 * targets through the checked bounce path.
 */
MemTxResult vhca_piece_write_u64(VhcaState *s, const VhcaDmaPiece *piece,
                                 uint64_t value)
{
    VhcaDmaMap m;

    if (piece->host) {
        stq_he_p(piece->host, value);
        return MEMTX_OK;
    }
    smp_mb();               /* as dma_barrier: vhca-dma-map.c */
    if (vhca_dma_map(s, piece, sizeof(value), true, &m)) {
        if (m.len == sizeof(value)) {
            stq_he_p(m.host, value);
            vhca_dma_unmap(&m, sizeof(value));
            return MEMTX_OK;
        }
        vhca_dma_unmap(&m, 0);
    }
    return vhca_dma_write(s, piece->addr, &value, sizeof(value));
}
