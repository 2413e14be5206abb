// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Device memory (vhca_core_user.h): ALLOC_DM, REG_DM_MR and FREE_DM byte
// for byte, the limits checked before the device is asked, and a device
// without device memory.
#include "vhca_core_user.h"
#include "verbs_test.h"
#include "wire_bytes.h"

namespace {

class DmTest : public VerbsTest {};

TEST_F(DmTest, AllocRegisterFree) {
  vhca_core_dm* a = nullptr;
  vhca_core_dm* b = nullptr;
  unsigned offset_a = 1, offset_b = 0;
  unsigned long long size = 0;
  ASSERT_EQ(vhca_core_alloc_dm(core_, 100, 6, &a, &offset_a, &size), 0);
  EXPECT_EQ(offset_a, 0u);
  EXPECT_EQ(size, VHCA_DM_PAGE_SIZE);  // whole pages, for mmap
  // vhca_cmd_alloc_dm_in: length @0, log_align @8, inline.
  WireBytes expected(32);
  expected.Put64(0, 100).Put8(8, 6);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_ALLOC_DM);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), expected.bytes());
  ASSERT_EQ(vhca_core_alloc_dm(core_, 2 * VHCA_DM_PAGE_SIZE + 4, 0, &b,
                               &offset_b, &size), 0);
  EXPECT_EQ(offset_b, VHCA_DM_PAGE_SIZE);
  EXPECT_EQ(size, 3u * VHCA_DM_PAGE_SIZE);

  // A zero-based region 8 bytes into b, remote write (and local write).
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_reg_dm_mr(core_, pdn_, VHCA_ACCESS_LOCAL_WRITE |
                                VHCA_ACCESS_REMOTE_WRITE, offset_b + 8, 64, &mr),
            0);
  const unsigned key = vhca_core_mr_key(mr);
  // vhca_cmd_reg_dm_mr_in: dm_offset @0, pdn @4, length @8, access @16,
  // key_variant @20.
  WireBytes reg(32);
  reg.Put32(0, offset_b + 8).Put32(4, pdn_).Put64(8, 64)
      .Put32(16, VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE)
      .Put8(20, VHCA_KEY_VARIANT(key));
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_REG_DM_MR);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), reg.bytes());
  EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
  EXPECT_EQ(device_.executed.back().in.handle.handle, key);
  EXPECT_TRUE(device_.dm_mrs.empty());

  EXPECT_EQ(vhca_core_free_dm(a), 0);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_FREE_DM);
  EXPECT_EQ(device_.executed.back().in.handle.handle, 0u);
  EXPECT_EQ(vhca_core_free_dm(b), 0);
  EXPECT_EQ(device_.executed.back().in.handle.handle, offset_b);
  EXPECT_TRUE(device_.dms.empty());
}

TEST_F(DmTest, LimitsBeforeTheDevice) {
  vhca_core_dm* dm = nullptr;
  unsigned offset = 0;
  unsigned long long size = 0;
  const size_t before = CountExecuted(VHCA_CMD_ALLOC_DM);
  EXPECT_EQ(vhca_core_alloc_dm(core_, 0, 0, &dm, &offset, &size), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_alloc_dm(core_, device_.max_dm_size + 1, 0, &dm,
                               &offset, &size), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_alloc_dm(core_, 4, VHCA_DM_MAX_LOG_ALIGN + 1, &dm,
                               &offset, &size), -VHCA_EINVAL);
  EXPECT_EQ(CountExecuted(VHCA_CMD_ALLOC_DM), before);
  // The whole BAR, then nothing is left: the device's NO_RESOURCES.
  ASSERT_EQ(vhca_core_alloc_dm(core_, device_.max_dm_size, 0, &dm, &offset,
                               &size), 0);
  vhca_core_dm* more = nullptr;
  EXPECT_EQ(vhca_core_alloc_dm(core_, 4, 0, &more, &offset, &size), -VHCA_ENOMEM);
  EXPECT_EQ(vhca_core_free_dm(dm), 0);
  // Unknown access bits never reach the device.
  vhca_core_mr* mr = nullptr;
  EXPECT_EQ(vhca_core_reg_dm_mr(core_, pdn_, 1u << 15, 0, 4, &mr), -VHCA_EINVAL);
}

// A device without BAR 3 (dm-size=0): no VHCA_DEV_CAP_DM.
class NoDmTest : public VerbsTest {
 protected:
  void SetUp() override {
    device_.dev_caps = VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2;
    VerbsTest::SetUp();
  }
};

TEST_F(NoDmTest, NotSupported) {
  vhca_core_dm* dm = nullptr;
  unsigned offset = 0;
  unsigned long long size = 0;
  EXPECT_EQ(vhca_core_alloc_dm(core_, 4, 0, &dm, &offset, &size),
            -VHCA_EOPNOTSUPP);
  EXPECT_EQ(CountExecuted(VHCA_CMD_ALLOC_DM), 0u);
}

}  // namespace
