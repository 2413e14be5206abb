// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Queue pairs: CREATE_QP input and granted capabilities, limits, posting
// into the rings, 64-bit doorbells, ring full, unsignaled WQEs freed by a
// later CQE's wqe_index (also across the 16-bit wrap), MODIFY_QP
// translation byte for byte, QUERY_QP, RESET, multicast, failures.
#include "verbs_test.h"
#include "wire_bytes.h"

namespace {

using QpTest = VerbsTest;

TEST_F(QpTest, CreateCommandAndGrantedCaps) {
  vhca_core_cq* scq = CreateCq();
  vhca_core_cq* rcq = CreateCq();
  vhca_core_qp_init init = QpInit(scq);
  init.recv_cq = rcq;
  init.cap = {10, 5, 3, 2, 100};
  init.sq_sig_all = 1;
  vhca_core_qp* qp = CreateQp(&init);
  ASSERT_NE(qp, nullptr);
  // Send WQE: 32 + 48 + max(3 * 16, 100) = 180 -> 256 bytes; receive
  // WQE: 16 + 2 * 16 = 48 -> 64 bytes.
  EXPECT_EQ(init.cap.max_send_wr, 16u);
  EXPECT_EQ(init.cap.max_recv_wr, 8u);
  EXPECT_EQ(init.cap.max_send_sge, 11u);  // (256 - 80) / 16
  EXPECT_EQ(init.cap.max_recv_sge, 3u);   // (64 - 16) / 16
  EXPECT_EQ(init.cap.max_inline_data, 176u);
  const uint32_t qpn = vhca_core_qp_num(qp);
  EXPECT_GE(qpn, 2u);
  const vhca_cmd_create_qp& in = device_.qps[qpn].in;
  EXPECT_EQ(in.type, VHCA_QPT_RC);
  EXPECT_EQ(in.port, 0);
  EXPECT_EQ(in.sq_log_size, 4);
  EXPECT_EQ(in.rq_log_size, 3);
  EXPECT_EQ(in.sq_wqe_shift, 8);
  EXPECT_EQ(in.rq_wqe_shift, 6);
  EXPECT_EQ(in.flags, VHCA_QP_F_SQ_SIG_ALL);
  EXPECT_EQ(in.pdn, pdn_);
  EXPECT_EQ(in.send_cqn, Cq(scq).cqn());
  EXPECT_EQ(in.recv_cqn, Cq(rcq).cqn());
  EXPECT_EQ(in.srqn, 0u);
  EXPECT_EQ(in.db_page, 0u);
  EXPECT_EQ(in.max_inline, 176u);
  EXPECT_EQ(in.sq_buf.mode, VHCA_BUF_CONTIG);
  EXPECT_EQ(in.sq_buf.npages, 1u);  // 16 * 256 bytes
  EXPECT_EQ(in.sq_buf.addr, reinterpret_cast<uintptr_t>(Qp(qp).sq().Wqe(0)));
  EXPECT_EQ(in.rq_buf.addr, reinterpret_cast<uintptr_t>(Qp(qp).rq().Wqe(0)));
  EXPECT_EQ(in.rq_buf.npages, 1u);
  // The receive doorbell record after the 8 x 64 bytes of receive WQEs.
  EXPECT_EQ(in.rq_dbrec_addr, in.rq_buf.addr + 512);
  EXPECT_EQ(device_.executed.back().in_len, sizeof(vhca_cmd_create_qp));
}

TEST_F(QpTest, SpecialQpsNameTheirPort) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq, VHCA_QPT_GSI);
  init.port = 2;
  vhca_core_qp* qp = CreateQp(&init);
  ASSERT_NE(qp, nullptr);
  // The device handle names the port; IBA's QPN is 1.
  const uint32_t handle = VHCA_SPECIAL_QP_HANDLE(2, 1);
  EXPECT_EQ(handle, 0x800001u);
  EXPECT_EQ(vhca_core_qp_num(qp), 1u);
  EXPECT_EQ(Qp(qp).handle(), handle);
  ASSERT_TRUE(device_.qps.count(handle));
  EXPECT_EQ(device_.qps[handle].in.port, 2);
  EXPECT_EQ(device_.qps[handle].in.type, VHCA_QPT_GSI);
  ASSERT_EQ(PostSend(qp, SendWr(4)), 0);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{1} << 32) | handle);
  device_.PostCqe(Cq(cq).cqn(), Cqe(handle, VHCA_CQE_RECV, 5));
  auto wc = Poll(cq);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].qp_num, 1u);
  EXPECT_EQ(wc[0].qp_context, &qp_context_);
  // Port 1's GSI QP is another QP with the same IBA QPN.
  vhca_core_qp_init port1 = QpInit(cq, VHCA_QPT_GSI);
  port1.port = 1;
  vhca_core_qp* qp1 = CreateQp(&port1);
  EXPECT_EQ(Qp(qp1).handle(), 1u);
  EXPECT_EQ(vhca_core_qp_num(qp1), 1u);
  vhca_core_qp* bad = nullptr;
  init.port = 3;  // the device has 2
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &bad), -VHCA_EINVAL);
  init.port = 0;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &bad), -VHCA_EINVAL);
}

TEST_F(QpTest, Limits) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp* qp = nullptr;
  vhca_core_qp_init init = QpInit(cq);
  init.cap.max_send_wr = device_.max_qp_wr + 1;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  init = QpInit(cq);
  init.cap.max_recv_sge = device_.max_sge + 1;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  init = QpInit(cq);
  init.cap.max_inline_data = VHCA_MAX_INLINE + 1;  // beyond the device's limit
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  init.cap.max_inline_data = VHCA_MAX_INLINE;
  ASSERT_EQ(vhca_core_create_qp(core_, &init, &qp), 0);
  qps_.push_back(qp);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.sq_wqe_shift, VHCA_MAX_WQE_SHIFT);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.max_inline, uint32_t{VHCA_MAX_INLINE});
  EXPECT_EQ(init.cap.max_inline_data, uint32_t{VHCA_MAX_INLINE});
  // A 1 KiB send WQE has room for 944 inline bytes, but the device takes
  // 512 at most: the grant says 512, not the room (max_sge QPs).
  init = QpInit(cq);
  init.cap.max_send_sge = device_.max_sge;
  ASSERT_EQ(vhca_core_create_qp(core_, &init, &qp), 0);
  qps_.push_back(qp);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.sq_wqe_shift, VHCA_MAX_WQE_SHIFT);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.max_inline, uint32_t{VHCA_MAX_INLINE});
  EXPECT_EQ(init.cap.max_inline_data, uint32_t{VHCA_MAX_INLINE});
  init = QpInit(cq);
  init.type = 0;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  init = QpInit(cq);
  init.send_cq = nullptr;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  // Zero-sized queues get one WQE (the device has no "no queue").
  init = QpInit(cq);
  init.cap = {0, 0, 0, 0, 0};
  ASSERT_EQ(vhca_core_create_qp(core_, &init, &qp), 0);
  qps_.push_back(qp);
  EXPECT_EQ(init.cap.max_send_wr, 1u);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.sq_wqe_shift, 7);  // 80 -> 128
}

TEST_F(QpTest, PostSendWritesTheRingAndRingsTheDoorbell) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const size_t doorbells = device_.data_doorbells.size();
  ASSERT_EQ(PostSends(qp, {SendWr(0x100), SendWr(0x101), SendWr(0x102)}), 0);
  ASSERT_EQ(device_.data_doorbells.size(), doorbells + 1);
  EXPECT_EQ(LastDoorbell().offset, uint32_t{VHCA_DB_SQ});
  EXPECT_EQ(LastDoorbell().value, (uint64_t{3} << 32) | qpn);
  // Each WQE in its slot, exactly as the builder makes it.
  for (uint32_t i = 0; i < 3; i++) {
    const uint8_t* wqe = Qp(qp).sq().Wqe(i);
    std::vector<uint8_t> expected(Qp(qp).send_layout().stride);
    vhca_core_send_wr wr = SendWr(0x100 + i);
    ASSERT_EQ(vhca::BuildSendWqe(Qp(qp).send_layout(), wr, expected.data()).error(), 0);
    EXPECT_EQ(WireBytes::Of(wqe, expected.size()), expected);
    EXPECT_EQ(wqe[0], 0x00 + 0x100 % 256 + i);  // wr_id low byte
  }
}

// A chain as ib_post_send hands it over: a linked list the shim converts.
struct ChainWr {
  vhca_core_send_wr wr;
  int convert_error;
  const ChainWr* next;
};

int ConvertChainWr(void* ctx, const void* item, vhca_core_send_wr* wr,
                   const void** next) {
  const auto* c = static_cast<const ChainWr*>(item);
  ++*static_cast<int*>(ctx);
  *wr = c->wr;
  *next = c->next;
  return c->convert_error;
}

TEST_F(QpTest, PostSendChainTakesOneDoorbellAndStopsAtTheBadWr) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  ChainWr wrs[4] = {{SendWr(1), 0, &wrs[1]}, {SendWr(2), 0, &wrs[2]},
                    {SendWr(3), -VHCA_EOPNOTSUPP, &wrs[3]}, {SendWr(4), 0, nullptr}};
  const void* item = &wrs[0];
  int converted = 0;
  const size_t doorbells = device_.data_doorbells.size();
  EXPECT_EQ(vhca_core_post_send_chain(qp, &item, ConvertChainWr, &converted),
            -VHCA_EOPNOTSUPP);
  EXPECT_EQ(item, &wrs[2]);  // the ULP's bad_wr
  EXPECT_EQ(converted, 3);
  EXPECT_EQ(Qp(qp).sq().producer(), 2u);
  ASSERT_EQ(device_.data_doorbells.size(), doorbells + 1);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{2} << 32) | qpn);
  // The rest of the chain: one more doorbell, item at the end.
  item = &wrs[3];
  EXPECT_EQ(vhca_core_post_send_chain(qp, &item, ConvertChainWr, &converted), 0);
  EXPECT_EQ(item, nullptr);
  ASSERT_EQ(device_.data_doorbells.size(), doorbells + 2);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{3} << 32) | qpn);
  // A chain whose first WR fails rings nothing.
  item = &wrs[2];
  EXPECT_EQ(vhca_core_post_send_chain(qp, &item, ConvertChainWr, &converted),
            -VHCA_EOPNOTSUPP);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells + 2);
}

TEST_F(QpTest, FullSendQueueIsNoMemoryAndWqeIndexFreesUnsignaled) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  init.cap.max_send_wr = 4;
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  std::vector<vhca_core_send_wr> wrs;
  for (int i = 0; i < 4; i++)
    wrs.push_back(SendWr(i, i == 2 ? VHCA_CORE_SEND_SIGNALED : 0));
  const vhca_core_send_wr more = SendWr(9);
  wrs.push_back(more);
  size_t failed = 0;
  EXPECT_EQ(PostSends(qp, wrs, &failed), -VHCA_ENOMEM);
  EXPECT_EQ(failed, 4u);  // bad_wr: the fifth
  EXPECT_EQ(Qp(qp).sq().producer(), 4u);  // the failed WR changed nothing
  // WQE 2 completes: 0 and 1 (unsignaled) are free too.
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 2, 2));
  ASSERT_EQ(Poll(cq).size(), 1u);
  EXPECT_EQ(Qp(qp).sq().consumer(), 3u);
  for (int i = 0; i < 3; i++) EXPECT_EQ(PostSend(qp, SendWr(10 + i)), 0) << i;
  EXPECT_EQ(PostSend(qp, more), -VHCA_ENOMEM);
  // A CQE naming a WQE never posted does not free anything.
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 0, 100));
  ASSERT_EQ(Poll(cq).size(), 1u);
  EXPECT_EQ(Qp(qp).sq().consumer(), 3u);
}

TEST_F(QpTest, WqeIndexAcrossThe16BitWrap) {
  vhca_core_cq* cq = CreateCq(3);
  vhca_core_qp_init init = QpInit(cq);
  init.cap.max_send_wr = 16;
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  uint32_t posted = 0;
  for (int round = 0; round < 5000; round++) {  // 80000 WQEs > 2^16
    for (int i = 0; i < 16; i++) {
      ASSERT_EQ(PostSend(qp, SendWr(posted, 0)), 0) << "round " << round;
      posted++;
    }
    device_.PostCqe(Cq(cq).cqn(),
                    Cqe(qpn, VHCA_CQE_SEND, posted - 1, static_cast<uint16_t>(posted - 1)));
    ASSERT_EQ(Poll(cq).size(), 1u);
    ASSERT_EQ(Qp(qp).sq().consumer(), posted);
  }
}

TEST_F(QpTest, ReceiveQueue) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  init.cap.max_recv_wr = 2;
  init.cap.max_recv_sge = 1;
  vhca_core_qp* qp = CreateQp(&init);
  EXPECT_EQ(init.cap.max_recv_sge, 1u);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const vhca_core_sge sge{0x8000, 256, 5};
  vhca_core_recv_wr wr{0xaa, 1, &sge};
  const uint64_t dbrec = device_.qps[qpn].in.rq_dbrec_addr;
  const size_t doorbells = device_.data_doorbells.size();
  EXPECT_EQ(PostRecvs(qp, {wr, wr, wr}), -VHCA_ENOMEM);  // two fit
  // Handed over by the record alone, no MMIO access.
  EXPECT_EQ(device_.RecordProducer(dbrec), 2u);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
  WireBytes expected(32);  // 16 + 1 SGE -> 32-byte stride
  expected.Put64(0, 0xaa).Put8(8, 1).Put64(16, 0x8000).Put32(24, 256).Put32(28, 5);
  EXPECT_EQ(WireBytes::Of(Qp(qp).rq().Wqe(1), 32), expected.bytes());
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_RECV, 0xaa, 0));
  ASSERT_EQ(Poll(cq).size(), 1u);
  wr.num_sge = 2;  // granted 1 SGE in 32 bytes
  EXPECT_EQ(PostRecv(qp, wr), -VHCA_EINVAL);
  wr.num_sge = 1;
  EXPECT_EQ(PostRecv(qp, wr), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 3u);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
}

// In ERR the device flushes receives when a doorbell tells it (ib_drain_rq
// waits for that flush), so posting there rings one; RESET zeroes the
// record with the indexes, and from then on the record suffices again.
TEST_F(QpTest, ReceivesPostedInErrorRingTheDoorbell) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const uint64_t dbrec = device_.qps[qpn].in.rq_dbrec_addr;
  const vhca_core_sge sge{0x8000, 256, 5};
  const vhca_core_recv_wr wr{0xaa, 1, &sge};
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_ERR;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE), 0);
  ASSERT_EQ(PostRecv(qp, wr), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 1u);
  EXPECT_EQ(LastDoorbell().offset, uint32_t{VHCA_DB_RQ});
  EXPECT_EQ(LastDoorbell().value, (uint64_t{1} << 32) | qpn);
  attr.qp_state = VHCA_QPS_RESET;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 0u);
  const size_t doorbells = device_.data_doorbells.size();
  ASSERT_EQ(PostRecv(qp, wr), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 1u);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
}

// A device of ABI minor 0 does not read records: every post rings.
TEST_F(QpTest, DeviceWithoutRecordsGetsReceiveDoorbells) {
  RestartAs(VHCA_ABI_MAJOR << 16);
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const vhca_core_sge sge{0x8000, 256, 5};
  const vhca_core_recv_wr wr{0xaa, 1, &sge};
  ASSERT_EQ(PostRecvs(qp, {wr, wr}), 0);
  EXPECT_EQ(LastDoorbell().offset, uint32_t{VHCA_DB_RQ});
  EXPECT_EQ(LastDoorbell().value, (uint64_t{2} << 32) | qpn);
}

// A device that polls send records (VHCA_DEV_CAP_SQ_POLL): the kernel QP
// gets one; a post stores the producer index there and rings the SQ
// doorbell only while the record says the device sleeps.
TEST_F(QpTest, SendRecordRingsOnlyWhileTheDeviceSleeps) {
  device_.dev_caps |= VHCA_DEV_CAP_SQ_POLL;
  RestartAs((VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR);
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const uint64_t dbrec = device_.qps[qpn].in.sq_dbrec_addr;
  ASSERT_NE(dbrec, 0u);
  ASSERT_EQ(PostSend(qp, SendWr(1)), 0);  // flags 0: asleep
  EXPECT_EQ(device_.RecordProducer(dbrec), 1u);
  EXPECT_EQ(LastDoorbell().offset, uint32_t{VHCA_DB_SQ});
  EXPECT_EQ(LastDoorbell().value, (uint64_t{1} << 32) | qpn);
  device_.SetRecordFlags(dbrec, VHCA_WQ_DBREC_F_POLLED);
  const size_t doorbells = device_.data_doorbells.size();
  ASSERT_EQ(PostSends(qp, {SendWr(2), SendWr(3)}), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 3u);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
  device_.SetRecordFlags(dbrec, 0);
  ASSERT_EQ(PostSend(qp, SendWr(4)), 0);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{4} << 32) | qpn);
  // RESET zeroes the producer index of the record, as a receive record's.
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_RESET;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE), 0);
  EXPECT_EQ(device_.RecordProducer(dbrec), 0u);
}

// Without the capability (sq-poll=off, or an older device) no send record:
// every post rings, as before.
TEST_F(QpTest, NoSendRecordWithoutSqPoll) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  EXPECT_EQ(device_.qps[qpn].in.sq_dbrec_addr, 0u);
  ASSERT_EQ(PostSend(qp, SendWr(1)), 0);
  EXPECT_EQ(LastDoorbell().value, (uint64_t{1} << 32) | qpn);
}

// vhca_qp_context offsets (vhca_hw_verbs.h field order).
enum : size_t {
  kMask = 0, kState = 4, kCurState = 5, kMtu = 6, kPort = 7, kQkey = 8, kRqPsn = 12,
  kSqPsn = 16, kDestQpn = 20, kAccess = 24, kPkeyIndex = 28, kMaxRdAtomic = 30,
  kMaxDestRdAtomic = 31, kMinRnrTimer = 32, kTimeout = 33, kRetryCnt = 34,
  kRnrRetry = 35, kSqDraining = 36, kEnSqdAsync = 37, kAv = 40,
};

vhca_core_qp_attr FullAttr() {
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_RTS;
  attr.cur_qp_state = VHCA_QPS_RTR;
  attr.path_mtu = 5;
  attr.qkey = 0x11111111;
  attr.rq_psn = 0xff123456;  // 24 bits kept
  attr.sq_psn = 0x00654321;
  attr.dest_qp_num = 0xff000042;
  attr.qp_access_flags = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE |
                         VHCA_ACCESS_REMOTE_READ | VHCA_ACCESS_REMOTE_ATOMIC;
  attr.pkey_index = 0x0102;
  attr.port_num = 2;
  attr.max_rd_atomic = 4;
  attr.max_dest_rd_atomic = 8;
  attr.min_rnr_timer = 12;
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 6;
  attr.en_sqd_async_notify = 1;
  attr.ah_attr.dlid = 0x0203;
  attr.ah_attr.sl = 1;
  attr.ah_attr.port_num = 2;
  return attr;
}

TEST_F(QpTest, ModifyTranslatesEveryAttribute) {
  auto context = vhca::QpAttrToContext(FullAttr(), vhca::kQpAttrMask);
  ASSERT_TRUE(context.ok());
  WireBytes expected(128);
  expected.Put32(kMask, vhca::kQpAttrMask).Put8(kState, 3).Put8(kCurState, 2)
      .Put8(kMtu, 5).Put8(kPort, 2).Put32(kQkey, 0x11111111).Put32(kRqPsn, 0x123456)
      .Put32(kSqPsn, 0x654321).Put32(kDestQpn, 0x42)
      .Put32(kAccess, VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ |
                          VHCA_ACCESS_REMOTE_ATOMIC)
      .Put16(kPkeyIndex, 0x0102).Put8(kMaxRdAtomic, 4).Put8(kMaxDestRdAtomic, 8)
      .Put8(kMinRnrTimer, 12).Put8(kTimeout, 14).Put8(kRetryCnt, 7).Put8(kRnrRetry, 6)
      .Put8(kEnSqdAsync, 1).Put16(kAv + 0, 0x0203).Put8(kAv + 2, 1).Put8(kAv + 5, 2);
  EXPECT_EQ(WireBytes::Of(&context.value(), 128), expected.bytes());
  EXPECT_EQ(vhca::kQpAttrMask, 0x13bfffu);  // IB_QP_* bits 0..13, 15..17, 20
}

TEST_F(QpTest, ModifySendsOnlyTheMaskedFields) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const vhca_core_qp_attr attr = FullAttr();
  // RESET -> INIT for RC: state, pkey index, port, access (IBA table 91).
  const unsigned mask = VHCA_QP_ATTR_STATE | VHCA_QP_ATTR_PKEY_INDEX |
                        VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_ACCESS_FLAGS;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, mask), 0);
  const auto& sent = device_.qps[vhca_core_qp_num(qp)].last_modify;
  WireBytes expected(128);
  expected.Put32(kMask, mask).Put8(kState, 3).Put8(kPort, 2).Put16(kPkeyIndex, 0x0102)
      .Put32(kAccess, VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ |
                          VHCA_ACCESS_REMOTE_ATOMIC);
  EXPECT_EQ(WireBytes::Of(&sent, 128), expected.bytes());
  EXPECT_EQ(device_.executed.back().in_len, 128u);
  EXPECT_EQ(device_.executed.back().in.handle.handle, vhca_core_qp_num(qp));
}

TEST_F(QpTest, UnsupportedAttributesAreRefused) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const vhca_core_qp_attr attr = FullAttr();
  const size_t executed = device_.executed.size();
  for (unsigned bit : {1u << 14, 1u << 18, 1u << 19, 1u << 21, 1u << 25})
    EXPECT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE | bit), -VHCA_EOPNOTSUPP);
  EXPECT_EQ(device_.executed.size(), executed);
}

TEST_F(QpTest, QueryReturnsTheContext) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq, VHCA_QPT_UD);
  vhca_core_qp* qp = CreateQp(&init);
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_INIT;
  attr.qkey = 0x80010000;
  attr.port_num = 1;
  attr.pkey_index = 3;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE | VHCA_QP_ATTR_QKEY |
                                             VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_PKEY_INDEX), 0);
  vhca_core_qp_attr out{};
  ASSERT_EQ(vhca_core_query_qp(qp, &out), 0);
  EXPECT_EQ(out.qp_state, unsigned{VHCA_QPS_INIT});
  EXPECT_EQ(out.qkey, 0x80010000u);
  EXPECT_EQ(out.port_num, 1);
  EXPECT_EQ(out.pkey_index, 3);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_QUERY_QP);
  EXPECT_EQ(device_.executed.back().out_len, 128u);
}

TEST_F(QpTest, ResetEmptiesTheQueues) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(PostSend(qp, SendWr(i)), 0);
  }
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 0, 0, VHCA_WC_WR_FLUSH_ERR));
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_RESET;
  ASSERT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE), 0);
  EXPECT_EQ(Qp(qp).sq().producer(), 0u);
  EXPECT_EQ(Qp(qp).sq().consumer(), 0u);
  EXPECT_TRUE(Poll(cq).empty());  // its completions went with it
}

TEST_F(QpTest, Multicast) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq, VHCA_QPT_UD);
  vhca_core_qp* qp = CreateQp(&init);
  const uint32_t qpn = vhca_core_qp_num(qp);
  const unsigned char mgid[16] = {0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  ASSERT_EQ(vhca_core_attach_mcast(qp, 0xc001, mgid), 0);
  const vhca_cmd& cmd = device_.executed.back();
  EXPECT_EQ(cmd.opcode, VHCA_CMD_ATTACH_MCAST);
  WireBytes expected(32);
  expected.Put32(0, qpn).Put16(4, 0xc001).PutRaw(8, mgid, 16);
  EXPECT_EQ(WireBytes::Of(cmd.in.raw, 32), expected.bytes());
  EXPECT_TRUE(device_.mcast.count(FakeDevice::McastKey(qpn, 0xc001)));
  ASSERT_EQ(vhca_core_detach_mcast(qp, 0xc001, mgid), 0);
  EXPECT_TRUE(device_.mcast.empty());
  EXPECT_EQ(vhca_core_detach_mcast(qp, 0xc001, mgid), -VHCA_EINVAL);
}

TEST_F(QpTest, DestroyFailureWithADeviceAnswerKeepsTheQp) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  device_.forced_status.set(VHCA_CMD_DESTROY_QP, VHCA_CMD_BUSY);
  EXPECT_EQ(vhca_core_destroy_qp(qp), -VHCA_EBUSY);
  device_.forced_status.clear();
  EXPECT_EQ(vhca_core_destroy_cq(cq), -VHCA_EBUSY);  // still attached
  // TearDown destroys both.
}

TEST_F(QpTest, DestroyTimeoutRetiresTheQp) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  vhca_core_set_cmd_timeout(core_, 1);
  device_.hang = true;
  // The device is gone: the QP counts as destroyed, its rings wait for
  // the reset.
  EXPECT_EQ(vhca_core_destroy_qp(qp), 0);
  qps_.clear();
  EXPECT_TRUE(kernel_.LogContains("memory kept until reset"));
  EXPECT_FALSE(Cq(cq).has_qps());
  EXPECT_EQ(vhca_core_destroy_cq(cq), 0);  // retired as well
  cqs_.clear();
  // The reset frees both (TearDown checks nothing is left).
  StopAndDestroy();
}

TEST_F(QpTest, AllocationFailureAtEveryStepLeaksNothing) {
  vhca_core_cq* cq = CreateCq();
  const int64_t before = kernel_.outstanding();
  for (uint64_t n = 1;; n++) {
    vhca_core_qp_init init = QpInit(cq);
    vhca_core_qp* qp = nullptr;
    kernel_.FailAllocation(n);
    const int err = vhca_core_create_qp(core_, &init, &qp);
    kernel_.FailAllocation(0);
    if (err == 0) {
      EXPECT_EQ(vhca_core_destroy_qp(qp), 0);
      break;
    }
    EXPECT_EQ(err, -VHCA_ENOMEM) << "step " << n;
    EXPECT_EQ(kernel_.outstanding(), before) << "step " << n;
    EXPECT_FALSE(Cq(cq).has_qps());
  }
  EXPECT_TRUE(device_.qps.empty());
}

}  // namespace
