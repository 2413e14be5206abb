// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* vm_flags_clear (6.3): vm_area_struct.vm_flags is changed only through
 * the vm_flags_* helpers; 6.1 writes the field (the clock info page's
 * mapping drops VM_MAYWRITE, driver/shim/uverbs.c). */
#include <linux/mm.h>

static void probe(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
}

void (*const vhca_probe_fn)(struct vm_area_struct *vma) = probe;
