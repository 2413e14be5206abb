// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "queue_pair.h"

#include "device.h"
#include "endian.h"
#include "shared_receive_queue.h"
#include "vhca_errno.h"

namespace vhca {

Result<OwnedPtr<QueuePair>> QueuePair::Create(Device& device,
                                              vhca_core_qp_init* init) {
  if (init->type == VHCA_QPT_XRC_TGT) return CreateXrcTarget(device, init);
  if (!init->send_cq || !init->recv_cq) return Error{-VHCA_EINVAL};
  OwnedPtr<QueuePair> qp(new QueuePair(device, init->qp_context));
  if (!qp) return Error{-VHCA_ENOMEM};
  const Status status = qp->Init(init, nullptr);
  if (!status.ok()) return device.FailCreate(qp, status.error());
  qp->Attach();
  return device.Publish(Move(qp));
}

Result<OwnedPtr<QueuePair>> QueuePair::CreateUser(Device& device,
                                                  vhca_core_qp_init* init,
                                                  UserQpRings* rings) {
  const bool xrc_ini = init->type == VHCA_QPT_XRC_INI;
  if (!init->send_cq || (!init->recv_cq && !xrc_ini) || !rings ||
      rings->db_page == 0 ||
      (init->type != VHCA_QPT_RC && init->type != VHCA_QPT_UC &&
       init->type != VHCA_QPT_UD && !xrc_ini))
    return Error{-VHCA_EINVAL};
  if (xrc_ini && !(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_XRC))
    return Error{-VHCA_EOPNOTSUPP};
  OwnedPtr<QueuePair> qp(new QueuePair(device, init->qp_context));
  if (!qp) return Error{-VHCA_ENOMEM};
  qp->user_ = true;
  const Status status = qp->Init(init, rings);
  if (!status.ok()) return device.FailCreate(qp, status.error());
  qp->Attach();
  return device.Publish(Move(qp));
}

Result<OwnedPtr<QueuePair>> QueuePair::CreateXrcTarget(Device& device,
                                                       vhca_core_qp_init* init) {
  if (!(FromLe32(device.attr().dev_caps) & VHCA_DEV_CAP_XRC))
    return Error{-VHCA_EOPNOTSUPP};
  if (init->xrcdn == 0) return Error{-VHCA_EINVAL};
  OwnedPtr<QueuePair> qp(new QueuePair(device, init->qp_context));
  if (!qp) return Error{-VHCA_ENOMEM};
  qp->send_layout_.qp_type = VHCA_QPT_XRC_TGT;
  vhca_cmd_create_qp in{};
  in.type = VHCA_QPT_XRC_TGT;
  in.xrcdn = ToLe32(init->xrcdn);
  auto qpn = device.commands().CreateQp(in);
  if (!qpn.ok()) return device.FailCreate(qp, qpn.error());
  qp->handle_ = qpn.value();
  qp->qp_num_ = qpn.value();
  qp->live_ = true;
  init->cap = vhca_core_qp_cap{};
  return device.Publish(Move(qp));
}

Status QueuePair::Init(vhca_core_qp_init* init, UserQpRings* rings) {
  const bool datagram_special = init->type == VHCA_QPT_SMI || init->type == VHCA_QPT_GSI;
  const bool xrc_ini = init->type == VHCA_QPT_XRC_INI;
  if (init->type < VHCA_QPT_RC || (init->type > VHCA_QPT_GSI && !xrc_ini) ||
      (datagram_special && !device_.ports().valid(init->port)))
    return Error{-VHCA_EINVAL};
  const vhca_device_attr& attr = device_.attr();
  // IBA A14.2.2: an XRC initiator has no receive queue, as with an SRQ.
  auto layout = ComputeQpLayout(init->cap, init->srq != nullptr || xrc_ini,
                                FromLe32(attr.max_qp_wr), FromLe32(attr.max_sge));
  VHCA_TRY(layout);
  const QpLayout& l = layout.value();
  send_cq_ = reinterpret_cast<CompletionQueue*>(init->send_cq);
  // An XRC initiator has no receive CQ: its send CQ stands in, so that
  // attaching and cleaning need no special case.
  recv_cq_ = reinterpret_cast<CompletionQueue*>(xrc_ini ? init->send_cq
                                                        : init->recv_cq);
  srq_ = reinterpret_cast<SharedReceiveQueue*>(init->srq);
  // Kernel QPs complete to kernel CQs, user QPs to their context's.
  if (send_cq_->user() != user_ || recv_cq_->user() != user_ ||
      (srq_ && srq_->user() != user_))
    return Error{-VHCA_EINVAL};
  send_layout_.qp_type = static_cast<uint8_t>(init->type);
  send_layout_.stride = 1u << l.sq_wqe_shift;
  send_layout_.max_sge = l.granted.max_send_sge;
  send_layout_.max_inline = l.granted.max_inline_data;
  send_layout_.sig_all = init->sq_sig_all != 0;
  recv_layout_.stride = 1u << l.rq_wqe_shift;
  recv_layout_.max_sge = l.granted.max_recv_sge;

  auto sq_lock = SpinLock::Create(VHCA_LOCK_SEND_QUEUE);
  VHCA_TRY(sq_lock);
  sq_lock_ = sq_lock.Take();
  auto rq_lock = SpinLock::Create(VHCA_LOCK_RECEIVE_QUEUE);
  VHCA_TRY(rq_lock);
  rq_lock_ = rq_lock.Take();

  vhca_cmd_create_qp in{};
  in.type = static_cast<uint8_t>(init->type);
  in.port = datagram_special ? static_cast<uint8_t>(init->port) : 0;
  in.sq_log_size = static_cast<uint8_t>(l.sq_log_size);
  in.sq_wqe_shift = static_cast<uint8_t>(l.sq_wqe_shift);
  in.rq_wqe_shift = static_cast<uint8_t>(l.rq_wqe_shift);
  in.flags = send_layout_.sig_all ? VHCA_QP_F_SQ_SIG_ALL : 0;
  in.pdn = ToLe32(init->pdn);
  in.send_cqn = ToLe32(send_cq_->cqn());
  in.recv_cqn = ToLe32(recv_cq_->cqn());
  in.max_inline = ToLe32(l.granted.max_inline_data);
  if (srq_) {
    in.flags |= VHCA_QP_F_HAS_SRQ;
    in.srqn = ToLe32(srq_->srqn());
  } else if (!xrc_ini) {
    in.rq_log_size = static_cast<uint8_t>(l.rq_log_size);
  }
  VHCA_TRY(SetupRings(l, rings, &in));
  auto qpn = device_.commands().CreateQp(in);  // the handle
  VHCA_TRY(qpn);
  handle_ = qpn.value();
  qp_num_ = init->type == VHCA_QPT_SMI ? 0 : init->type == VHCA_QPT_GSI ? 1 : handle_;
  live_ = true;
  init->cap = l.granted;
  return Ok();
}

Status QueuePair::SetupRings(const QpLayout& l, UserQpRings* rings,
                             vhca_cmd_create_qp* in) {
  if (!rings) {
    auto sq = WorkQueue::Create(device_.kdev(), l.sq_log_size, l.sq_wqe_shift,
                                device_.polls_send_dbrec()
                                    ? WorkQueue::Record::kSend
                                    : WorkQueue::Record::kNone);
    VHCA_TRY(sq);
    sq_ = sq.Take();
    auto sq_buf = sq_.Descriptor();
    VHCA_TRY(sq_buf);
    in->sq_buf = sq_buf.value();
    in->sq_dbrec_addr = ToLe64(sq_.RecordDma());
    if (!HasRq()) return Ok();
    auto rq = WorkQueue::Create(device_.kdev(), l.rq_log_size, l.rq_wqe_shift,
                                WorkQueue::Record::kReceive);
    VHCA_TRY(rq);
    rq_ = rq.Take();
    auto rq_buf = rq_.Descriptor();
    VHCA_TRY(rq_buf);
    in->rq_buf = rq_buf.value();
    in->rq_dbrec_addr = ToLe64(rq_.RecordDma());
    return Ok();
  }
  // The provider computed the same geometry (uapi/vhca-abi.h).
  if (rings->sq_log_size != l.sq_log_size || rings->sq_wqe_shift != l.sq_wqe_shift ||
      !rings->sq || (HasRq() && (!rings->rq || rings->rq_log_size != l.rq_log_size ||
                                 rings->rq_wqe_shift != l.rq_wqe_shift)))
    return Error{-VHCA_EINVAL};
  user_sq_ = Move(rings->sq);
  const uint64_t sq_bytes = uint64_t{1} << (l.sq_log_size + l.sq_wqe_shift);
  auto sq_buf = user_sq_->RingDescriptor(sq_bytes);
  VHCA_TRY(sq_buf);
  in->sq_buf = sq_buf.value();
  // A send record only where the device polls it: elsewhere the
  // provider is told to ring (vhca_core_qp_sq_dbrec).
  if (rings->sq_dbrec && device_.polls_send_dbrec()) {
    auto sq_dbrec = user_sq_->RecordAddress(sq_bytes, rings->sq_dbrec_offset,
                                            sizeof(vhca_wq_dbrec));
    VHCA_TRY(sq_dbrec);
    in->sq_dbrec_addr = ToLe64(sq_dbrec.value());
    user_sq_dbrec_ = true;
  }
  in->db_page = ToLe32(rings->db_page);
  if (!HasRq()) return Ok();
  // The provider posts receives through the record only.
  if (!device_.reads_recv_dbrec()) return Error{-VHCA_EOPNOTSUPP};
  user_rq_ = Move(rings->rq);
  const uint64_t rq_bytes = uint64_t{1} << (l.rq_log_size + l.rq_wqe_shift);
  auto rq_buf = user_rq_->RingDescriptor(rq_bytes);
  VHCA_TRY(rq_buf);
  in->rq_buf = rq_buf.value();
  auto dbrec = user_rq_->RecordAddress(rq_bytes, rings->rq_dbrec_offset,
                                       sizeof(vhca_wq_dbrec));
  VHCA_TRY(dbrec);
  in->rq_dbrec_addr = ToLe64(dbrec.value());
  return Ok();
}

void QueuePair::Attach() {
  send_attachment_.qp = this;
  recv_attachment_.qp = this;
  // Attached to its CQs, also a user QP (which nobody polls here): a CQ
  // refuses destruction while QPs use it (Guide 6.8.3).
  send_cq_->Attach(&send_attachment_);
  if (recv_cq_ != send_cq_) recv_cq_->Attach(&recv_attachment_);
  if (srq_) srq_->AddUser();
  attached_ = true;
}

void QueuePair::Detach() {
  if (!attached_) return;
  send_cq_->Detach(&send_attachment_, handle_);
  if (recv_cq_ != send_cq_) recv_cq_->Detach(&recv_attachment_, handle_);
  if (srq_) srq_->RemoveUser();
  attached_ = false;
}

Status QueuePair::PostSendChain(const void** item,
                               vhca_core_send_wr_convert convert, void* ctx) {
  // User QPs are the provider's; an XRC target has no send queue.
  if (user_ || !send_cq_) return Error{-VHCA_EINVAL};
  LockGuard guard(sq_lock_);
  uint32_t posted;
  Status status = FillChain<vhca_core_send_wr>(
      sq_, item,
      [convert, ctx](const void* it, vhca_core_send_wr* wr, const void** next) {
        return convert(ctx, it, wr, next);
      },
      [this](const vhca_core_send_wr& wr, uint8_t* wqe) {
        return BuildSendWqe(send_layout_, wr, wqe);
      },
      &posted);
  if (posted && !PublishSend())
    device_.registers().RingData(VHCA_DB_SQ, handle_, 0, sq_.producer());
  return status;
}

Status QueuePair::PostRecvChain(const void** item,
                               vhca_core_recv_wr_convert convert) {
  if (!HasRq() || user_) return Error{-VHCA_EINVAL};
  LockGuard guard(rq_lock_);
  uint32_t posted;
  Status status = FillChain<vhca_core_recv_wr>(
      rq_, item, convert,
      [this](const vhca_core_recv_wr& wr, uint8_t* wqe) {
        return BuildRecvWqe(recv_layout_, wr, wqe);
      },
      &posted);
  if (posted) {
    rq_.PublishProducer();
    if (RecvNeedsDoorbell())
      device_.registers().RingData(VHCA_DB_RQ, handle_, 0, rq_.producer());
  }
  return status;
}

// With a send record: the producer index is stored there; true when the
// device polls it, so no SQ doorbell is needed.
bool QueuePair::PublishSend() {
  if (!sq_.has_record()) return false;
  sq_.PublishProducer();
  return sq_.DevicePolls();
}

void QueuePair::Snapshot(vhca_core_qp_res* res) {
  *res = vhca_core_qp_res{};
  res->handle = handle_;
  res->user = user_ ? 1 : 0;
  if (user_) return;
  {
    LockGuard guard(sq_lock_);
    res->sq_log_size = sq_.log_size();
    res->sq_producer = sq_.producer();
    res->sq_consumer = sq_.consumer();
  }
  if (!HasRq()) return;
  LockGuard guard(rq_lock_);
  res->has_rq = 1;
  res->rq_log_size = rq_.log_size();
  res->rq_producer = rq_.producer();
  res->rq_consumer = rq_.consumer();
}

bool QueuePair::RecvNeedsDoorbell() const {
  return !device_.reads_recv_dbrec() || ReadOnce(&recv_in_error_);
}

void QueuePair::RecvCompleted(uint16_t wqe_index) {
  if (srq_)
    srq_->CompletedOne();
  else
    rq_.CompletedThrough(wqe_index);
}

Status QueuePair::Modify(const vhca_core_qp_attr& attr, uint32_t mask) {
  auto context = QpAttrToContext(attr, mask);
  VHCA_TRY(context);
  VHCA_TRY(device_.commands().ModifyQp(handle_, context.value()));
  if (mask & VHCA_QP_ATTR_STATE)
    WriteOnce(&recv_in_error_, attr.qp_state == VHCA_QPS_ERR ? 1 : 0);
  // An XRC target has no queues or CQs to empty.
  if ((mask & VHCA_QP_ATTR_STATE) && attr.qp_state == VHCA_QPS_RESET && send_cq_) {
    // RESET empties the work queues (IBA 10.3.1): the device starts
    // again from index 0, and completions still in the CQs are dropped.
    send_cq_->Clean(handle_);
    if (recv_cq_ != send_cq_) recv_cq_->Clean(handle_);
    {
      LockGuard guard(sq_lock_);
      sq_.Reset();
    }
    LockGuard guard(rq_lock_);
    rq_.Reset();
  }
  return Ok();
}

Status QueuePair::Query(vhca_core_qp_attr* attr) {
  vhca_qp_context context{};
  VHCA_TRY(device_.commands().QueryQp(handle_, &context));
  QpContextToAttr(context, attr);
  return Ok();
}

Status QueuePair::AttachMcast(uint16_t mlid, const uint8_t mgid[16]) {
  return device_.commands().AttachMcast(handle_, mlid, mgid);
}

Status QueuePair::DetachMcast(uint16_t mlid, const uint8_t mgid[16]) {
  return device_.commands().DetachMcast(handle_, mlid, mgid);
}

// Out of the registry before DESTROY: once the device has freed the
// handle, another create may get it at once and must find its slot empty
// (mlx5 drops its table entry before the firmware command too).  A
// DESTROY the device refused leaves the QP live: back into its slot,
// which nobody else can have taken (the device still holds the handle).
Status QueuePair::DestroyOnDevice() {
  if (!live_) {
    Detach();
    return Ok();
  }
  const Status status = device_.objects().Destroy(
      this, &live_, [this] { return device_.commands().DestroyQp(handle_); });
  if (!live_) Detach();  // a refused DESTROY leaves the QP as it was
  return status;
}

}  // namespace vhca
