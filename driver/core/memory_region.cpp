// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "memory_region.h"

#include "device.h"
#include "endian.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

uint32_t FirstByteOffset(uint64_t iova, uint32_t page_shift) {
  return static_cast<uint32_t>(iova & ((uint64_t{1} << page_shift) - 1));
}

}  // namespace

Result<uint32_t> MemoryRegion::DeviceAccess(uint32_t ib_access) {
  if (ib_access & ~(kAccessMask | kOptionalAccess)) return Error{-VHCA_EINVAL};
  return ib_access & kAccessMask;
}

// CREATE_MR of a DMA or ODP region: a fresh key variant, the key kept.
Status MemoryRegion::CreateOnDevice(vhca_cmd_create_mr& in) {
  in.key_variant = device_.NextKeyVariant();
  auto key = device_.commands().CreateMr(in);
  VHCA_TRY(key);
  key_ = key.value();
  live_ = true;
  return Ok();
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::CreateDma(Device& device,
                                                       uint32_t pdn,
                                                       uint32_t access,
                                                       uint64_t dma_addr,
                                                       uint64_t length) {
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  if (length == 0 || dma_addr + length < dma_addr ||
      length > FromLe64(device.attr().max_mr_size))
    return Error{-VHCA_EINVAL};
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kDma));
  if (!mr) return Error{-VHCA_ENOMEM};
  vhca_cmd_create_mr in{};
  in.iova = ToLe64(dma_addr);
  in.length = ToLe64(length);
  in.pdn = ToLe32(pdn);
  in.access = ToLe32(device_access.value());
  in.flags = VHCA_MR_F_PHYSICAL;
  VHCA_TRY(mr->CreateOnDevice(in));
  return mr;
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::CreatePaged(Device& device,
                                                         uint32_t npages) {
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kPaged));
  if (!mr) return Error{-VHCA_ENOMEM};
  auto pages = PageList::Create(device.kdev(), npages);
  VHCA_TRY(pages);
  mr->pages_ = pages.Take();
  return mr;
}

Result<vhca_cmd_create_mr> MemoryRegion::PagedInput(uint32_t pdn, uint64_t iova,
                                                   uint64_t length,
                                                   uint32_t page_shift,
                                                   uint32_t access) const {
  // [iova, iova + length) must not wrap around the address space.
  if (kind_ != Kind::kPaged || length == 0 || iova + length < iova)
    return Error{-VHCA_EINVAL};
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  if (page_shift < VHCA_MIN_PAGE_SHIFT || page_shift > VHCA_MAX_PAGE_SHIFT)
    return Error{-VHCA_EINVAL};
  // The pages must cover [iova, iova + length).
  const uint64_t offset = FirstByteOffset(iova, page_shift);
  const uint64_t span = offset + length;
  if (span < length) return Error{-VHCA_EINVAL};
  const uint64_t npages = ((span - 1) >> page_shift) + 1;
  if (npages > pages_.capacity()) return Error{-VHCA_EINVAL};
  auto desc = pages_.Descriptor(static_cast<uint32_t>(npages), page_shift);
  VHCA_TRY(desc);
  vhca_cmd_create_mr in{};
  in.iova = ToLe64(iova);
  in.length = ToLe64(length);
  in.pages = desc.value();
  in.pdn = ToLe32(pdn);
  in.access = ToLe32(device_access.value());
  in.first_byte_offset = ToLe32(static_cast<uint32_t>(offset));
  return in;
}

Status MemoryRegion::Register(uint32_t pdn, uint64_t iova, uint64_t length,
                              uint32_t page_shift, uint32_t access) {
  if (live_) return Error{-VHCA_EINVAL};
  auto in = PagedInput(pdn, iova, length, page_shift, access);
  VHCA_TRY(in);
  in.value().key_variant = device_.NextKeyVariant();
  auto key = device_.commands().CreateMr(in.value());
  VHCA_TRY(key);
  key_ = key.value();
  live_ = true;
  return Ok();
}

Status MemoryRegion::Reregister(MemoryRegion& staged, uint32_t pdn,
                                uint64_t iova, uint64_t length,
                                uint32_t page_shift, uint32_t access) {
  if (kind_ != Kind::kPaged || !live_ || staged.live_ || &staged == this)
    return Error{-VHCA_EINVAL};
  auto in = staged.PagedInput(pdn, iova, length, page_shift, access);
  VHCA_TRY(in);
  VHCA_TRY(device_.commands().ReregMr(key_, in.value()));
  // The device copied the staged list; ours goes away with `staged`.
  PageList old = Move(pages_);
  pages_ = Move(staged.pages_);
  staged.pages_ = Move(old);
  return Ok();
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::CreateOdp(
    Device& device, uint32_t pdn, uint64_t iova, uint64_t length,
    uint32_t first_byte_offset, uint32_t npages, uint32_t page_shift,
    uint32_t access) {
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  if (!(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_ODP))
    return Error{-VHCA_EOPNOTSUPP};
  if (length == 0 || iova + length < iova || npages == 0 ||
      page_shift < VHCA_MIN_PAGE_SHIFT || page_shift > VHCA_MAX_PAGE_SHIFT ||
      first_byte_offset >> page_shift)
    return Error{-VHCA_EINVAL};
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kOdp));
  if (!mr) return Error{-VHCA_ENOMEM};
  vhca_cmd_create_mr in{};
  in.iova = ToLe64(iova);
  in.length = ToLe64(length);
  in.pages.npages = ToLe32(npages);
  in.pages.page_shift = static_cast<uint8_t>(page_shift);
  in.pages.mode = VHCA_BUF_DIRECT;
  in.pdn = ToLe32(pdn);
  in.access = ToLe32(device_access.value());
  in.first_byte_offset = ToLe32(first_byte_offset);
  in.flags = VHCA_MR_F_ODP;
  VHCA_TRY(mr->CreateOnDevice(in));
  return mr;
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::CreateOdpImplicit(
    Device& device, uint32_t pdn, uint32_t page_shift, uint32_t access) {
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  if (!(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_ODP_IMPLICIT))
    return Error{-VHCA_EOPNOTSUPP};
  if (page_shift < VHCA_MIN_PAGE_SHIFT || page_shift > VHCA_MAX_PAGE_SHIFT)
    return Error{-VHCA_EINVAL};
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kOdp));
  if (!mr) return Error{-VHCA_ENOMEM};
  vhca_cmd_create_mr in{};
  in.iova = ToLe64(0);
  in.length = ToLe64(~uint64_t{0});
  in.pages.page_shift = static_cast<uint8_t>(page_shift);
  in.pages.mode = VHCA_BUF_DIRECT;
  in.pdn = ToLe32(pdn);
  in.access = ToLe32(device_access.value());
  in.flags = VHCA_MR_F_ODP | VHCA_MR_F_ODP_IMPLICIT;
  VHCA_TRY(mr->CreateOnDevice(in));
  return mr;
}

Status MemoryRegion::OdpMap(uint64_t first, uint32_t n, const uint64_t* dma) {
  uint64_t list[DeviceCommands::kOdpMapMax];

  if (kind_ != Kind::kOdp || !live_) return Error{-VHCA_EINVAL};
  while (n) {
    const uint32_t chunk =
        n < DeviceCommands::kOdpMapMax ? n : DeviceCommands::kOdpMapMax;
    for (uint32_t i = 0; i < chunk; i++) list[i] = ToLe64(dma[i]);
    VHCA_TRY(device_.commands().OdpMap(key_, first, chunk, list));
    first += chunk;
    dma += chunk;
    n -= chunk;
  }
  return Ok();
}

Status MemoryRegion::OdpInvalidate(uint64_t first, uint32_t n) {
  if (kind_ != Kind::kOdp || !live_) return Error{-VHCA_EINVAL};
  VHCA_TRY(device_.commands().OdpInvalidate(key_, first, n));
  return Ok();
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::AllocFastReg(Device& device,
                                                          uint32_t pdn,
                                                          uint32_t max_pages) {
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kFastReg));
  if (!mr) return Error{-VHCA_ENOMEM};
  auto pages = PageList::Create(device.kdev(), max_pages);
  VHCA_TRY(pages);
  mr->pages_ = pages.Take();
  auto key = device.commands().AllocMr(pdn, max_pages, device.NextKeyVariant());
  VHCA_TRY(key);
  mr->key_ = key.value();
  mr->live_ = true;
  return mr;
}

Result<OwnedPtr<MemoryRegion>> MemoryRegion::CreateDm(Device& device,
                                                      uint32_t pdn,
                                                      uint32_t access,
                                                      uint32_t dm_offset,
                                                      uint64_t length) {
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  OwnedPtr<MemoryRegion> mr(new MemoryRegion(device, Kind::kDm));
  if (!mr) return Error{-VHCA_ENOMEM};
  vhca_cmd_reg_dm_mr_in in{};
  in.dm_offset = ToLe32(dm_offset);
  in.pdn = ToLe32(pdn);
  in.length = ToLe64(length);
  in.access = ToLe32(device_access.value());
  in.key_variant = device.NextKeyVariant();
  auto key = device.commands().RegDmMr(in);
  VHCA_TRY(key);
  mr->key_ = key.value();
  mr->live_ = true;
  return mr;
}

Status MemoryRegion::MapEnd(uint32_t npages, uint64_t iova, uint64_t length,
                            uint32_t page_shift) {
  if (kind_ != Kind::kFastReg || npages == 0 || npages > pages_.capacity() ||
      page_shift < VHCA_MIN_PAGE_SHIFT || page_shift > VHCA_MAX_PAGE_SHIFT ||
      iova + length < iova)
    return Error{-VHCA_EINVAL};
  mapped_pages_ = npages;
  page_shift_ = page_shift;
  first_byte_offset_ = FirstByteOffset(iova, page_shift);
  return Ok();
}

Status MemoryRegion::FillRegSegment(uint32_t key, uint32_t access,
                                    uint64_t iova, uint64_t length,
                                    vhca_wqe_reg_mr* seg) const {
  if (kind_ != Kind::kFastReg || mapped_pages_ == 0 ||
      VHCA_KEY_INDEX(key) != VHCA_KEY_INDEX(key_) || iova + length < iova)
    return Error{-VHCA_EINVAL};
  auto device_access = DeviceAccess(access);
  VHCA_TRY(device_access);
  auto desc = pages_.Descriptor(mapped_pages_, page_shift_);
  VHCA_TRY(desc);
  *seg = vhca_wqe_reg_mr{};
  seg->key = ToLe32(key);
  seg->access = ToLe32(device_access.value());
  seg->iova = ToLe64(iova);
  seg->length = ToLe64(length);
  seg->pages = desc.value();
  seg->first_byte_offset = ToLe32(first_byte_offset_);
  if (key != key_) {
    previous_key_ = key_;
    key_ = key;
  }
  return Ok();
}

Status MemoryRegion::DestroyOnDevice() {
  if (!live_) return Ok();
  // The last REG_MR may have failed on the device, which then still
  // knows the region under its previous key: BAD_HANDLE is expected.
  const bool key_may_be_unknown = previous_key_ && previous_key_ != key_;
  Status status = device_.commands().DestroyMr(
      key_, key_may_be_unknown ? VHCA_CMD_BAD_HANDLE : VHCA_CMD_OK);
  if (status.error() == -VHCA_ENOENT && key_may_be_unknown)
    status = device_.commands().DestroyMr(previous_key_);
  VHCA_TRY(status);
  live_ = false;
  return Ok();
}

}  // namespace vhca
