// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Send and receive WQE encodings, byte for byte, per opcode and QP type
// (vhca_hw_verbs.h "Send WQEs", "Receive WQEs"), and the argument checks:
// SGE and inline limits, opcodes a QP type cannot carry.  REG_MR needs a
// region and is in memory_region_test.cpp.
#include <gtest/gtest.h>

#include <cstring>

#include <vector>

#include "vhca_errno.h"
#include "wire_bytes.h"
#include "wqe_builder.h"

namespace {

constexpr uint32_t kStride = 256;

// Offsets in a send WQE (vhca_wqe_ctrl, then the opcode segment at 32).
enum : size_t {
  kWrId = 0, kOpcode = 8, kFlags = 9, kNumSge = 10, kImmInv = 12, kInlineLen = 16,
  kSeg = 32,
};

vhca::SendQueueLayout Layout(uint8_t type, uint32_t max_sge = 8,
                             uint32_t max_inline = 64) {
  vhca::SendQueueLayout layout;
  layout.qp_type = type;
  layout.stride = kStride;
  layout.max_sge = max_sge;
  layout.max_inline = max_inline;
  return layout;
}

struct Built {
  int error;
  std::vector<uint8_t> bytes;
};

Built Build(const vhca::SendQueueLayout& layout, const vhca_core_send_wr& wr) {
  std::vector<uint8_t> wqe(layout.stride, 0xee);  // stale bytes must go
  const vhca::Status status = vhca::BuildSendWqe(layout, wr, wqe.data());
  return {status.error(), wqe};
}

const vhca_core_sge kSges[2] = {{0x1111222233334444ull, 0x100, 0xaabbcc01},
                                {0x5555666677778888ull, 0x2000, 0xaabbcc02}};

void PutSges(WireBytes* w, size_t offset, int count) {
  for (int i = 0; i < count; i++) {
    w->Put64(offset + 16 * i, kSges[i].addr);
    w->Put32(offset + 16 * i + 8, kSges[i].length);
    w->Put32(offset + 16 * i + 12, kSges[i].lkey);
  }
}

vhca_core_send_wr Wr(uint32_t opcode, uint32_t flags = VHCA_CORE_SEND_SIGNALED) {
  vhca_core_send_wr wr{};
  wr.wr_id = 0x0123456789abcdefull;
  wr.opcode = opcode;
  wr.flags = flags;
  wr.num_sge = 2;
  wr.sg_list = kSges;
  return wr;
}

WireBytes Ctrl(uint8_t opcode, uint8_t flags, uint8_t num_sge) {
  WireBytes w(kStride);
  w.Put64(kWrId, 0x0123456789abcdefull).Put8(kOpcode, opcode).Put8(kFlags, flags)
      .Put8(kNumSge, num_sge);
  return w;
}

TEST(WqeBuilder, RcSendHasNoSegment) {
  auto built = Build(Layout(VHCA_QPT_RC), Wr(VHCA_WQE_SEND));
  ASSERT_EQ(built.error, 0);
  WireBytes expected = Ctrl(0x02, VHCA_WQE_F_SIGNALED, 2);
  PutSges(&expected, kSeg, 2);
  EXPECT_EQ(built.bytes, expected.bytes());
}

TEST(WqeBuilder, SendWithImmKeepsWireOrder) {
  vhca_core_send_wr wr = Wr(VHCA_WQE_SEND_WITH_IMM, VHCA_CORE_SEND_SOLICITED);
  const uint8_t wire[4] = {0xde, 0xad, 0xbe, 0xef};  // __be32 0xdeadbeef
  memcpy(&wr.imm_inv, wire, 4);
  auto built = Build(Layout(VHCA_QPT_UC), wr);
  ASSERT_EQ(built.error, 0);
  WireBytes expected = Ctrl(0x03, VHCA_WQE_F_SOLICITED, 2);
  expected.PutRaw(kImmInv, wire, 4);
  PutSges(&expected, kSeg, 2);
  EXPECT_EQ(built.bytes, expected.bytes());
}

TEST(WqeBuilder, SendWithInvCarriesTheKey) {
  vhca_core_send_wr wr = Wr(VHCA_WQE_SEND_WITH_INV, VHCA_CORE_SEND_FENCE);
  wr.imm_inv = 0x00123405;
  auto built = Build(Layout(VHCA_QPT_RC), wr);
  ASSERT_EQ(built.error, 0);
  WireBytes expected = Ctrl(0x09, VHCA_WQE_F_FENCE, 2);
  expected.Put32(kImmInv, 0x00123405);
  PutSges(&expected, kSeg, 2);
  EXPECT_EQ(built.bytes, expected.bytes());
}

TEST(WqeBuilder, RdmaWriteReadSegments) {
  struct Case { uint32_t opcode; uint8_t code; } cases[] = {
      {VHCA_WQE_RDMA_WRITE, 0x00}, {VHCA_WQE_RDMA_WRITE_WITH_IMM, 0x01},
      {VHCA_WQE_RDMA_READ, 0x04}};
  for (const Case& c : cases) {
    vhca_core_send_wr wr = Wr(c.opcode, 0);
    wr.rdma.remote_addr = 0xfedcba9876543210ull;
    wr.rdma.rkey = 0x00abcd07;
    if (c.opcode == VHCA_WQE_RDMA_WRITE_WITH_IMM) wr.imm_inv = 0x04030201;
    auto built = Build(Layout(VHCA_QPT_RC), wr);
    ASSERT_EQ(built.error, 0) << c.opcode;
    WireBytes expected = Ctrl(c.code, 0, 2);
    if (c.opcode == VHCA_WQE_RDMA_WRITE_WITH_IMM) expected.Put32(kImmInv, 0x04030201);
    expected.Put64(kSeg, 0xfedcba9876543210ull).Put32(kSeg + 8, 0x00abcd07);
    PutSges(&expected, kSeg + 16, 2);
    EXPECT_EQ(built.bytes, expected.bytes()) << c.opcode;
  }
}

TEST(WqeBuilder, AtomicSegments) {
  for (uint32_t opcode : {VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_WQE_ATOMIC_FETCH_AND_ADD}) {
    vhca_core_send_wr wr = Wr(opcode);
    wr.num_sge = 1;
    wr.atomic.remote_addr = 0x10000008;
    wr.atomic.rkey = 0x4402;
    wr.atomic.compare_add = 0x1122334455667788ull;
    wr.atomic.swap = 0x99aabbccddeeff00ull;
    auto built = Build(Layout(VHCA_QPT_RC), wr);
    ASSERT_EQ(built.error, 0);
    WireBytes expected = Ctrl(static_cast<uint8_t>(opcode), VHCA_WQE_F_SIGNALED, 1);
    expected.Put64(kSeg, 0x10000008).Put32(kSeg + 8, 0x4402)
        .Put64(kSeg + 16, 0x1122334455667788ull);
    // The swap operand only for compare-and-swap.
    if (opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP) expected.Put64(kSeg + 24, 0x99aabbccddeeff00ull);
    PutSges(&expected, kSeg + 32, 1);
    EXPECT_EQ(built.bytes, expected.bytes()) << opcode;
  }
}

// ATOMIC WRITE (IBA 1.5 9.4.6): the 8 bytes in the segment's swap field
// as they are in memory, no SGEs; with an SGE it is refused.
TEST(WqeBuilder, AtomicWriteCarriesItsBytesInTheSegment) {
  vhca_core_send_wr wr = Wr(VHCA_WQE_ATOMIC_WRITE);
  wr.num_sge = 0;
  wr.atomic.remote_addr = 0x20000010;
  wr.atomic.rkey = 0x5503;
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  memcpy(&wr.atomic.swap, bytes, sizeof(bytes));
  auto built = Build(Layout(VHCA_QPT_RC), wr);
  ASSERT_EQ(built.error, 0);
  WireBytes expected = Ctrl(VHCA_WQE_ATOMIC_WRITE, VHCA_WQE_F_SIGNALED, 0);
  expected.Put64(kSeg, 0x20000010).Put32(kSeg + 8, 0x5503).Put64(kSeg + 24, 0x0807060504030201ull);
  EXPECT_EQ(built.bytes, expected.bytes());
  wr.num_sge = 1;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC), wr).error, -VHCA_EINVAL);
}

TEST(WqeBuilder, LocalInvalidate) {
  vhca_core_send_wr wr = Wr(VHCA_WQE_LOCAL_INV);
  wr.num_sge = 0;
  wr.imm_inv = 0x00000342;
  auto built = Build(Layout(VHCA_QPT_RC), wr);
  ASSERT_EQ(built.error, 0);
  EXPECT_EQ(built.bytes, Ctrl(0x07, VHCA_WQE_F_SIGNALED, 0).Put32(kImmInv, 0x342).bytes());
  wr.num_sge = 1;  // no data
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC), wr).error, -VHCA_EINVAL);
}

TEST(WqeBuilder, UdSendCarriesTheAddressVector) {
  vhca_core_send_wr wr = Wr(VHCA_WQE_SEND);
  wr.num_sge = 1;
  wr.ud.ah.dlid = 0x1234;
  wr.ud.ah.sl = 3;
  wr.ud.ah.src_path_bits = 1;
  wr.ud.ah.static_rate = 7;
  wr.ud.ah.port_num = 2;
  wr.ud.ah.has_grh = 1;
  wr.ud.ah.sgid_index = 4;
  wr.ud.ah.hop_limit = 64;
  wr.ud.ah.traffic_class = 0x20;
  wr.ud.ah.flow_label = 0xfff12345;  // 20 bits kept
  for (int i = 0; i < 16; i++) wr.ud.ah.dgid[i] = static_cast<uint8_t>(0xf0 + i);
  wr.ud.remote_qpn = 0x00abcdef;
  wr.ud.remote_qkey = 0x80010000;
  wr.ud.pkey_index = 5;
  for (uint8_t type : {VHCA_QPT_UD, VHCA_QPT_GSI, VHCA_QPT_SMI}) {
    auto built = Build(Layout(type), wr);
    ASSERT_EQ(built.error, 0);
    WireBytes expected = Ctrl(0x02, VHCA_WQE_F_SIGNALED, 1);
    // vhca_wqe_ud: the vhca_av (32 bytes), remote_qpn, remote_qkey, pkey_index.
    expected.Put16(kSeg + 0, 0x1234).Put8(kSeg + 2, 3).Put8(kSeg + 3, 1)
        .Put8(kSeg + 4, 7).Put8(kSeg + 5, 2).Put8(kSeg + 6, VHCA_AV_F_GRH)
        .Put8(kSeg + 7, 4).Put8(kSeg + 8, 64).Put8(kSeg + 9, 0x20)
        .Put32(kSeg + 12, 0x12345).PutRaw(kSeg + 16, wr.ud.ah.dgid, 16)
        .Put32(kSeg + 32, 0x00abcdef).Put32(kSeg + 36, 0x80010000)
        .Put16(kSeg + 40, 5);
    PutSges(&expected, kSeg + 48, 1);
    EXPECT_EQ(built.bytes, expected.bytes()) << int{type};
  }
  // Without a GRH, the GRH fields stay zero.
  wr.ud.ah.has_grh = 0;
  auto built = Build(Layout(VHCA_QPT_UD), wr);
  ASSERT_EQ(built.error, 0);
  EXPECT_EQ(built.bytes[kSeg + 6], 0);
  EXPECT_EQ(built.bytes[kSeg + 8], 0);
  EXPECT_EQ(built.bytes[kSeg + 16], 0);
}

TEST(WqeBuilder, SignalAllSetsTheSignaledFlag) {
  vhca::SendQueueLayout layout = Layout(VHCA_QPT_RC);
  layout.sig_all = true;
  auto built = Build(layout, Wr(VHCA_WQE_SEND, 0));
  ASSERT_EQ(built.error, 0);
  EXPECT_EQ(built.bytes[kFlags], VHCA_WQE_F_SIGNALED);
  auto plain = Build(Layout(VHCA_QPT_RC), Wr(VHCA_WQE_SEND, 0));
  EXPECT_EQ(plain.bytes[kFlags], 0);
}

TEST(WqeBuilder, InlineDataIsCopied) {
  const char a[] = "hello, ";
  const char b[] = "inline world";
  const vhca_core_sge sges[2] = {
      {reinterpret_cast<uintptr_t>(a), 7, 0x99}, {reinterpret_cast<uintptr_t>(b), 12, 0x98}};
  vhca_core_send_wr wr = Wr(VHCA_WQE_RDMA_WRITE, VHCA_CORE_SEND_INLINE | VHCA_CORE_SEND_SIGNALED);
  wr.sg_list = sges;
  wr.rdma.remote_addr = 0x5000;
  wr.rdma.rkey = 0x700;
  auto built = Build(Layout(VHCA_QPT_RC), wr);
  ASSERT_EQ(built.error, 0);
  WireBytes expected = Ctrl(0x00, VHCA_WQE_F_SIGNALED | VHCA_WQE_F_INLINE, 0);
  expected.Put32(kInlineLen, 19).Put64(kSeg, 0x5000).Put32(kSeg + 8, 0x700)
      .PutRaw(kSeg + 16, "hello, inline world", 19);
  EXPECT_EQ(built.bytes, expected.bytes());
}

TEST(WqeBuilder, InlineLimit) {
  std::vector<uint8_t> data(65, 0x5a);
  vhca_core_sge sge{reinterpret_cast<uintptr_t>(data.data()), 64, 0};
  vhca_core_send_wr wr = Wr(VHCA_WQE_SEND, VHCA_CORE_SEND_INLINE);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 8, 64), wr).error, 0);
  sge.length = 65;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 8, 64), wr).error, -VHCA_EINVAL);
  // Inline data must also fit the stride after the segments.
  vhca::SendQueueLayout layout = Layout(VHCA_QPT_UD, 8, 1024);
  layout.stride = 128;  // 32 + 48 + 48
  sge.length = 48;
  EXPECT_EQ(vhca::BuildSendWqe(layout, wr, std::vector<uint8_t>(128).data()).error(), 0);
  sge.length = 49;
  EXPECT_EQ(vhca::BuildSendWqe(layout, wr, std::vector<uint8_t>(128).data()).error(),
            -VHCA_EINVAL);
  // Only sends and RDMA writes carry inline data.
  vhca_core_send_wr read = Wr(VHCA_WQE_RDMA_READ, VHCA_CORE_SEND_INLINE);
  read.sg_list = &sge;
  read.num_sge = 1;
  sge.length = 8;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC), read).error, -VHCA_EINVAL);
}

TEST(WqeBuilder, SgeLimit) {
  std::vector<vhca_core_sge> sges(14, vhca_core_sge{0x1000, 16, 1});
  vhca_core_send_wr wr = Wr(VHCA_WQE_SEND);
  wr.sg_list = sges.data();
  wr.num_sge = 4;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 4), wr).error, 0);
  wr.num_sge = 5;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 4), wr).error, -VHCA_EINVAL);
  // A stride of 256 holds 14 SGEs after a 32-byte control segment ...
  wr.num_sge = 14;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 255), wr).error, 0);
  // ... and 13 after a 16-byte RDMA segment.
  wr.opcode = VHCA_WQE_RDMA_WRITE;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC, 255), wr).error, -VHCA_EINVAL);
  wr.num_sge = 1;
  wr.sg_list = nullptr;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC), wr).error, -VHCA_EINVAL);
}

TEST(WqeBuilder, OpcodesTheQpTypeCannotCarry) {
  for (uint32_t opcode : {VHCA_WQE_RDMA_WRITE, VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_WQE_RDMA_READ,
                          VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_WQE_ATOMIC_FETCH_AND_ADD,
                          VHCA_WQE_ATOMIC_WRITE, VHCA_WQE_SEND_WITH_INV})
    EXPECT_EQ(Build(Layout(VHCA_QPT_UD), Wr(opcode)).error, -VHCA_EINVAL) << opcode;
  for (uint32_t opcode : {VHCA_WQE_RDMA_READ, VHCA_WQE_ATOMIC_CMP_AND_SWP,
                          VHCA_WQE_ATOMIC_FETCH_AND_ADD, VHCA_WQE_ATOMIC_WRITE,
                          VHCA_WQE_SEND_WITH_INV})
    EXPECT_EQ(Build(Layout(VHCA_QPT_UC), Wr(opcode)).error, -VHCA_EINVAL) << opcode;
  for (uint32_t opcode : {0x08u, 0x0au, 0x0bu, 0x21u, 0xffu})
    EXPECT_EQ(Build(Layout(VHCA_QPT_RC), Wr(opcode)).error, -VHCA_EINVAL) << opcode;
  vhca_core_send_wr reg = Wr(VHCA_WQE_REG_MR);
  reg.num_sge = 0;
  reg.reg.mr = nullptr;
  EXPECT_EQ(Build(Layout(VHCA_QPT_RC), reg).error, -VHCA_EINVAL);
}

TEST(WqeBuilder, ReceiveWqe) {
  vhca::RecvQueueLayout layout{64, 3};
  vhca_core_recv_wr wr{0xfeedfacecafebeefull, 2, kSges};
  std::vector<uint8_t> wqe(64, 0xee);
  ASSERT_EQ(vhca::BuildRecvWqe(layout, wr, wqe.data()).error(), 0);
  WireBytes expected(64);
  expected.Put64(0, 0xfeedfacecafebeefull).Put8(8, 2);
  PutSges(&expected, 16, 2);
  EXPECT_EQ(wqe, expected.bytes());
  wr.num_sge = 0;
  ASSERT_EQ(vhca::BuildRecvWqe(layout, wr, wqe.data()).error(), 0);
  EXPECT_EQ(wqe, WireBytes(64).Put64(0, 0xfeedfacecafebeefull).bytes());
}

TEST(WqeBuilder, ReceiveSgeLimit) {
  std::vector<vhca_core_sge> sges(4, vhca_core_sge{0x1000, 16, 1});
  vhca_core_recv_wr wr{1, 4, sges.data()};
  std::vector<uint8_t> wqe(64);
  EXPECT_EQ(vhca::BuildRecvWqe({64, 3}, wr, wqe.data()).error(), -VHCA_EINVAL);
  wr.num_sge = 3;
  EXPECT_EQ(vhca::BuildRecvWqe({64, 3}, wr, wqe.data()).error(), 0);
  EXPECT_EQ(vhca::BuildRecvWqe({32, 3}, wr, wqe.data()).error(), -VHCA_EINVAL);
}

TEST(WqeBuilder, AddressVectorRoundTrip) {
  vhca_core_ah_attr ah{};
  ah.dlid = 0xbeef;
  ah.sl = 15;
  ah.port_num = 1;
  ah.has_grh = 1;
  ah.flow_label = 0xfffff;
  ah.dgid[0] = 0xfe;
  ah.dgid[15] = 0x01;
  vhca_core_ah_attr back{};
  vhca::AvToAhAttr(vhca::MakeAv(ah), &back);
  EXPECT_EQ(memcmp(&ah, &back, sizeof(ah)), 0);
}

}  // namespace
