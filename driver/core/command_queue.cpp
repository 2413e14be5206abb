// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "command_queue.h"

#include "command_names.h"
#include "endian.h"
#include "log.h"
#include "memory.h"
#include "vhca_core.h"

namespace vhca {
namespace {

constexpr uint32_t kMailboxSize = 2 * CommandQueue::kMailboxHalf;
// Token = generation << kTokenSlotBits | slot index: the slot comes back
// with the completion, and the generation tells a stale completion (of a
// command that timed out) from the current one.
constexpr uint32_t kTokenSlotBits = 8;
constexpr uint32_t kTokenSlotMask = (1u << kTokenSlotBits) - 1;

}  // namespace

Result<OwnedPtr<CommandQueue>> CommandQueue::Create(Registers regs,
                                                    uint32_t log_size) {
  if (log_size < VHCA_MIN_LOG_CMDQ || log_size > kTokenSlotBits)
    return Error{-VHCA_EINVAL};
  OwnedPtr<CommandQueue> queue(new CommandQueue(regs));
  if (!queue) return Error{-VHCA_ENOMEM};
  VHCA_TRY(queue->Init(log_size));
  return queue;
}

Status CommandQueue::Init(uint32_t log_size) {
  log_size_ = log_size;
  timeout_ms_ = VHCA_CORE_CMD_TIMEOUT_MS;
  vhca_kapi_device* kdev = regs_.kdev();

  // The ring must be VHCA_QUEUE_ALIGN aligned: DMA buffers are page
  // aligned and at least a page long.
  size_t ring_size = sizeof(vhca_cmd) << log_size;
  if (ring_size < VHCA_QUEUE_ALIGN) ring_size = VHCA_QUEUE_ALIGN;
  auto ring = DmaBuffer::Create(kdev, ring_size);
  VHCA_TRY(ring);
  ring_ = ring.Take();

  auto mailboxes = DmaBuffer::Create(kdev, size_t{kMailboxSize} << log_size);
  VHCA_TRY(mailboxes);
  mailboxes_ = mailboxes.Take();

  if (!slots_.Allocate(num_slots())) return Error{-VHCA_ENOMEM};
  for (uint32_t i = 0; i < num_slots(); i++) {
    auto completion = Completion::Create();
    VHCA_TRY(completion);
    slots_[i].completion = completion.Take();
    free_slots_.PushBack(&slots_[i]);
  }

  auto lock = SpinLock::Create(VHCA_LOCK_COMMAND_QUEUE);
  VHCA_TRY(lock);
  lock_ = lock.Take();
  auto free_count = Semaphore::Create(num_slots());
  VHCA_TRY(free_count);
  free_count_ = free_count.Take();
  return Ok();
}

uint8_t* CommandQueue::mailbox(uint32_t slot_index) const {
  return static_cast<uint8_t*>(mailboxes_.cpu()) + slot_index * kMailboxSize;
}

uint32_t CommandQueue::SlotIndex(const Slot* slot) const {
  return static_cast<uint32_t>(slot - &slots_[0]);
}

Result<CommandResponse> CommandQueue::Execute(const CommandRequest& request) {
  if (request.in_len > kMailboxHalf || request.out_len > kMailboxHalf ||
      (request.in_len && !request.in_data) ||
      (request.out_len && !request.out_data))
    return Error{-VHCA_EINVAL};

  // A free slot also guarantees a free ring entry: every command the
  // device has not consumed yet holds a slot, so fewer than num_slots()
  // entries lie between the device's consumer index and ours.
  free_count_.Down();
  Slot* slot;
  {
    LockGuard guard(lock_);
    if (dead_) {
      free_count_.Up();
      return Error{-VHCA_EIO};
    }
    slot = free_slots_.PopFront();
    Post(slot, request);
  }
  // The result of the wait is not needed: the slot state under the lock
  // decides (a completion racing with the timeout counts as success).
  (void)slot->completion.Wait(timeout_ms_);
  return Finish(slot, request);
}

void CommandQueue::Post(Slot* slot, const CommandRequest& request) {
  const uint32_t index = SlotIndex(slot);
  const uint32_t generation = (slot->token >> kTokenSlotBits) + 1;
  slot->token = (generation << kTokenSlotBits) | index;
  slot->state = SlotState::kPending;
  slot->response = CommandResponse{};
  slot->completion.Reinit();

  uint8_t* in = mailbox(index);
  uint8_t* out = in + kMailboxHalf;
  const uint64_t in_dma = mailboxes_.dma() + index * kMailboxSize;
  const uint64_t out_dma = in_dma + kMailboxHalf;
  if (request.in_len) CopyBytes(in, request.in_data, request.in_len);
  if (request.out_len) ZeroBytes(out, request.out_len);

  vhca_cmd* entry = static_cast<vhca_cmd*>(ring_.cpu()) +
                    (producer_index_ & (num_slots() - 1));
  ZeroBytes(entry, sizeof(*entry));
  entry->opcode = ToLe16(request.opcode);
  entry->token = ToLe32(slot->token);
  entry->in_addr = ToLe64(request.in_len ? in_dma : 0);
  entry->in_len = ToLe32(request.in_len);
  entry->out_addr = ToLe64(request.out_len ? out_dma : 0);
  entry->out_len = ToLe32(request.out_len);
  CopyBytes(entry->in.raw, request.inline_in, sizeof(entry->in.raw));

  producer_index_++;
  regs_.RingCmdq(producer_index_);
}

Result<CommandResponse> CommandQueue::Finish(Slot* slot,
                                             const CommandRequest& request) {
  CommandResponse response;
  {
    LockGuard guard(lock_);
    if (slot->state == SlotState::kPending) {
      // No completion within the timeout.  The slot stays out of the free
      // list for good: the device may still complete it.
      slot->state = SlotState::kTimedOut;
      dead_ = true;
      free_count_.Up();
      const DeviceStatus status = regs_.ReadStatus();
      VHCA_LOG_ERR(regs_.kdev(),
                   "command %s (opcode 0x%x, token 0x%x) timed out after %u "
                   "ms; command queue is dead (device status: enabled=%d "
                   "fatal=%d code=%u)\n",
                   OpcodeName(request.opcode), request.opcode, slot->token,
                   timeout_ms_, status.enabled, status.fatal,
                   status.fatal_code);
      return Error{-VHCA_ETIMEDOUT};
    }
    response = slot->response;
  }
  // The slot is still ours: copy the output before giving it back.
  if (request.out_len)
    CopyBytes(request.out_data, mailbox(SlotIndex(slot)) + kMailboxHalf,
              request.out_len);
  {
    LockGuard guard(lock_);
    slot->state = SlotState::kFree;
    free_slots_.PushBack(slot);
  }
  free_count_.Up();
  return response;
}

void CommandQueue::Complete(const vhca_eqe_cmd_done& done) {
  const uint32_t token = FromLe32(done.token);
  const uint32_t index = token & kTokenSlotMask;
  LockGuard guard(lock_);
  Slot* slot = index < num_slots() ? &slots_[index] : nullptr;
  if (!slot || slot->token != token || slot->state != SlotState::kPending) {
    VHCA_LOG_WARN(regs_.kdev(),
                  "completion for unknown or expired command token 0x%x\n",
                  token);
    return;
  }
  slot->response.status = done.status;
  slot->response.result[0] = FromLe32(done.result[0]);
  slot->response.result[1] = FromLe32(done.result[1]);
  slot->state = SlotState::kDone;
  slot->completion.Complete();
}

}  // namespace vhca
