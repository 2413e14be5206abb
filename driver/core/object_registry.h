// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The live CQs, QPs and SRQs of a device, by device handle, for the events
// that name them: COMPLETION EQEs on the completion EQs (-> the CQ's
// completion handler) and QP_EVENT / CQ_ERROR / SRQ_EVENT EQEs on EQ 0
// (-> the asynchronous event handler), vhca_hw_verbs.h "Asynchronous
// events".
//
// Each kind has a bounded-index table (handle_table.h) sized from
// QUERY_DEVICE's limits: the interrupt handler finds the object with one
// acquire load and runs the handler, with no lock held (a ULP handler
// takes its own locks, which elsewhere are held while posting to our
// queues, like mlx4's qp_event).  Remove() empties the slot and then
// synchronize_irq()s every vector whose handler could have found the
// object: EQ 0's (vector 0) for all kinds, and the CQ's completion vector.
// After that no handler runs for the object, and none will (the slot is
// empty), so it can be freed (Guide 8.2.3 note 4: no event of a destroyed
// CQ reaches a new owner).  Those handlers are the only dispatchers: the
// core never polls an EQ outside vhca_core_irq.
//
// No lock: slots change by cmpxchg, so Add/Remove of different objects
// may run concurrently (process context); Dispatch* run in hard-IRQ
// context.  set_ops() happens before the first Add (the shim sets the
// handlers before registering the ib_device).
#ifndef VHCA_CORE_OBJECT_REGISTRY_H
#define VHCA_CORE_OBJECT_REGISTRY_H

#include "device_resource.h"
#include "handle_table.h"
#include "result.h"
#include "vhca_core_verbs.h"
#include "vhca_hw.h"
#include "vhca_kapi.h"

namespace vhca {

class CompletionQueue;
class QueuePair;
class SharedReceiveQueue;

class ObjectRegistry {
 public:
  // The most objects of one kind the tables hold (512 KiB of slots): a
  // device reporting more is clamped to this (Device::Start).
  static constexpr uint32_t kMaxObjects = 1u << 16;

  void Init(vhca_kapi_device* kdev) { kdev_ = kdev; }
  // Sizes the tables: cqn < max_cq, srqn < max_srq, QPNs 2..max_qp+1 and
  // the SMI/GSI handles of num_ports ports (Documentation/device-datapath.md
  // "Handles").  Once, before the first Add.
  Status SetLimits(const vhca_device_attr& attr);
  void set_ops(const vhca_core_event_ops& ops) { ops_ = ops; }

  // Add: -EPROTO for a handle outside its table or already registered (a
  // device bug; the caller destroys the object again).  Remove: empties
  // the slot, then waits for the handlers that may have found the object
  // (sleeps: process context only); a no-op wait if it was never added.
  Status Add(CompletionQueue* cq);
  void Remove(CompletionQueue* cq);
  Status Add(QueuePair* qp);
  void Remove(QueuePair* qp);
  Status Add(SharedReceiveQueue* srq);
  void Remove(SharedReceiveQueue* srq);

  // The DESTROY command of a registered object, run by `destroy`: out of
  // its slot first (QueuePair::DestroyOnDevice says why), back into it
  // when the device refused (*live stays true); else *live = false, also
  // when the device may still use its memory (DeviceMayStillUse: the
  // caller retires it).  Returns the command's status.
  template <typename Object, typename DestroyCommand>
  Status Destroy(Object* object, bool* live, DestroyCommand destroy) {
    Remove(object);
    const Status status = destroy();
    if (!status.ok() && !DeviceMayStillUse(status.error())) {
      (void)Add(object);
      return status;
    }
    *live = false;
    return status;
  }

  // A VHCA_EQE_COMPLETION (hard-IRQ context, the CQ's vector).
  void DispatchCompletion(uint32_t cqn);
  // A QP_EVENT, CQ_ERROR or SRQ_EVENT from EQ 0 (hard-IRQ context, vector
  // 0); false for other types.
  bool DispatchAsync(const vhca_eqe& event);

  // Events for no (longer) registered object.
  uint32_t dropped() const { return dropped_.Read(); }

 private:
  // The QP table's index of a QP handle: the QPN for port 1's SMI/GSI (0,
  // 1) and for RC/UC/UD QPs (2..max_qp+1); after them two slots per
  // further port.  Out of range: the table size (never a valid index).
  uint32_t QpIndex(uint32_t handle) const;
  // Runs the handler for `context` (nullptr: counted as dropped).
  void DeliverAsync(const vhca_eqe& event, void* context);

  vhca_kapi_device* kdev_ = nullptr;
  vhca_core_event_ops ops_{};
  HandleTable<CompletionQueue> cqs_;
  HandleTable<QueuePair> qps_;
  HandleTable<SharedReceiveQueue> srqs_;
  uint32_t max_qp_ = 0;
  uint32_t num_ports_ = 0;
  AtomicU32 dropped_;
};

}  // namespace vhca

#endif  // VHCA_CORE_OBJECT_REGISTRY_H
