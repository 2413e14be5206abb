// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "doorbell_pages.h"

#include "vhca_errno.h"
#include "vhca_kapi.h"

namespace vhca {

Result<uint32_t> DoorbellPages::Alloc() {
  for (uint32_t page = 1; page < count_; page++) {
    if (vhca_kapi_test_bit(page, used_)) continue;
    if (!vhca_kapi_test_and_set_bit_lock(page, used_)) return page;
  }
  return Error{-VHCA_ENOSPC};
}

void DoorbellPages::Free(uint32_t page) {
  if (page == 0 || page >= count_) return;
  vhca_kapi_clear_bit_unlock(page, used_);
}

uint32_t DoorbellPages::in_use() const {
  uint32_t count = 0;
  for (uint32_t page = 1; page < count_; page++)
    if (vhca_kapi_test_bit(page, used_)) count++;
  return count;
}

}  // namespace vhca
