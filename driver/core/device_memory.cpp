// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "device_memory.h"

#include "device.h"
#include "endian.h"
#include "vhca_errno.h"

namespace vhca {

Result<OwnedPtr<DeviceMemory>> DeviceMemory::Alloc(Device& device,
                                                   uint64_t length,
                                                   uint32_t log_align) {
  const uint64_t max = FromLe64(device.attr().max_dm_size);
  if (!(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_DM) || max == 0)
    return Error{-VHCA_EOPNOTSUPP};
  if (length == 0 || length > max || log_align > VHCA_DM_MAX_LOG_ALIGN)
    return Error{-VHCA_EINVAL};
  OwnedPtr<DeviceMemory> dm(new DeviceMemory(device));
  if (!dm) return Error{-VHCA_ENOMEM};
  auto offset = device.commands().AllocDm(length, log_align);
  VHCA_TRY(offset);
  dm->offset_ = offset.value();
  dm->size_ = (length + VHCA_DM_PAGE_SIZE - 1) & ~uint64_t{VHCA_DM_PAGE_SIZE - 1};
  dm->live_ = true;
  return dm;
}

Status DeviceMemory::DestroyOnDevice() {
  if (!live_) return Ok();
  VHCA_TRY(device_.commands().FreeDm(offset_));
  live_ = false;
  return Ok();
}

}  // namespace vhca
