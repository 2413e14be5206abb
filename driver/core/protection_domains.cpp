// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "protection_domains.h"

namespace vhca {

Result<uint32_t> ProtectionDomains::Alloc() {
  auto pdn = commands_->AllocPd();
  VHCA_TRY(pdn);
  outstanding_.Add(1);
  return pdn.Take();
}

Status ProtectionDomains::Dealloc(uint32_t pdn) {
  VHCA_TRY(commands_->DeallocPd(pdn));
  outstanding_.Add(-1);
  return Ok();
}

}  // namespace vhca
