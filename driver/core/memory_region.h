// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Memory regions (Guide 7, IBA 10.6; vhca_hw_verbs.h "Memory regions").
// Three kinds, one class:
//  - DMA: CREATE_MR with VHCA_MR_F_PHYSICAL, iova = DMA address, over a
//    DMA range (the device bounds it by max_mr_size and guest memory, so
//    it cannot be ib_get_dma_mr's "all memory"; kernel ULPs use the
//    reserved VHCA_LOCAL_DMA_LKEY instead).
//  - paged: a PageList the shim fills (ib_umem blocks), then CREATE_MR.
//  - fast registration (FRWR): ALLOC_MR reserves a key with max_pages;
//    each map (ib_map_mr_sg) refills the PageList and a REG_MR WQE
//    (re)binds it under a new key variant (ib_update_fast_reg_key).
//  - device memory: REG_DM_MR over a range of BAR 3 (device_memory.h).
//  - on-demand paging (ODP, vhca_hw_odp.h): CREATE_MR with VHCA_MR_F_ODP,
//    npages absent 4 KiB pages; the shim's page-fault work and mmu
//    notifier fill and clear them (OdpMap, OdpInvalidate).
// A key is index << 8 | variant; the region's lkey and rkey are the same.
#ifndef VHCA_CORE_MEMORY_REGION_H
#define VHCA_CORE_MEMORY_REGION_H

#include "device_resource.h"
#include "owned_ptr.h"
#include "page_list.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class Device;

class MemoryRegion : public DeviceResource {
 public:
  enum class Kind : uint8_t { kDma, kPaged, kFastReg, kDm, kOdp };

  // IB_ACCESS_* bits the device implements (MW_BIND, bit 4, lets memory
  // windows be bound to the region; FLUSH_GLOBAL/PERSISTENT, bits 8 and 9,
  // FLUSH of that placement type, which the kernel's core allows only
  // when the device reports IB_DEVICE_FLUSH_*); the optional hints
  // (IB_ACCESS_OPTIONAL, bits 20..29) are ignored; anything else is
  // -EINVAL.
  static constexpr uint32_t kAccessMask = VHCA_ACCESS_LOCAL_WRITE |
      VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ |
      VHCA_ACCESS_REMOTE_ATOMIC | VHCA_ACCESS_MW_BIND | VHCA_ACCESS_FLUSH;
  static constexpr uint32_t kOptionalAccess = 0x3ffu << 20;
  static Result<uint32_t> DeviceAccess(uint32_t ib_access);

  // A physical region over DMA addresses [dma_addr, dma_addr + length).
  static Result<OwnedPtr<MemoryRegion>> CreateDma(Device& device, uint32_t pdn,
                                                  uint32_t access,
                                                  uint64_t dma_addr,
                                                  uint64_t length);
  // A region with room for npages pages; Register() makes it live.
  static Result<OwnedPtr<MemoryRegion>> CreatePaged(Device& device,
                                                    uint32_t npages);
  // An ODP region: npages pages of 2^page_shift bytes, all absent;
  // first_byte_offset is iova's offset in the first page.
  static Result<OwnedPtr<MemoryRegion>> CreateOdp(
      Device& device, uint32_t pdn, uint64_t iova, uint64_t length,
      uint32_t first_byte_offset, uint32_t npages, uint32_t page_shift,
      uint32_t access);
  // An implicit ODP region (VHCA_DEV_CAP_ODP_IMPLICIT): the whole 64-bit
  // address space in pages of 2^page_shift bytes, all absent; page i is
  // the one at address i << page_shift.
  static Result<OwnedPtr<MemoryRegion>> CreateOdpImplicit(Device& device,
                                                          uint32_t pdn,
                                                          uint32_t page_shift,
                                                          uint32_t access);
  // ODP regions: pages [first, first + n) present at the DMA addresses
  // dma[0..n) (ODP_MAP, kOdpMapMax pages per command), or absent
  // (ODP_INVALIDATE: when it returns the device no longer uses them).
  Status OdpMap(uint64_t first, uint32_t n, const uint64_t* dma);
  Status OdpInvalidate(uint64_t first, uint32_t n);
  static Result<OwnedPtr<MemoryRegion>> AllocFastReg(Device& device,
                                                     uint32_t pdn,
                                                     uint32_t max_pages);
  // A zero-based region over [dm_offset, dm_offset + length) of BAR 3
  // (REG_DM_MR): address a is byte dm_offset + a of the device memory.
  static Result<OwnedPtr<MemoryRegion>> CreateDm(Device& device, uint32_t pdn,
                                                 uint32_t access,
                                                 uint32_t dm_offset,
                                                 uint64_t length);

  Kind kind() const { return kind_; }
  uint32_t key() const { return key_; }
  bool live() const { return live_; }
  const PageList& pages() const { return pages_; }

  // Paged regions: CREATE_MR over the first `npages` filled pages.
  Status Register(uint32_t pdn, uint64_t iova, uint64_t length,
                  uint32_t page_shift, uint32_t access);
  // REREG_MR (IBA 11.2.8): a live paged region takes the translation
  // (the pages filled in `staged`, a paged region never registered), PD
  // and access given, and keeps its key.  On success `staged` holds the
  // old pages (free it); on an error nothing changed.
  Status Reregister(MemoryRegion& staged, uint32_t pdn, uint64_t iova,
                    uint64_t length, uint32_t page_shift, uint32_t access);
  // Paged and fast-registration regions.
  void SetPage(uint32_t index, uint64_t page_addr) { pages_.Set(index, page_addr); }
  // Fast registration: the mapping the next REG_MR WQE installs.
  void MapBegin() { mapped_pages_ = 0; }
  Status MapEnd(uint32_t npages, uint64_t iova, uint64_t length,
                uint32_t page_shift);
  // The REG_MR segment for key (same index, new variant) and access, at
  // the iova and length the ib_mr has when the WR is posted; the mapping
  // (pages, first byte offset) is MapEnd's.  Remembers key as the
  // region's current key.
  Status FillRegSegment(uint32_t key, uint32_t access, uint64_t iova,
                        uint64_t length, vhca_wqe_reg_mr* seg) const;

  // DESTROY_MR.  On an error with a device answer the region stays.
  Status DestroyOnDevice();
  Device& device() const { return device_; }

 private:
  Status CreateOnDevice(vhca_cmd_create_mr& in);
  // The CREATE_MR/REREG_MR input over this paged region's pages (no
  // key_variant).
  Result<vhca_cmd_create_mr> PagedInput(uint32_t pdn, uint64_t iova,
                                        uint64_t length, uint32_t page_shift,
                                        uint32_t access) const;
  MemoryRegion(Device& device, Kind kind)
      : DeviceResource(&DeleteAs<MemoryRegion>), device_(device), kind_(kind) {}

  Device& device_;
  Kind kind_;
  bool live_ = false;
  mutable uint32_t key_ = 0;
  // The key before the last REG_MR: the device keeps it if that WQE
  // failed, and DESTROY_MR wants the device's current variant.
  mutable uint32_t previous_key_ = 0;
  PageList pages_;
  // Fast registration: the current mapping.
  uint32_t mapped_pages_ = 0;
  uint32_t page_shift_ = 0;
  // Where the data starts in the first page: a property of the mapping,
  // kept when a ULP rewrites the iova's upper bits before posting.
  uint32_t first_byte_offset_ = 0;
};

}  // namespace vhca

#endif  // VHCA_CORE_MEMORY_REGION_H
