// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Shared receive queues: CREATE_SRQ input, posting and the SRQ doorbell,
// ring full, receive CQEs of its QPs freeing WQEs, the limit, destroy
// while in use, failures.
#include "verbs_test.h"
#include "wire_bytes.h"

namespace {

class SrqTest : public VerbsTest {
 protected:
  vhca_core_srq* CreateSrq(unsigned max_wr = 4, unsigned max_sge = 1, unsigned limit = 0) {
    vhca_core_srq* srq = nullptr;
    unsigned wr = 0, sge = 0;
    EXPECT_EQ(vhca_core_create_srq(core_, pdn_, max_wr, max_sge, limit, &srq_context_, &srq,
                                   &wr, &sge), 0);
    if (srq) srqs_.push_back(srq);
    return srq;
  }
  vhca::SharedReceiveQueue& Srq(vhca_core_srq* srq) {
    return *reinterpret_cast<vhca::SharedReceiveQueue*>(srq);
  }
  int srq_context_ = 0;
};

TEST_F(SrqTest, CreateCommand) {
  vhca_core_srq* srq = nullptr;
  unsigned wr = 0, sge = 0;
  ASSERT_EQ(vhca_core_create_srq(core_, pdn_, 100, 3, 10, nullptr, &srq, &wr, &sge), 0);
  srqs_.push_back(srq);
  EXPECT_EQ(wr, 128u);
  EXPECT_EQ(sge, 3u);  // 16 + 3 * 16 = 64
  const vhca_cmd_create_srq& in = device_.srqs[Srq(srq).srqn()].in;
  EXPECT_EQ(in.buf.mode, VHCA_BUF_CONTIG);
  EXPECT_EQ(in.buf.npages, 2u);  // 128 * 64 bytes
  EXPECT_EQ(in.pdn, pdn_);
  EXPECT_EQ(in.limit, 10u);
  EXPECT_EQ(in.log_size, 7);
  EXPECT_EQ(in.wqe_shift, 6);
  EXPECT_EQ(in.db_page, 0u);
  EXPECT_EQ(in.dbrec_addr, in.buf.addr + 8192);  // after the WQEs
  vhca_core_srq* bad = nullptr;
  EXPECT_EQ(vhca_core_create_srq(core_, pdn_, 0, 1, 0, nullptr, &bad, &wr, &sge), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_srq(core_, pdn_, 4, 1, 5, nullptr, &bad, &wr, &sge), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_srq(core_, pdn_, device_.max_srq_wr + 1, 1, 0, nullptr, &bad, &wr, &sge),
            -VHCA_EINVAL);
}

TEST_F(SrqTest, PostRingAndComplete) {
  vhca_core_srq* srq = CreateSrq(2);
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  init.srq = srq;
  vhca_core_qp* a = CreateQp(&init);
  vhca_core_qp* b = CreateQp(&init);
  const vhca_cmd_create_qp& in = device_.qps[vhca_core_qp_num(a)].in;
  EXPECT_EQ(in.flags & VHCA_QP_F_HAS_SRQ, VHCA_QP_F_HAS_SRQ);
  EXPECT_EQ(in.srqn, Srq(srq).srqn());
  EXPECT_EQ(in.rq_log_size, 0);
  EXPECT_EQ(init.cap.max_recv_wr, 0u);

  const vhca_core_sge sge{0x9000, 128, 3};
  vhca_core_recv_wr wr{0x51, 1, &sge};
  const size_t doorbells = device_.data_doorbells.size();
  const uint64_t dbrec = device_.srqs[Srq(srq).srqn()].in.dbrec_addr;
  // A chain of three into two free WQEs: two go in, handed over by one
  // store into the doorbell record, no doorbell.
  EXPECT_EQ(PostSrqRecvs(srq, {wr, wr, wr}), -VHCA_ENOMEM);
  EXPECT_EQ(PostRecv(a, wr), -VHCA_EINVAL);  // the QP has no RQ
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
  EXPECT_EQ(device_.RecordProducer(dbrec), 2u);
  WireBytes expected(32);
  expected.Put64(0, 0x51).Put8(8, 1).Put64(16, 0x9000).Put32(24, 128).Put32(28, 3);
  EXPECT_EQ(WireBytes::Of(Srq(srq).rq().Wqe(0), 32), expected.bytes());
  // One receive on each QP frees both WQEs.
  device_.PostCqe(Cq(cq).cqn(), Cqe(vhca_core_qp_num(b), VHCA_CQE_RECV, 0x51, 0));
  device_.PostCqe(Cq(cq).cqn(), Cqe(vhca_core_qp_num(a), VHCA_CQE_RECV, 0x51, 1));
  EXPECT_EQ(Poll(cq).size(), 2u);
  EXPECT_EQ(Srq(srq).rq().consumer(), 2u);
  ASSERT_EQ(PostSrqRecv(srq, wr), 0);
  // In use: refused until its QPs are gone.
  EXPECT_EQ(vhca_core_destroy_srq(srq), -VHCA_EBUSY);
}

TEST_F(SrqTest, Limit) {
  vhca_core_srq* srq = CreateSrq(8, 1, 2);
  unsigned limit = 0;
  ASSERT_EQ(vhca_core_query_srq(srq, &limit), 0);
  EXPECT_EQ(limit, 2u);
  ASSERT_EQ(vhca_core_modify_srq(srq, 5), 0);
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_MODIFY_SRQ);
  EXPECT_EQ(WireBytes::Of(cmd.in.raw, 32),
            WireBytes(32).Put32(0, Srq(srq).srqn()).Put32(4, 5).bytes());
  ASSERT_EQ(vhca_core_query_srq(srq, &limit), 0);
  EXPECT_EQ(limit, 5u);
  EXPECT_EQ(vhca_core_modify_srq(srq, 9), -VHCA_EINVAL);
}

// IB_SRQ_MAX_WR: RESIZE_SRQ names the new ring and record with the SRQ's
// other fields; the WQEs posted after the index the device answers (here
// one, posted "during" the command) are copied to the same indexes of
// the new ring, which the record then announces.  Posting goes on there
// with the counters kept; too small a size is refused before the device.
TEST_F(SrqTest, ResizeKeepsWqesInOrder) {
  device_.dev_caps |= VHCA_DEV_CAP_SRQ_RESIZE;
  RestartAs(device_.version);
  vhca_core_srq* srq = CreateSrq(4, 1, 0);
  const vhca_core_sge sge{0x9000, 64, 3};
  for (uint64_t id = 0; id < 3; id++) ASSERT_EQ(PostSrqRecv(srq, {id, 1, &sge}), 0);
  unsigned granted = 0;
  EXPECT_EQ(vhca_core_resize_srq(srq, 2, &granted), -VHCA_EINVAL);  // 3 posted
  device_.srq_resize_lag = 1;
  ASSERT_EQ(vhca_core_resize_srq(srq, 16, &granted), 0);
  EXPECT_EQ(granted, 16u);
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_RESIZE_SRQ);
  const vhca_cmd_create_srq& in = device_.srqs[Srq(srq).srqn()].in;
  EXPECT_EQ(in.log_size, 4);
  EXPECT_EQ(in.pdn, pdn_);
  EXPECT_EQ(in.limit, 0u);
  EXPECT_EQ(in.dbrec_addr, in.buf.addr + (16u << in.wqe_shift));
  EXPECT_EQ(device_.RecordProducer(in.dbrec_addr), 3u);
  // WQE 2 copied by the driver; 0 and 1 were the device's to move.
  EXPECT_EQ(WireBytes::Of(Srq(srq).rq().Wqe(2), 8), WireBytes(8).Put64(0, 2).bytes());
  for (uint64_t id = 3; id < 16; id++) ASSERT_EQ(PostSrqRecv(srq, {id, 1, &sge}), 0);
  EXPECT_EQ(PostSrqRecv(srq, {16, 1, &sge}), -VHCA_ENOMEM);
  EXPECT_EQ(device_.RecordProducer(in.dbrec_addr), 16u);
  EXPECT_EQ(WireBytes::Of(Srq(srq).rq().Wqe(15), 8), WireBytes(8).Put64(0, 15).bytes());
}

TEST_F(SrqTest, ResizeNeedsTheDeviceCapability) {
  vhca_core_srq* srq = CreateSrq(4, 1, 0);
  unsigned granted = 0;
  EXPECT_EQ(vhca_core_resize_srq(srq, 16, &granted), -VHCA_EOPNOTSUPP);
}

TEST_F(SrqTest, AllocationFailureAtEveryStepLeaksNothing) {
  const int64_t before = kernel_.outstanding();
  for (uint64_t n = 1;; n++) {
    vhca_core_srq* srq = nullptr;
    unsigned wr = 0, sge = 0;
    kernel_.FailAllocation(n);
    const int err = vhca_core_create_srq(core_, pdn_, 16, 2, 0, nullptr, &srq, &wr, &sge);
    kernel_.FailAllocation(0);
    if (err == 0) {
      EXPECT_EQ(vhca_core_destroy_srq(srq), 0);
      break;
    }
    EXPECT_EQ(err, -VHCA_ENOMEM) << "step " << n;
    EXPECT_EQ(kernel_.outstanding(), before) << "step " << n;
  }
  EXPECT_TRUE(device_.srqs.empty());
}

}  // namespace
