// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Device bring-up and teardown: register programming, completion EQs,
// refusal of bad devices, and allocation failure at every step.
#include "core_test.h"
#include "device.h"
#include "vhca_errno.h"

namespace {

using BringUpTest = CoreTest;

TEST_F(BringUpTest, ProgramsQueuesAndEnables) {
  ASSERT_EQ(CreateAndStart(), 0);
  EXPECT_TRUE(device_.enabled);
  EXPECT_GE(device_.resets, 1u);
  EXPECT_EQ(device_.enables, 1u);
  EXPECT_EQ(device_.cmdq_log, vhca::Device::kCmdqLogSize);
  EXPECT_EQ(device_.eqs[0].log_size, vhca::Device::kEq0LogSize);
  EXPECT_TRUE(device_.eqs[0].armed);
}

TEST_F(BringUpTest, QueueSizesAreClampedToDeviceLimits) {
  device_.max_log_cmdq = 3;
  device_.max_log_eq = 4;
  ASSERT_EQ(CreateAndStart(), 0);
  EXPECT_EQ(device_.cmdq_log, 3u);
  EXPECT_EQ(device_.eqs[0].log_size, 4u);
  EXPECT_EQ(device_.eqs[1].log_size, 4u);
}

TEST_F(BringUpTest, OneCompletionEqPerExtraVector) {
  device_.num_vectors = 4;
  ASSERT_EQ(CreateAndStart(4), 0);
  EXPECT_EQ(vhca_core_num_comp_vectors(core_), 3u);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_EQ), 3u);
  for (uint32_t eqn = 1; eqn <= 3; eqn++) {
    EXPECT_TRUE(device_.eqs[eqn].live);
    EXPECT_EQ(device_.eqs[eqn].vector, eqn);
    EXPECT_TRUE(device_.eqs[eqn].armed);
  }
}

TEST_F(BringUpTest, FewerVectorsGrantedMeansFewerEqs) {
  ASSERT_EQ(CreateAndStart(1), 0);
  EXPECT_EQ(vhca_core_num_comp_vectors(core_), 0u);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_EQ), 0u);
}

TEST_F(BringUpTest, MoreVectorsThanTheDeviceHasIsRejected) {
  EXPECT_EQ(CreateAndStart(device_.num_vectors + 1), -VHCA_EINVAL);
}

TEST_F(BringUpTest, StopDestroysEqsAndResets) {
  ASSERT_EQ(CreateAndStart(), 0);
  const unsigned resets = device_.resets;
  vhca_core_stop(core_);
  EXPECT_EQ(CountExecuted(VHCA_CMD_DESTROY_EQ), 2u);
  EXPECT_FALSE(device_.enabled);
  EXPECT_EQ(device_.resets, resets + 1);
  vhca_core_destroy(core_);
  core_ = nullptr;
}

TEST_F(BringUpTest, FatalOnEnableFails) {
  device_.fail_enable = true;
  EXPECT_EQ(CreateAndStart(), -VHCA_EIO);
  EXPECT_TRUE(kernel_.LogContains("fatal code 1"));
}

TEST_F(BringUpTest, OtherAbiMajorIsRefused) {
  device_.version = (VHCA_ABI_MAJOR + 1) << 16;
  EXPECT_EQ(CreateAndStart(), -VHCA_ENODEV);
  EXPECT_EQ(device_.enables, 0u);
}

TEST_F(BringUpTest, BadCapsAreRefused) {
  device_.num_ports = 0;
  EXPECT_EQ(CreateAndStart(), -VHCA_ENODEV);
  device_.num_ports = 3;
  EXPECT_EQ(CreateAndStart(), -VHCA_ENODEV);
}

TEST_F(BringUpTest, QueryDeviceFailureUndoesEverything) {
  device_.forced_status.set(VHCA_CMD_QUERY_DEVICE, VHCA_CMD_INTERNAL);
  EXPECT_EQ(CreateAndStart(), -VHCA_EIO);
}

TEST_F(BringUpTest, CreateEqFailureUndoesEverything) {
  device_.forced_status.set(VHCA_CMD_CREATE_EQ, VHCA_CMD_NO_RESOURCES);
  EXPECT_EQ(CreateAndStart(), -VHCA_ENOMEM);
}

// Fails allocation 1, 2, 3, ... of create + start until bring-up succeeds:
// every failure must return -ENOMEM, leave the device reset and leak
// nothing (the fake kernel counts objects; ASan checks the heap).
TEST_F(BringUpTest, AllocationFailureAtEveryStepLeaksNothing) {
  uint64_t failures = 0;
  for (uint64_t n = 1; n < 1000; n++) {
    kernel_.FailAllocation(n);
    const int err = CreateAndStart();
    if (err == 0) break;
    failures++;
    EXPECT_EQ(err, -VHCA_ENOMEM) << "allocation " << n;
    EXPECT_EQ(kernel_.outstanding(), 0) << "allocation " << n;
    EXPECT_FALSE(device_.enabled) << "allocation " << n;
  }
  ASSERT_NE(core_, nullptr) << "bring-up never succeeded";
  // Every kind of allocation on the path was tried: command queue (ring,
  // mailboxes, slots, completions, lock, semaphore), EQ 0, completion EQs.
  EXPECT_GT(failures, 40u);
  kernel_.FailAllocation(0);
}

}  // namespace

namespace {

TEST_F(BringUpTest, InterruptOnAVectorWithoutEqIsIgnored) {
  ASSERT_EQ(CreateAndStart(1), 0);  // no completion EQs
  EXPECT_EQ(vhca_core_irq(core_, 1), 0u);  // the shim's IRQ_NONE
  EXPECT_EQ(vhca_core_irq(core_, VHCA_MAX_VECTORS - 1), 0u);
  // EQ 0 still works afterwards.
  unsigned pdn = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
  EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn), 0);
}

}  // namespace
