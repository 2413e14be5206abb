// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Event queue consumption (vhca_hw.h "Event queues"): a ring of 32-byte
// EQEs the device writes; an entry is new when its owner bit matches the
// parity of the current pass (1 on the first pass, 0 on the second, ...).
//
// Only the EQ's interrupt handler consumes it (an MSI-X vector's handler
// never runs concurrently with itself), so there is no lock.
#ifndef VHCA_CORE_EVENT_QUEUE_H
#define VHCA_CORE_EVENT_QUEUE_H

#include "dma_buffer.h"
#include "heap.h"
#include "memory.h"
#include "owned_ptr.h"
#include "registers.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class EventQueue : public HeapObject {
 public:
  static Result<OwnedPtr<EventQueue>> Create(Registers regs, uint32_t log_size);

  uint64_t ring_dma() const { return ring_.dma(); }
  uint32_t log_size() const { return log_size_; }
  uint32_t consumer_index() const { return consumer_index_; }
  uint32_t eqn() const { return eqn_; }
  // The device's number for this EQ (0 for EQ 0, CREATE_EQ's result else).
  void set_eqn(uint32_t eqn) { eqn_ = eqn; }

  // Tells the device how far we consumed and asks for an interrupt on the
  // next event (at once if events are pending).
  void Arm() { regs_.RingEq(eqn_, consumer_index_, true); }

  // Hands new EQEs to handle(const vhca_eqe&), then re-arms.  Reports
  // progress without arming every half ring so that a long burst cannot
  // overflow the queue.  At most one ring's worth per call: this runs in
  // the hard interrupt handler, which must end even while the device
  // writes events as fast as they are consumed (other CPUs' work); the
  // arm makes the device interrupt again at once for those left (mlx5's
  // MLX5_EQ_POLLING_BUDGET).  Returns the number of events handled.
  template <typename Handler>
  uint32_t Poll(Handler&& handle) {
    uint32_t handled = 0;
    vhca_eqe event;
    while (handled < num_entries() && Next(&event)) {
      handle(static_cast<const vhca_eqe&>(event));
      if (++handled % (num_entries() / 2) == 0)
        regs_.RingEq(eqn_, consumer_index_, false);
    }
    Arm();
    return handled;
  }

 private:
  explicit EventQueue(Registers regs) : regs_(regs) {}
  uint32_t num_entries() const { return 1u << log_size_; }
  // Copies the entry at the consumer index out and advances; false if the
  // device has not written it yet.
  bool Next(vhca_eqe* event);

  Registers regs_;
  uint32_t log_size_ = 0;
  uint32_t eqn_ = 0;
  uint32_t consumer_index_ = 0;
  DmaBuffer ring_;
};

}  // namespace vhca

#endif  // VHCA_CORE_EVENT_QUEUE_H
