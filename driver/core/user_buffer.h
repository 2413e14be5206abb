// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A pinned user buffer as the device sees it (uverbs): the DMA addresses
// of its 4 KiB pages in a PageList, filled by the shim from an ib_umem.
// User CQ, QP and SRQ rings start at the buffer's first byte (the
// provider allocates them page aligned); a CQ's or receive queue's
// doorbell record lies in the same buffer after its ring.  The queue that uses the buffer owns it
// (the device copied the list at CREATE, but an object retired after a
// lost command may still be created later).
#ifndef VHCA_CORE_USER_BUFFER_H
#define VHCA_CORE_USER_BUFFER_H

#include "heap.h"
#include "owned_ptr.h"
#include "page_list.h"
#include "result.h"
#include "vhca_errno.h"
#include "vhca_hw.h"

namespace vhca {

class UserBuffer : public HeapObject {
 public:
  static constexpr uint32_t kPageShift = VHCA_MIN_PAGE_SHIFT;
  static constexpr uint64_t kPageSize = uint64_t{1} << kPageShift;

  // Room for npages page addresses (1..PageList::kIndirectMax).
  static Result<OwnedPtr<UserBuffer>> Create(vhca_kapi_device* kdev,
                                             uint32_t npages);

  uint32_t npages() const { return npages_; }
  void SetPage(uint32_t index, uint64_t dma) { pages_.Set(index, dma); }

  // The descriptor of a ring of `bytes` bytes at the start of the buffer;
  // -EINVAL when the buffer is shorter (or bytes is 0).
  Result<vhca_buf_desc> RingDescriptor(uint64_t bytes) const;
  // The DMA address of byte `offset`; -EINVAL unless it is a multiple of
  // `align` and `size` bytes from there lie inside one page of the buffer.
  Result<uint64_t> AddressOf(uint64_t offset, uint32_t align,
                             uint32_t size) const;
  // The DMA address of a doorbell record of `size` bytes (aligned to its
  // size) at `offset`, after a ring of ring_bytes: the record must not
  // overlap the ring the device reads or writes.
  Result<uint64_t> RecordAddress(uint64_t ring_bytes, uint64_t offset,
                                 uint32_t size) const {
    if (offset < ring_bytes) return Error{-VHCA_EINVAL};
    return AddressOf(offset, size, size);
  }

 private:
  UserBuffer() = default;

  PageList pages_;
  uint32_t npages_ = 0;
};

}  // namespace vhca

#endif  // VHCA_CORE_USER_BUFFER_H
