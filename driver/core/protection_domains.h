// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Protection domains (IBA 10.2.3): the device allocates the numbers; the
// core counts them so that a leak shows up when the device goes away.
// The ib_pd memory itself belongs to ib_core (INIT_RDMA_OBJ_SIZE).
#ifndef VHCA_CORE_PROTECTION_DOMAINS_H
#define VHCA_CORE_PROTECTION_DOMAINS_H

#include "device_commands.h"
#include "memory_model.h"
#include "result.h"

namespace vhca {

class ProtectionDomains {
 public:
  explicit ProtectionDomains(DeviceCommands* commands) : commands_(commands) {}

  Result<uint32_t> Alloc();
  Status Dealloc(uint32_t pdn);
  // Allocated and not yet deallocated (approximate under concurrency:
  // only for diagnostics).
  uint32_t outstanding() const { return outstanding_.Read(); }

 private:
  DeviceCommands* commands_;
  AtomicU32 outstanding_;
};

}  // namespace vhca

#endif  // VHCA_CORE_PROTECTION_DOMAINS_H
