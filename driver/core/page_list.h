// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Buffer descriptors (vhca_hw_verbs.h "Buffer descriptors"): how a ring or
// a memory region is described to the device.
//
//  - CONTIG: one physically contiguous buffer (kernel rings).
//  - DIRECT: an array of up to kDirectMax page addresses in one DMA page.
//  - INDIRECT: an array of up to kDirectMax addresses of 4 KiB pages, each
//    holding VHCA_PBL_ENTRIES_PER_PAGE page addresses (user memory and big
//    regions): at most kIndirectMax pages.
//
// A PageList owns the DMA pages that hold the addresses; it is filled with
// Set() (the shim walks ib_umem blocks, or ib_sg_to_pages calls it for a
// fast-registration region) and then described with Descriptor().  The
// device copies the list when the command (or REG_MR WQE) executes.
#ifndef VHCA_CORE_PAGE_LIST_H
#define VHCA_CORE_PAGE_LIST_H

#include "dma_buffer.h"
#include "owned_ptr.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

// A contiguous DMA buffer of `size` bytes at `dma`: CONTIG mode,
// 4 KiB pages (the last one partly used when size is not a multiple).
// -EINVAL for an unaligned address, a zero size or more pages than
// npages can count.
Result<vhca_buf_desc> ContiguousDescriptor(uint64_t dma, uint64_t size);

class PageList {
 public:
  // Page addresses one DMA page holds.
  static constexpr uint32_t kDirectMax = VHCA_PBL_ENTRIES_PER_PAGE;
  static constexpr uint32_t kIndirectMax =
      VHCA_PBL_ENTRIES_PER_PAGE * VHCA_PBL_ENTRIES_PER_PAGE;
  static constexpr uint32_t kPblPageSize = VHCA_PBL_PAGE_SIZE;

  // Room for `capacity` page addresses (1..kIndirectMax; -EINVAL beyond).
  static Result<PageList> Create(vhca_kapi_device* kdev, uint32_t capacity);

  PageList() = default;
  PageList(PageList&&) = default;
  PageList& operator=(PageList&&) = default;

  uint32_t capacity() const { return capacity_; }
  bool indirect() const { return capacity_ > kDirectMax; }

  // Entry `index` (< capacity) = the address of a page.
  void Set(uint32_t index, uint64_t page_addr);
  uint64_t Get(uint32_t index) const;

  // The descriptor of the first `npages` entries, pages of 2^page_shift
  // bytes.  -EINVAL if npages is 0 or above capacity, or page_shift is
  // outside VHCA_MIN_PAGE_SHIFT..VHCA_MAX_PAGE_SHIFT.
  Result<vhca_buf_desc> Descriptor(uint32_t npages, uint32_t page_shift) const;

 private:
  uint64_t* Entry(uint32_t index) const;

  uint32_t capacity_ = 0;
  // DIRECT: the one page of addresses.  INDIRECT: the page of leaf
  // addresses.
  DmaBuffer top_;
  OwnedArray<DmaBuffer> leaves_;  // INDIRECT only
};

}  // namespace vhca

#endif  // VHCA_CORE_PAGE_LIST_H
