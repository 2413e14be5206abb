// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "ports.h"

#include "endian.h"
#include "log.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

const char* EventName(uint8_t subtype) {
  switch (subtype) {
    case VHCA_PORT_EV_ACTIVE:
      return "ACTIVE";
    case VHCA_PORT_EV_DOWN:
      return "DOWN";
    case VHCA_PORT_EV_LID_CHANGE:
      return "LID_CHANGE";
    case VHCA_PORT_EV_SM_CHANGE:
      return "SM_CHANGE";
    case VHCA_PORT_EV_PKEY_CHANGE:
      return "PKEY_CHANGE";
    case VHCA_PORT_EV_GID_CHANGE:
      return "GID_CHANGE";
    case VHCA_PORT_EV_CLIENT_REREGISTER:
      return "CLIENT_REREGISTER";
    default:
      return nullptr;
  }
}

}  // namespace

void Ports::HandleEvent(const vhca_eqe& event) {
  const vhca_eqe_port& data = event.data.port;
  const char* name = EventName(event.subtype);
  if (!valid(data.port) || !name) {
    VHCA_LOG_WARN(kdev_, "ignoring port event %u for port %u\n",
                  event.subtype, data.port);
    return;
  }
  Snapshot& port = ports_[data.port - 1];
  port.state = data.state;
  port.lid = FromLe16(data.lid);
  port.events++;
  VHCA_LOG_INFO(kdev_, "port %u: %s (state %u, lid %u)\n", data.port, name,
                data.state, port.lid);
  vhca_kapi_port_event(kdev_, data.port, event.subtype);
}

Status Ports::ReplayEvents() {
  for (uint32_t port = 1; port <= num_ports_; port++) {
    vhca_port_attr attr;
    VHCA_TRY(Query(port, &attr));
    if (attr.state == VHCA_PORT_ACTIVE)
      vhca_kapi_port_event(kdev_, port, VHCA_PORT_EV_ACTIVE);
  }
  return Ok();
}

Status Ports::Query(uint32_t port, vhca_port_attr* attr) {
  if (!valid(port)) return Error{-VHCA_EINVAL};
  return commands_->QueryPort(static_cast<uint8_t>(port), attr);
}

}  // namespace vhca
