// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Shared receive queues (IBA 10.2.9, vhca_hw_verbs.h "Shared receive
// queues"): a receive ring in kernel DMA memory that several QPs draw
// from, its doorbell record (the SRQ doorbell only for a device that does
// not read records), and the limit event (MODIFY_SRQ/QUERY_SRQ).
//
// The device takes SRQ WQEs in ring order, so each receive CQE of a QP
// on this SRQ frees one WQE (CompletedOne), whichever QP it came from.
#ifndef VHCA_CORE_SHARED_RECEIVE_QUEUE_H
#define VHCA_CORE_SHARED_RECEIVE_QUEUE_H

#include "device_resource.h"
#include "memory_model.h"
#include "owned_ptr.h"
#include "qp_attributes.h"
#include "result.h"
#include "sync.h"
#include "user_buffer.h"
#include "vhca_core_user.h"
#include "work_queue.h"
#include "wqe_builder.h"

namespace vhca {

class Device;

class SharedReceiveQueue : public DeviceResource {
 public:
  static Result<OwnedPtr<SharedReceiveQueue>> Create(Device& device,
                                                     uint32_t pdn,
                                                     uint32_t max_wr,
                                                     uint32_t max_sge,
                                                     uint32_t limit,
                                                     void* context);
  // An SRQ of a user context (init's fields but buf, which is `buffer`):
  // its ring (2^log_size WQEs of 2^wqe_shift bytes, the geometry
  // ComputeQpLayout gives for max_wr/max_sge) at the start of `buffer`,
  // its doorbell record at byte dbrec_offset after them, on doorbell page
  // db_page.  The provider posts; PostRecvChain refuses.
  // With xrc->cq: an XRC SRQ (IBA A14.2.3) of domain xrc->xrcdn, whose
  // completions all go to that CQ; no QP is created with it.
  // With tm: a tag matching SRQ (uapi/vhca_hw_tm.h).
  struct TagMatching {
    uint32_t cqn;             // the list operations' completions
    uint32_t max_num_tags;
    OwnedPtr<UserBuffer> ops; // the ring of list operations
    uint32_t ops_log_size;
  };
  static Result<OwnedPtr<SharedReceiveQueue>> CreateUser(
      Device& device, const vhca_core_user_srq_init& init,
      OwnedPtr<UserBuffer> buffer, const vhca_core_srq_xrc* xrc = nullptr,
      TagMatching* tm = nullptr);

  uint32_t srqn() const { return srqn_; }
  void* context() const { return context_; }
  uint32_t max_wr() const { return 1u << log_size_; }
  bool user() const { return user_buffer_.get() != nullptr; }
  uint32_t max_sge() const { return layout_.max_sge; }
  const WorkQueue& rq() const { return rq_; }

  // A whole chain under one lock and one doorbell (vhca_core_verbs.h).
  Status PostRecvChain(const void** item, vhca_core_recv_wr_convert convert);
  void CompletedOne() { rq_.CompletedOne(); }

  // IB_SRQ_MAX_WR (IBA 11.2.3.3; VHCA_DEV_CAP_SRQ_RESIZE, else
  // -EOPNOTSUPP): RESIZE_SRQ moves the SRQ, in use or not, to a ring for
  // max_wr, the WQEs posted and not completed kept and consumed in order.
  // -EINVAL: more of them than the new ring holds; the old ring stays.
  // A kernel SRQ posts on meanwhile (the device answers which WQEs it
  // moved; the rest are copied here).
  Status Resize(uint32_t max_wr);
  // A user SRQ: the provider's new ring in `buffer`, laid out as at
  // creation; it holds its lock across the call, so the device moves
  // every WQE it posted.
  Status ResizeUser(OwnedPtr<UserBuffer> buffer, uint32_t max_wr,
                    uint32_t log_size, uint32_t wqe_shift,
                    uint32_t dbrec_offset);

  // Arms the limit event (IBA 11.2.3.2); 0 disarms.
  Status SetLimit(uint32_t limit);
  Result<uint32_t> QueryLimit();
  // Refused (-EBUSY) while QPs use it.
  Status DestroyOnDevice();
  Device& device() const { return device_; }
  void AddUser() { users_.Add(1); }
  void RemoveUser() { users_.Add(-1); }

 private:
  SharedReceiveQueue(Device& device, void* context)
      : DeviceResource(&DeleteAs<SharedReceiveQueue>), device_(device),
        context_(context) {}
  Status Init(uint32_t pdn, uint32_t max_wr, uint32_t max_sge, uint32_t limit,
              uint32_t user_log_size, uint32_t user_wqe_shift,
              uint32_t user_dbrec_offset, uint32_t db_page);

  Device& device_;
  void* context_;
  uint32_t srqn_ = 0;
  bool live_ = false;
  AtomicU32 users_;
  RecvQueueLayout layout_;
  SpinLock lock_;
  WorkQueue rq_;
  uint32_t log_size_ = 0;
  uint32_t wqe_shift_ = 0;
  OwnedPtr<UserBuffer> user_buffer_;  // user SRQs: the ring instead of rq_
  uint32_t xrcdn_ = 0;      // XRC SRQs: the domain (0: a basic SRQ)
  uint32_t xrc_cqn_ = 0;    // XRC SRQs: the CQ
  TagMatching tm_{};        // TM SRQs: tm_.ops set
  uint32_t pdn_ = 0;
  uint32_t db_page_ = 0;
  WorkQueue orphan_rq_;     // a resize the device never answered
  OwnedPtr<UserBuffer> orphan_user_buffer_;
  Status CreateOnDevice(const vhca_cmd_create_srq& in);
  Result<uint32_t> ResizeLogSize(uint32_t max_wr) const;
  vhca_cmd_create_srq ResizeInput(uint32_t log_size) const;
  Result<uint32_t> CreateTmOnDevice(const vhca_cmd_create_srq& in);
};

}  // namespace vhca

#endif  // VHCA_CORE_SHARED_RECEIVE_QUEUE_H
