// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "object_registry.h"

#include "completion_queue.h"
#include "endian.h"
#include "queue_pair.h"
#include "shared_receive_queue.h"

namespace vhca {

Status ObjectRegistry::Init() {
  auto lock = SpinLock::Create(VHCA_LOCK_OBJECT_REGISTRY);
  VHCA_TRY(lock);
  lock_ = lock.Take();
  return Ok();
}

void ObjectRegistry::set_ops(const vhca_core_event_ops& ops) {
  LockGuard guard(lock_);
  ops_ = ops;
}

void ObjectRegistry::Add(CompletionQueue* cq) {
  LockGuard guard(lock_);
  cqs_.PushBack(cq);
}
void ObjectRegistry::Remove(CompletionQueue* cq) {
  {
    LockGuard guard(lock_);
    if (static_cast<ListNode*>(cq)->linked()) cqs_.Remove(cq);
  }
  WaitForDispatches();
}
void ObjectRegistry::Add(QueuePair* qp) {
  LockGuard guard(lock_);
  qps_.PushBack(qp);
}
void ObjectRegistry::Remove(QueuePair* qp) {
  {
    LockGuard guard(lock_);
    if (static_cast<ListNode*>(qp)->linked()) qps_.Remove(qp);
  }
  WaitForDispatches();
}
void ObjectRegistry::Add(SharedReceiveQueue* srq) {
  LockGuard guard(lock_);
  srqs_.PushBack(srq);
}
void ObjectRegistry::Remove(SharedReceiveQueue* srq) {
  {
    LockGuard guard(lock_);
    if (static_cast<ListNode*>(srq)->linked()) srqs_.Remove(srq);
  }
  WaitForDispatches();
}

void* ObjectRegistry::BeginDispatch(void* context) {
  if (context) dispatching_++;
  else dropped_++;
  return context;
}

void ObjectRegistry::EndDispatch() {
  LockGuard guard(lock_);
  dispatching_--;
}

void ObjectRegistry::WaitForDispatches() {
  for (;;) {
    {
      LockGuard guard(lock_);
      if (!dispatching_) return;
    }
    vhca_kapi_msleep(1);
  }
}

void ObjectRegistry::DispatchCompletion(uint32_t cqn) {
  void* context = nullptr;
  {
    LockGuard guard(lock_);
    CompletionQueue* cq =
        cqs_.Find([cqn](const CompletionQueue& c) { return c.cqn() == cqn; });
    if (cq && ops_.cq_completion) context = cq->context();
    if (!BeginDispatch(context)) return;
  }
  ops_.cq_completion(context);
  EndDispatch();
}

bool ObjectRegistry::DispatchAsync(const vhca_eqe& event) {
  const uint32_t handle = FromLe32(event.data.object.handle);
  void* context = nullptr;
  {
    LockGuard guard(lock_);
    switch (event.type) {
      case VHCA_EQE_QP_EVENT: {
        QueuePair* qp = qps_.Find(
            [handle](const QueuePair& q) { return q.handle() == handle; });
        if (qp) context = qp->context();
        break;
      }
      case VHCA_EQE_CQ_ERROR: {
        CompletionQueue* cq = cqs_.Find(
            [handle](const CompletionQueue& c) { return c.cqn() == handle; });
        if (cq) context = cq->context();
        break;
      }
      case VHCA_EQE_SRQ_EVENT: {
        SharedReceiveQueue* srq = srqs_.Find(
            [handle](const SharedReceiveQueue& s) { return s.srqn() == handle; });
        if (srq) context = srq->context();
        break;
      }
      default:
        return false;
    }
    if (!ops_.async_event) context = nullptr;
    if (!BeginDispatch(context)) return true;
  }
  ops_.async_event(event.type, event.subtype, context);
  EndDispatch();
  return true;
}

}  // namespace vhca
