// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "shared_receive_queue.h"

#include "completion_queue.h"
#include "device.h"
#include "endian.h"
#include "vhca_errno.h"

namespace vhca {

Result<OwnedPtr<SharedReceiveQueue>> SharedReceiveQueue::Create(
    Device& device, uint32_t pdn, uint32_t max_wr, uint32_t max_sge,
    uint32_t limit, void* context) {
  OwnedPtr<SharedReceiveQueue> srq(new SharedReceiveQueue(device, context));
  if (!srq) return Error{-VHCA_ENOMEM};
  const Status status = srq->Init(pdn, max_wr, max_sge, limit, 0, 0, 0, 0);
  if (!status.ok()) return device.FailCreate(srq, status.error());
  return device.Publish(Move(srq));
}

Result<OwnedPtr<SharedReceiveQueue>> SharedReceiveQueue::CreateUser(
    Device& device, const vhca_core_user_srq_init& init,
    OwnedPtr<UserBuffer> buffer, const vhca_core_srq_xrc* xrc,
    TagMatching* tm) {
  if (!buffer || init.db_page == 0 || (xrc && (!xrc->cq || xrc->xrcdn == 0)) ||
      (tm && (!tm->ops || tm->max_num_tags == 0 ||
              tm->max_num_tags > VHCA_TM_MAX_TAGS ||
              tm->ops_log_size > VHCA_TM_MAX_LOG_OPS)))
    return Error{-VHCA_EINVAL};
  if (xrc && !(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_XRC))
    return Error{-VHCA_EOPNOTSUPP};
  if (tm &&
      !(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_TAG_MATCHING))
    return Error{-VHCA_EOPNOTSUPP};
  // The provider posts through the record only.
  if (!device.reads_recv_dbrec()) return Error{-VHCA_EOPNOTSUPP};
  OwnedPtr<SharedReceiveQueue> srq(
      new SharedReceiveQueue(device, init.srq_context));
  if (!srq) return Error{-VHCA_ENOMEM};
  srq->user_buffer_ = Move(buffer);
  if (xrc) {
    srq->xrcdn_ = xrc->xrcdn;
    srq->xrc_cqn_ = reinterpret_cast<CompletionQueue*>(xrc->cq)->cqn();
  }
  if (tm) srq->tm_ = Move(*tm);
  const Status status =
      srq->Init(init.pdn, init.max_wr, init.max_sge, init.limit, init.log_size,
                init.wqe_shift, init.dbrec_offset, init.db_page);
  if (!status.ok()) return device.FailCreate(srq, status.error());
  return device.Publish(Move(srq));
}

Status SharedReceiveQueue::Init(uint32_t pdn, uint32_t max_wr,
                                uint32_t max_sge, uint32_t limit,
                                uint32_t user_log_size, uint32_t user_wqe_shift,
                                uint32_t user_dbrec_offset, uint32_t db_page) {
  const vhca_device_attr& attr = device_.attr();
  // The receive side of a QP layout with this SRQ's capabilities.
  vhca_core_qp_cap cap{};
  cap.max_recv_wr = max_wr;
  cap.max_recv_sge = max_sge;
  if (max_wr == 0 || max_wr > FromLe32(attr.max_srq_wr) || limit > max_wr)
    return Error{-VHCA_EINVAL};
  auto layout = ComputeQpLayout(cap, false, FromLe32(attr.max_srq_wr),
                                FromLe32(attr.max_sge));
  VHCA_TRY(layout);
  layout_.stride = 1u << layout.value().rq_wqe_shift;
  layout_.max_sge = layout.value().granted.max_recv_sge;

  auto lock = SpinLock::Create(VHCA_LOCK_SHARED_RECEIVE_QUEUE);
  VHCA_TRY(lock);
  lock_ = lock.Take();
  const uint32_t log_size = layout.value().rq_log_size;
  const uint32_t wqe_shift = layout.value().rq_wqe_shift;
  log_size_ = log_size;
  wqe_shift_ = wqe_shift;
  vhca_cmd_create_srq in{};
  if (user()) {
    // The provider computed the same geometry (uapi/vhca-abi.h).
    if (user_log_size != log_size || user_wqe_shift != wqe_shift)
      return Error{-VHCA_EINVAL};
    const uint64_t ring_bytes = uint64_t{1} << (log_size + wqe_shift);
    auto buf = user_buffer_->RingDescriptor(ring_bytes);
    VHCA_TRY(buf);
    in.buf = buf.value();
    auto dbrec = user_buffer_->RecordAddress(ring_bytes, user_dbrec_offset,
                                             sizeof(vhca_wq_dbrec));
    VHCA_TRY(dbrec);
    in.dbrec_addr = ToLe64(dbrec.value());
  } else {
    auto rq = WorkQueue::Create(device_.kdev(), log_size, wqe_shift,
                                WorkQueue::Record::kReceive);
    VHCA_TRY(rq);
    rq_ = rq.Take();
    auto buf = rq_.Descriptor();
    VHCA_TRY(buf);
    in.buf = buf.value();
    in.dbrec_addr = ToLe64(rq_.RecordDma());
  }
  pdn_ = pdn;
  db_page_ = db_page;
  in.pdn = ToLe32(pdn);
  in.db_page = ToLe32(db_page);
  in.limit = ToLe32(limit);
  in.log_size = static_cast<uint8_t>(log_size);
  in.wqe_shift = static_cast<uint8_t>(wqe_shift);
  if (xrcdn_) {
    in.flags = VHCA_SRQ_F_XRC;
    in.xrcdn = ToLe32(xrcdn_);
    in.cqn = ToLe32(xrc_cqn_);
  }
  return CreateOnDevice(in);
}

// A TM SRQ: the provider posts the list operations (vhca_hw_tm.h).
Result<uint32_t> SharedReceiveQueue::CreateTmOnDevice(
    const vhca_cmd_create_srq& in) {
  vhca_cmd_create_tm_srq tm_in{};
  const uint64_t ops_bytes = uint64_t{1}
                             << (tm_.ops_log_size + VHCA_TM_OP_SHIFT);
  auto ops = tm_.ops->RingDescriptor(ops_bytes);
  VHCA_TRY(ops);
  tm_in.srq = in;
  tm_in.srq.flags = VHCA_SRQ_F_TM;
  tm_in.srq.cqn = ToLe32(tm_.cqn);
  tm_in.tm.ops_buf = ops.value();
  tm_in.tm.max_num_tags = ToLe32(tm_.max_num_tags);
  tm_in.tm.ops_log_size = static_cast<uint8_t>(tm_.ops_log_size);
  return device_.commands().CreateSrq(tm_in);
}

Status SharedReceiveQueue::CreateOnDevice(const vhca_cmd_create_srq& in) {
  auto srqn = tm_.ops ? CreateTmOnDevice(in) : device_.commands().CreateSrq(in);
  VHCA_TRY(srqn);
  srqn_ = srqn.value();
  live_ = true;
  return Ok();
}

Status SharedReceiveQueue::PostRecvChain(const void** item,
                                         vhca_core_recv_wr_convert convert) {
  if (user()) return Error{-VHCA_EINVAL};
  LockGuard guard(lock_);
  uint32_t posted;
  Status status = FillChain<vhca_core_recv_wr>(
      rq_, item, convert,
      [this](const vhca_core_recv_wr& wr, uint8_t* wqe) {
        return BuildRecvWqe(layout_, wr, wqe);
      },
      &posted);
  if (posted) {
    rq_.PublishProducer();
    // An SRQ has no ERR state: the record suffices where it is read.
    if (!device_.reads_recv_dbrec())
      device_.registers().RingData(VHCA_DB_SRQ, srqn_, 0, rq_.producer());
  }
  return status;
}

// The ring for max_wr WQEs of this SRQ's stride (as Init computes it).
Result<uint32_t> SharedReceiveQueue::ResizeLogSize(uint32_t max_wr) const {
  const vhca_device_attr& attr = device_.attr();
  if (!(FromLe32(attr.dev_caps) & VHCA_DEV_CAP_SRQ_RESIZE) || tm_.ops)
    return Error{-VHCA_EOPNOTSUPP};
  if (max_wr == 0 || max_wr > FromLe32(attr.max_srq_wr))
    return Error{-VHCA_EINVAL};
  vhca_core_qp_cap cap{};
  cap.max_recv_wr = max_wr;
  cap.max_recv_sge = layout_.max_sge;
  auto layout = ComputeQpLayout(cap, false, FromLe32(attr.max_srq_wr),
                                FromLe32(attr.max_sge));
  VHCA_TRY(layout);
  if (layout.value().rq_wqe_shift != wqe_shift_) return Error{-VHCA_EINVAL};
  return layout.value().rq_log_size;
}

// RESIZE_SRQ's input: all but the ring and record are the SRQ's.
vhca_cmd_create_srq SharedReceiveQueue::ResizeInput(uint32_t log_size) const {
  vhca_cmd_create_srq in{};
  in.pdn = ToLe32(pdn_);
  in.db_page = ToLe32(db_page_);
  in.log_size = static_cast<uint8_t>(log_size);
  in.wqe_shift = static_cast<uint8_t>(wqe_shift_);
  if (xrcdn_) {
    in.flags = VHCA_SRQ_F_XRC;
    in.xrcdn = ToLe32(xrcdn_);
    in.cqn = ToLe32(xrc_cqn_);
  }
  return in;
}

Status SharedReceiveQueue::Resize(uint32_t max_wr) {
  if (user()) return Error{-VHCA_EINVAL};  // ResizeUser
  auto log_size = ResizeLogSize(max_wr);
  VHCA_TRY(log_size);
  auto next = WorkQueue::Create(device_.kdev(), log_size.value(),
                                rq_.wqe_shift(), WorkQueue::Record::kReceive);
  VHCA_TRY(next);
  WorkQueue ring = next.Take();
  vhca_cmd_create_srq in = ResizeInput(log_size.value());
  auto buf = ring.Descriptor();
  VHCA_TRY(buf);
  in.buf = buf.value();
  in.dbrec_addr = ToLe64(ring.RecordDma());
  {
    LockGuard guard(lock_);
    // Posted and not completed: the device has at most these left.
    if (rq_.producer() - rq_.consumer() > ring.size())
      return Error{-VHCA_EINVAL};
    rq_.LimitTo(ring.size() < rq_.size() ? ring.size() : rq_.size());
    ring.SeedRecord(rq_.producer());
  }
  auto taken = device_.commands().ResizeSrq(srqn_, in);
  LockGuard guard(lock_);
  if (!taken.ok()) {
    rq_.LimitTo(~0u);
    if (DeviceMayStillUse(taken.error())) orphan_rq_ = Move(ring);
    return Error{taken.error()};
  }
  rq_.AdoptRing(ring, taken.value());
  log_size_ = log_size.value();
  return Ok();
  // `ring`, now the old one, is freed after the guard is released
  // (dma_free_coherent must not run with interrupts off).
}

Status SharedReceiveQueue::ResizeUser(OwnedPtr<UserBuffer> buffer,
                                      uint32_t max_wr, uint32_t log_size,
                                      uint32_t wqe_shift,
                                      uint32_t dbrec_offset) {
  if (!user() || !buffer) return Error{-VHCA_EINVAL};
  auto expected = ResizeLogSize(max_wr);
  VHCA_TRY(expected);
  // The provider computed the same geometry (uapi/vhca-abi.h).
  if (expected.value() != log_size || wqe_shift != wqe_shift_)
    return Error{-VHCA_EINVAL};
  vhca_cmd_create_srq in = ResizeInput(log_size);
  const uint64_t ring_bytes = uint64_t{1} << (log_size + in.wqe_shift);
  auto buf = buffer->RingDescriptor(ring_bytes);
  VHCA_TRY(buf);
  in.buf = buf.value();
  auto dbrec = buffer->RecordAddress(ring_bytes, dbrec_offset,
                                     sizeof(vhca_wq_dbrec));
  VHCA_TRY(dbrec);
  in.dbrec_addr = ToLe64(dbrec.value());
  auto taken = device_.commands().ResizeSrq(srqn_, in);
  if (!taken.ok()) {
    if (DeviceMayStillUse(taken.error())) orphan_user_buffer_ = Move(buffer);
    return Error{taken.error()};
  }
  // The device copied the new page list and let go of the old one.
  user_buffer_ = Move(buffer);
  log_size_ = log_size;
  return Ok();
}

Status SharedReceiveQueue::SetLimit(uint32_t limit) {
  if (limit > max_wr()) return Error{-VHCA_EINVAL};
  return device_.commands().ModifySrq(srqn_, limit);
}

Result<uint32_t> SharedReceiveQueue::QueryLimit() {
  return device_.commands().QuerySrq(srqn_);
}

Status SharedReceiveQueue::DestroyOnDevice() {
  if (users_.Read()) return Error{-VHCA_EBUSY};
  if (!live_) return Ok();
  return device_.objects().Destroy(
      this, &live_, [this] { return device_.commands().DestroySrq(srqn_); });
}

}  // namespace vhca
