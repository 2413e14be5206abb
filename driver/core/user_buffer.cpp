// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "user_buffer.h"

#include "vhca_errno.h"

namespace vhca {

Result<OwnedPtr<UserBuffer>> UserBuffer::Create(vhca_kapi_device* kdev,
                                                uint32_t npages) {
  OwnedPtr<UserBuffer> buffer(new UserBuffer());
  if (!buffer) return Error{-VHCA_ENOMEM};
  auto pages = PageList::Create(kdev, npages);
  VHCA_TRY(pages);
  buffer->pages_ = pages.Take();
  buffer->npages_ = npages;
  return buffer;
}

Result<vhca_buf_desc> UserBuffer::RingDescriptor(uint64_t bytes) const {
  if (bytes == 0) return Error{-VHCA_EINVAL};
  const uint64_t npages = (bytes + kPageSize - 1) >> kPageShift;
  if (npages > npages_) return Error{-VHCA_EINVAL};
  return pages_.Descriptor(static_cast<uint32_t>(npages), kPageShift);
}

Result<uint64_t> UserBuffer::AddressOf(uint64_t offset, uint32_t align,
                                       uint32_t size) const {
  const uint64_t in_page = offset & (kPageSize - 1);
  if (align == 0 || offset % align || (offset >> kPageShift) >= npages_ ||
      in_page + size > kPageSize)
    return Error{-VHCA_EINVAL};
  return pages_.Get(static_cast<uint32_t>(offset >> kPageShift)) + in_page;
}

}  // namespace vhca
