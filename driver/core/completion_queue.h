// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Completion queues (Guide 8.2, vhca_hw_verbs.h "Completion queues"): a
// ring of 64-byte CQEs the device writes with the EQ owner-bit rule, a
// doorbell record holding our consumer index (the device reads it before
// declaring the CQ full), and the arm doorbell.
//
// Poll decodes each CQE into a vhca_core_wc for the caller's converter
// (the shim writes it into ib_wc) and hands the freed WQEs back
// to their queue pair (wqe_index); the QPs that use this CQ are attached
// to it (under lock_), so that a QP cannot vanish during a poll and its
// leftover CQEs can be cleaned when it is destroyed (Guide 8.2.3 note 2).
#ifndef VHCA_CORE_COMPLETION_QUEUE_H
#define VHCA_CORE_COMPLETION_QUEUE_H

#include "device_resource.h"
#include "dma_buffer.h"
#include "intrusive_list.h"
#include "owned_ptr.h"
#include "result.h"
#include "sync.h"
#include "user_buffer.h"
#include "vhca_core_verbs.h"
#include "vhca_hw.h"

namespace vhca {

class Device;
class QueuePair;

// A queue pair's link into the list of one of its CQs.
struct CqAttachment : ListNode {
  QueuePair* qp = nullptr;
};

class CompletionQueue : public DeviceResource {
 public:
  // qpn of a CQE whose QP was destroyed before it was polled (never a
  // device QPN: those have 24 bits).
  static constexpr uint32_t kStaleQpn = 0xffffffffu;

  // At least `entries` CQEs on completion vector `comp_vector`.
  static Result<OwnedPtr<CompletionQueue>> Create(Device& device,
                                                  uint32_t entries,
                                                  uint32_t comp_vector,
                                                  void* context);
  // A CQ of a user context (uverbs): 2^log_size CQEs at the start of
  // `buffer` and the doorbell record at byte dbrec_offset of it, rung
  // through doorbell page db_page.  The provider polls and arms it; the
  // kernel never does (Poll and Arm do nothing, Resize is -EOPNOTSUPP:
  // the provider resizes with ResizeUser).
  static Result<OwnedPtr<CompletionQueue>> CreateUser(
      Device& device, OwnedPtr<UserBuffer> buffer, uint32_t log_size,
      uint32_t dbrec_offset, uint32_t comp_vector, uint32_t db_page,
      void* context);
  // CQE count for a request of `entries` (power of two, > entries so a
  // ring is never ambiguous); 0 when too big.
  static uint32_t LogSizeFor(uint32_t entries);

  uint32_t cqn() const { return cqn_; }
  uint32_t log_size() const { return log_size_; }
  // Usable entries (ib_cq.cqe).
  uint32_t capacity() const { return (1u << log_size_) - 1; }
  uint32_t consumer_index() const { return consumer_index_; }
  void* context() const { return context_; }
  // The MSI-X vector of its completion EQ (completion vector + 1).
  uint32_t vector() const { return vector_; }
  bool user() const { return user_buffer_.get() != nullptr; }
  const vhca_cqe* ring() const { return static_cast<const vhca_cqe*>(ring_.cpu()); }

  // Up to `max` completions, each given to convert(ctx, n, wc) under
  // lock_ (vhca_core_verbs.h); returns how many.
  int Poll(int max, vhca_core_wc_convert convert, void* ctx);
  // Arms (VHCA_CORE_CQ_* flags); 1 with REPORT_MISSED when a CQE waits.
  int Arm(uint32_t flags);
  // vhca_core_cq_snapshot (restrack), under lock_.
  void Snapshot(vhca_core_cq_res* res);

  void Attach(CqAttachment* attachment);
  // Detaches and marks the QP's unpolled CQEs stale (Guide 8.2.3 note 2).
  // qpn arguments here are device handles (vhca_cqe.qpn).
  void Detach(CqAttachment* attachment, uint32_t qpn);
  // Marks the unpolled CQEs of qpn stale (the QP went to RESET).
  void Clean(uint32_t qpn);
  bool has_qps() const { return attached_count_ != 0; }

  // RESIZE_CQ (Guide 6.8.2), in use or not: polling pauses while the
  // command runs; the device moves the CQEs not yet consumed to the start
  // of the new ring, where polling resumes at index 0.  A new size smaller
  // than what waits is the device's BAD_PARAM (-EINVAL), the CQ unchanged.
  Status Resize(uint32_t entries);
  // RESIZE_CQ of a user CQ onto the provider's new ring (laid out as for
  // CreateUser, same doorbell page).  The provider holds its poll lock and
  // has stored its consumer index in the old record; the device moves the
  // CQEs past it to index 0 of the new ring.  On success the old buffer
  // is dropped; after a lost command the new one stays with the CQ.
  Status ResizeUser(OwnedPtr<UserBuffer> buffer, uint32_t log_size,
                    uint32_t dbrec_offset);

  Status DestroyOnDevice();
  Device& device() const { return device_; }

 private:
  CompletionQueue(Device& device, void* context)
      : DeviceResource(&DeleteAs<CompletionQueue>), device_(device),
        context_(context) {}
  Status Init(uint32_t entries, uint32_t comp_vector);
  Status InitUser(uint32_t log_size, uint32_t dbrec_offset,
                  uint32_t comp_vector, uint32_t db_page);
  // CREATE_CQ/RESIZE_CQ input for a user ring in `buffer`.
  Status UserRingInput(const UserBuffer& buffer, uint32_t log_size,
                       uint32_t dbrec_offset, vhca_cmd_create_cq* in) const;
  // A zeroed ring of 2^log_size CQEs plus the doorbell record, and its
  // CREATE_CQ/RESIZE_CQ input.
  Result<DmaBuffer> AllocateRing(uint32_t log_size, vhca_cmd_create_cq* in);
  uint32_t num_entries() const { return 1u << log_size_; }
  vhca_cqe* Entry(uint32_t index) const {
    return static_cast<vhca_cqe*>(ring_.cpu()) + (index & (num_entries() - 1));
  }
  bool Valid(uint32_t index) const;
  // Resize: sets resizing_; returns (and clears) the deferred arm flags.
  uint32_t SetResizing(bool resizing);
  void RingDeferredArm(uint32_t flags);
  // Under lock_: decodes one CQE; false when it is skipped (stale).
  bool Decode(const vhca_cqe& cqe, vhca_core_wc* wc);
  QueuePair* FindQp(uint32_t qpn);
  void CleanLocked(uint32_t qpn);

  Device& device_;
  void* context_;
  uint32_t cqn_ = 0;
  uint32_t log_size_ = 0;
  bool live_ = false;
  uint32_t eqn_ = 0;
  uint32_t vector_ = 0;
  DmaBuffer ring_;        // the CQEs, then the doorbell record
  OwnedPtr<UserBuffer> user_buffer_;  // user CQs: the ring instead of ring_
  uint32_t db_page_ = 0;              // user CQs: the context's page
  // A user ring whose RESIZE_CQ got no device answer (as orphan_ring_).
  OwnedPtr<UserBuffer> orphan_user_buffer_;
  // A new ring whose RESIZE_CQ failed without a device answer: the device
  // may use it, so it lives as long as the CQ.
  DmaBuffer orphan_ring_;
  vhca_cq_dbrec* dbrec_ = nullptr;
  SpinLock lock_;         // consumer_index_, the attachments
  uint32_t consumer_index_ = 0;
  // A RESIZE_CQ is running: the device moves the unconsumed CQEs to the
  // new ring, so Poll must not consume from the old one, and an arm waits
  // (arm_deferred_) to be rung on the new ring.
  bool resizing_ = false;
  uint32_t arm_deferred_ = 0;  // VHCA_CORE_CQ_* flags
  IntrusiveList<CqAttachment> attached_;
  uint32_t attached_count_ = 0;
  QueuePair* last_qp_ = nullptr;  // lookup cache
};

}  // namespace vhca

#endif  // VHCA_CORE_COMPLETION_QUEUE_H
