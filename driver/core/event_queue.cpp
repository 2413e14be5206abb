// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "event_queue.h"

#include "vhca_errno.h"

namespace vhca {

Result<OwnedPtr<EventQueue>> EventQueue::Create(Registers regs,
                                                uint32_t log_size) {
  if (log_size < VHCA_MIN_LOG_EQ || log_size > VHCA_MAX_LOG_EQ)
    return Error{-VHCA_EINVAL};
  OwnedPtr<EventQueue> queue(new EventQueue(regs));
  if (!queue) return Error{-VHCA_ENOMEM};
  queue->log_size_ = log_size;
  // Zeroed by the allocator: owner 0 everywhere, so the first pass
  // (owner 1) sees no stale entry.
  size_t ring_size = sizeof(vhca_eqe) << log_size;
  if (ring_size < VHCA_QUEUE_ALIGN) ring_size = VHCA_QUEUE_ALIGN;
  auto ring = DmaBuffer::Create(regs.kdev(), ring_size);
  VHCA_TRY(ring);
  queue->ring_ = ring.Take();
  return queue;
}

bool EventQueue::Next(vhca_eqe* event) {
  const vhca_eqe* entry = static_cast<const vhca_eqe*>(ring_.cpu()) +
                          (consumer_index_ & (num_entries() - 1));
  const uint8_t owner =
      ReadOnceByte(&entry->owner) & VHCA_EQE_OWNER_BIT;
  if (owner != vhca_eqe_owner(consumer_index_, log_size_)) return false;
  // The device writes the owner byte last: read the rest only after it.
  vhca_kapi_dma_rmb();
  CopyBytes(event, entry, sizeof(*event));
  consumer_index_++;
  return true;
}

}  // namespace vhca
