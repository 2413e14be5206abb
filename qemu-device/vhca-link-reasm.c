/*
 * vhca - putting together a message that came from the wire in segments
 * (vhca-link-reasm.h says how).  No device state: frames in, whole
 * messages out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-link-reasm.h"

struct VhcaReasm {
    GHashTable *msgs;           /* key -> VhcaReasmMsg being put together */
    uint64_t bytes;             /* their buffers, at most VHCA_REASM_BUDGET */
};

static void vhca_reasm_msg_free(gpointer p)
{
    VhcaReasmMsg *m = p;

    m->owner->bytes -= m->frame.length;
    g_free(m->data);
    g_free(m->have);
    g_free(m);
}

VhcaReasm *vhca_reasm_new(void)
{
    VhcaReasm *r = g_new0(VhcaReasm, 1);

    r->msgs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                    vhca_reasm_msg_free);
    return r;
}

void vhca_reasm_free(VhcaReasm *r)
{
    if (r) {
        g_hash_table_destroy(r->msgs);
        g_free(r);
    }
}

uint32_t vhca_reasm_key(const VhcaWireFrame *f)
{
    return f->dst_qpn << 1 | (f->kind == VHCA_WIRE_RESPONSE);
}

/* Is f a segment of the message m is putting together? */
static bool vhca_reasm_same(const VhcaReasmMsg *m, const VhcaWireFrame *f)
{
    const VhcaWireFrame *h = &m->frame;

    return h->kind == f->kind && h->opcode == f->opcode &&
           h->syndrome == f->syndrome && h->psn == f->psn &&
           h->slid == f->slid && h->src_qpn == f->src_qpn &&
           h->length == f->length && h->packets == f->packets &&
           h->remote_addr == f->remote_addr && h->rkey == f->rkey &&
           h->imm_inv == f->imm_inv && h->flags == f->flags;
}

static VhcaReasmMsg *vhca_reasm_start(VhcaReasm *r, const VhcaWireFrame *f)
{
    uint32_t segments = DIV_ROUND_UP(f->length, VHCA_WIRE_MAX_PAYLOAD);
    VhcaReasmMsg *m = g_new0(VhcaReasmMsg, 1);

    m->frame = *f;
    m->frame.payload = NULL;
    m->frame.payload_len = 0;
    m->frame.offset = 0;
    m->owner = r;
    m->data = g_malloc(f->length);
    m->have = g_malloc0(segments);
    m->missing = segments;
    r->bytes += f->length;
    g_hash_table_replace(r->msgs, GUINT_TO_POINTER(vhca_reasm_key(f)), m);
    return m;
}

VhcaReasmMsg *vhca_reasm_add(VhcaReasm *r, const VhcaWireFrame *f,
                             const char **why)
{
    gpointer key = GUINT_TO_POINTER(vhca_reasm_key(f));
    VhcaReasmMsg *m = g_hash_table_lookup(r->msgs, key);
    uint32_t seg = f->offset / VHCA_WIRE_MAX_PAYLOAD;

    *why = NULL;
    if (m && !vhca_reasm_same(m, f)) {
        g_hash_table_remove(r->msgs, key);      /* lost: resent whole */
        m = NULL;
    }
    if (!m) {
        if (r->bytes + f->length > VHCA_REASM_BUDGET) {
            *why = "segments over the reassembly budget";
            return NULL;
        }
        m = vhca_reasm_start(r, f);
    }
    if (!m->have[seg]) {
        m->have[seg] = 1;
        memcpy(m->data + f->offset, f->payload, f->payload_len);
        m->missing--;
    }
    if (m->missing) {
        return NULL;
    }
    g_hash_table_steal(r->msgs, key);
    m->frame.payload = m->data;
    m->frame.payload_len = m->frame.length;
    return m;
}

void vhca_reasm_done(VhcaReasmMsg *m)
{
    vhca_reasm_msg_free(m);
}

void vhca_reasm_forget(VhcaReasm *r, uint32_t qpn)
{
    g_hash_table_remove(r->msgs, GUINT_TO_POINTER(qpn << 1));
    g_hash_table_remove(r->msgs, GUINT_TO_POINTER(qpn << 1 | 1));
}
