/*
 * libFuzzer target: the sparse translation of an implicit ODP region
 * (qemu-device/vhca-odp-table.c), which ODP_MAP and ODP_INVALIDATE of a
 * guest fill and empty at any 64-bit page index.
 *
 * Input: byte 0 the page list budget in leaves (byte % 16 + 1); then
 * 11-byte operations: an opcode byte, a 64-bit page index and a 16-bit
 * count (little-endian).  Opcodes (byte % 4): 0 map 1 + count % 1024
 * pages from the index on (as vhca-odp.c's vhca_odp_set: only when the
 * new leaves fit the budget); 1 invalidate count pages; 2 invalidate
 * count << 24 pages (up to 2^40: the walk over the table instead of the
 * range); 3 look up the index and its neighbours.  Ranges that would
 * wrap past 2^64 are cut at 2^64 - 1, as the device refuses them.  At
 * the end the table is destroyed.
 *
 * Checked against a reference model (blocks of pages in a plain array):
 * every lookup gives the model's page (0 when absent); growth is the
 * number of leaves (VHCA_ODP_LEAF_ENTRIES-entry blocks) of the range the
 * model has no entry in, times VHCA_ODP_LEAF_ENTRIES; what clear gives
 * back is the leaves it left empty; the budget held always equals the
 * model's leaves, and destroying gives all of it back.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-odp-table.h"

#define OP_BYTES        11
#define MAX_MAP         1024u
#define MAX_BLOCKS      17      /* the largest budget's leaves, and one */
#define LEAF(index)     ((index) / VHCA_ODP_LEAF_ENTRIES)
#define SLOT(index)     ((index) % VHCA_ODP_LEAF_ENTRIES)

/*
 * The model: blocks of VHCA_ODP_LEAF_ENTRIES pages in a plain array,
 * searched one by one; a block with no page counts as no leaf.
 */
typedef struct ModelBlock {
    uint64_t leaf;
    uint32_t present;
    uint64_t page[VHCA_ODP_LEAF_ENTRIES];
} ModelBlock;

static ModelBlock model[MAX_BLOCKS];

static void expect(bool ok, const char *what, uint64_t a, uint64_t b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_odp_table: %s (0x%" PRIx64 ", 0x%" PRIx64 ")\n",
                what, a, b);
        abort();
    }
}

static ModelBlock *model_block(uint64_t leaf)
{
    size_t i;

    for (i = 0; i < MAX_BLOCKS; i++) {
        if (model[i].present && model[i].leaf == leaf) {
            return &model[i];
        }
    }
    return NULL;
}

static uint64_t model_get(uint64_t index)
{
    ModelBlock *b = model_block(LEAF(index));

    return b ? b->page[SLOT(index)] : 0;
}

static uint64_t model_leaves(void)
{
    uint64_t leaves = 0;
    size_t i;

    for (i = 0; i < MAX_BLOCKS; i++) {
        leaves += model[i].present != 0;
    }
    return leaves;
}

static void model_set(uint64_t index, uint64_t page)
{
    ModelBlock *b = model_block(LEAF(index));
    size_t i;

    for (i = 0; !b && i < MAX_BLOCKS; i++) {
        if (!model[i].present) {
            b = &model[i];
            memset(b, 0, sizeof(*b));
            b->leaf = LEAF(index);
        }
    }
    expect(b != NULL, "model full", index, 0);
    b->present += b->page[SLOT(index)] == 0;
    b->page[SLOT(index)] = page;
}

/* fn(block, slot, index, ctx) for every present page of the model. */
static void model_each(void (*fn)(ModelBlock *, size_t, uint64_t, void *),
                       void *ctx)
{
    size_t i, slot;

    for (i = 0; i < MAX_BLOCKS; i++) {
        for (slot = 0; model[i].present && slot < VHCA_ODP_LEAF_ENTRIES;
             slot++) {
            if (model[i].page[slot]) {
                fn(&model[i], slot,
                   model[i].leaf * VHCA_ODP_LEAF_ENTRIES + slot, ctx);
            }
        }
    }
}

static void model_clear_one(ModelBlock *b, size_t slot, uint64_t index,
                            void *range)
{
    const uint64_t *first_last = range;

    if (index >= first_last[0] && index <= first_last[1]) {
        b->page[slot] = 0;
        b->present--;
    }
}

static void model_clear(uint64_t first, uint64_t last)
{
    uint64_t range[2] = { first, last };

    model_each(model_clear_one, range);
}

/* The leaves of [first, last] without a model page, in budget entries. */
static uint64_t model_growth(uint64_t first, uint64_t last)
{
    uint64_t leaf, missing = 0;

    for (leaf = LEAF(first); leaf <= LEAF(last); leaf++) {
        missing += model_block(leaf) == NULL;
    }
    return missing * VHCA_ODP_LEAF_ENTRIES;
}

static void check_lookups(const VhcaOdpTable *t, uint64_t index)
{
    static const int64_t around[] = { -1, 0, 1, VHCA_ODP_LEAF_ENTRIES };
    uint64_t at;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(around); i++) {
        at = index + around[i];
        expect(vhca_odp_table_get(t, at) == model_get(at), "lookup differs",
               at, model_get(at));
    }
}

static void check_entry(ModelBlock *b, size_t slot, uint64_t index,
                        void *table)
{
    expect(vhca_odp_table_get(table, index) == b->page[slot],
           "entry differs", index, b->page[slot]);
}

static void check_all(VhcaOdpTable *t, uint64_t held)
{
    model_each(check_entry, t);
    expect(held == model_leaves() * VHCA_ODP_LEAF_ENTRIES,
           "budget held differs from the leaves", held, model_leaves());
}

/* ODP_MAP of n pages at first, when its new leaves fit the budget. */
static void op_map(VhcaOdpTable *t, uint64_t first, uint32_t n,
                   uint64_t budget, uint64_t *held)
{
    static uint64_t pages[MAX_MAP];
    uint64_t growth = vhca_odp_table_growth(t, first, n);
    uint32_t i;

    expect(growth == model_growth(first, first + n - 1), "growth differs",
           growth, model_growth(first, first + n - 1));
    if (*held + growth > budget) {
        return;                 /* the device answers NO_RESOURCES */
    }
    for (i = 0; i < n; i++) {
        pages[i] = (first + i) << 12 | 0x1000;     /* never 0 */
        model_set(first + i, pages[i]);
    }
    vhca_odp_table_set(t, first, n, pages);
    *held += growth;
}

static void op_clear(VhcaOdpTable *t, uint64_t first, uint64_t n,
                     uint64_t *held)
{
    uint64_t before = model_leaves(), freed;

    model_clear(first, first + n - 1);
    freed = vhca_odp_table_clear(t, first, n);
    expect(freed == (before - model_leaves()) * VHCA_ODP_LEAF_ENTRIES,
           "clear gave back other than the emptied leaves", freed, before);
    expect(freed <= *held, "clear gave back more than held", freed, *held);
    *held -= freed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VhcaOdpTable *t;
    uint64_t budget, held = 0, first, n;
    uint16_t count;
    size_t off;

    if (size < 1) {
        return 0;
    }
    budget = (uint64_t)(data[0] % 16 + 1) * VHCA_ODP_LEAF_ENTRIES;
    memset(model, 0, sizeof(model));
    t = vhca_odp_table_new();
    for (off = 1; off + OP_BYTES <= size; off += OP_BYTES) {
        memcpy(&first, data + off + 1, 8);
        first = GUINT64_FROM_LE(first);
        memcpy(&count, data + off + 9, 2);
        count = GUINT16_FROM_LE(count);
        switch (data[off] % 4) {
        case 0:
            n = 1 + count % MAX_MAP;
            first = MIN(first, UINT64_MAX - (n - 1));
            op_map(t, first, n, budget, &held);
            break;
        case 1:
        case 2:
            n = data[off] % 4 == 1 ? count : (uint64_t)count << 24;
            if (n == 0) {
                break;          /* the device refuses an empty range */
            }
            first = MIN(first, UINT64_MAX - (n - 1));
            op_clear(t, first, n, &held);
            break;
        default:
            break;
        }
        check_lookups(t, first);
        check_all(t, held);
    }
    expect(vhca_odp_table_free(t) == held, "free gave back other than held",
           held, model_leaves());
    return 0;
}
