/*
 * vhca - buffer descriptors (struct vhca_buf_desc).
 *
 * Rings and memory regions are described by a page size, a page count and
 * either one contiguous address (CONTIG), an array of page addresses
 * (DIRECT) or an array of pages of page addresses (INDIRECT).  The list is
 * copied into device memory when the command executes (vhca_hw_verbs.h
 * "Buffer descriptors"), so later changes by the guest are never seen and
 * every later access is a table lookup plus a checked DMA.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

void vhca_buf_free(VhcaBuf *buf)
{
    g_free(buf->pages);
    memset(buf, 0, sizeof(*buf));
}

/* Read count le64 page addresses at addr into pages[], checking alignment. */
static uint8_t vhca_buf_read_list(VhcaState *s, uint64_t addr, uint32_t count,
                                  uint64_t align_mask, uint64_t *pages,
                                  const char **why)
{
    uint32_t i;

    if ((addr & 7) || addr == 0) {
        *why = "page list address zero or not 8-byte aligned";
        return VHCA_CMD_BAD_PARAM;
    }
    if (vhca_dma_read(s, addr, pages, count * sizeof(uint64_t)) != MEMTX_OK) {
        *why = "page list unreadable";
        return VHCA_CMD_BAD_ADDR;
    }
    for (i = 0; i < count; i++) {
        pages[i] = le64_to_cpu(pages[i]);
        if (pages[i] == 0 || (pages[i] & align_mask)) {
            *why = "page address zero or not aligned to the page size";
            return VHCA_CMD_BAD_PARAM;
        }
        /* Guest memory only: never the device's BARs or config space. */
        if (!vhca_dma_range_valid(s, pages[i], align_mask + 1)) {
            *why = "page not in guest memory";
            return VHCA_CMD_BAD_ADDR;
        }
    }
    return VHCA_CMD_OK;
}

static uint8_t vhca_buf_load_indirect(VhcaState *s, uint64_t addr,
                                      uint32_t npages, uint64_t align_mask,
                                      uint64_t *pages, const char **why)
{
    uint32_t nlists = DIV_ROUND_UP(npages, VHCA_PBL_ENTRIES_PER_PAGE);
    g_autofree uint64_t *lists = g_new(uint64_t, nlists);
    uint32_t i, n;
    uint8_t status;

    status = vhca_buf_read_list(s, addr, nlists, VHCA_DB_PAGE_SIZE - 1, lists,
                                why);
    for (i = 0; status == VHCA_CMD_OK && i < nlists; i++) {
        n = MIN(npages - i * VHCA_PBL_ENTRIES_PER_PAGE,
                VHCA_PBL_ENTRIES_PER_PAGE);
        status = vhca_buf_read_list(s, lists[i], n, align_mask,
                                    pages + i * VHCA_PBL_ENTRIES_PER_PAGE,
                                    why);
    }
    return status;
}

/*
 * Check a descriptor and copy its page list.  min_bytes: what the buffer
 * must hold; max_pages: the caller's limit on npages.  On failure buf is
 * left empty and *why says what was wrong.
 */
uint8_t vhca_buf_load(VhcaState *s, const struct vhca_buf_desc *desc,
                      uint64_t min_bytes, uint32_t max_pages, VhcaBuf *buf,
                      const char **why)
{
    uint64_t addr = le64_to_cpu(desc->addr);
    uint32_t npages = le32_to_cpu(desc->npages);
    uint8_t shift = desc->page_shift;
    uint64_t mask, size;
    uint8_t status;

    memset(buf, 0, sizeof(*buf));
    if (shift < VHCA_MIN_PAGE_SHIFT || shift > VHCA_MAX_PAGE_SHIFT) {
        *why = "page_shift out of range";
        return VHCA_CMD_BAD_PARAM;
    }
    if (npages == 0 || npages > max_pages) {
        *why = "npages zero or above the limit";
        return VHCA_CMD_BAD_PARAM;
    }
    mask = (1ull << shift) - 1;
    size = (uint64_t)npages << shift;
    if (size < min_bytes) {
        *why = "buffer smaller than the object needs";
        return VHCA_CMD_BAD_PARAM;
    }
    buf->page_shift = shift;
    buf->npages = npages;
    switch (desc->mode) {
    case VHCA_BUF_CONTIG:
        if (addr == 0 || (addr & mask)) {
            *why = "contiguous buffer zero or not page aligned";
            return VHCA_CMD_BAD_PARAM;
        }
        if (!vhca_dma_range_valid(s, addr, size)) {
            *why = "contiguous buffer not in guest memory";
            return VHCA_CMD_BAD_ADDR;
        }
        buf->contig = true;
        buf->addr = addr;
        return VHCA_CMD_OK;
    case VHCA_BUF_DIRECT:
        buf->pages = g_try_new(uint64_t, npages);
        if (!buf->pages) {
            *why = "no memory for the page list";
            return VHCA_CMD_NO_RESOURCES;
        }
        status = vhca_buf_read_list(s, addr, npages, mask, buf->pages, why);
        break;
    case VHCA_BUF_INDIRECT:
        buf->pages = g_try_new(uint64_t, npages);
        if (!buf->pages) {
            *why = "no memory for the page list";
            return VHCA_CMD_NO_RESOURCES;
        }
        status = vhca_buf_load_indirect(s, addr, npages, mask, buf->pages,
                                        why);
        break;
    default:
        *why = "unknown buffer mode";
        return VHCA_CMD_BAD_PARAM;
    }
    if (status != VHCA_CMD_OK) {
        vhca_buf_free(buf);
    }
    return status;
}

/*
 * The longest page list a ring of bytes may have: one entry per smallest
 * page, so that a guest cannot make the device hold big lists for small
 * rings.
 */
uint32_t vhca_ring_max_pages(uint64_t bytes)
{
    return DIV_ROUND_UP(bytes, 1ull << VHCA_MIN_PAGE_SHIFT);
}

/* DMA address of byte offset (the caller keeps offset < npages pages). */
uint64_t vhca_buf_addr(const VhcaBuf *buf, uint64_t offset)
{
    uint64_t mask = (1ull << buf->page_shift) - 1;

    if (buf->contig) {
        return buf->addr + offset;
    }
    return buf->pages[offset >> buf->page_shift] + (offset & mask);
}
