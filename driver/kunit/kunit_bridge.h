/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * kunit_bridge.h - between the C KUnit suites (suites.c) and the C++ test
 * bodies and helpers (core_tests.cpp), which cannot include the kernel's
 * KUnit headers.  `test` is a struct kunit *, opaque to C++.  Same type
 * rules as vhca_kapi.h.
 */
#ifndef VHCA_KUNIT_BRIDGE_H
#define VHCA_KUNIT_BRIDGE_H

#include "kunit_fake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the test failed (KUNIT_FAIL) with file:line and the message. */
void vhca_kunit_fail(void *test, const char *file, int line, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

/* C++ test bodies. */
void vhca_kt_eq_owner_bit_wraps(void *test, struct vhca_fake *fake);
void vhca_kt_cmdq_rejects_oversized(void *test, struct vhca_fake *fake);

/* Views into the core's state that the C API does not expose. */
unsigned int vhca_kt_pds_outstanding(struct vhca_core_device *core);
unsigned int vhca_kt_eq0_consumer_index(struct vhca_core_device *core);
int vhca_kt_cmdq_dead(struct vhca_core_device *core);
struct vhca_core_cq;
unsigned int vhca_kt_cq_num(struct vhca_core_cq *cq);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_KUNIT_BRIDGE_H */
