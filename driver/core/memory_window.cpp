// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "memory_window.h"

#include "device.h"
#include "endian.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

uint32_t CapOfType(uint32_t type) {
  switch (type) {
    case VHCA_MW_TYPE_1: return VHCA_DEV_CAP_MW_TYPE_1;
    case VHCA_MW_TYPE_2: return VHCA_DEV_CAP_MW_TYPE_2;
    default: return 0;
  }
}

}  // namespace

Result<OwnedPtr<MemoryWindow>> MemoryWindow::Alloc(Device& device,
                                                   uint32_t pdn,
                                                   uint32_t type) {
  const uint32_t cap = CapOfType(type);
  if (cap == 0 || !(FromLe32(device.attr().dev_caps) & cap))
    return Error{-VHCA_EOPNOTSUPP};
  OwnedPtr<MemoryWindow> mw(new MemoryWindow(device, type));
  if (!mw) return Error{-VHCA_ENOMEM};
  auto key = device.commands().AllocMw(pdn, type, device.NextKeyVariant());
  VHCA_TRY(key);
  mw->key_ = key.value();
  mw->live_ = true;
  return mw;
}

Status MemoryWindow::DestroyOnDevice() {
  if (!live_) return Ok();
  VHCA_TRY(device_.commands().DeallocMw(key_));
  live_ = false;
  return Ok();
}

}  // namespace vhca
