/*
 * vhca - the sparse translation of an implicit ODP region
 * (uapi/vhca_hw_odp.h, VHCA_MR_F_ODP_IMPLICIT): 64-bit page index ->
 * page address, 0 for an absent page.
 *
 * A two-level table: leaves of VHCA_ODP_LEAF_ENTRIES consecutive entries,
 * found by their leaf index (page index >> VHCA_ODP_LEAF_SHIFT) in a hash
 * table, the sparse upper level.  A leaf exists only while one of its
 * entries is present: ODP_MAP creates it, the ODP_INVALIDATE that clears
 * its last present entry frees it.  The caller (vhca-odp.c) counts every
 * leaf as VHCA_ODP_LEAF_ENTRIES entries of the device's page list budget,
 * which bounds what a guest can make QEMU allocate.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-odp-table.h"

#define VHCA_ODP_LEAF_SHIFT     9

typedef struct VhcaOdpLeaf {
    uint64_t index;         /* page index >> VHCA_ODP_LEAF_SHIFT; hash key */
    uint32_t present;       /* entries not 0 */
    uint64_t pages[VHCA_ODP_LEAF_ENTRIES];
} VhcaOdpLeaf;

struct VhcaOdpTable {
    GHashTable *leaves;     /* &leaf->index -> leaf (owned) */
};

VhcaOdpTable *vhca_odp_table_new(void)
{
    VhcaOdpTable *t = g_new0(VhcaOdpTable, 1);

    /* The key lives in the value: only the value is freed. */
    t->leaves = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                      g_free);
    return t;
}

/* Frees the table; returns the budget entries its leaves held. */
uint64_t vhca_odp_table_free(VhcaOdpTable *t)
{
    uint64_t held;

    if (!t) {
        return 0;
    }
    held = (uint64_t)g_hash_table_size(t->leaves) * VHCA_ODP_LEAF_ENTRIES;
    g_hash_table_destroy(t->leaves);
    g_free(t);
    return held;
}

static VhcaOdpLeaf *vhca_odp_leaf(const VhcaOdpTable *t, uint64_t leaf_index)
{
    return g_hash_table_lookup(t->leaves, &leaf_index);
}

uint64_t vhca_odp_table_get(const VhcaOdpTable *t, uint64_t index)
{
    VhcaOdpLeaf *leaf = vhca_odp_leaf(t, index >> VHCA_ODP_LEAF_SHIFT);

    return leaf ? leaf->pages[index & (VHCA_ODP_LEAF_ENTRIES - 1)] : 0;
}

/*
 * The budget entries vhca_odp_table_set(first, n) would add: the leaves
 * of [first, first + n) that do not exist yet.  n >= 1 and the range
 * does not wrap (checked by the caller).
 */
uint64_t vhca_odp_table_growth(const VhcaOdpTable *t, uint64_t first,
                               uint32_t n)
{
    uint64_t leaf, last = (first + n - 1) >> VHCA_ODP_LEAF_SHIFT;
    uint64_t missing = 0;

    for (leaf = first >> VHCA_ODP_LEAF_SHIFT; leaf <= last; leaf++) {
        missing += vhca_odp_leaf(t, leaf) ? 0 : 1;
    }
    return missing * VHCA_ODP_LEAF_ENTRIES;
}

/* Entries [first, first + n) <- pages[] (none 0), leaves created. */
void vhca_odp_table_set(VhcaOdpTable *t, uint64_t first, uint32_t n,
                        const uint64_t *pages)
{
    VhcaOdpLeaf *leaf = NULL;
    uint64_t index;
    uint32_t i, slot;

    for (i = 0; i < n; i++) {
        index = first + i;
        slot = index & (VHCA_ODP_LEAF_ENTRIES - 1);
        if (!leaf || leaf->index != index >> VHCA_ODP_LEAF_SHIFT) {
            leaf = vhca_odp_leaf(t, index >> VHCA_ODP_LEAF_SHIFT);
        }
        if (!leaf) {
            leaf = g_new0(VhcaOdpLeaf, 1);
            leaf->index = index >> VHCA_ODP_LEAF_SHIFT;
            g_hash_table_insert(t->leaves, &leaf->index, leaf);
        }
        leaf->present += leaf->pages[slot] ? 0 : 1;
        leaf->pages[slot] = pages[i];
    }
}

/*
 * Clears the leaf's entries inside [first, last]; true when it is empty.
 * The walk counts slots, not page indexes: the last leaf of 64-bit space
 * ends at index 2^64 - 1, where an index would wrap to 0 and run on
 * past the leaf (fuzz/regressions/odp_table).
 */
static bool vhca_odp_leaf_clear(VhcaOdpLeaf *leaf, uint64_t first,
                                uint64_t last)
{
    uint64_t base = leaf->index << VHCA_ODP_LEAF_SHIFT;
    uint32_t from = MAX(first, base) - base;
    uint32_t to = MIN(last, base + VHCA_ODP_LEAF_ENTRIES - 1) - base;
    uint32_t slot;

    for (slot = from; slot <= to && leaf->present; slot++) {
        if (leaf->pages[slot]) {
            leaf->pages[slot] = 0;
            leaf->present--;
        }
    }
    return leaf->present == 0;
}

/*
 * Entries [first, first + n) become absent; the leaves left empty are
 * freed.  Returns the budget entries given back.  A range of more leaves
 * than the table holds walks the table instead of the range, so a guest's
 * ODP_INVALIDATE of 2^32 pages costs no more than the table's size.
 */
uint64_t vhca_odp_table_clear(VhcaOdpTable *t, uint64_t first, uint64_t n)
{
    uint64_t last = first + n - 1;
    uint64_t first_leaf = first >> VHCA_ODP_LEAF_SHIFT;
    uint64_t last_leaf = last >> VHCA_ODP_LEAF_SHIFT;
    uint64_t freed = 0, leaf_index;
    GHashTableIter iter;
    VhcaOdpLeaf *leaf;

    if (last_leaf - first_leaf >= g_hash_table_size(t->leaves)) {
        g_hash_table_iter_init(&iter, t->leaves);
        while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&leaf)) {
            if (leaf->index >= first_leaf && leaf->index <= last_leaf &&
                vhca_odp_leaf_clear(leaf, first, last)) {
                g_hash_table_iter_remove(&iter);
                freed++;
            }
        }
        return freed * VHCA_ODP_LEAF_ENTRIES;
    }
    for (leaf_index = first_leaf; leaf_index <= last_leaf; leaf_index++) {
        leaf = vhca_odp_leaf(t, leaf_index);
        if (leaf && vhca_odp_leaf_clear(leaf, first, last)) {
            g_hash_table_remove(t->leaves, &leaf_index);
            freed++;
        }
    }
    return freed * VHCA_ODP_LEAF_ENTRIES;
}
