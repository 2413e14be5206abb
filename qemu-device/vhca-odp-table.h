/*
 * vhca - the sparse translation of an implicit ODP region
 * (vhca-odp-table.c): 64-bit page index -> page address.  Depends only on
 * GLib, so the host fuzz target (fuzz/fuzz_odp_table.c) builds it alone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_ODP_TABLE_H
#define HW_INFINIBAND_VHCA_ODP_TABLE_H

#define VHCA_ODP_LEAF_ENTRIES   512u    /* entries per leaf (budget unit) */

typedef struct VhcaOdpTable VhcaOdpTable;

VhcaOdpTable *vhca_odp_table_new(void);
uint64_t vhca_odp_table_free(VhcaOdpTable *t);
uint64_t vhca_odp_table_get(const VhcaOdpTable *t, uint64_t index);
uint64_t vhca_odp_table_growth(const VhcaOdpTable *t, uint64_t first,
                               uint32_t n);
void vhca_odp_table_set(VhcaOdpTable *t, uint64_t first, uint32_t n,
                        const uint64_t *pages);
uint64_t vhca_odp_table_clear(VhcaOdpTable *t, uint64_t first, uint64_t n);

#endif /* HW_INFINIBAND_VHCA_ODP_TABLE_H */
