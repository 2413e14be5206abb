// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fixture of the core tests: a fake kernel, a fake device, and the
// core driven through its C entry points (vhca_core.h) as the shims do.
#ifndef VHCA_TESTS_CORE_TEST_H
#define VHCA_TESTS_CORE_TEST_H

#include <gtest/gtest.h>

#include "device_views.h"
#include "fake_kernel.h"
#include "vhca_core.h"

class CoreTest : public ::testing::Test {
 protected:
  CoreTest() { kernel_.device = &device_; }

  // Create + start as pci.c does; on failure everything is undone.
  int CreateAndStart(unsigned vectors = 3) {
    int err = vhca_core_create(&kdev_, &core_);
    if (err) {
      core_ = nullptr;
      return err;
    }
    device_.core = core_;
    err = vhca_core_start(core_, vectors);
    if (err) StopAndDestroy();
    return err;
  }

  void StopAndDestroy() {
    vhca_core_stop(core_);
    vhca_core_destroy(core_);
    core_ = nullptr;
    device_.core = nullptr;
  }

  void TearDown() override {
    if (core_) StopAndDestroy();
    EXPECT_FALSE(device_.enabled) << "device left enabled";
    EXPECT_EQ(kernel_.outstanding(), 0) << "leaked kernel objects";
    EXPECT_EQ(kernel_.locks_held, 0);
  }

  size_t CountExecuted(uint16_t opcode) const {
    size_t n = 0;
    for (const auto& cmd : device_.executed) n += cmd.opcode == opcode;
    return n;
  }

  FakeKernel kernel_;
  FakeDevice device_;
  vhca_kapi_device kdev_{&device_};
  vhca_core_device* core_ = nullptr;
};

#endif  // VHCA_TESTS_CORE_TEST_H
