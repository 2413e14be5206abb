// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The command queue (vhca_hw.h "Command queue"): a ring of 64-byte
// commands in DMA memory, a doorbell, and completions that come back as
// CMD_DONE events on EQ 0 matched by token.
//
// Slots: one per ring entry, each with a completion, a token and a DMA
// mailbox for input and output beyond the inline 32 bytes.  A semaphore
// counts free slots, so a caller sleeps rather than fails when all are in
// flight; since the device consumes the ring in order, a free slot also
// means the ring entry at the producer index is free (see Execute()).
//
// Failure model: a command that does not complete within the timeout
// fails with -ETIMEDOUT and kills the queue: the device is not behaving,
// so every later command fails with -EIO at once.  A timed-out slot is
// never reused (the device might still complete it and write to its
// mailbox), and nothing is freed until the device is reset.
#ifndef VHCA_CORE_COMMAND_QUEUE_H
#define VHCA_CORE_COMMAND_QUEUE_H

#include "dma_buffer.h"
#include "heap.h"
#include "intrusive_list.h"
#include "owned_ptr.h"
#include "registers.h"
#include "result.h"
#include "sync.h"
#include "vhca_hw.h"

namespace vhca {

// One command as the callers of the queue see it.
struct CommandRequest {
  uint16_t opcode = 0;
  uint8_t inline_in[32] = {};      // vhca_cmd.in, already little-endian
  const void* in_data = nullptr;   // copied to the mailbox, in_addr
  uint32_t in_len = 0;
  void* out_data = nullptr;        // copied back from the mailbox, out_addr
  uint32_t out_len = 0;
  // A failure status the caller expects in normal operation (a probe):
  // DeviceCommands does not log it.  VHCA_CMD_OK: none.
  uint8_t expected_status = VHCA_CMD_OK;
};

// What the device said (status is enum vhca_cmd_status; turning it into an
// errno is DeviceCommands' job, not the queue's).
struct CommandResponse {
  uint8_t status = 0;
  uint32_t result[2] = {};
};

class CommandQueue : public HeapObject {
 public:
  // Largest in_len/out_len a command may have: the mailbox halves.
  static constexpr uint32_t kMailboxHalf = 512;

  static Result<OwnedPtr<CommandQueue>> Create(Registers regs,
                                               uint32_t log_size);

  uint64_t ring_dma() const { return ring_.dma(); }
  uint32_t log_size() const { return log_size_; }
  bool dead() const { return dead_; }
  vhca_kapi_device* kdev() const { return regs_.kdev(); }
  void set_timeout_ms(uint32_t timeout_ms) { timeout_ms_ = timeout_ms; }

  // Posts a command and sleeps until its completion.  Errors are the
  // queue's own: -EINVAL (request too big), -ETIMEDOUT, -EIO (dead).
  Result<CommandResponse> Execute(const CommandRequest& request);

  // A CMD_DONE event from EQ 0 (hard-IRQ context).
  void Complete(const vhca_eqe_cmd_done& done);

 private:
  enum class SlotState : uint8_t { kFree, kPending, kDone, kTimedOut };

  struct Slot : ListNode {
    Completion completion;
    uint32_t token = 0;
    SlotState state = SlotState::kFree;
    CommandResponse response;
  };

  explicit CommandQueue(Registers regs) : regs_(regs) {}
  Status Init(uint32_t log_size);
  uint32_t num_slots() const { return 1u << log_size_; }
  uint8_t* mailbox(uint32_t slot_index) const;
  uint32_t SlotIndex(const Slot* slot) const;
  // Under lock_: fills the ring entry and rings the doorbell.
  void Post(Slot* slot, const CommandRequest& request);
  // After the wait: the response, or the timeout that kills the queue.
  Result<CommandResponse> Finish(Slot* slot, const CommandRequest& request);

  Registers regs_;
  uint32_t log_size_ = 0;
  uint32_t timeout_ms_ = 0;
  DmaBuffer ring_;
  DmaBuffer mailboxes_;
  OwnedArray<Slot> slots_;
  SpinLock lock_;        // free_slots_, producer_index_, slot states, dead_
  Semaphore free_count_;  // counts free_slots_
  IntrusiveList<Slot> free_slots_;
  uint32_t producer_index_ = 0;
  bool dead_ = false;
};

}  // namespace vhca

#endif  // VHCA_CORE_COMMAND_QUEUE_H
