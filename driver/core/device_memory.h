// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Device memory (ibv_alloc_dm; vhca_hw_verbs.h "Device memory"): ALLOC_DM
// reserves whole 4 KiB pages of BAR 3 and names them by their offset,
// which the shim maps into the owning process and which REG_DM_MR regions
// (MemoryRegion::CreateDm) point into; FREE_DM gives them back.
#ifndef VHCA_CORE_DEVICE_MEMORY_H
#define VHCA_CORE_DEVICE_MEMORY_H

#include "device_resource.h"
#include "owned_ptr.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class Device;

class DeviceMemory : public DeviceResource {
 public:
  // -EOPNOTSUPP without VHCA_DEV_CAP_DM; -EINVAL for a length of 0 or
  // above max_dm_size, or an alignment above VHCA_DM_MAX_LOG_ALIGN;
  // -ENOMEM when no free range fits (the device's NO_RESOURCES).
  static Result<OwnedPtr<DeviceMemory>> Alloc(Device& device, uint64_t length,
                                              uint32_t log_align);

  // The allocation's first byte in BAR 3 (a VHCA_DM_PAGE_SIZE multiple).
  uint32_t offset() const { return offset_; }
  // Bytes of BAR 3 it holds: the length rounded up to whole pages.
  uint64_t size() const { return size_; }
  Status DestroyOnDevice();
  Device& device() const { return device_; }

 private:
  explicit DeviceMemory(Device& device)
      : DeviceResource(&DeleteAs<DeviceMemory>), device_(device) {}

  Device& device_;
  uint32_t offset_ = 0;
  uint64_t size_ = 0;
  bool live_ = false;
};

}  // namespace vhca

#endif  // VHCA_CORE_DEVICE_MEMORY_H
