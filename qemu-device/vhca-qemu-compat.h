/*
 * vhca - the QEMU APIs the device uses that changed between QEMU 7.2
 * (Debian 12's, the default build) and QEMU 10.2 (scripts/build-qemu10.sh).
 *
 * The device is written against QEMU 10.2; on an older QEMU this header
 * maps those names back.  Header moves are tested with __has_include (the
 * header is there or not); API changes with the version of the release
 * that made them (QEMU_VERSION_MAJOR/MINOR from config-host.h, which
 * qemu/osdep.h includes first).  Documentation/device-qemu.md "QEMU versions".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_INFINIBAND_VHCA_QEMU_COMPAT_H
#define HW_INFINIBAND_VHCA_QEMU_COMPAT_H

#define VHCA_QEMU_VERSION (QEMU_VERSION_MAJOR * 100 + QEMU_VERSION_MINOR)

/* 10.1 moved exec/memory.h to system/; 9.2 renamed sysemu/ to system/. */
#if __has_include("system/memory.h")
#include "system/memory.h"
#else
#include "exec/memory.h"
#endif
#if __has_include("system/dma.h")
#include "system/dma.h"
#include "system/qtest.h"
#else
#include "sysemu/dma.h"
#include "sysemu/qtest.h"
#endif
/* 8.0 moved PCIDevice and PCIDeviceClass to pci_device.h. */
#if __has_include("hw/pci/pci_device.h")
#include "hw/pci/pci_device.h"
#else
#include "hw/pci/pci.h"
#endif
#include "hw/qdev-core.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"

/* 9.0 renamed the BQL's functions. */
#if VHCA_QEMU_VERSION < 900
#include "qemu/main-loop.h"
#define bql_lock()      qemu_mutex_lock_iothread()
#define bql_unlock()    qemu_mutex_unlock_iothread()
#define bql_locked()    qemu_mutex_iothread_locked()
#endif

/* 10.0 gave memory_access_is_direct() the access's attributes. */
#if VHCA_QEMU_VERSION < 1000
#define memory_access_is_direct(mr, is_write, attrs) \
    memory_access_is_direct(mr, is_write)
#endif

/*
 * 9.2 made property arrays const and sized (DEFINE_PROP_END_OF_LIST went
 * away); before, the list ended at an entry without a name.  The copy with
 * that entry lives as long as the class, i.e. for the process.
 */
#if VHCA_QEMU_VERSION < 902
static inline void vhca_set_props_terminated(DeviceClass *dc,
                                             const Property *props, size_t n)
{
    Property *list = g_new0(Property, n + 1);

    memcpy(list, props, n * sizeof(*props));
    device_class_set_props(dc, list);
}
#define device_class_set_props(dc, props) \
    vhca_set_props_terminated(dc, props, ARRAY_SIZE(props))
#endif

/*
 * 9.1 gave the Resettable phases the reset's type.  VHCA_RESET_HOLD(fn)
 * names a hold phase written as fn(Object *, ResetType);
 * VHCA_DEFINE_RESET_HOLD(fn), after fn, defines what older QEMUs call.
 */
#if VHCA_QEMU_VERSION < 901
#define VHCA_DEFINE_RESET_HOLD(fn) \
    static void fn##_untyped(Object *obj) { fn(obj, RESET_TYPE_COLD); }
#define VHCA_RESET_HOLD(fn) fn##_untyped
#else
#define VHCA_DEFINE_RESET_HOLD(fn)
#define VHCA_RESET_HOLD(fn) fn
#endif

/* 10.1 made class_init's data pointer const. */
#if VHCA_QEMU_VERSION < 1001
typedef void *VhcaClassData;
#else
typedef const void *VhcaClassData;
#endif

#endif
