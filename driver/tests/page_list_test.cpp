// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Buffer descriptors and page lists (vhca_hw_verbs.h "Buffer
// descriptors"): CONTIG, DIRECT (one page of addresses) and INDIRECT (a
// page of leaf-page addresses), their limits, and allocation failures.
#include "core_test.h"
#include "page_list.h"
#include "vhca_errno.h"
#include "wire_bytes.h"

namespace {

class PageListTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(kernel_.outstanding(), 0); }
  FakeKernel kernel_;
  FakeDevice device_;
  vhca_kapi_device kdev_{&device_};
};

// vhca_buf_desc: addr @0 (le64), npages @8 (le32), page_shift @12,
// mode @13, rsvd @14..15.
std::vector<uint8_t> Desc(uint64_t addr, uint32_t npages, uint8_t shift,
                          uint8_t mode) {
  return WireBytes(16).Put64(0, addr).Put32(8, npages).Put8(12, shift).Put8(13, mode).bytes();
}

TEST_F(PageListTest, ContiguousDescriptorEncoding) {
  auto desc = vhca::ContiguousDescriptor(0x123456000ull, 3 * 4096 + 1);
  ASSERT_TRUE(desc.ok());
  EXPECT_EQ(WireBytes::Of(&desc.value(), 16), Desc(0x123456000ull, 4, 12, VHCA_BUF_CONTIG));
  auto small = vhca::ContiguousDescriptor(0x2000, 128);  // a 2-CQE ring
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small.value().npages, 1u);
}

TEST_F(PageListTest, ContiguousDescriptorLimits) {
  EXPECT_EQ(vhca::ContiguousDescriptor(0x1000, 0).error(), -VHCA_EINVAL);
  EXPECT_EQ(vhca::ContiguousDescriptor(0x1800, 4096).error(), -VHCA_EINVAL);
  // npages is 32 bits.
  EXPECT_EQ(vhca::ContiguousDescriptor(0x1000, 1ull << 44).error(), -VHCA_EINVAL);
  EXPECT_TRUE(vhca::ContiguousDescriptor(0x1000, (1ull << 44) - 4096).ok());
}

TEST_F(PageListTest, DirectUpTo512Entries) {
  for (uint32_t capacity : {1u, 17u, 512u}) {
    auto list = vhca::PageList::Create(&kdev_, capacity);
    ASSERT_TRUE(list.ok());
    EXPECT_FALSE(list.value().indirect());
    for (uint32_t i = 0; i < capacity; i++) list.value().Set(i, 0x100000ull * (i + 1));
    auto desc = list.value().Descriptor(capacity, 21);
    ASSERT_TRUE(desc.ok());
    EXPECT_EQ(desc.value().mode, VHCA_BUF_DIRECT);
    EXPECT_EQ(desc.value().npages, capacity);
    EXPECT_EQ(desc.value().page_shift, 21);
    // The array itself: little-endian page addresses at desc.addr.
    const auto* array = reinterpret_cast<const uint8_t*>(desc.value().addr);
    WireBytes expected(capacity * 8);
    for (uint32_t i = 0; i < capacity; i++) expected.Put64(i * 8, 0x100000ull * (i + 1));
    EXPECT_EQ(WireBytes::Of(array, capacity * 8), expected.bytes());
    EXPECT_EQ(DevicePages(device_, desc.value()).size(), capacity);
  }
}

TEST_F(PageListTest, IndirectBeyond512) {
  const uint32_t capacity = 2 * 512 + 3;
  auto list = vhca::PageList::Create(&kdev_, capacity);
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list.value().indirect());
  EXPECT_EQ(kernel_.dma_buffers().size(), 4u);  // top + 3 leaves
  std::vector<uint64_t> pages;
  for (uint32_t i = 0; i < capacity; i++) {
    pages.push_back(0x7000000000ull + 0x1000ull * i);
    list.value().Set(i, pages.back());
  }
  auto desc = list.value().Descriptor(capacity, 12);
  ASSERT_TRUE(desc.ok());
  EXPECT_EQ(desc.value().mode, VHCA_BUF_INDIRECT);
  EXPECT_EQ(desc.value().npages, capacity);
  // The top page holds the leaf addresses, each leaf a whole 4 KiB page.
  const auto* top = reinterpret_cast<const uint64_t*>(desc.value().addr);
  for (int leaf = 0; leaf < 3; leaf++) {
    EXPECT_EQ(top[leaf] % 4096, 0u);
    EXPECT_TRUE(kernel_.IsDmaRange(top[leaf], 4096));
  }
  EXPECT_EQ(DevicePages(device_, desc.value()), pages);
  // A prefix is described by the same structure.
  auto prefix = list.value().Descriptor(5, 12);
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(prefix.value().npages, 5u);
  EXPECT_EQ(prefix.value().mode, VHCA_BUF_INDIRECT);
}

TEST_F(PageListTest, Limits) {
  EXPECT_EQ(vhca::PageList::Create(&kdev_, 0).error(), -VHCA_EINVAL);
  EXPECT_EQ(vhca::PageList::Create(&kdev_, 512 * 512 + 1).error(), -VHCA_EINVAL);
  auto list = vhca::PageList::Create(&kdev_, 8);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list.value().Descriptor(0, 12).error(), -VHCA_EINVAL);
  EXPECT_EQ(list.value().Descriptor(9, 12).error(), -VHCA_EINVAL);
  EXPECT_EQ(list.value().Descriptor(8, 11).error(), -VHCA_EINVAL);
  EXPECT_EQ(list.value().Descriptor(8, 31).error(), -VHCA_EINVAL);
  EXPECT_TRUE(list.value().Descriptor(8, 30).ok());
  list.value().Set(8, 0x1000);  // out of range: ignored
  EXPECT_EQ(list.value().Get(8), 0u);
}

TEST_F(PageListTest, LargestIndirect) {
  auto list = vhca::PageList::Create(&kdev_, 512 * 512);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(kernel_.dma_buffers().size(), 513u);
  list.value().Set(512 * 512 - 1, 0xabc000);
  EXPECT_EQ(list.value().Get(512 * 512 - 1), 0xabc000u);
}

TEST_F(PageListTest, AllocationFailureAtEveryStepLeaksNothing) {
  for (uint32_t capacity : {5u, 1500u}) {
    for (uint64_t n = 1;; n++) {
      kernel_.FailAllocation(n);
      auto list = vhca::PageList::Create(&kdev_, capacity);
      kernel_.FailAllocation(0);
      if (list.ok()) break;
      EXPECT_EQ(list.error(), -VHCA_ENOMEM);
      EXPECT_EQ(kernel_.outstanding(), 0) << "capacity " << capacity << " step " << n;
    }
  }
}

}  // namespace
