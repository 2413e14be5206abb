// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A work queue ring in kernel DMA memory (send queue, receive queue or
// SRQ): 2^log_size WQEs of 2^wqe_shift bytes, a free-running producer
// index (the poster's, under the owner's lock) and a free-running consumer
// index advanced by the CQ poller, so post and poll share no lock (Guide
// 8.2.3 note 3).  The consumer index is released by the poller and
// acquired by the poster (a slot is reused only after its completion was
// read); the producer index is read by the poller only as a bound.  An
// SRQ's consumer index is advanced by the pollers of several CQs at once:
// an atomic_t.
//
// A receive queue (QP RQ or SRQ) also has a doorbell record after the
// ring in the same DMA buffer (vhca_hw_verbs.h "Receive doorbell
// records"): posting stores the producer index there instead of ringing
// a doorbell, as mlx5 does.  So does a send queue on a device that polls
// send records (VHCA_DEV_CAP_SQ_POLL, "Send doorbell records"): posting
// stores the index and rings only while the record says the device
// sleeps.
#ifndef VHCA_CORE_WORK_QUEUE_H
#define VHCA_CORE_WORK_QUEUE_H

#include "dma_buffer.h"
#include "endian.h"
#include "memory.h"
#include "memory_model.h"
#include "page_list.h"
#include "result.h"
#include "vhca_errno.h"

namespace vhca {

class WorkQueue;

// The body of post_send/post_recv (IBA 11.4.1.1, 11.4.1.2) for a chain of
// WRs at *item, its owner's lock held: each is converted (convert(item,
// &wr, &next) -> errno), written into the next free WQE (build(wr, wqe) ->
// Status) and produced.  Stops at the first error (-ENOMEM: the ring is
// full) with *item at that WR; *posted counts what went in, for the one
// doorbell the caller then rings.
template <typename Wr, typename Convert, typename Build>
Status FillChain(WorkQueue& queue, const void** item, Convert convert,
                 Build build, uint32_t* posted);

class WorkQueue {
 public:
  enum class Record { kNone, kReceive, kSend };

  // A zeroed ring (and record: producer index 0).
  static Result<WorkQueue> Create(vhca_kapi_device* kdev, uint32_t log_size,
                                  uint32_t wqe_shift,
                                  Record record = Record::kNone) {
    WorkQueue queue;
    queue.log_size_ = log_size;
    queue.wqe_shift_ = wqe_shift;
    const size_t ring_bytes = queue.ring_bytes();
    auto ring = DmaBuffer::Create(
        kdev, ring_bytes + (record != Record::kNone ? kRecordAlign : 0));
    VHCA_TRY(ring);
    queue.ring_ = ring.Take();
    if (record != Record::kNone)
      queue.record_ = reinterpret_cast<vhca_wq_dbrec*>(
          static_cast<uint8_t*>(queue.ring_.cpu()) + ring_bytes);
    return queue;
  }

  WorkQueue() = default;
  WorkQueue(WorkQueue&&) = default;
  WorkQueue& operator=(WorkQueue&&) = default;

  uint32_t log_size() const { return log_size_; }
  uint32_t wqe_shift() const { return wqe_shift_; }
  uint32_t size() const { return 1u << log_size_; }
  uint32_t stride() const { return 1u << wqe_shift_; }
  Result<vhca_buf_desc> Descriptor() const {
    return ContiguousDescriptor(ring_.dma(), ring_bytes());
  }
  // The record's DMA address for CREATE_QP/CREATE_SRQ; 0: none.
  uint64_t RecordDma() const { return record_ ? ring_.dma() + ring_bytes() : 0; }

  uint32_t producer() const { return producer_; }
  uint32_t consumer() const { return consumer_.ReadAcquire(); }
  bool full() const {
    return producer_ - consumer() >= (size() < cap_ ? size() : cap_);
  }
  // The WQE at the producer index (owner's lock held, !full()).
  uint8_t* NextWqe() const { return Wqe(producer_); }
  uint8_t* Wqe(uint32_t index) const {
    return static_cast<uint8_t*>(ring_.cpu()) +
           (size_t{index & (size() - 1)} << wqe_shift_);
  }
  void Produced() { WriteOnce(&producer_, producer_ + 1); }
  // Hands the WQEs up to the producer index to the device through the
  // record: dma_wmb() orders the WQE writes before the record store the
  // device may read at any time (as mlx5_ib_post_recv's barrier).
  void PublishProducer() {
    vhca_kapi_dma_wmb();
    WriteOnce(&record_->producer_index, ToLe32(producer_));
  }
  bool has_record() const { return record_ != nullptr; }
  // After PublishProducer of a send record: whether the device polls the
  // record (no doorbell needed).  The full barrier orders the producer
  // store before the flag load; the device clears the flag, then reads
  // the record once more before it sleeps (virtio's NO_NOTIFY protocol).
  bool DevicePolls() const {
    vhca_kapi_dma_mb();
    return FromLe32(ReadOnce(&record_->device_flags)) & VHCA_WQ_DBREC_F_POLLED;
  }

  // A CQE for the WQE whose index has low 16 bits wqe_index: it and every
  // earlier WQE are done (unsignaled sends complete silently before it).
  // The full index is the one within 2^16 after the consumer index (at
  // most 2^VHCA_MAX_LOG_WQ WQEs are outstanding).
  void CompletedThrough(uint16_t wqe_index) {
    const uint32_t consumer = consumer_.Read();
    const uint32_t done =
        consumer + static_cast<uint16_t>(wqe_index - static_cast<uint16_t>(consumer));
    // A CQE naming a WQE that was never posted (a device bug) must not
    // push the consumer past the producer.
    if (done - consumer >= ReadOnce(&producer_) - consumer) return;
    consumer_.SetRelease(done + 1);
  }
  // One WQE done, in order (SRQ).
  void CompletedOne() { consumer_.AddRelease(1); }
  // SRQ resize (SharedReceiveQueue::Resize): while the device moves the
  // SRQ, posting stops at cap WQEs outstanding (the smaller of the two
  // sizes, so what is posted meanwhile fits in the ring it ends on);
  // ~0u lifts it.  Owner's lock held.
  void LimitTo(uint32_t cap) { cap_ = cap; }
  // A new ring's record, before the device takes the ring: the index the
  // poster has published so far.
  void SeedRecord(uint32_t producer) {
    WriteOnce(&record_->producer_index, ToLe32(producer));
  }
  // This queue goes on in next's ring (same stride), its counters kept:
  // the WQEs posted after the device's index `taken` (the device moved
  // those before it, index i to slot i of the new ring) are copied to
  // the same indexes there and published in next's record.  next keeps
  // the old ring, to be freed after the owner's lock is dropped.
  void AdoptRing(WorkQueue& next, uint32_t taken) {
    for (uint32_t i = taken; i != producer_; ++i)
      CopyBytes(next.Wqe(i), Wqe(i), stride());
    DmaBuffer ring = Move(next.ring_);
    next.ring_ = Move(ring_);
    ring_ = Move(ring);
    vhca_wq_dbrec* record = next.record_;
    next.record_ = record_;
    record_ = record;
    const uint32_t log_size = next.log_size_;
    next.log_size_ = log_size_;
    log_size_ = log_size;
    cap_ = ~0u;
    PublishProducer();
  }
  // QP back to RESET: the device forgets the queue's indexes.
  // The record too: the device takes a stale record value after RESET
  // (it is not behind the device's index 0) as posted WQEs.
  void Reset() {
    WriteOnce(&producer_, 0);
    consumer_.SetRelease(0);
    if (record_) WriteOnce(&record_->producer_index, 0);
  }

 private:
  // The record's own cache line after the WQEs.
  static constexpr size_t kRecordAlign = 64;
  size_t ring_bytes() const { return size_t{1} << (log_size_ + wqe_shift_); }

  uint32_t log_size_ = 0;
  uint32_t wqe_shift_ = 0;
  DmaBuffer ring_;
  vhca_wq_dbrec* record_ = nullptr;  // in ring_, after the WQEs
  uint32_t producer_ = 0;  // written under the owner's lock
  uint32_t cap_ = ~0u;     // LimitTo, under the owner's lock
  AtomicU32 consumer_;
};

template <typename Wr, typename Convert, typename Build>
Status FillChain(WorkQueue& queue, const void** item, Convert convert,
                 Build build, uint32_t* posted) {
  *posted = 0;
  while (*item) {
    Wr wr;
    const void* next = nullptr;
    const int err = convert(*item, &wr, &next);
    if (err) return Error{err};
    if (queue.full()) return Error{-VHCA_ENOMEM};
    VHCA_TRY(build(wr, queue.NextWqe()));
    queue.Produced();
    ++*posted;
    *item = next;
  }
  return Ok();
}

}  // namespace vhca

#endif  // VHCA_CORE_WORK_QUEUE_H
