// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Ports: event dispatch, replay after registration, port/GID/P_Key
// queries, node description.
#include <cstring>
#include <utility>
#include <vector>

#include "core_test.h"
#include "vhca_errno.h"

namespace {

using PortsTest = CoreTest;
using Events = std::vector<std::pair<unsigned, unsigned>>;

TEST_F(PortsTest, EveryPortEventIsDispatched) {
  ASSERT_EQ(CreateAndStart(), 0);
  const uint8_t subtypes[] = {VHCA_PORT_EV_ACTIVE,      VHCA_PORT_EV_DOWN,
                              VHCA_PORT_EV_LID_CHANGE,  VHCA_PORT_EV_SM_CHANGE,
                              VHCA_PORT_EV_PKEY_CHANGE, VHCA_PORT_EV_GID_CHANGE,
                              VHCA_PORT_EV_CLIENT_REREGISTER};
  Events expected;
  for (uint8_t subtype : subtypes) {
    device_.PostPortEvent(2, subtype, VHCA_PORT_ACTIVE, 3);
    expected.push_back({2, subtype});
  }
  device_.Run();
  EXPECT_EQ(kernel_.port_events(), expected);
  EXPECT_TRUE(kernel_.LogContains("port 2: LID_CHANGE (state 4, lid 3)"));
  EXPECT_TRUE(
      kernel_.LogContains("port 2: CLIENT_REREGISTER (state 4, lid 3)"));
}

// process_mad's path: the device answers (1, the answer copied out) or
// leaves the MAD to the agents (0); a port that does not exist is EINVAL.
TEST_F(PortsTest, MadIfcReturnsTheDevicesAnswerOrNone) {
  ASSERT_EQ(CreateAndStart(), 0);
  vhca_mad in{}, out{};
  in.data[0] = 1;
  in.data[1] = 0x81;  // SubnDirectedRoute, hop count 0
  in.data[3] = 0x01;  // Get
  in.data[17] = 0x11;  // NodeInfo
  EXPECT_EQ(vhca_core_mad_ifc(core_, 1, &in, &out), 1);
  EXPECT_EQ(out.data[3], 0x81);  // GetResp
  in.data[17] = 0x20;  // SMInfo: the SM's
  out = vhca_mad{};
  EXPECT_EQ(vhca_core_mad_ifc(core_, 2, &in, &out), 0);
  EXPECT_EQ(out.data[3], 0);
  EXPECT_EQ(vhca_core_mad_ifc(core_, 3, &in, &out), -VHCA_EINVAL);
}

TEST_F(PortsTest, InvalidPortEventsAreDropped) {
  ASSERT_EQ(CreateAndStart(), 0);
  device_.PostPortEvent(1, 0x7f, VHCA_PORT_ACTIVE, 2);  // unknown subtype
  vhca_eqe event{};
  event.type = VHCA_EQE_PORT_EVENT;
  event.subtype = VHCA_PORT_EV_ACTIVE;
  event.data.port.port = 3;  // device has 2 ports
  device_.PostEvent(0, event);
  event.data.port.port = 0;
  device_.PostEvent(0, event);
  device_.Run();
  EXPECT_TRUE(kernel_.port_events().empty());
  EXPECT_TRUE(kernel_.LogContains("ignoring port event"));
}

TEST_F(PortsTest, PortDownThenUp) {
  ASSERT_EQ(CreateAndStart(), 0);
  device_.PostPortEvent(1, VHCA_PORT_EV_DOWN, VHCA_PORT_DOWN, 0);
  device_.Run();
  vhca_port_attr attr;
  ASSERT_EQ(vhca_core_query_port(core_, 1, &attr), 0);
  EXPECT_EQ(attr.state, VHCA_PORT_DOWN);
  EXPECT_EQ(attr.phys_state, VHCA_PHYS_DISABLED);
  device_.PostPortEvent(1, VHCA_PORT_EV_ACTIVE, VHCA_PORT_ACTIVE, 2);
  device_.Run();
  ASSERT_EQ(vhca_core_query_port(core_, 1, &attr), 0);
  EXPECT_EQ(attr.state, VHCA_PORT_ACTIVE);
  EXPECT_EQ(attr.lid, 2);
  EXPECT_EQ(kernel_.port_events(),
            (Events{{1, VHCA_PORT_EV_DOWN}, {1, VHCA_PORT_EV_ACTIVE}}));
}

TEST_F(PortsTest, ReplayReportsActivePortsOnly) {
  device_.ports[0].state = VHCA_PORT_ACTIVE;
  device_.ports[1].state = VHCA_PORT_INIT;
  ASSERT_EQ(CreateAndStart(), 0);
  ASSERT_EQ(vhca_core_replay_port_events(core_), 0);
  EXPECT_EQ(kernel_.port_events(), (Events{{1, VHCA_PORT_EV_ACTIVE}}));
}

TEST_F(PortsTest, QueryPortGidPkey) {
  device_.ports[1].lid = 7;
  ASSERT_EQ(CreateAndStart(), 0);
  vhca_port_attr attr;
  ASSERT_EQ(vhca_core_query_port(core_, 2, &attr), 0);
  EXPECT_EQ(attr.lid, 7);
  EXPECT_EQ(attr.sm_lid, 1);
  EXPECT_EQ(attr.gid_tbl_len, VHCA_GID_TABLE_LEN);
  EXPECT_EQ(attr.port_guid, device_.node_guid + 2);

  vhca_gid gid;
  ASSERT_EQ(vhca_core_query_gid(core_, 2, 0, &gid), 0);
  EXPECT_EQ(gid.raw[0], 0xfe);
  EXPECT_EQ(gid.raw[1], 0x80);
  EXPECT_EQ(gid.raw[15], static_cast<uint8_t>(device_.node_guid + 2));

  unsigned short pkey = 0;
  ASSERT_EQ(vhca_core_query_pkey(core_, 1, 0, &pkey), 0);
  EXPECT_EQ(pkey, VHCA_DEFAULT_PKEY);
  ASSERT_EQ(vhca_core_query_pkey(core_, 1, 1, &pkey), 0);
  EXPECT_EQ(pkey, 0);
}

TEST_F(PortsTest, OutOfRangeArgumentsFailWithoutACommand) {
  ASSERT_EQ(CreateAndStart(), 0);
  const size_t executed = device_.executed.size();
  vhca_port_attr attr;
  vhca_gid gid;
  unsigned short pkey;
  EXPECT_EQ(vhca_core_query_port(core_, 0, &attr), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_query_port(core_, 3, &attr), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_query_gid(core_, 1, VHCA_GID_TABLE_LEN, &gid), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_query_pkey(core_, 1, VHCA_PKEY_TABLE_LEN, &pkey), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_query_pkey(core_, 9, 0, &pkey), -VHCA_EINVAL);
  EXPECT_EQ(device_.executed.size(), executed);
}

// ib_modify_port: the agents' CapabilityMask bits are the device's state.
TEST_F(PortsTest, CapabilityBitsReachTheDevice) {
  ASSERT_EQ(CreateAndStart(), 0);
  vhca_port_attr attr{};
  ASSERT_EQ(vhca_core_set_port_cap(core_, 2, VHCA_PORT_CAP_DEVICE_MGMT, 0), 0);
  ASSERT_EQ(vhca_core_query_port(core_, 2, &attr), 0);
  EXPECT_EQ(attr.port_cap_flags, VHCA_PORT_CAP_CM | VHCA_PORT_CAP_DEVICE_MGMT);
  ASSERT_EQ(vhca_core_set_port_cap(core_, 2, 0, VHCA_PORT_CAP_CM), 0);
  ASSERT_EQ(vhca_core_query_port(core_, 2, &attr), 0);
  EXPECT_EQ(attr.port_cap_flags, VHCA_PORT_CAP_DEVICE_MGMT);
  // SystemImageGUID supported (bit 11) is the device's, port 3 does not
  // exist: no command reaches the device.  IsSM (bit 1) is an SM's (opensm
  // opens issmN), settable.
  const size_t executed = device_.executed.size();
  EXPECT_EQ(vhca_core_set_port_cap(core_, 2, 1u << 11, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_set_port_cap(core_, 3, VHCA_PORT_CAP_CM, 0), -VHCA_EINVAL);
  EXPECT_EQ(device_.executed.size(), executed);
}

TEST_F(PortsTest, NodeDescriptionReachesTheDevice) {
  ASSERT_EQ(CreateAndStart(), 0);
  vhca_node_desc desc{};
  strcpy(reinterpret_cast<char*>(desc.desc), "vhca test node");
  ASSERT_EQ(vhca_core_set_node_desc(core_, &desc), 0);
  EXPECT_EQ(memcmp(&device_.node_desc, &desc, sizeof(desc)), 0);
}

}  // namespace
