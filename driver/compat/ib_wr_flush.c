// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* enum ib_wr_opcode has IB_WR_FLUSH and IB_WR_ATOMIC_WRITE (IBA 1.5;
 * 6.2 added both: 6.12, 7.3; not 6.1). */
#include <rdma/ib_verbs.h>

int vhca_probe_wr_opcodes[] = { IB_WR_FLUSH, IB_WR_ATOMIC_WRITE };
