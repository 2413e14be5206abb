// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Protection domain allocation.
#include <set>

#include "core_test.h"
#include "vhca_errno.h"

namespace {

using PdTest = CoreTest;

TEST_F(PdTest, AllocAndFree) {
  ASSERT_EQ(CreateAndStart(), 0);
  unsigned a = 0, b = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &a), 0);
  ASSERT_EQ(vhca_core_alloc_pd(core_, &b), 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(device_.pds.size(), 2u);
  EXPECT_TRUE(device_.pds.count(a) && device_.pds.count(b));
  EXPECT_EQ(vhca_core_dealloc_pd(core_, a), 0);
  EXPECT_EQ(vhca_core_dealloc_pd(core_, b), 0);
  EXPECT_TRUE(device_.pds.empty());
}

TEST_F(PdTest, DoubleFreeIsBadHandle) {
  ASSERT_EQ(CreateAndStart(), 0);
  unsigned pdn = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
  EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn), 0);
  EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn), -VHCA_ENOENT);
}

TEST_F(PdTest, TableFullIsNoMemory) {
  ASSERT_EQ(CreateAndStart(), 0);
  std::set<unsigned> pdns;
  for (uint32_t i = 0; i < device_.max_pd; i++) {
    unsigned pdn = 0;
    ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
    pdns.insert(pdn);
  }
  unsigned pdn = 0;
  EXPECT_EQ(vhca_core_alloc_pd(core_, &pdn), -VHCA_ENOMEM);
  for (unsigned p : pdns) EXPECT_EQ(vhca_core_dealloc_pd(core_, p), 0);
}

TEST_F(PdTest, LeakedPdsAreReportedAtStop) {
  ASSERT_EQ(CreateAndStart(), 0);
  unsigned pdn = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn), 0);
  StopAndDestroy();
  EXPECT_TRUE(kernel_.LogContains("1 protection domains still allocated"));
}

}  // namespace
