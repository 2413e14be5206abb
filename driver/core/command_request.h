// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Building CommandRequests: the inline 32-byte input and the common
// handle-only input.  Shared by the command wrappers of device_commands.cpp
// and data_path_commands.cpp (inline: the kernel build is one translation
// unit, see vhca_core.cpp).
#ifndef VHCA_CORE_COMMAND_REQUEST_H
#define VHCA_CORE_COMMAND_REQUEST_H

#include "command_queue.h"
#include "endian.h"
#include "memory.h"
#include "vhca_hw.h"

namespace vhca {

template <typename Inline>
inline CommandRequest MakeRequest(uint16_t opcode, const Inline& in) {
  static_assert(sizeof(Inline) == sizeof(CommandRequest::inline_in),
                "inline input is 32 bytes");
  CommandRequest request;
  request.opcode = opcode;
  CopyBytes(request.inline_in, &in, sizeof(in));
  return request;
}

inline CommandRequest MakeRequest(uint16_t opcode) {
  CommandRequest request;
  request.opcode = opcode;
  return request;
}

inline vhca_cmd_handle_in HandleIn(uint32_t handle) {
  vhca_cmd_handle_in in{};
  in.handle = ToLe32(handle);
  return in;
}

// in_addr input (at most CommandQueue::kMailboxHalf bytes).
template <typename Input>
inline void SetInput(CommandRequest* request, const Input& in) {
  static_assert(sizeof(Input) <= CommandQueue::kMailboxHalf,
                "command input fits the mailbox");
  request->in_data = &in;
  request->in_len = sizeof(in);
}

// out_addr output (at most CommandQueue::kMailboxHalf bytes).
template <typename Output>
inline void SetOutput(CommandRequest* request, Output* out) {
  static_assert(sizeof(Output) <= CommandQueue::kMailboxHalf,
                "command output fits the mailbox");
  request->out_data = out;
  request->out_len = sizeof(*out);
}

}  // namespace vhca

#endif  // VHCA_CORE_COMMAND_REQUEST_H
