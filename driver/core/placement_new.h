// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Placement new.  The freestanding build has no <new>, so it declares the
// one form the core uses; a hosted build (the unit tests) takes <new>'s,
// which must not be defined twice.
#ifndef VHCA_CORE_PLACEMENT_NEW_H
#define VHCA_CORE_PLACEMENT_NEW_H

#include <stddef.h>

#if __STDC_HOSTED__
#include <new>
#else
inline void* operator new(size_t, void* where) noexcept { return where; }
inline void operator delete(void*, void*) noexcept {}
#endif

#endif  // VHCA_CORE_PLACEMENT_NEW_H
