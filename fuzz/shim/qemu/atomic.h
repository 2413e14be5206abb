/*
 * Host shim for QEMU's "qemu/atomic.h": the barriers the device's pure
 * files (vhca-place.c) use, from the compiler's builtins, with QEMU's
 * meaning (include/qemu/atomic.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FUZZ_SHIM_ATOMIC_H
#define VHCA_FUZZ_SHIM_ATOMIC_H

#define barrier() __asm__ __volatile__("" ::: "memory")
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* QEMU's relaxed store: one store of the object's size, never merged */
#define qatomic_set(ptr, i) __atomic_store_n(ptr, i, __ATOMIC_RELAXED)

#endif /* VHCA_FUZZ_SHIM_ATOMIC_H */
