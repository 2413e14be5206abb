// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "completion_queue.h"

#include "device.h"
#include "endian.h"
#include "log.h"
#include "memory.h"
#include "memory_model.h"
#include "page_list.h"
#include "queue_pair.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

// The doorbell record follows the CQEs in the ring's DMA buffer, on its
// own cache line.
constexpr size_t kDbrecAlign = 64;

bool KnownStatus(uint8_t status) {
  switch (status) {
    case VHCA_WC_SUCCESS: case VHCA_WC_LOC_LEN_ERR: case VHCA_WC_LOC_QP_OP_ERR:
    case VHCA_WC_LOC_PROT_ERR: case VHCA_WC_WR_FLUSH_ERR:
    case VHCA_WC_BAD_RESP_ERR: case VHCA_WC_LOC_ACCESS_ERR:
    case VHCA_WC_REM_INV_REQ_ERR: case VHCA_WC_REM_ACCESS_ERR:
    case VHCA_WC_REM_OP_ERR: case VHCA_WC_RETRY_EXC_ERR:
    case VHCA_WC_RNR_RETRY_EXC_ERR: case VHCA_WC_REM_ABORT_ERR:
    case VHCA_WC_FATAL_ERR: case VHCA_WC_GENERAL_ERR:
      return true;
    default:
      return false;
  }
}

bool KnownOpcode(uint8_t opcode) {
  switch (opcode) {
    case VHCA_CQE_SEND: case VHCA_CQE_RDMA_WRITE: case VHCA_CQE_RDMA_READ:
    case VHCA_CQE_COMP_SWAP: case VHCA_CQE_FETCH_ADD: case VHCA_CQE_LOCAL_INV:
    case VHCA_CQE_REG_MR: case VHCA_CQE_RECV: case VHCA_CQE_RECV_RDMA_WITH_IMM:
      return true;
    default:
      return false;
  }
}

bool IsReceive(uint8_t opcode) { return (opcode & VHCA_CQE_RECV) != 0; }

// The doorbell record after a ring of 2^log_size CQEs.
vhca_cq_dbrec* DbrecOf(const DmaBuffer& ring, uint32_t log_size) {
  return reinterpret_cast<vhca_cq_dbrec*>(static_cast<uint8_t*>(ring.cpu()) +
                                          (sizeof(vhca_cqe) << log_size));
}

}  // namespace

uint32_t CompletionQueue::LogSizeFor(uint32_t entries) {
  return vhca_cq_log_size(entries);  // uapi: the provider sizes its CQs alike
}

Result<OwnedPtr<CompletionQueue>> CompletionQueue::Create(Device& device,
                                                          uint32_t entries,
                                                          uint32_t comp_vector,
                                                          void* context) {
  if (entries == 0 || LogSizeFor(entries) == 0 ||
      comp_vector >= device.num_comp_vectors())
    return Error{-VHCA_EINVAL};
  OwnedPtr<CompletionQueue> cq(new CompletionQueue(device, context));
  if (!cq) return Error{-VHCA_ENOMEM};
  const Status status = cq->Init(entries, comp_vector);
  if (!status.ok()) return device.FailCreate(cq, status.error());
  return device.Publish(Move(cq));
}

Result<OwnedPtr<CompletionQueue>> CompletionQueue::CreateUser(
    Device& device, OwnedPtr<UserBuffer> buffer, uint32_t log_size,
    uint32_t dbrec_offset, uint32_t comp_vector, uint32_t db_page,
    void* context) {
  if (!buffer || log_size < VHCA_MIN_LOG_CQ || log_size > VHCA_MAX_LOG_CQ ||
      comp_vector >= device.num_comp_vectors() || db_page == 0)
    return Error{-VHCA_EINVAL};
  OwnedPtr<CompletionQueue> cq(new CompletionQueue(device, context));
  if (!cq) return Error{-VHCA_ENOMEM};
  cq->user_buffer_ = Move(buffer);
  const Status status = cq->InitUser(log_size, dbrec_offset, comp_vector, db_page);
  if (!status.ok()) return device.FailCreate(cq, status.error());
  return device.Publish(Move(cq));
}

Status CompletionQueue::UserRingInput(const UserBuffer& buffer,
                                      uint32_t log_size, uint32_t dbrec_offset,
                                      vhca_cmd_create_cq* in) const {
  if (log_size < VHCA_MIN_LOG_CQ || log_size > VHCA_MAX_LOG_CQ)
    return Error{-VHCA_EINVAL};
  const uint64_t ring_bytes = uint64_t{sizeof(vhca_cqe)} << log_size;
  auto buf = buffer.RingDescriptor(ring_bytes);
  VHCA_TRY(buf);
  auto dbrec = buffer.RecordAddress(ring_bytes, dbrec_offset,
                                    sizeof(vhca_cq_dbrec));
  VHCA_TRY(dbrec);
  *in = vhca_cmd_create_cq{};
  in->buf = buf.value();
  in->dbrec_addr = ToLe64(dbrec.value());
  in->eqn = ToLe32(eqn_);
  in->db_page = ToLe32(db_page_);
  in->log_size = static_cast<uint8_t>(log_size);
  return Ok();
}

Status CompletionQueue::InitUser(uint32_t log_size, uint32_t dbrec_offset,
                                 uint32_t comp_vector, uint32_t db_page) {
  log_size_ = log_size;
  eqn_ = device_.comp_eqn(comp_vector);
  vector_ = comp_vector + 1;
  db_page_ = db_page;
  vhca_cmd_create_cq in;
  VHCA_TRY(UserRingInput(*user_buffer_, log_size, dbrec_offset, &in));
  auto lock = SpinLock::Create(VHCA_LOCK_COMPLETION_QUEUE);
  VHCA_TRY(lock);
  lock_ = lock.Take();
  auto cqn = device_.commands().CreateCq(in);
  VHCA_TRY(cqn);
  cqn_ = cqn.value();
  live_ = true;
  return Ok();
}

Status CompletionQueue::ResizeUser(OwnedPtr<UserBuffer> buffer,
                                   uint32_t log_size, uint32_t dbrec_offset) {
  if (!user() || !buffer) return Error{-VHCA_EINVAL};
  vhca_cmd_create_cq in;
  VHCA_TRY(UserRingInput(*buffer, log_size, dbrec_offset, &in));
  const Status resized = device_.commands().ResizeCq(cqn_, in);
  if (!resized.ok()) {
    if (DeviceMayStillUse(resized.error())) orphan_user_buffer_ = Move(buffer);
    return resized;
  }
  // The device copied the new page list and let go of the old one.
  user_buffer_ = Move(buffer);
  log_size_ = log_size;
  return Ok();
}

Result<DmaBuffer> CompletionQueue::AllocateRing(uint32_t log_size,
                                               vhca_cmd_create_cq* in) {
  // Zeroed: owner 0 everywhere, so the first pass (owner 1) sees nothing.
  const size_t ring_bytes = sizeof(vhca_cqe) << log_size;
  auto ring = DmaBuffer::Create(device_.kdev(), ring_bytes + kDbrecAlign);
  VHCA_TRY(ring);
  auto buf = ContiguousDescriptor(ring.value().dma(), ring_bytes);
  VHCA_TRY(buf);
  *in = vhca_cmd_create_cq{};
  in->buf = buf.value();
  in->dbrec_addr = ToLe64(ring.value().dma() + ring_bytes);
  in->eqn = ToLe32(eqn_);
  in->db_page = ToLe32(0);
  in->log_size = static_cast<uint8_t>(log_size);
  return ring.Take();
}

Status CompletionQueue::Init(uint32_t entries, uint32_t comp_vector) {
  log_size_ = LogSizeFor(entries);
  eqn_ = device_.comp_eqn(comp_vector);
  vector_ = comp_vector + 1;
  auto lock = SpinLock::Create(VHCA_LOCK_COMPLETION_QUEUE);
  VHCA_TRY(lock);
  lock_ = lock.Take();
  vhca_cmd_create_cq in;
  auto ring = AllocateRing(log_size_, &in);
  VHCA_TRY(ring);
  ring_ = ring.Take();
  dbrec_ = DbrecOf(ring_, log_size_);
  auto cqn = device_.commands().CreateCq(in);
  VHCA_TRY(cqn);
  cqn_ = cqn.value();
  live_ = true;
  return Ok();
}

Status CompletionQueue::Resize(uint32_t entries) {
  const uint32_t log_size = LogSizeFor(entries);
  if (entries == 0 || log_size == 0) return Error{-VHCA_EINVAL};
  if (user()) return Error{-VHCA_EOPNOTSUPP};
  vhca_cmd_create_cq in;
  auto ring = AllocateRing(log_size, &in);
  VHCA_TRY(ring);
  // QPs may keep completing into the CQ: the device moves what we have
  // not consumed (up to the doorbell record's index) to the new ring.
  SetResizing(true);
  const Status resized = device_.commands().ResizeCq(cqn_, in);
  if (!resized.ok()) {
    if (DeviceMayStillUse(resized.error())) orphan_ring_ = ring.Take();
    RingDeferredArm(SetResizing(false));
    return resized;
  }
  // The device left the old ring; it is freed after the lock is dropped
  // (dma_free_coherent must not run with interrupts off).
  DmaBuffer old_ring = ring.Take();
  uint32_t arm;
  {
    LockGuard guard(lock_);
    DmaBuffer new_ring = Move(old_ring);
    old_ring = Move(ring_);
    ring_ = Move(new_ring);
    log_size_ = log_size;
    dbrec_ = DbrecOf(ring_, log_size_);
    consumer_index_ = 0;
    resizing_ = false;
    arm = arm_deferred_;
    arm_deferred_ = 0;
  }
  RingDeferredArm(arm);
  return Ok();
}

uint32_t CompletionQueue::SetResizing(bool resizing) {
  LockGuard guard(lock_);
  resizing_ = resizing;
  const uint32_t arm = arm_deferred_;
  arm_deferred_ = 0;
  return arm;
}

// An arm asked for during the resize, rung now on the ring the device
// uses (it raises the event at once if a CQE waits there).
void CompletionQueue::RingDeferredArm(uint32_t flags) {
  if (flags) Arm(flags & ~VHCA_CORE_CQ_REPORT_MISSED);
}

bool CompletionQueue::Valid(uint32_t index) const {
  const uint8_t owner = ReadOnceByte(&Entry(index)->owner) & VHCA_EQE_OWNER_BIT;
  return owner == vhca_eqe_owner(index, log_size_);
}

int CompletionQueue::Poll(int max, vhca_core_wc_convert convert, void* ctx) {
  if (user()) return 0;  // the provider's
  int polled = 0;
  LockGuard guard(lock_);
  if (resizing_) return 0;  // the device is moving the CQEs
  const uint32_t start = consumer_index_;
  while (polled < max && Valid(consumer_index_)) {
    // The device writes the owner byte last: read the rest after it.
    vhca_kapi_dma_rmb();
    vhca_cqe cqe;
    CopyBytes(&cqe, Entry(consumer_index_), sizeof(cqe));
    consumer_index_++;
    vhca_core_wc wc;
    if (Decode(cqe, &wc)) convert(ctx, polled++, &wc);
  }
  if (consumer_index_ != start) {
    // Our reads of the CQEs before the store that frees their slots.
    vhca_kapi_dma_mb();
    WriteOnce(&dbrec_->consumer_index, ToLe32(consumer_index_));
  }
  return polled;
}

QueuePair* CompletionQueue::FindQp(uint32_t qpn) {
  if (last_qp_ && last_qp_->handle() == qpn) return last_qp_;
  CqAttachment* attachment = attached_.Find(
      [qpn](const CqAttachment& a) { return a.qp->handle() == qpn; });
  if (!attachment) return nullptr;
  last_qp_ = attachment->qp;
  return last_qp_;
}

bool CompletionQueue::Decode(const vhca_cqe& cqe, vhca_core_wc* wc) {
  const uint32_t qpn = FromLe32(cqe.qpn);
  if (qpn == kStaleQpn) return false;
  QueuePair* qp = FindQp(qpn);
  if (!qp) {
    VHCA_LOG_WARN(device_.kdev(), "CQ %u: CQE for unknown QP %u dropped\n",
                  cqn_, qpn);
    return false;
  }
  const uint16_t wqe_index = FromLe16(cqe.wqe_index);
  if (IsReceive(cqe.opcode))
    qp->RecvCompleted(wqe_index);
  else
    qp->SendCompleted(wqe_index);

  *wc = vhca_core_wc{};
  wc->wr_id = FromLe64(cqe.wr_id);
  wc->qp_context = qp->context();
  wc->qp_num = qp->qp_num();
  wc->status = cqe.status;
  wc->opcode = cqe.opcode;
  wc->vendor_err = cqe.vendor_err;
  if (!KnownStatus(cqe.status) ||
      (cqe.status == VHCA_WC_SUCCESS && !KnownOpcode(cqe.opcode))) {
    VHCA_LOG_WARN(device_.kdev(), "CQ %u: bad CQE (opcode 0x%x status %u)\n",
                  cqn_, cqe.opcode, cqe.status);
    wc->status = VHCA_WC_GENERAL_ERR;
    return true;
  }
  if (cqe.status != VHCA_WC_SUCCESS) return true;  // only wr_id, qp, status
  wc->byte_len = FromLe32(cqe.byte_len);
  wc->src_qp = FromLe32(cqe.src_qp);
  wc->slid = FromLe16(cqe.slid);
  wc->pkey_index = FromLe16(cqe.pkey_index);
  wc->sl = cqe.sl;
  wc->dlid_path_bits = cqe.dlid_path_bits;
  if (cqe.flags & VHCA_CQE_F_GRH) wc->wc_flags |= VHCA_CORE_WC_GRH;
  if (cqe.flags & VHCA_CQE_F_IMM) {
    wc->wc_flags |= VHCA_CORE_WC_WITH_IMM;
    wc->imm_inv = cqe.imm_inv;  // wire order, as ib_wc.ex.imm_data
  } else if (cqe.flags & VHCA_CQE_F_INV) {
    wc->wc_flags |= VHCA_CORE_WC_WITH_INVALIDATE;
    wc->imm_inv = FromLe32(cqe.imm_inv);
  }
  return true;
}

void CompletionQueue::Snapshot(vhca_core_cq_res* res) {
  LockGuard guard(lock_);
  res->cqn = cqn_;
  res->log_size = log_size_;
  res->user = user() ? 1 : 0;
  res->consumer_index = user() ? 0 : consumer_index_;
}

int CompletionQueue::Arm(uint32_t flags) {
  const bool solicited = (flags & (VHCA_CORE_CQ_SOLICITED | VHCA_CORE_CQ_NEXT_COMP)) ==
                         VHCA_CORE_CQ_SOLICITED;
  if (user()) return 0;  // the provider's
  LockGuard guard(lock_);
  if (resizing_) {
    arm_deferred_ |= flags;
    return 0;  // the deferred arm fires if a CQE waits on the new ring
  }
  device_.registers().RingData(
      VHCA_DB_CQ, cqn_,
      solicited ? VHCA_DB_CQ_ARM_SOLICITED : VHCA_DB_CQ_ARM_NEXT,
      consumer_index_);
  // Guide 8.3: a CQE the device wrote before the arm raises no event;
  // IB_CQ_REPORT_MISSED_EVENTS tells the caller to poll again.
  if ((flags & VHCA_CORE_CQ_REPORT_MISSED) && Valid(consumer_index_)) return 1;
  return 0;
}

void CompletionQueue::Attach(CqAttachment* attachment) {
  LockGuard guard(lock_);
  attached_.PushBack(attachment);
  attached_count_++;
}

void CompletionQueue::Detach(CqAttachment* attachment, uint32_t qpn) {
  LockGuard guard(lock_);
  attached_.Remove(attachment);
  attached_count_--;
  if (last_qp_ == attachment->qp) last_qp_ = nullptr;
  CleanLocked(qpn);
}

void CompletionQueue::Clean(uint32_t qpn) {
  LockGuard guard(lock_);
  CleanLocked(qpn);
}

void CompletionQueue::CleanLocked(uint32_t qpn) {
  if (user()) return;  // the ring is the provider's to read
  // Written entries stay ours until the consumer index passes them, so
  // rewriting their qpn is safe; Poll then skips them.
  for (uint32_t index = consumer_index_;
       index - consumer_index_ < num_entries() && Valid(index); index++) {
    vhca_kapi_dma_rmb();
    vhca_cqe* entry = Entry(index);
    if (FromLe32(entry->qpn) == qpn) entry->qpn = ToLe32(kStaleQpn);
  }
}

Status CompletionQueue::DestroyOnDevice() {
  if (has_qps()) return Error{-VHCA_EBUSY};  // Guide 6.8.3
  if (!live_) return Ok();
  // Out of the registry first: no event handler runs for it after this.
  return device_.objects().Destroy(
      this, &live_, [this] { return device_.commands().DestroyCq(cqn_); });
}

}  // namespace vhca
