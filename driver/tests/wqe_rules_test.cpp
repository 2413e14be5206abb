// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// uapi/vhca_hw_wqe_rules.h, the send work-request rules that the driver
// core, the provider and the device all use: every opcode byte on every
// QP type against IBA 9.2's OpCode table, written out here independently.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "vhca_hw.h"

namespace {

const uint8_t kQpTypes[] = {VHCA_QPT_RC,  VHCA_QPT_UC,      VHCA_QPT_UD,     VHCA_QPT_SMI,
                            VHCA_QPT_GSI, VHCA_QPT_XRC_INI, VHCA_QPT_XRC_TGT};

// (opcode, QP type) pairs that may be posted: IBA 9.2 (RC: everything; UC:
// SEND and RDMA WRITE with or without immediate; UD, QP0, QP1: SEND with
// or without immediate) plus the local operations LOCAL_INV and REG_MR on
// any send queue (IBA 10.6.5, 10.6.3.4) and BIND_MW on the connected ones
// (IBA 10.6.7.2: a window's rkey serves the peer of the connection).
// The XRC initiator posts what RC posts (IBA A14.3.2: XRC's opcodes are
// RC's with an XRCETH); the XRC target has no send queue and posts nothing.
// ATOMIC WRITE and FLUSH are RC opcodes (IBA 1.5 9.2, 9.4.6, A19.4.1: RC,
// RD and XRC; not UC or UD).
std::set<std::pair<int, int>> Allowed() {
  std::set<std::pair<int, int>> allowed;
  for (int op : {VHCA_WQE_SEND, VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_SEND_WITH_INV,
                 VHCA_WQE_RDMA_WRITE, VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_WQE_RDMA_READ,
                 VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_WQE_ATOMIC_FETCH_AND_ADD,
                 VHCA_WQE_ATOMIC_WRITE, VHCA_WQE_FLUSH, VHCA_WQE_BIND_MW,
                 VHCA_WQE_LOCAL_INV, VHCA_WQE_REG_MR})
    for (int type : {VHCA_QPT_RC, VHCA_QPT_XRC_INI}) allowed.insert({op, type});
  for (int op : {VHCA_WQE_SEND, VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_RDMA_WRITE,
                 VHCA_WQE_RDMA_WRITE_WITH_IMM})
    allowed.insert({op, VHCA_QPT_UC});
  allowed.insert({VHCA_WQE_BIND_MW, VHCA_QPT_UC});
  for (int type : {VHCA_QPT_UD, VHCA_QPT_SMI, VHCA_QPT_GSI})
    for (int op : {VHCA_WQE_SEND, VHCA_WQE_SEND_WITH_IMM}) allowed.insert({op, type});
  for (int type : {VHCA_QPT_UC, VHCA_QPT_UD, VHCA_QPT_SMI, VHCA_QPT_GSI})
    for (int op : {VHCA_WQE_LOCAL_INV, VHCA_WQE_REG_MR}) allowed.insert({op, type});
  return allowed;
}

TEST(WqeRules, EveryOpcodeOnEveryQpTypeMatchesIba) {
  const auto allowed = Allowed();
  for (int op = 0; op < 256; op++) {
    for (uint8_t type : kQpTypes) {
      EXPECT_EQ(vhca_wqe_opcode_allowed(static_cast<uint8_t>(op), type) != 0,
                allowed.count({op, type}) == 1)
          << "opcode " << op << " QP type " << int(type);
    }
    // QP types the device does not have (0, 8..255) never post anything.
    for (int type : {0, 8, 31, 32, 255})
      EXPECT_FALSE(vhca_wqe_opcode_allowed(static_cast<uint8_t>(op),
                                           static_cast<uint8_t>(type)));
  }
}

TEST(WqeRules, SegmentAfterTheControlSegment) {
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_SEND, VHCA_QPT_RC), 0u);
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_SEND_WITH_IMM, VHCA_QPT_UC), 0u);
  // XRC: the remote SRQ number is in the control segment, no segment.
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_SEND, VHCA_QPT_XRC_INI), 0u);
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_QPT_XRC_INI),
            sizeof(vhca_wqe_atomic));
  for (uint8_t type : {VHCA_QPT_UD, VHCA_QPT_SMI, VHCA_QPT_GSI})
    EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_SEND, type), sizeof(vhca_wqe_ud));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_RDMA_WRITE, VHCA_QPT_UC), sizeof(vhca_wqe_raddr));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_RDMA_READ, VHCA_QPT_RC), sizeof(vhca_wqe_raddr));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_ATOMIC_FETCH_AND_ADD, VHCA_QPT_RC),
            sizeof(vhca_wqe_atomic));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_ATOMIC_WRITE, VHCA_QPT_RC), sizeof(vhca_wqe_atomic));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_FLUSH, VHCA_QPT_RC), sizeof(vhca_wqe_flush));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_FLUSH, VHCA_QPT_XRC_INI), sizeof(vhca_wqe_flush));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_REG_MR, VHCA_QPT_UD), sizeof(vhca_wqe_reg_mr));
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_LOCAL_INV, VHCA_QPT_UD), 0u);
  EXPECT_EQ(vhca_wqe_segment_size(VHCA_WQE_BIND_MW, VHCA_QPT_UC), sizeof(vhca_wqe_bind_mw));
}

TEST(WqeRules, XrcTypes) {
  EXPECT_TRUE(vhca_qpt_is_reliable(VHCA_QPT_RC));
  EXPECT_TRUE(vhca_qpt_is_reliable(VHCA_QPT_XRC_INI));
  EXPECT_TRUE(vhca_qpt_is_reliable(VHCA_QPT_XRC_TGT));
  EXPECT_FALSE(vhca_qpt_is_reliable(VHCA_QPT_UC));
  EXPECT_FALSE(vhca_qpt_is_xrc(VHCA_QPT_RC));
  EXPECT_EQ(vhca_qpt_peer(VHCA_QPT_XRC_INI), VHCA_QPT_XRC_TGT);
  EXPECT_EQ(vhca_qpt_peer(VHCA_QPT_XRC_TGT), VHCA_QPT_XRC_INI);
  EXPECT_EQ(vhca_qpt_peer(VHCA_QPT_RC), VHCA_QPT_RC);
  EXPECT_EQ(vhca_qpt_peer(VHCA_QPT_UC), VHCA_QPT_UC);
}

TEST(WqeRules, DataAndInline) {
  for (int op : {VHCA_WQE_LOCAL_INV, VHCA_WQE_REG_MR, VHCA_WQE_BIND_MW}) {
    EXPECT_TRUE(vhca_wqe_is_local(static_cast<uint8_t>(op)));
    EXPECT_FALSE(vhca_wqe_carries_data(static_cast<uint8_t>(op)));
    EXPECT_FALSE(vhca_wqe_may_inline(static_cast<uint8_t>(op)));
  }
  // ATOMIC WRITE goes on the wire with its 8 bytes from its segment: no
  // SGEs, no inline data, nothing coming back.
  EXPECT_FALSE(vhca_wqe_is_local(VHCA_WQE_ATOMIC_WRITE));
  EXPECT_FALSE(vhca_wqe_carries_data(VHCA_WQE_ATOMIC_WRITE));
  EXPECT_FALSE(vhca_wqe_may_inline(VHCA_WQE_ATOMIC_WRITE));
  EXPECT_FALSE(vhca_wqe_returns_data(VHCA_WQE_ATOMIC_WRITE));
  // FLUSH: no data either way, but answered as a READ is (one packet, a
  // responder resource, behind a fence: IBA 1.5 A19.4.1, oA19-2).
  EXPECT_FALSE(vhca_wqe_is_local(VHCA_WQE_FLUSH));
  EXPECT_FALSE(vhca_wqe_carries_data(VHCA_WQE_FLUSH));
  EXPECT_FALSE(vhca_wqe_may_inline(VHCA_WQE_FLUSH));
  EXPECT_TRUE(vhca_wqe_returns_data(VHCA_WQE_FLUSH));
  for (int op : {VHCA_WQE_SEND, VHCA_WQE_RDMA_WRITE, VHCA_WQE_RDMA_READ,
                 VHCA_WQE_ATOMIC_FETCH_AND_ADD})
    EXPECT_FALSE(vhca_wqe_is_local(static_cast<uint8_t>(op)));
  // Data that comes back (READ, atomics) cannot be inline (IBA 11.4.1.1).
  for (int op : {VHCA_WQE_RDMA_READ, VHCA_WQE_ATOMIC_CMP_AND_SWP,
                 VHCA_WQE_ATOMIC_FETCH_AND_ADD}) {
    EXPECT_TRUE(vhca_wqe_carries_data(static_cast<uint8_t>(op)));
    EXPECT_FALSE(vhca_wqe_may_inline(static_cast<uint8_t>(op)));
  }
  for (int op : {VHCA_WQE_SEND, VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_SEND_WITH_INV,
                 VHCA_WQE_RDMA_WRITE, VHCA_WQE_RDMA_WRITE_WITH_IMM})
    EXPECT_TRUE(vhca_wqe_may_inline(static_cast<uint8_t>(op)));
}

// The requester's completion of each opcode (IBA 11.4.2.1, ibv_wc_opcode).
TEST(WqeRules, CompletionOpcodes) {
  const std::pair<int, int> expected[] = {
      {VHCA_WQE_SEND, VHCA_CQE_SEND},
      {VHCA_WQE_SEND_WITH_IMM, VHCA_CQE_SEND},
      {VHCA_WQE_SEND_WITH_INV, VHCA_CQE_SEND},
      {VHCA_WQE_RDMA_WRITE, VHCA_CQE_RDMA_WRITE},
      {VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_CQE_RDMA_WRITE},
      {VHCA_WQE_RDMA_READ, VHCA_CQE_RDMA_READ},
      {VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_CQE_COMP_SWAP},
      {VHCA_WQE_ATOMIC_FETCH_AND_ADD, VHCA_CQE_FETCH_ADD},
      {VHCA_WQE_ATOMIC_WRITE, VHCA_CQE_ATOMIC_WRITE},
      {VHCA_WQE_FLUSH, VHCA_CQE_FLUSH},
      {VHCA_WQE_LOCAL_INV, VHCA_CQE_LOCAL_INV},
      {VHCA_WQE_REG_MR, VHCA_CQE_REG_MR},
      {VHCA_WQE_BIND_MW, VHCA_CQE_BIND_MW},
  };
  for (const auto& [op, cqe] : expected)
    EXPECT_EQ(vhca_wqe_cqe_opcode(static_cast<uint8_t>(op)), cqe) << "opcode " << op;
}

// Every other column, opcode by opcode, against the byte values 0..255:
// only the 13 opcodes have a row (a name, QP types); what the responder
// needs a receive WQE for (IBA 9.7.5.1.1: SENDs, RDMA WRITE with
// immediate), what ctrl.imm_inv holds, what goes on the wire.
TEST(WqeRules, EveryRowAndNothingElse) {
  const std::set<int> rwqe = {VHCA_WQE_SEND, VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_SEND_WITH_INV,
                              VHCA_WQE_RDMA_WRITE_WITH_IMM};
  const std::set<int> imm = {VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_RDMA_WRITE_WITH_IMM};
  const std::set<int> inv = {VHCA_WQE_SEND_WITH_INV, VHCA_WQE_LOCAL_INV};
  const std::set<int> local = {VHCA_WQE_LOCAL_INV, VHCA_WQE_REG_MR, VHCA_WQE_BIND_MW};
  std::set<int> known;
  for (const auto& [op, type] : Allowed()) known.insert(op);
  ASSERT_EQ(known.size(), 13u);
  for (int op = 0; op < 256; op++) {
    const uint8_t byte = static_cast<uint8_t>(op);
    const vhca_wqe_opcode_info* row = vhca_wqe_opcode_row(byte);
    EXPECT_EQ(row->name != nullptr, known.count(op) == 1) << op;
    EXPECT_EQ(vhca_wqe_opcode_has(byte, VHCA_WQE_OPF_RWQE) != 0, rwqe.count(op) == 1) << op;
    EXPECT_EQ(vhca_wqe_opcode_has(byte, VHCA_WQE_OPF_IMM) != 0, imm.count(op) == 1) << op;
    EXPECT_EQ(vhca_wqe_opcode_has(byte, VHCA_WQE_OPF_INV) != 0, inv.count(op) == 1) << op;
    EXPECT_EQ(vhca_wqe_opcode_has(byte, VHCA_WQE_OPF_KERNEL) != 0, op == VHCA_WQE_REG_MR) << op;
    EXPECT_EQ(vhca_wqe_goes_on_wire(byte) != 0, known.count(op) && !local.count(op)) << op;
  }
  EXPECT_STREQ(vhca_wqe_opcode_row(VHCA_WQE_ATOMIC_FETCH_AND_ADD)->name, "ATOMIC_FETCH_AND_ADD");
}

}  // namespace
