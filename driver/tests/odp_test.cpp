// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// On-demand paging (vhca_core_verbs.h, vhca_hw_odp.h): CREATE_MR of an ODP
// region byte for byte, only on a device with VHCA_DEV_CAP_ODP; ODP_MAP in
// commands of 64 pages with the addresses in order; ODP_INVALIDATE and
// ODP_RESUME inputs; a page-fault EQE reaches the shim's handler.  Implicit
// regions (VHCA_DEV_CAP_ODP_IMPLICIT): CREATE_MR over the whole address
// space, 64-bit page indexes in ODP_MAP/ODP_INVALIDATE (first_page_hi).
#include "verbs_test.h"
#include "memory.h"
#include "wire_bytes.h"

namespace {

struct Fault {
  unsigned subtype, qp, key, len, flags;
  unsigned long long addr;
  int calls;
};
Fault g_fault;

void OnFault(void* context, unsigned subtype, unsigned qp, unsigned key,
             unsigned long long addr, unsigned len, unsigned flags) {
  g_fault = Fault{subtype, qp, key, len, flags, addr,
                  g_fault.calls + 1};
  EXPECT_EQ(context, &g_fault);
}

class OdpTest : public VerbsTest {
 protected:
  void SetUp() override {
    device_.dev_caps |= VHCA_DEV_CAP_ODP;
    VerbsTest::SetUp();
  }
  vhca_core_mr* CreateOdp(unsigned npages) {
    vhca_core_mr* mr = nullptr;
    EXPECT_EQ(vhca_core_create_odp_mr(core_, pdn_, 0x7f0000000123ull,
                                      npages * 4096ull - 0x123, 0x123, npages,
                                      12, VHCA_ACCESS_LOCAL_WRITE, &mr), 0);
    mrs_.push_back(mr);
    return mr;
  }
};

TEST_F(OdpTest, CreateMrInput) {
  vhca_core_mr* mr = CreateOdp(3);
  const vhca_cmd& cmd = device_.executed.back();
  ASSERT_EQ(cmd.opcode, VHCA_CMD_CREATE_MR);
  const auto* in = static_cast<const vhca_cmd_create_mr*>(
      device_.DmaForTest(cmd.in_addr, sizeof(vhca_cmd_create_mr)));
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->flags, VHCA_MR_F_ODP);
  EXPECT_EQ(in->pages.addr, 0u);
  EXPECT_EQ(in->pages.npages, 3u);
  EXPECT_EQ(in->pages.page_shift, 12u);
  EXPECT_EQ(in->pages.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(in->first_byte_offset, 0x123u);
  EXPECT_EQ(in->iova, 0x7f0000000123ull);
  EXPECT_EQ(VHCA_KEY_VARIANT(vhca_core_mr_key(mr)), in->key_variant);
}

TEST_F(OdpTest, MapInChunksInvalidateResume) {
  vhca_core_mr* mr = CreateOdp(100);
  unsigned long long dma[100];
  for (unsigned i = 0; i < 100; i++) dma[i] = 0x100000ull + i * 4096;
  const uint32_t before = device_.executed.size();
  ASSERT_EQ(vhca_core_odp_map(mr, 0, 100, dma), 0);
  ASSERT_EQ(device_.executed.size(), before + 2);
  const vhca_cmd& first = device_.executed[before];
  const vhca_cmd& second = device_.executed[before + 1];
  EXPECT_EQ(first.opcode, VHCA_CMD_ODP_MAP);
  WireBytes a(32), b(32);
  a.Put32(0, vhca_core_mr_key(mr)).Put32(4, 0).Put32(8, 64);
  b.Put32(0, vhca_core_mr_key(mr)).Put32(4, 64).Put32(8, 36);
  EXPECT_EQ(WireBytes::Of(first.in.raw, 32), a.bytes());
  EXPECT_EQ(WireBytes::Of(second.in.raw, 32), b.bytes());
  EXPECT_EQ(first.in_len, 64u * 8);
  ASSERT_EQ(device_.odp_mapped.size(), 100u);
  for (unsigned i = 0; i < 100; i++) EXPECT_EQ(device_.odp_mapped[i], dma[i]);

  ASSERT_EQ(vhca_core_odp_invalidate(mr, 10, 5), 0);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_ODP_INVALIDATE);
  WireBytes inv(32);
  inv.Put32(0, vhca_core_mr_key(mr)).Put32(4, 10).Put32(8, 5);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), inv.bytes());
  // The device's refusal is an errno.
  EXPECT_EQ(vhca_core_odp_invalidate(mr, 99, 2), -VHCA_EINVAL);

  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  const unsigned qp = vhca_core_qp_num(CreateQp(&init));
  ASSERT_EQ(vhca_core_odp_resume(core_, qp, 1), 0);
  WireBytes res(32);
  res.Put32(0, qp).Put8(4, VHCA_ODP_RESUME_F_ERROR);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), res.bytes());
  EXPECT_EQ(vhca_core_odp_resume(core_, qp + 1000, 0), -VHCA_ENOENT);
}

TEST_F(OdpTest, PageFaultReachesTheHandler) {
  g_fault = Fault{};
  vhca_core_set_page_fault_handler(core_, OnFault, &g_fault);
  vhca_eqe event{};
  event.type = VHCA_EQE_PAGE_FAULT;
  event.subtype = VHCA_PF_RESPONDER;
  vhca_eqe_page_fault pf{};
  pf.qpn = 7;
  pf.key = 0x1234;
  pf.addr = 0x7f0000001000ull;
  pf.len = 300;
  pf.flags = VHCA_PF_F_WRITE;
  vhca::CopyBytes(event.data.raw, &pf, sizeof(pf));
  device_.PostEvent(0, event);
  device_.Run();
  EXPECT_EQ(g_fault.calls, 1);
  EXPECT_EQ(g_fault.subtype, unsigned{VHCA_PF_RESPONDER});
  EXPECT_EQ(g_fault.qp, 7u);
  EXPECT_EQ(g_fault.key, 0x1234u);
  EXPECT_EQ(g_fault.addr, 0x7f0000001000ull);
  EXPECT_EQ(g_fault.len, 300u);
  EXPECT_EQ(g_fault.flags, unsigned{VHCA_PF_F_WRITE});
}

// A device without VHCA_DEV_CAP_ODP: no command.
class NoOdpTest : public VerbsTest {};

TEST_F(NoOdpTest, Refused) {
  vhca_core_mr* mr = nullptr;
  const uint32_t before = device_.executed.size();
  EXPECT_EQ(vhca_core_create_odp_mr(core_, pdn_, 0, 4096, 0, 1, 12, 0, &mr),
            -VHCA_EOPNOTSUPP);
  EXPECT_EQ(device_.executed.size(), before);
}

}  // namespace

// Implicit ODP: a device with VHCA_DEV_CAP_ODP_IMPLICIT.
class OdpImplicitTest : public VerbsTest {
 protected:
  void SetUp() override {
    device_.dev_caps |= VHCA_DEV_CAP_ODP | VHCA_DEV_CAP_ODP_IMPLICIT;
    VerbsTest::SetUp();
  }
};

TEST_F(OdpImplicitTest, CreateMapInvalidate64BitPages) {
  vhca_core_mr* mr = nullptr;
  ASSERT_EQ(vhca_core_create_implicit_odp_mr(core_, pdn_, 12,
                                             VHCA_ACCESS_LOCAL_WRITE, &mr), 0);
  mrs_.push_back(mr);
  const vhca_cmd& cmd = device_.executed.back();
  ASSERT_EQ(cmd.opcode, VHCA_CMD_CREATE_MR);
  const auto* in = static_cast<const vhca_cmd_create_mr*>(
      device_.DmaForTest(cmd.in_addr, sizeof(vhca_cmd_create_mr)));
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->flags, VHCA_MR_F_ODP | VHCA_MR_F_ODP_IMPLICIT);
  EXPECT_EQ(in->iova, 0u);
  EXPECT_EQ(in->length, ~0ull);
  EXPECT_EQ(in->pages.addr, 0u);
  EXPECT_EQ(in->pages.npages, 0u);
  EXPECT_EQ(in->pages.page_shift, 12u);
  EXPECT_EQ(in->first_byte_offset, 0u);

  // Page 0x7f0000001 (address 0x7f0000001000): first_page_hi 7.
  unsigned long long dma[2] = {0x200000ull, 0x201000ull};
  ASSERT_EQ(vhca_core_odp_map(mr, 0x7f0000001ull, 2, dma), 0);
  WireBytes map(32);
  map.Put32(0, vhca_core_mr_key(mr)).Put32(4, 0xf0000001u).Put32(8, 2).Put32(12, 7);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), map.bytes());
  ASSERT_EQ(vhca_core_odp_invalidate(mr, 0x7f0000001ull, 2), 0);
  WireBytes inv(32);
  inv.Put32(0, vhca_core_mr_key(mr)).Put32(4, 0xf0000001u).Put32(8, 2).Put32(12, 7);
  EXPECT_EQ(WireBytes::Of(device_.executed.back().in.raw, 32), inv.bytes());
  // The top page of the address space is the last; past it is refused.
  EXPECT_EQ(vhca_core_odp_invalidate(mr, ~0ull >> 12, 1), 0);
  EXPECT_EQ(vhca_core_odp_invalidate(mr, ~0ull >> 12, 2), -VHCA_EINVAL);
}

// ODP without the implicit cap: no command.
class OdpNoImplicitTest : public OdpTest {};

TEST_F(OdpNoImplicitTest, ImplicitRefused) {
  vhca_core_mr* mr = nullptr;
  const uint32_t before = device_.executed.size();
  EXPECT_EQ(vhca_core_create_implicit_odp_mr(core_, pdn_, 12, 0, &mr),
            -VHCA_EOPNOTSUPP);
  EXPECT_EQ(device_.executed.size(), before);
}
