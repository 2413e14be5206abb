// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Memory windows (IBA 10.6.7, vhca_hw_verbs.h "Memory windows"): ALLOC_MW
// gives a free window of type 1 or 2 in a PD; the provider binds it with
// BIND_MW WQEs on its own rings (the kernel has no bind verb for user
// windows), and DEALLOC_MW frees it.  The key changes variant at each
// bind; DEALLOC_MW names the window by its index, so the key kept here
// (the one ALLOC_MW gave) is only the handle of that index.
#ifndef VHCA_CORE_MEMORY_WINDOW_H
#define VHCA_CORE_MEMORY_WINDOW_H

#include "device_resource.h"
#include "owned_ptr.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class Device;

class MemoryWindow : public DeviceResource {
 public:
  // type: VHCA_MW_TYPE_1 or _2 (-EOPNOTSUPP for others or when the
  // device does not report the type in dev_caps).
  static Result<OwnedPtr<MemoryWindow>> Alloc(Device& device, uint32_t pdn,
                                              uint32_t type);

  uint32_t key() const { return key_; }
  uint32_t type() const { return type_; }
  Status DestroyOnDevice();
  Device& device() const { return device_; }

 private:
  MemoryWindow(Device& device, uint32_t type)
      : DeviceResource(&DeleteAs<MemoryWindow>), device_(device), type_(type) {}

  Device& device_;
  uint32_t type_;
  uint32_t key_ = 0;
  bool live_ = false;
};

}  // namespace vhca

#endif  // VHCA_CORE_MEMORY_WINDOW_H
