// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Queue pairs (Guide 6.5 and 8.1, vhca_hw_verbs.h "Queue pairs"): a send
// and a receive ring in kernel DMA memory (or an SRQ instead of the
// receive ring), WQE posting under a per-queue lock, the 64-bit send
// doorbell and the receive doorbell record (RQ doorbells only where the
// device needs them: see RecvNeedsDoorbell), and MODIFY/QUERY_QP.  Post and poll share no lock: the CQ poller
// advances the rings' consumer indexes (WorkQueue) through
// SendCompleted/RecvCompleted.
//
// State checks are not here: ib_core checks transitions and attribute
// masks (ib_modify_qp_is_ok, in the shim) and the device checks them
// again; posting in a wrong state is the device's to complete with an
// error.
#ifndef VHCA_CORE_QUEUE_PAIR_H
#define VHCA_CORE_QUEUE_PAIR_H

#include "completion_queue.h"
#include "device_resource.h"
#include "owned_ptr.h"
#include "qp_attributes.h"
#include "result.h"
#include "sync.h"
#include "vhca_core_verbs.h"
#include "work_queue.h"
#include "wqe_builder.h"

namespace vhca {

class Device;
class SharedReceiveQueue;

// The rings of a user QP (uverbs): buffers the provider allocated with the
// geometry ComputeQpLayout gives for the QP's capabilities (checked).
struct UserQpRings {
  OwnedPtr<UserBuffer> sq;
  OwnedPtr<UserBuffer> rq;  // none with an SRQ
  uint32_t sq_log_size = 0;
  uint32_t sq_wqe_shift = 0;
  uint32_t rq_log_size = 0;
  uint32_t rq_wqe_shift = 0;
  uint32_t rq_dbrec_offset = 0;  // the record's byte in rq, after the WQEs
  bool sq_dbrec = false;         // the provider gives a send record ...
  uint32_t sq_dbrec_offset = 0;  // ... at this byte of sq, after the WQEs
  uint32_t db_page = 0;     // the context's doorbell page (>= 1)
};

class QueuePair : public DeviceResource {
 public:
  // Creates the QP on the device and attaches it to its CQs; init->cap
  // is updated with what was granted.
  static Result<OwnedPtr<QueuePair>> Create(Device& device,
                                            vhca_core_qp_init* init);
  // A QP of a user context (RC, UC, UD) on user CQs (and SRQ): the
  // provider posts and rings; PostSendChain/PostRecvChain refuse.
  // Also an XRC initiator (send queue only, IBA A14.2.2).
  static Result<OwnedPtr<QueuePair>> CreateUser(Device& device,
                                                vhca_core_qp_init* init,
                                                UserQpRings* rings);

  // The device's handle: the QPN, except for SMI/GSI QPs, whose handle
  // names the port too (VHCA_SPECIAL_QP_HANDLE); CQEs carry the handle.
  uint32_t handle() const { return handle_; }
  // The QPN of IBA (ib_qp.qp_num, ib_wc.qp_num): 0 and 1 for SMI and GSI.
  uint32_t qp_num() const { return qp_num_; }
  void* context() const { return context_; }
  bool user() const { return user_; }
  // A user QP whose send record the device was given (the provider may
  // skip the SQ doorbell while the record says the device polls).
  bool user_sq_dbrec() const { return user_sq_dbrec_; }
  const SendQueueLayout& send_layout() const { return send_layout_; }
  const WorkQueue& sq() const { return sq_; }
  const WorkQueue& rq() const { return rq_; }
  // vhca_core_qp_snapshot (restrack), each ring under its lock.
  void Snapshot(vhca_core_qp_res* res);

  // A whole chain under one lock and one doorbell (vhca_core_verbs.h).
  Status PostSendChain(const void** item, vhca_core_send_wr_convert convert,
                       void* ctx);
  Status PostRecvChain(const void** item, vhca_core_recv_wr_convert convert);

  // From the CQ poller (its lock held).
  void SendCompleted(uint16_t wqe_index) { sq_.CompletedThrough(wqe_index); }
  void RecvCompleted(uint16_t wqe_index);

  Status Modify(const vhca_core_qp_attr& attr, uint32_t mask);
  Status Query(vhca_core_qp_attr* attr);
  Status AttachMcast(uint16_t mlid, const uint8_t mgid[16]);
  Status DetachMcast(uint16_t mlid, const uint8_t mgid[16]);
  // DESTROY_QP, then detaches from the CQs (cleaning leftover CQEs).
  Status DestroyOnDevice();
  Device& device() const { return device_; }

 private:
  QueuePair(Device& device, void* context)
      : DeviceResource(&DeleteAs<QueuePair>), device_(device),
        context_(context) {}
  Status Init(vhca_core_qp_init* init, UserQpRings* rings);
  // An XRC target QP (IBA A14.2.2): no rings, CQs or PD, in init->xrcdn;
  // ib_core creates it in the kernel for every user (ib_create_qp_user).
  static Result<OwnedPtr<QueuePair>> CreateXrcTarget(Device& device,
                                                     vhca_core_qp_init* init);
  // Whether the QP has a receive queue of its own (not an SRQ, not XRC).
  bool HasRq() const {
    return !srq_ && !vhca_qpt_is_xrc(send_layout_.qp_type);
  }
  // The rings' descriptors into `in`: kernel WorkQueues, or the user's.
  Status SetupRings(const QpLayout& layout, UserQpRings* rings,
                    vhca_cmd_create_qp* in);
  void Attach();
  void Detach();
  // Receives are handed over by the record alone, except on a device that
  // does not read records, and in ERR: the device flushes a WQE posted in
  // ERR when a doorbell tells it (IBA 10.3.1; ib_drain_rq waits for that
  // flush), and nothing else makes it look at the record then.
  bool RecvNeedsDoorbell() const;
  // Sends: the producer index into the send record, if the QP has one;
  // true when the device polls it and no doorbell is needed.
  bool PublishSend();

  Device& device_;
  void* context_;
  uint32_t handle_ = 0;
  uint32_t qp_num_ = 0;
  bool live_ = false;
  bool user_ = false;
  CompletionQueue* send_cq_ = nullptr;
  CompletionQueue* recv_cq_ = nullptr;
  SharedReceiveQueue* srq_ = nullptr;
  CqAttachment send_attachment_;
  CqAttachment recv_attachment_;  // unused when recv_cq_ == send_cq_
  bool attached_ = false;
  SendQueueLayout send_layout_;
  RecvQueueLayout recv_layout_;
  SpinLock sq_lock_;
  SpinLock rq_lock_;
  uint32_t recv_in_error_ = 0;  // 1: the last MODIFY_QP moved it to ERR
  WorkQueue sq_;
  WorkQueue rq_;  // empty with an SRQ
  OwnedPtr<UserBuffer> user_sq_;  // user QPs: the rings instead of sq_/rq_
  OwnedPtr<UserBuffer> user_rq_;
  bool user_sq_dbrec_ = false;  // the device polls the provider's send record
};

}  // namespace vhca

#endif  // VHCA_CORE_QUEUE_PAIR_H
