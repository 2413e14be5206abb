// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The live CQs, QPs and SRQs of a device, by device handle, for the events
// that name them: COMPLETION EQEs on the completion EQs (-> the CQ's
// completion handler) and QP_EVENT / CQ_ERROR / SRQ_EVENT EQEs on EQ 0
// (-> the asynchronous event handler), vhca_hw_verbs.h "Asynchronous
// events".
//
// A dispatch looks the object up under the registry lock, counts itself in
// dispatching_ and runs the handler after dropping the lock (from the EQ's
// interrupt handler).  Remove() unlinks the object under the lock and then
// sleeps until dispatching_ is zero, so once Remove() returns no handler
// runs for the object any more and it can be freed (Guide 8.2.3 note 4: no
// event of a destroyed CQ reaches a new owner).  Lookups are linear walks
// of the lists: fine for the object counts of a virtual device.
#ifndef VHCA_CORE_OBJECT_REGISTRY_H
#define VHCA_CORE_OBJECT_REGISTRY_H

#include "intrusive_list.h"
#include "result.h"
#include "sync.h"
#include "vhca_core_verbs.h"
#include "vhca_hw.h"

namespace vhca {

class CompletionQueue;
class QueuePair;
class SharedReceiveQueue;

class ObjectRegistry {
 public:
  Status Init();
  void set_ops(const vhca_core_event_ops& ops);

  // Remove() unlinks the object and then waits (sleeping: process
  // context only) until no handler that may have found it still runs.
  void Add(CompletionQueue* cq);
  void Remove(CompletionQueue* cq);
  void Add(QueuePair* qp);
  void Remove(QueuePair* qp);
  void Add(SharedReceiveQueue* srq);
  void Remove(SharedReceiveQueue* srq);

  // A VHCA_EQE_COMPLETION (hard-IRQ context).
  void DispatchCompletion(uint32_t cqn);
  // A QP_EVENT, CQ_ERROR or SRQ_EVENT from EQ 0; false for other types.
  bool DispatchAsync(const vhca_eqe& event);

  uint32_t dropped() const { return dropped_; }

 private:
  // Handlers run without lock_ held (like mlx4's qp_event): a ULP handler
  // takes its own locks (ipoib's priv->lock) which, elsewhere, are held
  // while posting to our queues.  dispatching_ counts the handlers that
  // run; Remove() waits for it to drain so no handler sees a freed object.
  void* BeginDispatch(void* context);
  void EndDispatch();
  void WaitForDispatches();

  SpinLock lock_;
  uint32_t dispatching_ = 0;  // under lock_
  vhca_core_event_ops ops_{};
  IntrusiveList<CompletionQueue> cqs_;
  IntrusiveList<QueuePair> qps_;
  IntrusiveList<SharedReceiveQueue> srqs_;
  uint32_t dropped_ = 0;  // events for no (longer) registered object
};

}  // namespace vhca

#endif  // VHCA_CORE_OBJECT_REGISTRY_H
