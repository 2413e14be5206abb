// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "page_list.h"

#include "endian.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

constexpr uint32_t kContigPageShift = VHCA_MIN_PAGE_SHIFT;

bool ValidPageShift(uint32_t page_shift) {
  return page_shift >= VHCA_MIN_PAGE_SHIFT && page_shift <= VHCA_MAX_PAGE_SHIFT;
}

vhca_buf_desc MakeDescriptor(uint64_t addr, uint32_t npages,
                             uint32_t page_shift, uint8_t mode) {
  vhca_buf_desc desc{};
  desc.addr = ToLe64(addr);
  desc.npages = ToLe32(npages);
  desc.page_shift = static_cast<uint8_t>(page_shift);
  desc.mode = mode;
  return desc;
}

}  // namespace

Result<vhca_buf_desc> ContiguousDescriptor(uint64_t dma, uint64_t size) {
  const uint64_t page_size = uint64_t{1} << kContigPageShift;
  if (size == 0 || dma % page_size) return Error{-VHCA_EINVAL};
  const uint64_t npages = (size + page_size - 1) >> kContigPageShift;
  if (npages > 0xffffffffull) return Error{-VHCA_EINVAL};
  return MakeDescriptor(dma, static_cast<uint32_t>(npages), kContigPageShift,
                        VHCA_BUF_CONTIG);
}

Result<PageList> PageList::Create(vhca_kapi_device* kdev, uint32_t capacity) {
  if (capacity == 0 || capacity > kIndirectMax) return Error{-VHCA_EINVAL};
  PageList list;
  list.capacity_ = capacity;
  if (capacity <= kDirectMax) {
    auto top = DmaBuffer::Create(kdev, size_t{capacity} * sizeof(uint64_t));
    VHCA_TRY(top);
    list.top_ = top.Take();
    return list;
  }
  const uint32_t num_leaves = (capacity + kDirectMax - 1) / kDirectMax;
  auto top = DmaBuffer::Create(kdev, size_t{num_leaves} * sizeof(uint64_t));
  VHCA_TRY(top);
  list.top_ = top.Take();
  if (!list.leaves_.Allocate(num_leaves)) return Error{-VHCA_ENOMEM};
  uint64_t* top_entries = static_cast<uint64_t*>(list.top_.cpu());
  for (uint32_t i = 0; i < num_leaves; i++) {
    // Every leaf is a whole 4 KiB page: the device reads 512 entries.
    auto leaf = DmaBuffer::Create(kdev, kPblPageSize);
    VHCA_TRY(leaf);
    list.leaves_[i] = leaf.Take();
    top_entries[i] = ToLe64(list.leaves_[i].dma());
  }
  return list;
}

uint64_t* PageList::Entry(uint32_t index) const {
  if (!indirect()) return static_cast<uint64_t*>(top_.cpu()) + index;
  return static_cast<uint64_t*>(leaves_[index / kDirectMax].cpu()) +
         index % kDirectMax;
}

void PageList::Set(uint32_t index, uint64_t page_addr) {
  if (index < capacity_) *Entry(index) = ToLe64(page_addr);
}

uint64_t PageList::Get(uint32_t index) const {
  return index < capacity_ ? FromLe64(*Entry(index)) : 0;
}

Result<vhca_buf_desc> PageList::Descriptor(uint32_t npages,
                                           uint32_t page_shift) const {
  if (npages == 0 || npages > capacity_ || !ValidPageShift(page_shift))
    return Error{-VHCA_EINVAL};
  return MakeDescriptor(top_.dma(), npages, page_shift,
                        indirect() ? VHCA_BUF_INDIRECT : VHCA_BUF_DIRECT);
}

}  // namespace vhca
