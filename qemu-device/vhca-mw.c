/*
 * vhca - memory windows (IBA 10.6.7, vhca_hw_verbs.h "Memory windows").
 *
 * A window is an entry of the regions' key table (VhcaMr.window): ALLOC_MW
 * makes it, free; a BIND_MW WQE binds it to a range of a region that has
 * VHCA_ACCESS_MW_BIND, with remote rights of its own and a new key
 * variant; DEALLOC_MW, LOCAL_INV and SEND_WITH_INV (type 2) or a bind of
 * length 0 (type 1) make it free again.  Remote accesses through a
 * window's key are checked against the window (its rights, range, PD or,
 * for type 2, the QP it is bound to) and translated through its region.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

#define VHCA_MW_ACCESS (VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ | \
                        VHCA_ACCESS_REMOTE_ATOMIC)

static uint8_t vhca_mw_reject(uint8_t status, const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: memory window: %s (0x%x)\n", why,
                  val);
    trace_vhca_mr_reject(why, val);
    return status;
}

/* The window of `key` whatever its variant (binds change the variant). */
static VhcaMr *vhca_mw_slot(VhcaState *s, uint32_t key)
{
    uint32_t index = VHCA_KEY_INDEX(key);

    if (index == 0 || index >= VHCA_MAX_MR || !s->mrs[index].valid ||
        !s->mrs[index].window) {
        return NULL;
    }
    return &s->mrs[index];
}

uint8_t vhca_cmd_alloc_mw(VhcaState *s, const struct vhca_cmd_alloc_mw_in *in,
                          uint32_t result[2])
{
    uint32_t pdn = le32_to_cpu(in->pdn);
    uint32_t index;

    if (in->type != VHCA_MW_TYPE_1 && in->type != VHCA_MW_TYPE_2) {
        return vhca_mw_reject(VHCA_CMD_BAD_PARAM, "unknown window type",
                              in->type);
    }
    if (!vhca_pd_valid(s, pdn)) {
        return vhca_mw_reject(VHCA_CMD_BAD_HANDLE, "no such PD", pdn);
    }
    for (index = 1; index < VHCA_MAX_MR; index++) {
        if (!s->mrs[index].valid) {
            memset(&s->mrs[index], 0, sizeof(VhcaMr));
            s->mrs[index].valid = true;
            s->mrs[index].window = true;
            s->mrs[index].mw_type = in->type;
            s->mrs[index].pdn = pdn;
            s->mrs[index].variant = in->key_variant;
            result[0] = index << 8 | in->key_variant;
            trace_vhca_mr_create(result[0], pdn, 0, 0, 0);
            return VHCA_CMD_OK;
        }
    }
    return VHCA_CMD_NO_RESOURCES;
}

/*
 * DEALLOC_MW names the window by its index: binds in user space change its
 * variant without the driver knowing (vhca_hw_verbs.h "Memory windows").
 */
uint8_t vhca_cmd_dealloc_mw(VhcaState *s, uint32_t key)
{
    VhcaMr *mw = vhca_mw_slot(s, key);

    if (!mw) {
        return vhca_mw_reject(VHCA_CMD_BAD_HANDLE, "dealloc: no such window",
                              key);
    }
    memset(mw, 0, sizeof(*mw));
    trace_vhca_mr_destroy(key);
    return VHCA_CMD_OK;
}

/* Whether a window is bound to region `index` (DESTROY_MR is BUSY). */
bool vhca_mw_bound_to(VhcaState *s, uint32_t index)
{
    uint32_t i;

    for (i = 1; i < VHCA_MAX_MR; i++) {
        if (s->mrs[i].valid && s->mrs[i].window && s->mrs[i].bound &&
            s->mrs[i].parent == index) {
            return true;
        }
    }
    return false;
}

/*
 * The checks of a bind (IBA 10.6.7.2.1, 11.4.1.1): the window of the QP's
 * PD (type 2: free), a bound region of the same PD with MW_BIND access,
 * the range inside it, remote write or atomic only if it has local write.
 */
static uint8_t vhca_mw_bind_check(VhcaState *s, const VhcaQp *qp,
                                  const VhcaMr *mw, const VhcaMr *mr,
                                  uint64_t addr, uint64_t len, uint32_t access)
{
    if (!mw || mw->pdn != qp->pdn) {
        return mw ? VHCA_VERR_PD_MISMATCH : VHCA_VERR_BAD_KEY;
    }
    if (mw->mw_type == VHCA_MW_TYPE_2 && mw->bound) {
        return VHCA_VERR_BAD_KEY;   /* a type 2 window binds only when free */
    }
    if (mw->mw_type == VHCA_MW_TYPE_1 && len == 0) {
        return VHCA_VERR_NONE;      /* unbind: no region needed */
    }
    if (!mr || !mr->bound || mr->window || mr->frwr) {
        return VHCA_VERR_BAD_KEY;
    }
    if (mr->pdn != qp->pdn) {
        return VHCA_VERR_PD_MISMATCH;
    }
    if (!(mr->access & VHCA_ACCESS_MW_BIND) || (access & ~VHCA_MW_ACCESS) ||
        ((access & (VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_ATOMIC)) &&
         !(mr->access & VHCA_ACCESS_LOCAL_WRITE))) {
        return VHCA_VERR_ACCESS_RIGHTS;
    }
    if (addr < mr->iova || addr + len < addr ||
        addr - mr->iova > mr->length || len > mr->length - (addr - mr->iova)) {
        return VHCA_VERR_BOUNDS;
    }
    return VHCA_VERR_NONE;
}

/* BIND_MW WQE on qp. */
uint8_t vhca_mw_bind(VhcaState *s, const VhcaQp *qp,
                     const struct vhca_wqe_bind_mw *wqe)
{
    uint32_t key = le32_to_cpu(wqe->mw_key);
    uint32_t mr_key = le32_to_cpu(wqe->mr_key);
    uint64_t addr = le64_to_cpu(wqe->addr);
    uint64_t len = le64_to_cpu(wqe->length);
    uint32_t access = le32_to_cpu(wqe->access);
    VhcaMr *mw = vhca_mw_slot(s, key);
    uint32_t mr_index = VHCA_KEY_INDEX(mr_key);
    const VhcaMr *mr = NULL;
    uint8_t verr;

    if (mr_index && mr_index < VHCA_MAX_MR && s->mrs[mr_index].valid &&
        s->mrs[mr_index].variant == VHCA_KEY_VARIANT(mr_key)) {
        mr = &s->mrs[mr_index];
    }
    verr = vhca_mw_bind_check(s, qp, mw, mr, addr, len, access);
    if (verr != VHCA_VERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x bind of window 0x%x to "
                      "region 0x%x refused (%u)\n", qp->handle, key, mr_key,
                      verr);
        trace_vhca_mr_access_error(key, qp->pdn, access, addr, len, verr);
        return verr;
    }
    mw->variant = VHCA_KEY_VARIANT(key);
    mw->bound = len != 0;
    mw->parent = mw->bound ? mr_index : 0;
    mw->access = mw->bound ? access : 0;
    mw->iova = addr;
    mw->length = len;
    mw->bound_qpn = qp->handle;
    trace_vhca_mr_create(key, qp->pdn, access, addr, len);
    return VHCA_VERR_NONE;
}

/*
 * LOCAL_INV on qp, or SEND_WITH_INV arriving on it, naming a window: only
 * a bound type 2 window, bound to that QP (IBA 10.6.7.2.3).
 */
uint8_t vhca_mw_invalidate(VhcaState *s, uint32_t key, uint32_t pdn,
                           uint32_t qpn)
{
    VhcaMr *mw = vhca_mw_slot(s, key);

    if (!mw || mw->variant != VHCA_KEY_VARIANT(key) || !mw->bound ||
        mw->mw_type != VHCA_MW_TYPE_2) {
        return VHCA_VERR_BAD_KEY;
    }
    if (mw->pdn != pdn) {
        return VHCA_VERR_PD_MISMATCH;
    }
    if (mw->bound_qpn != qpn) {
        return VHCA_VERR_ACCESS_RIGHTS;
    }
    mw->bound = false;
    mw->parent = 0;
    return VHCA_VERR_NONE;
}

/*
 * A remote access through a bound window, arriving on QP qpn of PD pdn:
 * the window's PD (type 1) or QP (type 2), rights and range; the region
 * it lies in translates the addresses (its iova space is the window's).
 */
uint8_t vhca_mw_translate(VhcaState *s, const VhcaMr *mw, uint32_t pdn,
                          uint32_t qpn, uint32_t access, uint64_t addr,
                          uint64_t len, const VhcaMr **mr_out)
{
    if (!mw->bound) {
        return VHCA_VERR_BAD_KEY;
    }
    if (mw->pdn != pdn ||
        (mw->mw_type == VHCA_MW_TYPE_2 && mw->bound_qpn != qpn)) {
        return VHCA_VERR_PD_MISMATCH;
    }
    if ((mw->access & access) != access) {
        return VHCA_VERR_ACCESS_RIGHTS;
    }
    if (len && (addr < mw->iova || addr + len < addr ||
                addr - mw->iova > mw->length ||
                len > mw->length - (addr - mw->iova))) {
        return VHCA_VERR_BOUNDS;
    }
    *mr_out = &s->mrs[mw->parent];
    return VHCA_VERR_NONE;
}
