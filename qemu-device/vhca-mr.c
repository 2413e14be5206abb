/*
 * vhca - memory regions and the one address translation (Guide 6, IBA 10.6).
 *
 * A key is index << 8 | variant; lkey and rkey are the same key.  Index 0
 * is never allocated: key 0 is the reserved local DMA lkey, accepted only
 * from kernel QPs, under which addresses are DMA addresses.
 *
 * Every data access the device makes on behalf of a WQE goes through
 * vhca_mr_translate() (key valid and bound, variant, PD, access right,
 * bounds) and then vhca_mr_piece() (DMA address of the next piece, never
 * crossing a page of the region, or for a device memory region the BAR 3
 * memory, vhca-dm.c); the DMA itself is checked by the caller.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "vhca-cmd-check.h"
#include "trace.h"

/* The reserved lkey: the whole DMA address space, every local right. */
static const VhcaMr vhca_dma_mr = {
    .valid = true,
    .bound = true,
    .physical = true,
    .access = VHCA_ACCESS_LOCAL_WRITE,
    .iova = 0,
    .length = UINT64_MAX,
};

void vhca_mr_init(VhcaState *s)
{
    s->mrs = g_new0(VhcaMr, VHCA_MAX_MR);
}

/* Free a region's page list and give its entries back to the budget. */
static void vhca_mr_free_pages(VhcaState *s, VhcaMr *mr)
{
    if (mr->pages.pages) {
        s->mr_list_entries -= mr->pages.npages;
    }
    vhca_buf_free(&mr->pages);
    vhca_odp_free(s, mr);
}

void vhca_mr_reset(VhcaState *s)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_MR; i++) {
        vhca_mr_free_pages(s, &s->mrs[i]);
        memset(&s->mrs[i], 0, sizeof(s->mrs[i]));
    }
    s->mr_list_entries = 0;
}

bool vhca_pd_valid(VhcaState *s, uint32_t pdn)
{
    return pdn < VHCA_MAX_PD && test_bit(pdn, s->pd_map);
}

/* Whether a region or a QP still belongs to the PD (DEALLOC_PD is BUSY). */
bool vhca_pd_in_use(VhcaState *s, uint32_t pdn)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_MR; i++) {
        if (s->mrs[i].valid && s->mrs[i].pdn == pdn) {
            return true;
        }
    }
    for (i = 0; i < VHCA_QP_SLOTS; i++) {
        if (s->qps[i].valid && s->qps[i].pdn == pdn) {
            return true;
        }
    }
    for (i = 0; i < VHCA_MAX_SRQ; i++) {
        if (s->srqs[i].valid && s->srqs[i].pdn == pdn) {
            return true;
        }
    }
    return false;
}

static uint8_t vhca_mr_reject(const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: memory region: %s (0x%x)\n", why,
                  val);
    trace_vhca_mr_reject(why, val);
    return VHCA_CMD_BAD_PARAM;
}

static int vhca_mr_alloc_index(VhcaState *s)
{
    uint32_t i;

    for (i = 1; i < VHCA_MAX_MR; i++) {
        if (!s->mrs[i].valid) {
            return i;
        }
    }
    return -1;
}

/* Page-list geometry: first_byte_offset + length must fit the pages. */
static uint8_t vhca_mr_load_pages(VhcaState *s, VhcaMr *mr,
                                  const struct vhca_buf_desc *desc,
                                  uint32_t max_pages)
{
    const char *why = NULL;
    uint8_t status;

    if (s->mr_list_entries + le32_to_cpu(desc->npages) >
        VHCA_MAX_MR_LIST_ENTRIES) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: page lists of all regions "
                      "above %llu entries\n", VHCA_MAX_MR_LIST_ENTRIES);
        trace_vhca_mr_reject("page list budget exhausted",
                             le32_to_cpu(desc->npages));
        return VHCA_CMD_NO_RESOURCES;
    }
    if (mr->first_byte_offset >= (1ull << MIN(desc->page_shift, 63))) {
        vhca_mr_reject("first_byte_offset not inside the first page",
                       mr->first_byte_offset);
        return VHCA_CMD_BAD_PARAM;
    }
    status = vhca_buf_load(s, desc, mr->first_byte_offset + mr->length,
                           max_pages, &mr->pages, &why);
    if (status != VHCA_CMD_OK) {
        vhca_mr_reject(why, le32_to_cpu(desc->npages));
    } else if (mr->pages.pages) {
        s->mr_list_entries += mr->pages.npages;
    }
    return status;
}

/* A CREATE_MR/REREG_MR input read and checked into *mr (pages loaded). */
static uint8_t vhca_mr_load(VhcaState *s, uint64_t in_addr, VhcaMr *mr_out)
{
    struct vhca_cmd_create_mr in;
    VhcaMr mr = { 0 };
    uint8_t status;

    if (vhca_dma_read(s, in_addr, &in, sizeof(in)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    mr.pdn = le32_to_cpu(in.pdn);
    mr.access = le32_to_cpu(in.access);
    mr.iova = le64_to_cpu(in.iova);
    mr.length = le64_to_cpu(in.length);
    mr.first_byte_offset = le32_to_cpu(in.first_byte_offset);
    mr.physical = in.flags & VHCA_MR_F_PHYSICAL;
    mr.variant = in.key_variant;
    if ((in.flags & ~(VHCA_MR_F_PHYSICAL | VHCA_MR_F_ODP |
                      VHCA_MR_F_ODP_IMPLICIT)) ||
        (in.flags & VHCA_MR_F_PHYSICAL && in.flags & VHCA_MR_F_ODP) ||
        (in.flags & VHCA_MR_F_ODP_IMPLICIT && !(in.flags & VHCA_MR_F_ODP))) {
        return vhca_mr_reject("unknown flags", in.flags);
    }
    if (!vhca_access_flags_valid(mr.access)) {
        return vhca_mr_reject("invalid access flags", mr.access);
    }
    /* An implicit ODP region is the whole address space (vhca-odp.c). */
    if (!(in.flags & VHCA_MR_F_ODP_IMPLICIT) &&
        (mr.length > VHCA_MAX_MR_SIZE || mr.iova + mr.length < mr.iova)) {
        return vhca_mr_reject("length too big or region wraps",
                              (uint32_t)mr.length);
    }
    if (!vhca_pd_valid(s, mr.pdn)) {
        trace_vhca_mr_reject("no such PD", mr.pdn);
        return VHCA_CMD_BAD_HANDLE;
    }
    if (mr.physical) {
        if (mr.length && !vhca_dma_range_valid(s, mr.iova, mr.length)) {
            trace_vhca_mr_reject("physical region not in memory", mr.pdn);
            return VHCA_CMD_BAD_ADDR;
        }
    } else if (in.flags & VHCA_MR_F_ODP) {
        status = vhca_odp_load(s, &mr, in.flags, &in.pages);
        if (status != VHCA_CMD_OK) {
            return status;
        }
    } else {
        status = vhca_mr_load_pages(s, &mr, &in.pages, VHCA_MAX_MR_PAGES);
        if (status != VHCA_CMD_OK) {
            return status;
        }
    }
    mr.valid = true;
    mr.bound = true;
    *mr_out = mr;
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_create_mr(VhcaState *s, uint64_t in_addr, uint32_t result[2])
{
    VhcaMr mr;
    uint8_t status;

    status = vhca_mr_load(s, in_addr, &mr);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    status = vhca_mr_insert(s, &mr, result);
    if (status != VHCA_CMD_OK) {
        vhca_mr_free_pages(s, &mr);
    }
    return status;
}

/* A checked region takes a free key (CREATE_MR, REG_DM_MR). */
uint8_t vhca_mr_insert(VhcaState *s, const VhcaMr *mr, uint32_t result[2])
{
    int index = vhca_mr_alloc_index(s);

    if (index < 0) {
        return VHCA_CMD_NO_RESOURCES;
    }
    s->mrs[index] = *mr;
    result[0] = (uint32_t)index << 8 | mr->variant;
    trace_vhca_mr_create(result[0], mr->pdn, mr->access, mr->iova, mr->length);
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_alloc_mr(VhcaState *s, const struct vhca_cmd_alloc_mr_in *in,
                          uint32_t result[2])
{
    uint32_t pdn = le32_to_cpu(in->pdn);
    uint32_t max_pages = le32_to_cpu(in->max_pages);
    int index;

    if (max_pages == 0 || max_pages > VHCA_MAX_MR_PAGES) {
        return vhca_mr_reject("max_pages out of range", max_pages);
    }
    if (!vhca_pd_valid(s, pdn)) {
        trace_vhca_mr_reject("no such PD", pdn);
        return VHCA_CMD_BAD_HANDLE;
    }
    index = vhca_mr_alloc_index(s);
    if (index < 0) {
        return VHCA_CMD_NO_RESOURCES;
    }
    memset(&s->mrs[index], 0, sizeof(VhcaMr));
    s->mrs[index].valid = true;
    s->mrs[index].frwr = true;
    s->mrs[index].pdn = pdn;
    s->mrs[index].max_pages = max_pages;
    s->mrs[index].variant = in->key_variant;
    result[0] = (uint32_t)index << 8 | in->key_variant;
    trace_vhca_mr_create(result[0], pdn, 0, 0, 0);
    return VHCA_CMD_OK;
}

static VhcaMr *vhca_mr_lookup(VhcaState *s, uint32_t key)
{
    uint32_t index = VHCA_KEY_INDEX(key);

    if (index == 0 || index >= VHCA_MAX_MR || !s->mrs[index].valid ||
        s->mrs[index].variant != VHCA_KEY_VARIANT(key)) {
        return NULL;
    }
    return &s->mrs[index];
}

uint8_t vhca_cmd_destroy_mr(VhcaState *s, uint32_t key)
{
    VhcaMr *mr = vhca_mr_lookup(s, key);

    if (!mr || mr->window) {
        trace_vhca_mr_reject("destroy: no such key", key);
        return VHCA_CMD_BAD_HANDLE;
    }
    if (vhca_mw_bound_to(s, VHCA_KEY_INDEX(key))) {
        vhca_mr_reject("destroy: memory windows are bound to it", key);
        return VHCA_CMD_BUSY;
    }
    if (mr->dm) {
        vhca_dm_mr_release(s, mr);
    }
    vhca_mr_free_pages(s, mr);
    memset(mr, 0, sizeof(*mr));
    trace_vhca_mr_destroy(key);
    return VHCA_CMD_OK;
}

/*
 * REREG_MR (IBA 11.2.8.x Reregister Memory Region): a CREATE_MR region
 * takes the translation, PD and access of a CREATE_MR input and keeps its
 * key (the input's key_variant is ignored); a refused input leaves it as
 * it was.  Not while memory windows are bound to it (BUSY).
 */
uint8_t vhca_cmd_rereg_mr(VhcaState *s, uint32_t key, uint64_t in_addr)
{
    VhcaMr *mr = vhca_mr_lookup(s, key);
    VhcaMr next;
    uint8_t status;

    if (!mr || mr->window || mr->frwr || mr->dm) {
        trace_vhca_mr_reject("rereg: no such region", key);
        return VHCA_CMD_BAD_HANDLE;
    }
    if (vhca_mw_bound_to(s, VHCA_KEY_INDEX(key))) {
        vhca_mr_reject("rereg: memory windows are bound to it", key);
        return VHCA_CMD_BUSY;
    }
    status = vhca_mr_load(s, in_addr, &next);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    vhca_mr_free_pages(s, mr);
    next.variant = mr->variant;
    *mr = next;
    trace_vhca_mr_create(key, next.pdn, next.access, next.iova, next.length);
    return VHCA_CMD_OK;
}

/*
 * The protection check of every data access (IBA 10.6.3, Guide 6): returns
 * VHCA_VERR_NONE and the region, or the vendor error naming the violation.
 * access: the VHCA_ACCESS_* right needed (0 for a local read).
 * remote_qpn: the responder QP of a remote access, whose rkey may name a
 * memory window (vhca-mw.c); VHCA_MR_LOCAL for an lkey (IBA 10.6.7: a
 * window grants remote access only).
 */
uint8_t vhca_mr_translate(VhcaState *s, uint32_t key, uint32_t pdn,
                          uint32_t access, bool allow_dma_lkey,
                          uint32_t remote_qpn, uint64_t addr, uint64_t len,
                          const VhcaMr **mr_out)
{
    const VhcaMr *mr;
    uint8_t verr = VHCA_VERR_NONE;

    if (key == VHCA_LOCAL_DMA_LKEY && allow_dma_lkey &&
        !(access & ~VHCA_ACCESS_LOCAL_WRITE)) {
        mr = &vhca_dma_mr;
    } else {
        mr = vhca_mr_lookup(s, key);
        if (mr && mr->window && remote_qpn != VHCA_MR_LOCAL) {
            verr = vhca_mw_translate(s, mr, pdn, remote_qpn, access, addr,
                                     len, &mr);
            if (verr == VHCA_VERR_NONE) {
                /* mr is the window's region: its pages may be absent */
                verr = vhca_odp_check(s, mr, addr, len, access);
                *mr_out = mr;
                return verr;
            }
        } else if (!mr || !mr->bound || mr->window) {
            verr = VHCA_VERR_BAD_KEY;
        } else if (mr->pdn != pdn) {
            verr = VHCA_VERR_PD_MISMATCH;
        } else if ((mr->access & access) != access) {
            verr = VHCA_VERR_ACCESS_RIGHTS;
        }
    }
    if (verr == VHCA_VERR_NONE && len &&
        (addr < mr->iova || addr + len < addr ||
         addr - mr->iova > mr->length ||
         len > mr->length - (addr - mr->iova))) {
        verr = VHCA_VERR_BOUNDS;
    }
    if (verr == VHCA_VERR_NONE) {
        verr = vhca_odp_check(s, mr, addr, len, access);
        if (verr == VHCA_VERR_ODP_FAULT) {
            return verr;    /* not an error: the caller raises the fault */
        }
    }
    if (verr != VHCA_VERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: access key 0x%x pd %u right 0x%x"
                      " addr 0x%" PRIx64 " len %" PRIu64 " refused (%u)\n",
                      key, pdn, access, addr, len, verr);
        trace_vhca_mr_access_error(key, pdn, access, addr, len, verr);
        return verr;
    }
    *mr_out = mr;
    return VHCA_VERR_NONE;
}

/*
 * The DMA address of [addr, addr + len) of a translated region, as far as
 * it is contiguous: returns the length of the piece (<= len).
 */
uint64_t vhca_mr_piece(const VhcaMr *mr, uint64_t addr, uint64_t len,
                       VhcaDmaPiece *piece)
{
    uint64_t offset, page_size, within;

    piece->host = NULL;
    if (mr->dm) {
        /* vhca_mr_translate kept it inside the allocation. */
        piece->host = mr->dm_host + (addr - mr->iova);
        piece->addr = 0;
        piece->len = len;
        return len;
    }
    if (mr->physical) {
        piece->addr = addr;
        piece->len = len;
        return len;
    }
    offset = addr - mr->iova + mr->first_byte_offset;
    page_size = 1ull << mr->pages.page_shift;
    within = offset & (page_size - 1);
    piece->addr = mr->odp_implicit ?
                  vhca_odp_page(mr, offset >> mr->pages.page_shift) + within :
                  vhca_buf_addr(&mr->pages, offset);
    piece->len = MIN(len, page_size - within);
    return piece->len;
}

/*
 * LOCAL_INV WQE on QP qpn, or SEND_WITH_INV arriving on it: a bound
 * fast-registration region becomes free, or a type 2 window (vhca-mw.c).
 */
uint8_t vhca_mr_local_inv(VhcaState *s, uint32_t key, uint32_t pdn,
                          uint32_t qpn)
{
    VhcaMr *mr = vhca_mr_lookup(s, key);

    if (mr && mr->window) {
        return vhca_mw_invalidate(s, key, pdn, qpn);
    }
    if (!mr || !mr->frwr) {
        return VHCA_VERR_BAD_KEY;
    }
    if (mr->pdn != pdn) {
        return VHCA_VERR_PD_MISMATCH;
    }
    mr->bound = false;
    vhca_mr_free_pages(s, mr);
    return VHCA_VERR_NONE;
}

/* REG_MR WQE: bind a free fast-registration region to a page list. */
uint8_t vhca_mr_fast_reg(VhcaState *s, uint32_t pdn,
                         const struct vhca_wqe_reg_mr *wqe)
{
    uint32_t key = le32_to_cpu(wqe->key);
    uint32_t index = VHCA_KEY_INDEX(key);
    VhcaMr *mr;
    VhcaMr next;

    if (index == 0 || index >= VHCA_MAX_MR || !s->mrs[index].valid ||
        !s->mrs[index].frwr || s->mrs[index].bound) {
        return VHCA_VERR_BAD_KEY;
    }
    mr = &s->mrs[index];
    if (mr->pdn != pdn) {
        return VHCA_VERR_PD_MISMATCH;
    }
    next = *mr;
    next.access = le32_to_cpu(wqe->access);
    next.iova = le64_to_cpu(wqe->iova);
    next.length = le64_to_cpu(wqe->length);
    next.first_byte_offset = le32_to_cpu(wqe->first_byte_offset);
    next.variant = VHCA_KEY_VARIANT(key);
    if (!vhca_access_flags_valid(next.access) || next.length > VHCA_MAX_MR_SIZE ||
        next.iova + next.length < next.iova ||
        vhca_mr_load_pages(s, &next, &wqe->pages, mr->max_pages)
            != VHCA_CMD_OK) {
        return VHCA_VERR_BAD_WQE;
    }
    next.bound = true;
    *mr = next;
    return VHCA_VERR_NONE;
}
