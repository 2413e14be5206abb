// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The device's IB ports: validates port events from EQ 0, remembers the
// last state and LID each reported, and hands them to the shim, which
// turns them into ib_events (IBA 11.6.3 asynchronous events: PORT_ACTIVE,
// PORT_ERR, LID_CHANGE, SM_CHANGE, PKEY_CHANGE, GID_CHANGE).
//
// Port attributes themselves are always read from the device
// (QUERY_PORT): the SM may change them at any time.
#ifndef VHCA_CORE_PORTS_H
#define VHCA_CORE_PORTS_H

#include "device_commands.h"
#include "result.h"
#include "vhca_hw.h"
#include "vhca_kapi.h"

namespace vhca {

class Ports {
 public:
  struct Snapshot {
    uint8_t state = 0;  // enum vhca_port_state, as of the last event
    uint16_t lid = 0;
    uint32_t events = 0;  // port events seen
  };

  Ports(vhca_kapi_device* kdev, DeviceCommands* commands)
      : kdev_(kdev), commands_(commands) {}

  void set_num_ports(uint8_t num_ports) { num_ports_ = num_ports; }
  uint8_t num_ports() const { return num_ports_; }
  bool valid(uint32_t port) const { return port >= 1 && port <= num_ports_; }

  // A VHCA_EQE_PORT_EVENT (hard-IRQ context).
  void HandleEvent(const vhca_eqe& event);

  // Reports PORT_ACTIVE for each port that is ACTIVE now (process context).
  Status ReplayEvents();

  Status Query(uint32_t port, vhca_port_attr* attr);

  const Snapshot& snapshot(uint32_t port) const { return ports_[port - 1]; }

 private:
  vhca_kapi_device* kdev_;
  DeviceCommands* commands_;
  uint8_t num_ports_ = 0;
  Snapshot ports_[VHCA_MAX_PORTS];
};

}  // namespace vhca

#endif  // VHCA_CORE_PORTS_H
