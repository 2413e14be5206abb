// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Memory windows (vhca_core_user.h): ALLOC_MW byte for byte, a fresh key
// variant each, the types the device reports, DEALLOC_MW by key.
#include "vhca_core_user.h"
#include "verbs_test.h"
#include "wire_bytes.h"

namespace {

class MwTest : public VerbsTest {};

TEST_F(MwTest, AllocAndDealloc) {
  vhca_core_mw* a = nullptr;
  vhca_core_mw* b = nullptr;
  ASSERT_EQ(vhca_core_alloc_mw(core_, pdn_, VHCA_MW_TYPE_1, &a), 0);
  ASSERT_EQ(vhca_core_alloc_mw(core_, pdn_, VHCA_MW_TYPE_2, &b), 0);
  const unsigned key = vhca_core_mw_key(b);
  EXPECT_NE(VHCA_KEY_VARIANT(vhca_core_mw_key(a)), VHCA_KEY_VARIANT(key));
  EXPECT_NE(VHCA_KEY_INDEX(vhca_core_mw_key(a)), VHCA_KEY_INDEX(key));
  // vhca_cmd_alloc_mw_in: pdn @0, type @4, key_variant @5, inline.
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_ALLOC_MW);
  WireBytes expected(32);
  expected.Put32(0, pdn_).Put8(4, VHCA_MW_TYPE_2).Put8(5, VHCA_KEY_VARIANT(key));
  EXPECT_EQ(WireBytes::Of(cmd.in.raw, 32), expected.bytes());
  EXPECT_EQ(vhca_core_dealloc_mw(a), 0);
  EXPECT_EQ(vhca_core_dealloc_mw(b), 0);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_DEALLOC_MW);
  EXPECT_EQ(device_.executed.back().in.handle.handle, key);
  EXPECT_TRUE(device_.mws.empty());
}

TEST_F(MwTest, TypesTheDeviceHasOnly) {
  vhca_core_mw* mw = nullptr;
  EXPECT_EQ(vhca_core_alloc_mw(core_, pdn_, 0, &mw), -VHCA_EOPNOTSUPP);
  EXPECT_EQ(vhca_core_alloc_mw(core_, pdn_, 3, &mw), -VHCA_EOPNOTSUPP);
  EXPECT_EQ(CountExecuted(VHCA_CMD_ALLOC_MW), 0u);
  // A bad PD is the device's BAD_HANDLE.
  EXPECT_EQ(vhca_core_alloc_mw(core_, pdn_ + 100, VHCA_MW_TYPE_1, &mw), -VHCA_ENOENT);
}

// A device that reports type 1 windows only (QUERY_DEVICE dev_caps).
class MwType1OnlyTest : public VerbsTest {
 protected:
  void SetUp() override {
    device_.dev_caps = VHCA_DEV_CAP_MW_TYPE_1;
    VerbsTest::SetUp();
  }
};

TEST_F(MwType1OnlyTest, NoType2) {
  vhca_core_mw* mw = nullptr;
  EXPECT_EQ(vhca_core_alloc_mw(core_, pdn_, VHCA_MW_TYPE_2, &mw), -VHCA_EOPNOTSUPP);
  ASSERT_EQ(vhca_core_alloc_mw(core_, pdn_, VHCA_MW_TYPE_1, &mw), 0);
  EXPECT_EQ(vhca_core_dealloc_mw(mw), 0);
}

}  // namespace
