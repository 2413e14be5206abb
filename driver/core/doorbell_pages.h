// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The doorbell pages of BAR 4 (vhca_hw.h "Doorbells"): page 0 is the
// kernel's, pages 1..count-1 go to user contexts, one each (uverbs
// alloc_ucontext maps its page into the process).  The device obeys a
// data doorbell only on the page its object was created with, so a
// process can ring only its own queues.
//
// A lock-free bitmap (the kernel's bit operations): Alloc and Free may run
// concurrently from any context.
#ifndef VHCA_CORE_DOORBELL_PAGES_H
#define VHCA_CORE_DOORBELL_PAGES_H

#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class DoorbellPages {
 public:
  // The most pages a device may have (vhca_hw.h allows up to 4096).
  static constexpr uint32_t kMaxPages = 4096;

  // count: VHCA_REG_DB_PAGES, clamped to kMaxPages.
  void Init(uint32_t count) { count_ = count < kMaxPages ? count : kMaxPages; }
  uint32_t count() const { return count_; }

  // A free user page (1..count-1); -ENOSPC when all are taken.
  Result<uint32_t> Alloc();
  // Frees a page Alloc returned; other values are ignored.
  void Free(uint32_t page);
  uint32_t in_use() const;

 private:
  static constexpr uint32_t kBitsPerWord = 8 * sizeof(unsigned long);
  uint32_t count_ = 0;
  // The kernel's bitmap layout (linux/bitops.h), changed only through
  // vhca_kapi_test_and_set_bit_lock / vhca_kapi_clear_bit_unlock.
  unsigned long used_[kMaxPages / kBitsPerWord] = {};
};

}  // namespace vhca

#endif  // VHCA_CORE_DOORBELL_PAGES_H
