/*
 * vhca - on-demand paging (uapi/vhca_hw_odp.h): regions whose pages are
 * absent until the driver maps them, the page-fault event, and the
 * ODP_MAP, ODP_INVALIDATE and ODP_RESUME commands.
 *
 * An ODP region's translation is a VhcaBuf whose entries are page
 * addresses or 0 (absent: vhca_buf_load never accepts page 0); an
 * implicit region's (VHCA_MR_F_ODP_IMPLICIT) is the sparse table of
 * vhca-odp-table.c, entry i the page at address i << page_shift.  The
 * protection check of every access (vhca_mr_translate) ends here: when a
 * page of the access is absent it returns VHCA_VERR_ODP_FAULT and keeps
 * the fault in VhcaState.odp_fault; the requester (vhca-transport.c) or
 * the responder (vhca-responder.c) then raises the event with
 * vhca_odp_fault_event() and waits (requester) or answers RNR (responder).
 *
 * Invalidation is synchronous because an access is checked and done
 * within one hold of the BQL, which serializes the data path and the
 * commands such as ODP_INVALIDATE: no access is ever half-way through a page
 * when ODP_INVALIDATE executes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "vhca-cmd-check.h"
#include "trace.h"

static uint8_t vhca_odp_reject(const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: ODP: %s (0x%x)\n", why, val);
    trace_vhca_odp_reject(why, val);
    return VHCA_CMD_BAD_PARAM;
}

/*
 * CREATE_MR/REREG_MR with VHCA_MR_F_ODP_IMPLICIT: the whole 64-bit
 * address space, an empty sparse table (vhca-odp-table.c); its leaves
 * are counted in the page list budget as ODP_MAP creates them.
 */
static uint8_t vhca_odp_load_implicit(VhcaMr *mr,
                                      const struct vhca_buf_desc *desc)
{
    if (mr->iova != 0 || mr->length != UINT64_MAX ||
        mr->first_byte_offset != 0) {
        return vhca_odp_reject("implicit: iova 0, length UINT64_MAX, offset 0",
                               (uint32_t)mr->iova);
    }
    if (le32_to_cpu(desc->npages) != 0) {
        return vhca_odp_reject("implicit: pages.npages must be 0",
                               le32_to_cpu(desc->npages));
    }
    mr->odp = true;
    mr->odp_implicit = true;
    mr->pages.page_shift = desc->page_shift;
    mr->odp_table = vhca_odp_table_new();
    return VHCA_CMD_OK;
}

/*
 * CREATE_MR/REREG_MR with VHCA_MR_F_ODP: a translation of desc->npages
 * absent pages of 2^page_shift bytes; counted in the page list budget
 * like any other region's list.  With VHCA_MR_F_ODP_IMPLICIT, the sparse
 * translation of the whole address space.
 */
uint8_t vhca_odp_load(VhcaState *s, VhcaMr *mr, uint8_t flags,
                      const struct vhca_buf_desc *desc)
{
    uint32_t npages = le32_to_cpu(desc->npages);
    uint8_t shift = desc->page_shift;
    uint64_t need;

    if (le64_to_cpu(desc->addr) != 0 || desc->mode != VHCA_BUF_DIRECT) {
        return vhca_odp_reject("pages: addr must be 0, mode DIRECT",
                               desc->mode);
    }
    if (shift < VHCA_MIN_PAGE_SHIFT || shift > VHCA_MAX_PAGE_SHIFT) {
        return vhca_odp_reject("page_shift out of range", shift);
    }
    if (flags & VHCA_MR_F_ODP_IMPLICIT) {
        return vhca_odp_load_implicit(mr, desc);
    }
    if (mr->first_byte_offset >= (1ull << shift)) {
        return vhca_odp_reject("first_byte_offset not inside the first page",
                               mr->first_byte_offset);
    }
    need = DIV_ROUND_UP(mr->first_byte_offset + mr->length, 1ull << shift);
    if (npages == 0 || npages > VHCA_MAX_MR_PAGES || npages < need) {
        return vhca_odp_reject("npages does not cover the region", npages);
    }
    if (s->mr_list_entries + npages > VHCA_MAX_MR_LIST_ENTRIES) {
        trace_vhca_odp_reject("page list budget exhausted", npages);
        return VHCA_CMD_NO_RESOURCES;
    }
    mr->odp = true;
    mr->pages.page_shift = shift;
    mr->pages.npages = npages;
    mr->pages.pages = g_new0(uint64_t, npages);
    s->mr_list_entries += npages;
    return VHCA_CMD_OK;
}

/* An implicit region's table goes, and its leaves back to the budget. */
void vhca_odp_free(VhcaState *s, VhcaMr *mr)
{
    s->mr_list_entries -= vhca_odp_table_free(mr->odp_table);
    mr->odp_table = NULL;
}

/* Entry index of an ODP region's translation: a page address, 0 absent. */
uint64_t vhca_odp_page(const VhcaMr *mr, uint64_t index)
{
    if (mr->odp_implicit) {
        return vhca_odp_table_get(mr->odp_table, index);
    }
    return mr->pages.pages[index];
}

/*
 * The presence check of an access the caller found inside the region:
 * VHCA_VERR_NONE when every page of [addr, addr + len) is present, else
 * VHCA_VERR_ODP_FAULT with the fault kept for vhca_odp_fault_event().
 */
uint8_t vhca_odp_check(VhcaState *s, const VhcaMr *mr, uint64_t addr,
                       uint64_t len, uint32_t access)
{
    uint64_t first, last, i;

    if (!mr->odp || len == 0) {
        return VHCA_VERR_NONE;
    }
    first = (addr - mr->iova + mr->first_byte_offset) >> mr->pages.page_shift;
    last = (addr - mr->iova + mr->first_byte_offset + len - 1) >>
           mr->pages.page_shift;
    for (i = first; i <= last; i++) {
        if (vhca_odp_page(mr, i) == 0) {
            s->odp_fault.key = (uint32_t)(mr - s->mrs) << 8 | mr->variant;
            s->odp_fault.addr = addr;
            s->odp_fault.len = (uint32_t)MIN(len, UINT32_MAX);
            s->odp_fault.write = access & (VHCA_ACCESS_LOCAL_WRITE |
                                           VHCA_ACCESS_REMOTE_WRITE |
                                           VHCA_ACCESS_REMOTE_ATOMIC);
            trace_vhca_odp_fault_page(s->odp_fault.key, addr, len, i);
            return VHCA_VERR_ODP_FAULT;
        }
    }
    return VHCA_VERR_NONE;
}

/*
 * The page-fault event of the last fault vhca_odp_check() found.  A
 * responder QP reports one fault until ODP_RESUME: the requester's RNR
 * retries would otherwise post one event per retry and could overflow
 * EQ 0 while the driver works (a requester stops at its first fault).
 */
void vhca_odp_fault_event(VhcaState *s, VhcaQp *qp, uint8_t subtype)
{
    struct vhca_eqe eqe;
    struct vhca_eqe_page_fault pf;

    if (subtype == VHCA_PF_RESPONDER) {
        if (qp->odp_resp_fault) {
            return;
        }
        qp->odp_resp_fault = true;
    }
    memset(&eqe, 0, sizeof(eqe));
    memset(&pf, 0, sizeof(pf));
    eqe.type = VHCA_EQE_PAGE_FAULT;
    eqe.subtype = subtype;
    pf.qpn = cpu_to_le32(qp->handle);
    pf.key = cpu_to_le32(s->odp_fault.key);
    pf.addr = cpu_to_le64(s->odp_fault.addr);
    pf.len = cpu_to_le32(s->odp_fault.len);
    pf.flags = s->odp_fault.write ? VHCA_PF_F_WRITE : 0;
    memcpy(eqe.data.raw, &pf, sizeof(pf));
    trace_vhca_odp_fault(qp->handle, subtype, s->odp_fault.key,
                         s->odp_fault.addr, s->odp_fault.len);
    vhca_eq0_post(s, &eqe);
}

/* The first entry of an ODP_MAP/ODP_INVALIDATE input (64 bits). */
static uint64_t vhca_odp_first_page(const struct vhca_cmd_odp_range_in *in)
{
    return (uint64_t)le32_to_cpu(in->first_page_hi) << 32 |
           le32_to_cpu(in->first_page);
}

/* Whether [first, first + npages) are entries of the region's translation. */
static bool vhca_odp_range_inside(const VhcaMr *mr, uint64_t first,
                                  uint32_t npages)
{
    /* An implicit region has an entry for every page of 64-bit space. */
    uint64_t entries_max = mr->odp_implicit ?
                           UINT64_MAX >> mr->pages.page_shift :
                           (uint64_t)mr->pages.npages - 1;

    return npages != 0 && first <= entries_max &&
           npages - 1 <= entries_max - first;
}

/* The ODP region and page range of an ODP_MAP/ODP_INVALIDATE input. */
static VhcaMr *vhca_odp_range(VhcaState *s, uint16_t opcode,
                              const struct vhca_cmd_odp_range_in *in,
                              uint32_t in_len, uint8_t *status)
{
    VhcaCmdCheck check = vhca_odp_cmd_check(opcode, (const void *)in,
                                            in_len);
    uint32_t key = le32_to_cpu(in->key);
    uint32_t npages = le32_to_cpu(in->npages);
    uint32_t index = VHCA_KEY_INDEX(key);
    VhcaMr *mr;

    if (check.status != VHCA_CMD_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: ODP: %s\n", check.why);
        trace_vhca_odp_reject(check.why, npages);
        *status = check.status;
        return NULL;
    }
    if (index == 0 || index >= VHCA_MAX_MR || !s->mrs[index].valid ||
        s->mrs[index].variant != VHCA_KEY_VARIANT(key) ||
        !s->mrs[index].odp) {
        trace_vhca_odp_reject("no ODP region with that key", key);
        *status = VHCA_CMD_BAD_HANDLE;
        return NULL;
    }
    mr = &s->mrs[index];
    if (!vhca_odp_range_inside(mr, vhca_odp_first_page(in), npages)) {
        *status = vhca_odp_reject("page range outside the region",
                                  le32_to_cpu(in->first_page_hi));
        return NULL;
    }
    return mr;
}

/*
 * The entries of ODP_MAP: a region's flat list, or an implicit region's
 * table, whose new leaves must fit the page list budget.
 */
static uint8_t vhca_odp_set(VhcaState *s, VhcaMr *mr, uint64_t first,
                            uint32_t npages, const uint64_t *pages)
{
    uint64_t growth;

    if (!mr->odp_implicit) {
        memcpy(&mr->pages.pages[first], pages, npages * 8u);
        return VHCA_CMD_OK;
    }
    growth = vhca_odp_table_growth(mr->odp_table, first, npages);
    if (s->mr_list_entries + growth > VHCA_MAX_MR_LIST_ENTRIES) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: ODP: implicit region's table "
                      "above the page list budget\n");
        trace_vhca_odp_reject("implicit table: page list budget exhausted",
                              npages);
        return VHCA_CMD_NO_RESOURCES;
    }
    vhca_odp_table_set(mr->odp_table, first, npages, pages);
    s->mr_list_entries += growth;
    return VHCA_CMD_OK;
}

/*
 * ODP_MAP: the pages at in_addr become entries [first_page, +npages).
 * All are checked before any is written: a refused command changes
 * nothing.
 */
uint8_t vhca_cmd_odp_map(VhcaState *s, const struct vhca_cmd_odp_range_in *in,
                         uint64_t in_addr, uint32_t in_len)
{
    uint32_t npages = le32_to_cpu(in->npages);
    g_autofree uint64_t *pages = NULL;
    uint64_t size;
    uint8_t status;
    uint32_t i;
    VhcaMr *mr = vhca_odp_range(s, VHCA_CMD_ODP_MAP, in, in_len, &status);

    if (!mr) {
        return status;
    }
    pages = g_new(uint64_t, npages);
    if (vhca_dma_read(s, in_addr, pages, npages * 8u) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    size = 1ull << mr->pages.page_shift;
    for (i = 0; i < npages; i++) {
        pages[i] = le64_to_cpu(pages[i]);
        if (pages[i] == 0 || (pages[i] & (size - 1))) {
            return vhca_odp_reject("page address zero or not aligned", i);
        }
        /* Guest memory only: never the device's BARs or config space. */
        if (!vhca_dma_range_valid(s, pages[i], size)) {
            trace_vhca_odp_reject("page not in guest memory", i);
            return VHCA_CMD_BAD_ADDR;
        }
    }
    status = vhca_odp_set(s, mr, vhca_odp_first_page(in), npages, pages);
    if (status == VHCA_CMD_OK) {
        trace_vhca_odp_map(le32_to_cpu(in->key), vhca_odp_first_page(in),
                           npages);
    }
    return status;
}

/* ODP_INVALIDATE: the entries become absent; the device is done with them. */
uint8_t vhca_cmd_odp_invalidate(VhcaState *s,
                                const struct vhca_cmd_odp_range_in *in)
{
    uint8_t status;
    VhcaMr *mr = vhca_odp_range(s, VHCA_CMD_ODP_INVALIDATE, in, 0, &status);
    uint64_t first = vhca_odp_first_page(in);
    uint32_t npages = le32_to_cpu(in->npages);

    if (!mr) {
        return status;
    }
    if (mr->odp_implicit) {
        s->mr_list_entries -= vhca_odp_table_clear(mr->odp_table, first,
                                                   npages);
    } else {
        memset(&mr->pages.pages[first], 0, npages * sizeof(uint64_t));
    }
    trace_vhca_odp_invalidate(le32_to_cpu(in->key), first, npages);
    return VHCA_CMD_OK;
}

/*
 * ODP_RESUME: a send queue stopped by a requester page fault runs again
 * from the WQE that faulted (which faults again if its pages are still
 * absent); a responder fault may be reported again.  With
 * VHCA_ODP_RESUME_F_ERROR the next fault of the QP fails its work
 * (vhca_odp_fault_failed).  A QP that is not stopped is left alone: the QP may have left
 * RTS, or been reset, while the driver resolved the fault.
 */
uint8_t vhca_cmd_odp_resume(VhcaState *s,
                            const struct vhca_cmd_odp_resume_in *in)
{
    VhcaCmdCheck check = vhca_odp_cmd_check(VHCA_CMD_ODP_RESUME,
                                            (const void *)in, 0);
    uint32_t handle = le32_to_cpu(in->qpn);
    VhcaQp *qp;

    if (check.status != VHCA_CMD_OK) {
        return vhca_odp_reject(check.why, in->flags);
    }
    qp = vhca_qp_get(s, handle);
    if (!qp) {
        trace_vhca_odp_reject("resume: no such QP", handle);
        return VHCA_CMD_BAD_HANDLE;
    }
    trace_vhca_odp_resume(handle, qp->odp_stopped, in->flags);
    qp->odp_error = in->flags & VHCA_ODP_RESUME_F_ERROR;
    qp->odp_resp_fault = false;
    if (qp->odp_stopped) {
        qp->odp_stopped = false;
        qemu_bh_schedule(s->transport_bh);
    }
    return VHCA_CMD_OK;
}

/*
 * Whether the fault just found on qp is to fail its work: the driver's
 * last ODP_RESUME said it could not map the pages (used once).
 */
bool vhca_odp_fault_failed(VhcaQp *qp)
{
    bool failed = qp->odp_error;

    qp->odp_error = false;
    return failed;
}
