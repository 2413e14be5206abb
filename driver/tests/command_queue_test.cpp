// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The command queue: round trips, tokens, ring wrap, status -> errno,
// timeout -> dead queue -> -EIO.
#include <set>

#include "command_queue.h"
#include "core_test.h"
#include "device_commands.h"
#include "vhca_errno.h"

namespace {

using CommandQueueTest = CoreTest;

TEST_F(CommandQueueTest, QueryDeviceRoundTrip) {
  ASSERT_EQ(CreateAndStart(), 0);
  const vhca_device_attr* attr = vhca_core_device_attr(core_);
  EXPECT_EQ(attr->num_ports, 2);
  EXPECT_EQ(attr->node_guid, device_.node_guid);
  EXPECT_EQ(attr->fw_version, VHCA_FW_VERSION_PACK(1, 2, 3));
  EXPECT_EQ(vhca_core_num_ports(core_), 2u);
  ASSERT_GE(device_.executed.size(), 1u);
  const vhca_cmd& cmd = device_.executed[0];
  EXPECT_EQ(cmd.opcode, VHCA_CMD_QUERY_DEVICE);
  EXPECT_EQ(cmd.in_addr, 0u);
  EXPECT_EQ(cmd.in_len, 0u);
  EXPECT_EQ(cmd.out_len, sizeof(vhca_device_attr));
  EXPECT_NE(cmd.out_addr, 0u);
  for (uint8_t byte : cmd.in.raw) EXPECT_EQ(byte, 0);
}

TEST_F(CommandQueueTest, ManyCommandsWrapTheRingWithUniqueTokens) {
  ASSERT_EQ(CreateAndStart(), 0);
  for (int i = 0; i < 100; i++) {
    unsigned pdn = 0;
    ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
    ASSERT_EQ(vhca_core_dealloc_pd(core_, pdn), 0);
  }
  EXPECT_EQ(device_.cmdq_ci, device_.cmdq_pi);
  EXPECT_GT(device_.cmdq_pi, 2u << device_.cmdq_log);
  std::set<uint32_t> tokens;
  for (const auto& cmd : device_.executed) tokens.insert(cmd.token);
  EXPECT_EQ(tokens.size(), device_.executed.size());
}

struct StatusCase {
  uint8_t status;
  int error;
};

class StatusToErrnoTest : public CoreTest,
                          public ::testing::WithParamInterface<StatusCase> {};

TEST_P(StatusToErrnoTest, DeviceStatusBecomesErrno) {
  EXPECT_EQ(vhca::StatusToErrno(GetParam().status), GetParam().error);
  // And end to end: the status of a real command.
  ASSERT_EQ(CreateAndStart(), 0);
  device_.forced_status.set(VHCA_CMD_ALLOC_PD, GetParam().status);
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), GetParam().error);
  if (GetParam().error == 0) {
    EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllStatuses, StatusToErrnoTest,
    ::testing::Values(StatusCase{VHCA_CMD_OK, 0},
                      StatusCase{VHCA_CMD_BAD_OPCODE, -VHCA_EOPNOTSUPP},
                      StatusCase{VHCA_CMD_BAD_PARAM, -VHCA_EINVAL},
                      StatusCase{VHCA_CMD_BAD_HANDLE, -VHCA_ENOENT},
                      StatusCase{VHCA_CMD_NO_RESOURCES, -VHCA_ENOMEM},
                      StatusCase{VHCA_CMD_BAD_ADDR, -VHCA_EFAULT},
                      StatusCase{VHCA_CMD_BAD_STATE, -VHCA_EINVAL},
                      StatusCase{VHCA_CMD_BAD_SIZE, -VHCA_EINVAL},
                      StatusCase{VHCA_CMD_BUSY, -VHCA_EBUSY},
                      StatusCase{VHCA_CMD_INTERNAL, -VHCA_EIO},
                      StatusCase{0x0a, -VHCA_EPROTO},
                      StatusCase{0xff, -VHCA_EPROTO}));

TEST_F(CommandQueueTest, TimeoutKillsTheQueue) {
  ASSERT_EQ(CreateAndStart(), 0);
  device_.hang = true;
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_ETIMEDOUT);
  EXPECT_TRUE(kernel_.LogContains("timed out"));

  // Dead: later commands fail at once and never reach the device.
  device_.hang = false;
  const size_t executed = device_.executed.size();
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_EIO);
  vhca_port_attr attr;
  EXPECT_EQ(vhca_core_query_port(core_, 1, &attr), -VHCA_EIO);
  EXPECT_EQ(device_.executed.size(), executed);
  EXPECT_EQ(device_.cmdq_pi, device_.cmdq_ci);

  // A late completion of the timed-out command is ignored.
  device_.CompleteHungCommands();
  device_.Run();
  EXPECT_TRUE(kernel_.LogContains("expired"));
  // Teardown still resets the device and frees everything (TearDown).
}

TEST_F(CommandQueueTest, OversizedRequestIsRejected) {
  auto queue = vhca::CommandQueue::Create(vhca::Registers(&kdev_), 2);
  ASSERT_TRUE(queue.ok());
  static uint8_t big[vhca::CommandQueue::kMailboxHalf + 1];
  vhca::CommandRequest request;
  request.opcode = VHCA_CMD_SET_NODE_DESC;
  request.in_data = big;
  request.in_len = sizeof(big);
  auto response = queue.value()->Execute(request);
  EXPECT_EQ(response.error(), -VHCA_EINVAL);
  EXPECT_TRUE(device_.executed.empty());
}

TEST_F(CommandQueueTest, BadLogSizeIsRejected) {
  EXPECT_EQ(vhca::CommandQueue::Create(vhca::Registers(&kdev_), 0).error(),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca::CommandQueue::Create(vhca::Registers(&kdev_), 9).error(),
            -VHCA_EINVAL);
}

}  // namespace
