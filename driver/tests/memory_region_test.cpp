// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Memory regions: the DMA region (VHCA_MR_F_PHYSICAL), paged regions over
// DIRECT and INDIRECT page lists, fast registration (ALLOC_MR and the
// REG_MR WQE byte for byte), key variants, access checks, failures.
#include "verbs_test.h"
#include "wire_bytes.h"

namespace {

class MrTest : public VerbsTest {
 protected:
  vhca_core_mr* Track(vhca_core_mr* mr) {
    if (mr) mrs_.push_back(mr);
    return mr;
  }
};

TEST_F(MrTest, DmaRegion) {
  vhca_core_mr* mr = nullptr;
  const unsigned access = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_READ;
  ASSERT_EQ(vhca_core_create_dma_mr(core_, pdn_, access, 0x100000, 0x20000, &mr), 0);
  Track(mr);
  const unsigned key = vhca_core_mr_key(mr);
  ASSERT_TRUE(device_.mrs.count(VHCA_KEY_INDEX(key)));
  const vhca_cmd_create_mr& in = device_.mrs[VHCA_KEY_INDEX(key)].in;
  // vhca_cmd_create_mr: iova @0, length @8, pages @16, pdn @32,
  // access @36, first_byte_offset @40, flags @44, key_variant @45.
  WireBytes expected(64);
  expected.Put64(0, 0x100000).Put64(8, 0x20000).Put32(32, pdn_).Put32(36, access)
      .Put8(44, VHCA_MR_F_PHYSICAL).Put8(45, VHCA_KEY_VARIANT(key));
  EXPECT_EQ(WireBytes::Of(&in, 64), expected.bytes());
  EXPECT_EQ(device_.executed.back().in_len, 64u);
}

TEST_F(MrTest, KeyVariantsDifferAndAccessIsChecked) {
  vhca_core_mr* a = nullptr;
  vhca_core_mr* b = nullptr;
  ASSERT_EQ(vhca_core_create_dma_mr(core_, pdn_, 0, 0x1000, 0x1000, &a), 0);
  Track(a);
  ASSERT_EQ(vhca_core_create_dma_mr(core_, pdn_, 1u << 20, 0x1000, 0x1000, &b), 0);  // optional hint
  Track(b);
  EXPECT_NE(VHCA_KEY_VARIANT(vhca_core_mr_key(a)), VHCA_KEY_VARIANT(vhca_core_mr_key(b)));
  EXPECT_EQ(device_.mrs[VHCA_KEY_INDEX(vhca_core_mr_key(b))].in.access, 0u);
  vhca_core_mr* bad = nullptr;
  vhca_core_mr* bindable = nullptr;  // MW_BIND: windows may be bound to it
  ASSERT_EQ(vhca_core_create_dma_mr(core_, pdn_, 1u << 4, 0x1000, 0x1000, &bindable), 0);
  Track(bindable);
  EXPECT_EQ(device_.mrs[VHCA_KEY_INDEX(vhca_core_mr_key(bindable))].in.access,
            uint32_t{VHCA_ACCESS_MW_BIND});
  EXPECT_EQ(vhca_core_create_dma_mr(core_, pdn_, 1u << 5, 0x1000, 0x1000, &bad), -VHCA_EINVAL);  // ZERO_BASED
  // The range: not empty, not wrapping, at most max_mr_size (2^40 here).
  EXPECT_EQ(vhca_core_create_dma_mr(core_, pdn_, 0, 0x1000, 0, &bad), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_dma_mr(core_, pdn_, 0, ~0ull, 2, &bad), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_dma_mr(core_, pdn_, 0, 0, (1ull << 40) + 1, &bad), -VHCA_EINVAL);
}

TEST_F(MrTest, PagedRegionDirect) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_create_paged_mr(core_, 3, &mr), 0);
  Track(mr);
  const uint64_t pages[3] = {0x40000000, 0x40201000, 0x7000};
  for (unsigned i = 0; i < 3; i++) vhca_core_mr_set_page(mr, i, pages[i]);
  const uint64_t iova = 0x7f0000001234ull;
  ASSERT_EQ(vhca_core_mr_register(mr, pdn_, iova, 3 * 4096 - 0x234, 12,
                                  VHCA_ACCESS_LOCAL_WRITE), 0);
  const auto& device_mr = device_.mrs[VHCA_KEY_INDEX(vhca_core_mr_key(mr))];
  EXPECT_EQ(device_mr.in.iova, iova);
  EXPECT_EQ(device_mr.in.length, 3 * 4096u - 0x234);
  EXPECT_EQ(device_mr.in.first_byte_offset, 0x234u);
  EXPECT_EQ(device_mr.in.pages.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(device_mr.in.pages.npages, 3u);
  EXPECT_EQ(device_mr.in.pages.page_shift, 12);
  EXPECT_EQ(device_mr.in.flags, 0);
  EXPECT_EQ(DevicePages(device_mr), std::vector<uint64_t>(pages, pages + 3));
  // Registered once only.
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, iova, 4096, 12, 0), -VHCA_EINVAL);
}

// rereg_user_mr: REREG_MR over a staged page list, the key kept; the
// staged region takes the old pages and is freed without a command.
TEST_F(MrTest, ReregisterKeepsTheKey) {
  vhca_core_mr* mr = nullptr;
  vhca_core_mr* staged = nullptr;
  ASSERT_EQ(vhca_core_create_paged_mr(core_, 1, &mr), 0);
  vhca_core_mr_set_page(mr, 0, 0x200000);
  ASSERT_EQ(vhca_core_mr_register(mr, pdn_, 0x200000, 4096, 12, 0), 0);
  Track(mr);
  const unsigned key = vhca_core_mr_key(mr);
  ASSERT_EQ(vhca_core_create_paged_mr(core_, 2, &staged), 0);
  vhca_core_mr_set_page(staged, 0, 0x300000);
  vhca_core_mr_set_page(staged, 1, 0x301000);
  const unsigned access = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE;
  uint32_t other_pd = 0;
  ASSERT_EQ(vhca_core_alloc_pd(core_, &other_pd), 0);
  ASSERT_EQ(vhca_core_mr_reregister(mr, staged, other_pd, 0x300010, 8000, 12, access), 0);
  EXPECT_EQ(vhca_core_mr_key(mr), key);
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_REREG_MR);
  EXPECT_EQ(cmd.in.handle.handle, key);
  const FakeDevice::Mr& dev = device_.mrs[VHCA_KEY_INDEX(key)];
  EXPECT_EQ(dev.in.pdn, other_pd);
  EXPECT_EQ(dev.in.access, access);
  EXPECT_EQ(dev.in.iova, 0x300010u);
  EXPECT_EQ(dev.in.first_byte_offset, 0x10u);
  EXPECT_EQ(DevicePages(dev), (std::vector<uint64_t>{0x300000, 0x301000}));
  const size_t commands = device_.executed.size();
  EXPECT_EQ(vhca_core_destroy_mr(staged), 0);  // not registered: no command
  EXPECT_EQ(device_.executed.size(), commands);
  // Refused before the device: a registered region as the stage, a range
  // the stage's pages do not cover; by the device: a bad PD.  The region
  // keeps what it had.
  vhca_core_mr* small = nullptr;
  ASSERT_EQ(vhca_core_create_paged_mr(core_, 1, &small), 0);
  vhca_core_mr_set_page(small, 0, 0x400000);
  EXPECT_EQ(vhca_core_mr_reregister(mr, mr, pdn_, 0x300000, 4096, 12, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_reregister(mr, small, pdn_, 0x400000, 8192, 12, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_reregister(mr, small, pdn_ + 100, 0x400000, 4096, 12, 0),
            -VHCA_EINVAL);
  EXPECT_EQ(device_.mrs[VHCA_KEY_INDEX(key)].in.pdn, other_pd);
  EXPECT_EQ(vhca_core_destroy_mr(small), 0);
  EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
  mrs_.clear();
  EXPECT_EQ(vhca_core_dealloc_pd(core_, other_pd), 0);
}

TEST_F(MrTest, PagedRegionIndirect) {
  const unsigned npages = 700;
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_create_paged_mr(core_, npages, &mr), 0);
  Track(mr);
  std::vector<uint64_t> pages;
  for (unsigned i = 0; i < npages; i++) {
    pages.push_back(0x100000000ull + (uint64_t{i} << 21));
    vhca_core_mr_set_page(mr, i, pages.back());
  }
  ASSERT_EQ(vhca_core_mr_register(mr, pdn_, 0, uint64_t{npages} << 21, 21,
                                  VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_LOCAL_WRITE), 0);
  const auto& device_mr = device_.mrs[VHCA_KEY_INDEX(vhca_core_mr_key(mr))];
  EXPECT_EQ(device_mr.in.pages.mode, VHCA_BUF_INDIRECT);
  EXPECT_EQ(device_mr.in.pages.npages, npages);
  EXPECT_EQ(device_mr.in.pages.page_shift, 21);
  EXPECT_EQ(DevicePages(device_mr), pages);
}

TEST_F(MrTest, RegisterChecksThePageList) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_create_paged_mr(core_, 2, &mr), 0);
  Track(mr);
  const size_t executed = device_.executed.size();
  // 0x800 + 2 pages does not fit 2 pages.
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, 0x800, 8192, 12, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, 0, 0, 12, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, 0, 4096, 11, 0), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, ~0ull - 10, 4096, 12, 0), -VHCA_EINVAL);
  EXPECT_EQ(device_.executed.size(), executed);
  EXPECT_EQ(vhca_core_mr_register(mr, pdn_, 0x800, 4096, 12, 0), 0);
  vhca_core_mr* none = nullptr;
  EXPECT_EQ(vhca_core_create_paged_mr(core_, 0, &none), -VHCA_EINVAL);
}

// vhca_wqe_reg_mr after the control segment: key @32, access @36,
// iova @40, length @48, pages (vhca_buf_desc) @56, first_byte_offset @72.
TEST_F(MrTest, FastRegistrationWqe) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_alloc_frwr_mr(core_, pdn_, 8, &mr), 0);
  Track(mr);
  const unsigned key = vhca_core_mr_key(mr);
  const auto& device_mr = device_.mrs[VHCA_KEY_INDEX(key)];
  EXPECT_TRUE(device_mr.fast_reg);
  EXPECT_EQ(device_mr.alloc.pdn, pdn_);
  EXPECT_EQ(device_mr.alloc.max_pages, 8u);
  EXPECT_EQ(device_mr.alloc.key_variant, VHCA_KEY_VARIANT(key));

  vhca_core_mr_map_begin(mr);
  for (unsigned i = 0; i < 3; i++) vhca_core_mr_set_page(mr, i, 0x200000 + 0x1000 * i);
  ASSERT_EQ(vhca_core_mr_map_end(mr, 3, 0x200010, 3 * 4096 - 0x10, 12), 0);

  vhca_core_send_wr wr{};
  wr.wr_id = 77;
  wr.opcode = VHCA_WQE_REG_MR;
  wr.flags = VHCA_CORE_SEND_SIGNALED;
  wr.reg.mr = mr;
  wr.reg.key = (key & ~0xffu) | ((key + 1) & 0xff);  // ib_inc_rkey
  wr.reg.access = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_READ;
  // The iova at post time, as the NFS client leaves it after map_mr_sg
  // (XID in the upper 32 bits); the first byte offset stays the mapping's.
  wr.reg.iova = 0xe3dac84f00200010ull;
  wr.reg.length = 3 * 4096 - 0x10;
  vhca::SendQueueLayout layout{VHCA_QPT_RC, 128, 2, 48, false};
  std::vector<uint8_t> wqe(128, 0xee);
  ASSERT_EQ(vhca::BuildSendWqe(layout, wr, wqe.data()).error(), 0);
  const uint64_t list = reinterpret_cast<const vhca::MemoryRegion*>(mr)->pages()
                            .Descriptor(3, 12).value().addr;
  WireBytes expected(128);
  expected.Put64(0, 77).Put8(8, 0x20).Put8(9, VHCA_WQE_F_SIGNALED)
      .Put32(32, wr.reg.key).Put32(36, wr.reg.access)
      .Put64(40, 0xe3dac84f00200010ull)
      .Put64(48, 3 * 4096 - 0x10).Put64(56, list).Put32(64, 3).Put8(68, 12)
      .Put8(69, VHCA_BUF_DIRECT).Put32(72, 0x10);
  EXPECT_EQ(wqe, expected.bytes());
  EXPECT_EQ(vhca_core_mr_key(mr), wr.reg.key);  // the region's key now
  // The page list the device reads at execution time.
  const uint64_t* entries = reinterpret_cast<const uint64_t*>(list);
  EXPECT_EQ(entries[2], 0x202000u);
  // An iova and length that wrap around the address space.
  wr.reg.length = ~0ull;
  EXPECT_EQ(vhca::BuildSendWqe(layout, wr, wqe.data()).error(), -VHCA_EINVAL);
  wr.reg.length = 3 * 4096 - 0x10;

  // A key of another region, or a region without a mapping.
  wr.reg.key += 0x100;
  EXPECT_EQ(vhca::BuildSendWqe(layout, wr, wqe.data()).error(), -VHCA_EINVAL);
  vhca_core_mr* unmapped = nullptr;
  ASSERT_EQ(vhca_core_alloc_frwr_mr(core_, pdn_, 8, &unmapped), 0);
  Track(unmapped);
  wr.reg.mr = unmapped;
  wr.reg.key = vhca_core_mr_key(unmapped);
  EXPECT_EQ(vhca::BuildSendWqe(layout, wr, wqe.data()).error(), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_mr_map_end(unmapped, 9, 0, 4096, 12), -VHCA_EINVAL);
}

TEST_F(MrTest, FastRegistrationThroughAQueuePair) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_alloc_frwr_mr(core_, pdn_, 1024, &mr), 0);  // INDIRECT
  Track(mr);
  vhca_core_mr_map_begin(mr);
  for (unsigned i = 0; i < 600; i++) vhca_core_mr_set_page(mr, i, 0x1000ull * (i + 1));
  ASSERT_EQ(vhca_core_mr_map_end(mr, 600, 0x1000, 600 * 4096, 12), 0);
  vhca_core_send_wr wr{};
  wr.opcode = VHCA_WQE_REG_MR;
  wr.reg.mr = mr;
  wr.reg.key = vhca_core_mr_key(mr);
  wr.reg.iova = 0x1000;
  wr.reg.length = 600 * 4096;
  ASSERT_EQ(PostSend(qp, wr), 0);
  vhca_wqe_reg_mr seg;
  memcpy(&seg, Qp(qp).sq().Wqe(0) + sizeof(vhca_wqe_ctrl), sizeof(seg));
  EXPECT_EQ(seg.pages.mode, VHCA_BUF_INDIRECT);
  EXPECT_EQ(seg.pages.npages, 600u);
  EXPECT_EQ(DevicePages(device_, seg.pages)[599], 600u * 0x1000);
  // Then a local invalidate of the same key.
  vhca_core_send_wr inv{};
  inv.opcode = VHCA_WQE_LOCAL_INV;
  inv.imm_inv = vhca_core_mr_key(mr);
  ASSERT_EQ(PostSend(qp, inv), 0);
}

TEST_F(MrTest, DestroyAfterAFailedRegistrationUsesThePreviousKey) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_alloc_frwr_mr(core_, pdn_, 4, &mr), 0);
  const unsigned alloc_key = vhca_core_mr_key(mr);
  vhca_core_mr_map_begin(mr);
  vhca_core_mr_set_page(mr, 0, 0x1000);
  ASSERT_EQ(vhca_core_mr_map_end(mr, 1, 0x1000, 4096, 12), 0);
  vhca_core_send_wr wr{};
  wr.opcode = VHCA_WQE_REG_MR;
  wr.reg.mr = mr;
  wr.reg.key = (alloc_key & ~0xffu) | ((alloc_key + 1) & 0xff);
  vhca::SendQueueLayout layout{VHCA_QPT_RC, 128, 1, 0, false};
  std::vector<uint8_t> wqe(128);
  ASSERT_EQ(vhca::BuildSendWqe(layout, wr, wqe.data()).error(), 0);
  // The device never executed it (as if it failed): it knows alloc_key
  // only and DESTROY_MR checks the variant.
  const size_t executed = device_.executed.size();
  EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
  ASSERT_EQ(device_.executed.size(), executed + 2);
  EXPECT_EQ(device_.executed[executed].in.handle.handle, wr.reg.key);
  EXPECT_EQ(device_.executed[executed + 1].in.handle.handle, alloc_key);
  EXPECT_TRUE(device_.mrs.empty());
  // The first DESTROY_MR's BAD_HANDLE was expected: not logged.
  EXPECT_FALSE(kernel_.LogContains("DESTROY_MR"));
}

TEST_F(MrTest, DestroyTimeoutIsReportedDone) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_alloc_frwr_mr(core_, pdn_, 4, &mr), 0);
  vhca_core_set_cmd_timeout(core_, 1);
  device_.hang = true;
  EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
  StopAndDestroy();
}

TEST_F(MrTest, AllocationFailureAtEveryStepLeaksNothing) {
  const int64_t before = kernel_.outstanding();
  for (int kind = 0; kind < 3; kind++) {
    for (uint64_t n = 1;; n++) {
      vhca_core_mr* mr = nullptr;
      kernel_.FailAllocation(n);
      int err;
      if (kind == 0)
        err = vhca_core_create_dma_mr(core_, pdn_, 0, 0x1000, 0x1000, &mr);
      else if (kind == 1)
        err = vhca_core_create_paged_mr(core_, 600, &mr);
      else
        err = vhca_core_alloc_frwr_mr(core_, pdn_, 600, &mr);
      kernel_.FailAllocation(0);
      if (err == 0) {
        EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
        break;
      }
      EXPECT_EQ(err, -VHCA_ENOMEM) << "kind " << kind << " step " << n;
      EXPECT_EQ(kernel_.outstanding(), before) << "kind " << kind << " step " << n;
    }
  }
  EXPECT_TRUE(device_.mrs.empty());
}

}  // namespace
