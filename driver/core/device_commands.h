// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The device's commands (vhca_hw.h enum vhca_cmd_opcode), one function
// each: build the request, run it on the command queue, turn the device
// status into an errno (in StatusToErrno, the only place that does) and
// unpack the result.
#ifndef VHCA_CORE_DEVICE_COMMANDS_H
#define VHCA_CORE_DEVICE_COMMANDS_H

#include "command_queue.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

// enum vhca_cmd_status -> 0 or a negative errno.
int StatusToErrno(uint8_t status);

class DeviceCommands {
 public:
  explicit DeviceCommands(CommandQueue* queue) : queue_(queue) {}

  Status QueryDevice(vhca_device_attr* attr);
  Status QueryPort(uint8_t port, vhca_port_attr* attr);
  Status QueryGid(uint8_t port, uint16_t index, vhca_gid* gid);
  Result<uint16_t> QueryPkey(uint8_t port, uint16_t index);
  Status SetNodeDesc(const vhca_node_desc& desc);
  // Returns the eqn.
  Result<uint32_t> CreateEq(uint64_t base, uint8_t log_size, uint16_t vector);
  Status DestroyEq(uint32_t eqn);
  // Returns the pdn.
  Result<uint32_t> AllocPd();
  Status DeallocPd(uint32_t pdn);

 private:
  Result<CommandResponse> Run(const CommandRequest& request);

  CommandQueue* queue_;
};

}  // namespace vhca

#endif  // VHCA_CORE_DEVICE_COMMANDS_H
