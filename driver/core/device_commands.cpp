// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "device_commands.h"

#include "command_names.h"
#include "command_request.h"
#include "endian.h"
#include "log.h"
#include "memory.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

vhca_cmd_table_in TableIn(uint8_t port, uint16_t index) {
  vhca_cmd_table_in in{};
  in.port = port;
  in.index = ToLe16(index);
  return in;
}

}  // namespace

int StatusToErrno(uint8_t status) {
  switch (status) {
    case VHCA_CMD_OK:
      return 0;
    case VHCA_CMD_BAD_OPCODE:
      return -VHCA_EOPNOTSUPP;
    case VHCA_CMD_BAD_PARAM:
    case VHCA_CMD_BAD_STATE:
    case VHCA_CMD_BAD_SIZE:
      return -VHCA_EINVAL;
    case VHCA_CMD_BAD_HANDLE:
      return -VHCA_ENOENT;
    case VHCA_CMD_NO_RESOURCES:
      return -VHCA_ENOMEM;
    case VHCA_CMD_BAD_ADDR:
      return -VHCA_EFAULT;
    case VHCA_CMD_BUSY:
      return -VHCA_EBUSY;
    case VHCA_CMD_INTERNAL:
      return -VHCA_EIO;
    default:
      // A status this driver does not know: a newer device or a bug.
      return -VHCA_EPROTO;
  }
}

// Every command's device status passes here: a failure is logged once,
// with the command's name and the status (as Linux EFA's
// efa_com_cmd_exec), rate-limited since guest software can repeat it at
// will; unless the caller expects that status.  The queue's own failures
// (timeout, dead queue) are logged by the queue.
Result<CommandResponse> DeviceCommands::Run(const CommandRequest& request) {
  auto response = queue_->Execute(request);
  VHCA_TRY(response);
  const uint8_t status = response.value().status;
  const int error = StatusToErrno(status);
  if (!error) return response.Take();
  if (status != request.expected_status)
    VHCA_LOG_ERR_RATELIMITED(queue_->kdev(),
                             "command %s (opcode 0x%x) failed: status %s "
                             "(0x%x), error %d\n",
                             OpcodeName(request.opcode), request.opcode,
                             StatusName(status), status, error);
  return Error{error};
}

Status DeviceCommands::QueryDevice(vhca_device_attr* attr) {
  CommandRequest request = MakeRequest(VHCA_CMD_QUERY_DEVICE);
  request.out_data = attr;
  request.out_len = sizeof(*attr);
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::QueryPort(uint8_t port, vhca_port_attr* attr) {
  vhca_cmd_port_in in{};
  in.port = port;
  CommandRequest request = MakeRequest(VHCA_CMD_QUERY_PORT, in);
  request.out_data = attr;
  request.out_len = sizeof(*attr);
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::QueryGid(uint8_t port, uint16_t index, vhca_gid* gid) {
  CommandRequest request = MakeRequest(VHCA_CMD_QUERY_GID, TableIn(port, index));
  request.out_data = gid;
  request.out_len = sizeof(*gid);
  VHCA_TRY(Run(request));
  return Ok();
}

Result<uint16_t> DeviceCommands::QueryPkey(uint8_t port, uint16_t index) {
  auto response =
      Run(MakeRequest(VHCA_CMD_QUERY_PKEY, TableIn(port, index)));
  VHCA_TRY(response);
  return static_cast<uint16_t>(response.value().result[0]);
}

Status DeviceCommands::SetNodeDesc(const vhca_node_desc& desc) {
  CommandRequest request = MakeRequest(VHCA_CMD_SET_NODE_DESC);
  request.in_data = &desc;
  request.in_len = sizeof(desc);
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::SetPortCap(uint8_t port, uint32_t set, uint32_t clear) {
  vhca_cmd_port_cap_in in{};
  in.port = port;
  in.set = ToLe32(set);
  in.clear = ToLe32(clear);
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_SET_PORT_CAP, in)));
  return Ok();
}

Result<bool> DeviceCommands::MadIfc(uint8_t port, const vhca_mad& in,
                                     vhca_mad* out) {
  vhca_cmd_port_in port_in{};
  port_in.port = port;
  CommandRequest request = MakeRequest(VHCA_CMD_MAD_IFC, port_in);
  request.in_data = &in;
  request.in_len = sizeof(in);
  request.out_data = out;
  request.out_len = sizeof(*out);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0] == 1;
}

Result<uint32_t> DeviceCommands::CreateEq(uint64_t base, uint8_t log_size,
                                          uint16_t vector) {
  vhca_cmd_create_eq_in in{};
  in.base = ToLe64(base);
  in.log_size = log_size;
  in.vector = ToLe16(vector);
  auto response = Run(MakeRequest(VHCA_CMD_CREATE_EQ, in));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DestroyEq(uint32_t eqn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DESTROY_EQ, HandleIn(eqn))));
  return Ok();
}

Result<uint32_t> DeviceCommands::AllocPd() {
  auto response = Run(MakeRequest(VHCA_CMD_ALLOC_PD));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DeallocPd(uint32_t pdn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DEALLOC_PD, HandleIn(pdn))));
  return Ok();
}

Result<uint32_t> DeviceCommands::AllocXrcd() {
  auto response = Run(MakeRequest(VHCA_CMD_ALLOC_XRCD));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DeallocXrcd(uint32_t xrcdn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DEALLOC_XRCD, HandleIn(xrcdn))));
  return Ok();
}

}  // namespace vhca
