// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "object_registry.h"

#include "completion_queue.h"
#include "endian.h"
#include "log.h"
#include "queue_pair.h"
#include "shared_receive_queue.h"

namespace vhca {
namespace {

// EQ 0's vector: command completions, port and asynchronous events.
constexpr uint32_t kAsyncVector = 0;

// VHCA_SPECIAL_QP_HANDLE: port - 1 above bit 23, QPN 0 or 1 below.
constexpr uint32_t kHandlePortShift = 23;
constexpr uint32_t kHandleQpnMask = (1u << kHandlePortShift) - 1;

uint32_t Bounded(uint32_t limit) {
  return limit < ObjectRegistry::kMaxObjects ? limit : ObjectRegistry::kMaxObjects;
}

}  // namespace

Status ObjectRegistry::SetLimits(const vhca_device_attr& attr) {
  max_qp_ = Bounded(FromLe32(attr.max_qp));
  num_ports_ = attr.num_ports;
  VHCA_TRY(cqs_.Allocate(Bounded(FromLe32(attr.max_cq))));
  VHCA_TRY(srqs_.Allocate(Bounded(FromLe32(attr.max_srq))));
  if (max_qp_ == 0 && num_ports_ == 0) return Ok();
  return qps_.Allocate(2 + max_qp_ + 2 * (num_ports_ ? num_ports_ - 1 : 0));
}

uint32_t ObjectRegistry::QpIndex(uint32_t handle) const {
  const uint32_t port = (handle >> kHandlePortShift) + 1;
  const uint32_t qpn = handle & kHandleQpnMask;
  if (port == 1) return qpn < 2 + max_qp_ ? qpn : qps_.size();
  if (port > num_ports_ || qpn > 1) return qps_.size();
  return 2 + max_qp_ + 2 * (port - 2) + qpn;
}

Status ObjectRegistry::Add(CompletionQueue* cq) {
  const Status added = cqs_.Insert(cq->cqn(), cq);
  if (!added.ok())
    VHCA_LOG_ERR(kdev_, "CQ %u: handle outside 0..%u or in use\n", cq->cqn(),
                 cqs_.size());
  return added;
}

void ObjectRegistry::Remove(CompletionQueue* cq) {
  if (!cqs_.Erase(cq->cqn(), cq)) return;
  vhca_kapi_synchronize_irq(kdev_, cq->vector());  // COMPLETION
  vhca_kapi_synchronize_irq(kdev_, kAsyncVector);  // CQ_ERROR
}

Status ObjectRegistry::Add(QueuePair* qp) {
  const Status added = qps_.Insert(QpIndex(qp->handle()), qp);
  if (!added.ok())
    VHCA_LOG_ERR(kdev_, "QP handle 0x%x: outside the device's limits or in use\n",
                 qp->handle());
  return added;
}

void ObjectRegistry::Remove(QueuePair* qp) {
  if (qps_.Erase(QpIndex(qp->handle()), qp))
    vhca_kapi_synchronize_irq(kdev_, kAsyncVector);
}

Status ObjectRegistry::Add(SharedReceiveQueue* srq) {
  const Status added = srqs_.Insert(srq->srqn(), srq);
  if (!added.ok())
    VHCA_LOG_ERR(kdev_, "SRQ %u: handle outside 0..%u or in use\n",
                 srq->srqn(), srqs_.size());
  return added;
}

void ObjectRegistry::Remove(SharedReceiveQueue* srq) {
  if (srqs_.Erase(srq->srqn(), srq))
    vhca_kapi_synchronize_irq(kdev_, kAsyncVector);
}

void ObjectRegistry::DispatchCompletion(uint32_t cqn) {
  const CompletionQueue* cq = cqs_.Find(cqn);
  if (!cq || !cq->context() || !ops_.cq_completion) {
    dropped_.Add(1);
    return;
  }
  ops_.cq_completion(cq->context());
}

bool ObjectRegistry::DispatchAsync(const vhca_eqe& event) {
  const uint32_t handle = FromLe32(event.data.object.handle);
  switch (event.type) {
    case VHCA_EQE_QP_EVENT: {
      const QueuePair* qp = qps_.Find(QpIndex(handle));
      DeliverAsync(event, qp ? qp->context() : nullptr);
      return true;
    }
    case VHCA_EQE_CQ_ERROR: {
      const CompletionQueue* cq = cqs_.Find(handle);
      DeliverAsync(event, cq ? cq->context() : nullptr);
      return true;
    }
    case VHCA_EQE_SRQ_EVENT: {
      const SharedReceiveQueue* srq = srqs_.Find(handle);
      DeliverAsync(event, srq ? srq->context() : nullptr);
      return true;
    }
    default:
      return false;
  }
}

void ObjectRegistry::DeliverAsync(const vhca_eqe& event, void* context) {
  if (!context || !ops_.async_event) {
    dropped_.Add(1);
    return;
  }
  ops_.async_event(event.type, event.subtype, context);
}

}  // namespace vhca
