// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "doorbell_pages.h"

#include "vhca_errno.h"

namespace vhca {

Result<uint32_t> DoorbellPages::Alloc() {
  for (uint32_t page = 1; page < count_; page++) {
    const uint64_t bit = uint64_t{1} << (page % kBitsPerWord);
    uint64_t* word = &used_[page / kBitsPerWord];
    if (__atomic_load_n(word, __ATOMIC_RELAXED) & bit) continue;
    if (!(__atomic_fetch_or(word, bit, __ATOMIC_ACQUIRE) & bit)) return page;
  }
  return Error{-VHCA_ENOSPC};
}

void DoorbellPages::Free(uint32_t page) {
  if (page == 0 || page >= count_) return;
  const uint64_t bit = uint64_t{1} << (page % kBitsPerWord);
  __atomic_fetch_and(&used_[page / kBitsPerWord], ~bit, __ATOMIC_RELEASE);
}

uint32_t DoorbellPages::in_use() const {
  uint32_t count = 0;
  for (uint32_t page = 1; page < count_; page++)
    if (__atomic_load_n(&used_[page / kBitsPerWord], __ATOMIC_RELAXED) &
        (uint64_t{1} << (page % kBitsPerWord)))
      count++;
  return count;
}

}  // namespace vhca
