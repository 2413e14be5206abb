/*
 * Host fuzzing shim for QEMU's "qemu/osdep.h": only what the device's pure
 * parsing files (vhca-cmd-check.c) use, from standard C.  Lets
 * scripts/run-fuzz.sh build them with clang alone, without QEMU's tree.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FUZZ_SHIM_OSDEP_H
#define VHCA_FUZZ_SHIM_OSDEP_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* QEMU's osdep.h brings GLib; the targets of GLib-using files
 * (run-fuzz.sh TARGET_FLAGS) ask for it too. */
#ifdef VHCA_FUZZ_GLIB
#include <glib.h>
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#endif
#ifndef QEMU_IS_ALIGNED
#define QEMU_IS_ALIGNED(n, m) (((n) % (m)) == 0)
#endif

#endif /* VHCA_FUZZ_SHIM_OSDEP_H */
