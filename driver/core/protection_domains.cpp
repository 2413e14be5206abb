// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "protection_domains.h"

namespace vhca {

Result<uint32_t> ProtectionDomains::Alloc() {
  auto pdn = commands_->AllocPd();
  VHCA_TRY(pdn);
  __atomic_add_fetch(&outstanding_, 1, __ATOMIC_RELAXED);
  return pdn.Take();
}

Status ProtectionDomains::Dealloc(uint32_t pdn) {
  VHCA_TRY(commands_->DeallocPd(pdn));
  __atomic_sub_fetch(&outstanding_, 1, __ATOMIC_RELAXED);
  return Ok();
}

}  // namespace vhca
