// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Completion queues: CREATE_CQ input, CQE decoding of every opcode,
// status and flag, the owner bit over many passes, the doorbell record,
// arm doorbells, IB_CQ_REPORT_MISSED_EVENTS (Guide 8.3), cleaning of a
// destroyed QP's CQEs, and failures.
#include "verbs_test.h"

namespace {

using CqTest = VerbsTest;

TEST_F(CqTest, CreateCommand) {
  vhca_core_cq* cq = nullptr;
  unsigned actual = 0;
  ASSERT_EQ(vhca_core_create_cq(core_, 16, 1, &cq_context_, &cq, &actual), 0);
  cqs_.push_back(cq);
  EXPECT_EQ(actual, 31u);  // 32 CQEs, one kept free
  const uint32_t cqn = Cq(cq).cqn();
  ASSERT_TRUE(device_.cqs.count(cqn));
  const vhca_cmd_create_cq& in = device_.cqs[cqn].in;
  EXPECT_EQ(in.log_size, 5);
  EXPECT_EQ(in.buf.mode, VHCA_BUF_CONTIG);
  EXPECT_EQ(in.buf.page_shift, 12);
  EXPECT_EQ(in.buf.npages, 1u);
  EXPECT_EQ(in.buf.addr, reinterpret_cast<uintptr_t>(Cq(cq).ring()));
  EXPECT_EQ(in.buf.addr % 4096, 0u);
  EXPECT_EQ(in.dbrec_addr, in.buf.addr + 32 * 64);  // after the ring
  EXPECT_EQ(in.eqn, device().comp_eqn(1));
  EXPECT_EQ(in.db_page, 0u);
  const auto& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_CREATE_CQ);
  EXPECT_EQ(cmd.in_len, sizeof(vhca_cmd_create_cq));
  EXPECT_NE(cmd.in_addr, 0u);
}

TEST_F(CqTest, SizeLimits) {
  vhca_core_cq* cq = nullptr;
  unsigned actual = 0;
  EXPECT_EQ(vhca_core_create_cq(core_, 0, 0, nullptr, &cq, &actual), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_cq(core_, 1u << VHCA_MAX_LOG_CQ, 0, nullptr, &cq, &actual),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_cq(core_, 1, 2, nullptr, &cq, &actual), -VHCA_EINVAL);  // 2 vectors
  EXPECT_EQ(vhca::CompletionQueue::LogSizeFor(1), 1u);
  EXPECT_EQ(vhca::CompletionQueue::LogSizeFor(3), 2u);
  EXPECT_EQ(vhca::CompletionQueue::LogSizeFor(4), 3u);
  EXPECT_EQ(vhca::CompletionQueue::LogSizeFor((1u << 16) - 1), 16u);
  ASSERT_EQ(vhca_core_create_cq(core_, (1u << 16) - 1, 0, nullptr, &cq, &actual), 0);
  cqs_.push_back(cq);
  EXPECT_EQ(device_.cqs[Cq(cq).cqn()].in.buf.npages, 1024u);  // 4 MiB ring
}

TEST_F(CqTest, DecodesEveryOpcode) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const uint8_t opcodes[] = {VHCA_CQE_SEND, VHCA_CQE_RDMA_WRITE, VHCA_CQE_RDMA_READ,
                             VHCA_CQE_COMP_SWAP, VHCA_CQE_FETCH_ADD, VHCA_CQE_LOCAL_INV,
                             VHCA_CQE_REG_MR, VHCA_CQE_RECV, VHCA_CQE_RECV_RDMA_WITH_IMM};
  for (uint8_t opcode : opcodes) {
    vhca_cqe cqe = Cqe(qpn, opcode, 0x1000 + opcode);
    cqe.byte_len = 4096;
    cqe.src_qp = 0x123456;
    cqe.sl = 5;
    cqe.slid = 0x77;
    cqe.dlid_path_bits = 2;
    cqe.pkey_index = 3;
    device_.PostCqe(Cq(cq).cqn(), cqe);
    auto wc = Poll(cq);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].wr_id, 0x1000u + opcode);
    EXPECT_EQ(wc[0].opcode, opcode);  // == ib_wc_opcode
    EXPECT_EQ(wc[0].status, unsigned{VHCA_WC_SUCCESS});
    EXPECT_EQ(wc[0].qp_context, &qp_context_);
    EXPECT_EQ(wc[0].qp_num, qpn);
    EXPECT_EQ(wc[0].byte_len, 4096u);
    EXPECT_EQ(wc[0].src_qp, 0x123456u);
    EXPECT_EQ(wc[0].sl, 5);
    EXPECT_EQ(wc[0].slid, 0x77);
    EXPECT_EQ(wc[0].dlid_path_bits, 2);
    EXPECT_EQ(wc[0].pkey_index, 3);
    EXPECT_EQ(wc[0].wc_flags, 0u);
  }
}

TEST_F(CqTest, DecodesEveryStatus) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  const uint8_t statuses[] = {
      VHCA_WC_LOC_LEN_ERR, VHCA_WC_LOC_QP_OP_ERR, VHCA_WC_LOC_PROT_ERR,
      VHCA_WC_WR_FLUSH_ERR, VHCA_WC_BAD_RESP_ERR, VHCA_WC_LOC_ACCESS_ERR,
      VHCA_WC_REM_INV_REQ_ERR, VHCA_WC_REM_ACCESS_ERR, VHCA_WC_REM_OP_ERR,
      VHCA_WC_RETRY_EXC_ERR, VHCA_WC_RNR_RETRY_EXC_ERR, VHCA_WC_REM_ABORT_ERR,
      VHCA_WC_FATAL_ERR, VHCA_WC_GENERAL_ERR};
  for (uint8_t status : statuses) {
    vhca_cqe cqe = Cqe(qpn, VHCA_CQE_RECV, 7, 0, status);
    cqe.vendor_err = VHCA_VERR_BAD_KEY;
    cqe.byte_len = 99;  // not valid in an error completion
    device_.PostCqe(Cq(cq).cqn(), cqe);
    auto wc = Poll(cq);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, status);
    EXPECT_EQ(wc[0].vendor_err, unsigned{VHCA_VERR_BAD_KEY});
    EXPECT_EQ(wc[0].wr_id, 7u);
    EXPECT_EQ(wc[0].qp_context, &qp_context_);
    EXPECT_EQ(wc[0].byte_len, 0u);
  }
  // A status or (successful) opcode this driver does not know.
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 8, 0, 3));
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, 0x42, 9));
  auto wc = Poll(cq);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].status, unsigned{VHCA_WC_GENERAL_ERR});
  EXPECT_EQ(wc[1].status, unsigned{VHCA_WC_GENERAL_ERR});
  EXPECT_EQ(wc[1].wr_id, 9u);
  EXPECT_TRUE(kernel_.LogContains("bad CQE"));
}

TEST_F(CqTest, DecodesFlags) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq, VHCA_QPT_UD);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  vhca_cqe grh = Cqe(qpn, VHCA_CQE_RECV, 1);
  grh.flags = VHCA_CQE_F_GRH;
  vhca_cqe imm = Cqe(qpn, VHCA_CQE_RECV_RDMA_WITH_IMM, 2);
  imm.flags = VHCA_CQE_F_IMM;
  const uint8_t wire[4] = {0x01, 0x02, 0x03, 0x04};
  memcpy(&imm.imm_inv, wire, 4);
  vhca_cqe inv = Cqe(qpn, VHCA_CQE_RECV, 3);
  inv.flags = VHCA_CQE_F_INV;
  inv.imm_inv = 0x00456701;
  for (const auto& cqe : {grh, imm, inv}) device_.PostCqe(Cq(cq).cqn(), cqe);
  auto wc = Poll(cq);
  ASSERT_EQ(wc.size(), 3u);
  EXPECT_EQ(wc[0].wc_flags, VHCA_CORE_WC_GRH);
  EXPECT_EQ(wc[1].wc_flags, VHCA_CORE_WC_WITH_IMM);
  EXPECT_EQ(memcmp(&wc[1].imm_inv, wire, 4), 0);  // wire order kept
  EXPECT_EQ(wc[2].wc_flags, VHCA_CORE_WC_WITH_INVALIDATE);
  EXPECT_EQ(wc[2].imm_inv, 0x00456701u);
}

TEST_F(CqTest, OwnerBitAcrossManyPasses) {
  vhca_core_cq* cq = CreateCq(3);  // 4 CQEs
  ASSERT_EQ(Cq(cq).log_size(), 2u);
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  const auto& dbrec = *reinterpret_cast<const vhca_cq_dbrec*>(
      static_cast<uintptr_t>(device_.cqs[Cq(cq).cqn()].in.dbrec_addr));
  uint64_t next = 0, expected = 0;
  for (int pass = 0; pass < 40; pass++) {
    for (int i = 0; i < 3; i++)
      device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_RECV, next++));
    // Partial polls: 2 then the rest; old-pass entries are never seen.
    auto first = Poll(cq, 2);
    auto rest = Poll(cq, 8);
    ASSERT_EQ(first.size() + rest.size(), 3u) << "pass " << pass;
    for (const auto& wc : first) EXPECT_EQ(wc.wr_id, expected++);
    for (const auto& wc : rest) EXPECT_EQ(wc.wr_id, expected++);
    EXPECT_TRUE(Poll(cq).empty());
    EXPECT_EQ(dbrec.consumer_index, Cq(cq).consumer_index());
  }
  EXPECT_EQ(Cq(cq).consumer_index(), 120u);
}

TEST_F(CqTest, PollOfEmptyCqLeavesTheDoorbellRecord) {
  vhca_core_cq* cq = CreateCq();
  EXPECT_TRUE(Poll(cq).empty());
  EXPECT_EQ(Cq(cq).consumer_index(), 0u);
}

TEST_F(CqTest, ArmDoorbellValues) {
  vhca_core_cq* cq = CreateCq();
  const uint32_t cqn = Cq(cq).cqn();
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);
  EXPECT_EQ(LastDoorbell().offset, uint32_t{VHCA_DB_CQ});
  EXPECT_EQ(LastDoorbell().value, uint64_t{cqn} | (1u << 24));
  for (int i = 0; i < 5; i++) device_.PostCqe(cqn, Cqe(qpn, VHCA_CQE_SEND, i));
  EXPECT_EQ(Poll(cq).size(), 5u);
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_SOLICITED), 0);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{5} << 32) | cqn | (1u << 25));
  EXPECT_EQ(device_.cqs[cqn].armed, uint32_t{VHCA_DB_CQ_ARM_SOLICITED});
  EXPECT_EQ(device_.cqs[cqn].arm_ci, 5u);
}

TEST_F(CqTest, ArmedCqRaisesACompletionEvent) {
  vhca_core_cq* cq = CreateCq(15, 1);
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);
  device_.irqs_delivered.clear();
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 1));
  device_.Run();
  ASSERT_EQ(device_.irqs_delivered.size(), 1u);
  EXPECT_EQ(device_.irqs_delivered[0], 2u);  // vector of comp EQ 1
}

TEST_F(CqTest, ReportMissedEvents) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  const unsigned report = VHCA_CORE_CQ_NEXT_COMP | VHCA_CORE_CQ_REPORT_MISSED;
  EXPECT_EQ(vhca_core_arm_cq(cq, report), 0);  // empty
  // A CQE written before the arm (the race of Guide 8.3).
  device_.cqs[Cq(cq).cqn()].armed = 0;
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 1));
  EXPECT_EQ(vhca_core_arm_cq(cq, report), 1);
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);  // not asked
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_SOLICITED | VHCA_CORE_CQ_REPORT_MISSED), 1);
  EXPECT_EQ(Poll(cq).size(), 1u);
  EXPECT_EQ(vhca_core_arm_cq(cq, report), 0);
}

TEST_F(CqTest, DestroyedQpCqesAreCleaned) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* a = CreateQp(&init);
  vhca_core_qp* b = CreateQp(&init);
  const uint32_t qpn_a = vhca_core_qp_num(a), qpn_b = vhca_core_qp_num(b);
  for (int i = 0; i < 6; i++)
    device_.PostCqe(Cq(cq).cqn(), Cqe(i % 2 ? qpn_b : qpn_a, VHCA_CQE_RECV, i));
  DestroyQp(a);
  auto wc = Poll(cq);
  ASSERT_EQ(wc.size(), 3u);
  for (const auto& c : wc) EXPECT_EQ(c.qp_num, qpn_b);
  EXPECT_EQ(Cq(cq).consumer_index(), 6u);  // the stale ones were consumed
  EXPECT_FALSE(kernel_.LogContains("unknown QP"));
}

TEST_F(CqTest, CqeOfUnknownQpIsDropped) {
  vhca_core_cq* cq = CreateCq();
  device_.PostCqe(Cq(cq).cqn(), Cqe(77, VHCA_CQE_SEND, 1));
  EXPECT_TRUE(Poll(cq).empty());
  EXPECT_TRUE(kernel_.LogContains("unknown QP 77"));
}

TEST_F(CqTest, DestroyWithQpsIsBusy) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  EXPECT_EQ(vhca_core_destroy_cq(cq), -VHCA_EBUSY);
  DestroyQp(qp);
  DestroyCq(cq);
  EXPECT_TRUE(device_.cqs.empty());
}

TEST_F(CqTest, DeviceErrorsBecomeErrnos) {
  vhca_core_cq* cq = nullptr;
  unsigned actual = 0;
  const int64_t before = kernel_.outstanding();
  device_.forced_status.set(VHCA_CMD_CREATE_CQ, VHCA_CMD_NO_RESOURCES);
  EXPECT_EQ(vhca_core_create_cq(core_, 8, 0, nullptr, &cq, &actual), -VHCA_ENOMEM);
  EXPECT_EQ(kernel_.outstanding(), before);
  device_.forced_status.clear();
  device_.data_path = false;  // the first-light device
  EXPECT_EQ(vhca_core_create_cq(core_, 8, 0, nullptr, &cq, &actual), -VHCA_EOPNOTSUPP);
  EXPECT_EQ(kernel_.outstanding(), before);
}

TEST_F(CqTest, ResizeKeepsUnpolledCompletions) {
  vhca_core_cq* cq = CreateCq(7);
  const uint32_t cqn = Cq(cq).cqn();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  unsigned actual = 0;
  // A QP uses the CQ: 5 completions, 2 of them polled, 3 waiting.
  for (int i = 0; i < 5; i++) device_.PostCqe(cqn, Cqe(qpn, VHCA_CQE_SEND, i));
  EXPECT_EQ(Poll(cq, 2).size(), 2u);
  const int64_t before = kernel_.outstanding();
  ASSERT_EQ(vhca_core_resize_cq(cq, 100, &actual), 0);
  EXPECT_EQ(actual, 127u);
  EXPECT_EQ(kernel_.outstanding(), before);  // the old ring is gone
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_RESIZE_CQ);
  EXPECT_EQ(cmd.in.handle.handle, cqn);
  const vhca_cmd_create_cq& in = device_.cqs[cqn].in;
  EXPECT_EQ(in.log_size, 7);
  EXPECT_EQ(in.buf.addr, reinterpret_cast<uintptr_t>(Cq(cq).ring()));
  EXPECT_EQ(in.dbrec_addr, in.buf.addr + 128 * 64);
  EXPECT_EQ(in.eqn, device().comp_eqn(0));
  EXPECT_EQ(Cq(cq).consumer_index(), 0u);
  // The 3 waiting ones moved to the new ring, then new ones follow.
  device_.PostCqe(cqn, Cqe(qpn, VHCA_CQE_SEND, 42));
  auto wc = Poll(cq);
  ASSERT_EQ(wc.size(), 4u);
  EXPECT_EQ(wc[0].wr_id, 2u);
  EXPECT_EQ(wc[2].wr_id, 4u);
  EXPECT_EQ(wc[3].wr_id, 42u);
  // Shrinking below what waits is the device's BAD_PARAM.
  for (int i = 0; i < 10; i++) device_.PostCqe(cqn, Cqe(qpn, VHCA_CQE_SEND, i));
  EXPECT_EQ(vhca_core_resize_cq(cq, 4, &actual), -VHCA_EINVAL);
  EXPECT_EQ(Poll(cq).size(), 10u);  // polling resumes on the old ring
  DestroyQp(qp);
  const int64_t without_qp = kernel_.outstanding();
  // Refused sizes and device errors leave the CQ as it was.
  EXPECT_EQ(vhca_core_resize_cq(cq, 0, &actual), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_resize_cq(cq, 1u << VHCA_MAX_LOG_CQ, &actual), -VHCA_EINVAL);
  device_.forced_status.set(VHCA_CMD_RESIZE_CQ, VHCA_CMD_BAD_PARAM);
  EXPECT_EQ(vhca_core_resize_cq(cq, 8, &actual), -VHCA_EINVAL);
  EXPECT_EQ(Cq(cq).log_size(), 7u);
  EXPECT_EQ(kernel_.outstanding(), without_qp);
}

TEST_F(CqTest, TimedOutCreateKeepsTheRingUntilReset) {
  vhca_core_cq* cq = nullptr;
  unsigned actual = 0;
  const int64_t before = kernel_.outstanding();
  vhca_core_set_cmd_timeout(core_, 1);
  device_.hang = true;
  EXPECT_EQ(vhca_core_create_cq(core_, 8, 0, nullptr, &cq, &actual), -VHCA_ETIMEDOUT);
  // Retired, not freed: the device might still write the ring.
  EXPECT_GT(kernel_.outstanding(), before);
  EXPECT_TRUE(kernel_.IsDmaRange(device_.executed.back().in_addr, 8));
  // The dead queue cannot dealloc the PD: stop here, TearDown checks
  // that the reset freed everything.
  StopAndDestroy();
}

TEST_F(CqTest, AllocationFailureAtEveryStepLeaksNothing) {
  const int64_t before = kernel_.outstanding();
  for (uint64_t n = 1;; n++) {
    vhca_core_cq* cq = nullptr;
    unsigned actual = 0;
    kernel_.FailAllocation(n);
    const int err = vhca_core_create_cq(core_, 8, 0, nullptr, &cq, &actual);
    kernel_.FailAllocation(0);
    if (err == 0) {
      EXPECT_EQ(vhca_core_destroy_cq(cq), 0);
      break;
    }
    EXPECT_EQ(err, -VHCA_ENOMEM) << "step " << n;
    EXPECT_EQ(kernel_.outstanding(), before) << "step " << n;
  }
  EXPECT_TRUE(device_.cqs.empty());
}

}  // namespace
