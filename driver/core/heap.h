// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Heap allocation for core objects.
//
// There is deliberately no global operator new/delete in the core: a class
// that can live on the heap derives from HeapObject, whose class-specific
// operators go to the shim's kzalloc/kfree.  They are noexcept, so a
// new-expression yields nullptr on failure instead of throwing (and
// -fcheck-new makes the compiler test for it before running the
// constructor).  Any other allocation (new int[4], a stray std:: type)
// leaves an undefined _Znwm/_Znam in the object, which the module's
// symbol allowlist check rejects.
#ifndef VHCA_CORE_HEAP_H
#define VHCA_CORE_HEAP_H

#include "placement_new.h"
#include "vhca_kapi.h"

namespace vhca {

class HeapObject {
 public:
  static void* operator new(size_t size) noexcept {
    return vhca_kapi_zalloc(size);
  }
  static void* operator new[](size_t size) noexcept {
    return vhca_kapi_zalloc(size);
  }
  static void* operator new(size_t, void* where) noexcept { return where; }
  static void operator delete(void* ptr) noexcept { vhca_kapi_free(ptr); }
  static void operator delete[](void* ptr) noexcept { vhca_kapi_free(ptr); }

 protected:
  HeapObject() = default;
  ~HeapObject() = default;
};

}  // namespace vhca

#endif  // VHCA_CORE_HEAP_H
