// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A failed device command is logged once, rate-limited, with the
// command's name and the device's status (DeviceCommands::Run); a status
// the caller expects is not; the names come from uapi's rows.
#include <string>

#include "command_names.h"
#include "core_test.h"
#include "vhca_core_verbs.h"
#include "vhca_errno.h"

namespace {

using CommandLogTest = CoreTest;

// The log lines that contain `needle`.
size_t LinesWith(FakeKernel& kernel, const std::string& needle) {
  size_t n = 0;
  for (const auto& line : kernel.log())
    n += line.find(needle) != std::string::npos;
  return n;
}

TEST_F(CommandLogTest, FailedCommandIsLoggedOnceWithNameAndStatus) {
  ASSERT_EQ(CreateAndStart(), 0);
  const size_t before = kernel_.log().size();
  device_.forced_status.set(VHCA_CMD_ALLOC_PD, VHCA_CMD_NO_RESOURCES);
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_ENOMEM);
  ASSERT_EQ(kernel_.log().size(), before + 1);
  EXPECT_EQ(kernel_.log().back(),
            "3 ratelimited: command ALLOC_PD (opcode 0x20) failed: status "
            "NO_RESOURCES (0x4), error -" + std::to_string(VHCA_ENOMEM) +
            "\n");
  device_.forced_status.clear();
}

TEST_F(CommandLogTest, SucceededCommandLogsNothing) {
  ASSERT_EQ(CreateAndStart(), 0);
  const size_t before = kernel_.log().size();
  unsigned pdn = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
  EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn), 0);
  EXPECT_EQ(kernel_.log().size(), before);
}

TEST_F(CommandLogTest, UnknownStatusIsLoggedByNumber) {
  ASSERT_EQ(CreateAndStart(), 0);
  device_.forced_status.set(VHCA_CMD_ALLOC_PD, 0x7e);
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_EPROTO);
  EXPECT_EQ(LinesWith(kernel_, "ALLOC_PD (opcode 0x20) failed: status "
                               "unknown (0x7e)"), 1u);
  device_.forced_status.clear();
}

// ODP_RESUME of a QP destroyed while its fault was handled is BAD_HANDLE
// in normal operation: not logged.  Another status of it is.
TEST_F(CommandLogTest, ExpectedStatusIsNotLogged) {
  ASSERT_EQ(CreateAndStart(), 0);
  EXPECT_EQ(vhca_core_odp_resume(core_, 0x4242, 0), -VHCA_ENOENT);
  EXPECT_EQ(LinesWith(kernel_, "ODP_RESUME"), 0u);
  device_.forced_status.set(VHCA_CMD_ODP_RESUME, VHCA_CMD_INTERNAL);
  EXPECT_EQ(vhca_core_odp_resume(core_, 0x4242, 0), -VHCA_EIO);
  EXPECT_EQ(LinesWith(kernel_, "command ODP_RESUME (opcode 0x68) failed: "
                               "status INTERNAL (0x9)"), 1u);
  device_.forced_status.clear();
}

TEST_F(CommandLogTest, TimeoutNamesTheCommand) {
  ASSERT_EQ(CreateAndStart(), 0);
  vhca_core_set_cmd_timeout(core_, 1);
  device_.hang = true;
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_ETIMEDOUT);
  EXPECT_EQ(LinesWith(kernel_, "command ALLOC_PD (opcode 0x20, token"), 1u);
  // The dead queue's later failures are not device statuses: no more lines.
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_EIO);
  EXPECT_EQ(LinesWith(kernel_, "ALLOC_PD"), 1u);
}

TEST(CommandNames, ComeFromTheUapiRows) {
  EXPECT_STREQ(vhca::OpcodeName(VHCA_CMD_QUERY_DEVICE), "QUERY_DEVICE");
  EXPECT_STREQ(vhca::OpcodeName(VHCA_CMD_DEALLOC_PD), "DEALLOC_PD");
  EXPECT_STREQ(vhca::OpcodeName(VHCA_CMD_CREATE_QP), "CREATE_QP");
  EXPECT_STREQ(vhca::OpcodeName(VHCA_CMD_REG_DM_MR), "REG_DM_MR");
  EXPECT_STREQ(vhca::OpcodeName(0x7fff), "unknown");
  EXPECT_STREQ(vhca::StatusName(VHCA_CMD_OK), "OK");
  EXPECT_STREQ(vhca::StatusName(VHCA_CMD_BUSY), "BUSY");
  EXPECT_STREQ(vhca::StatusName(VHCA_CMD_INTERNAL), "INTERNAL");
  // Every opcode once.
  for (const auto& a : vhca::kCommandOpcodeNames) {
    for (const auto& b : vhca::kCommandOpcodeNames) {
      if (&a != &b) {
        EXPECT_NE(a.value, b.value) << a.name << " " << b.name;
      }
    }
  }
}

}  // namespace
