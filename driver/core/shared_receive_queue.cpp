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
