// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// User verbs (vhca_core_user.h): doorbell pages, CQs/QPs/SRQs whose rings
// are pinned user pages (DIRECT page lists, the CQ doorbell record inside
// the buffer, the context's db_page), the geometry check against
// ComputeQpLayout, and the kernel-only entry points refusing user objects.
#include <vector>

#include "doorbell_pages.h"
#include "vhca_core_user.h"
#include "verbs_test.h"

namespace {

class UserVerbsTest : public VerbsTest {
 protected:
  void TearDown() override {
    // The "user" pages go first (the leak check is in VerbsTest's
    // TearDown); destroying the objects does not touch them.
    for (auto& page : pages_) vhca_kapi_dma_free(&kdev_, &page);
    VerbsTest::TearDown();
  }

  // npages "user" pages (DMA pages of the fake kernel) in a ubuf.
  vhca_core_ubuf* Ubuf(unsigned npages) {
    vhca_core_ubuf* buf = nullptr;
    EXPECT_EQ(vhca_core_ubuf_create(core_, npages, &buf), 0);
    for (unsigned i = 0; i < npages; i++) {
      vhca_kapi_dma_buf page{};
      EXPECT_EQ(vhca_kapi_dma_alloc(&kdev_, 4096, &page), 0);
      pages_.push_back(page);
      vhca_core_ubuf_set_page(buf, i, page.dma);
    }
    return buf;
  }
  uint64_t PageDma(size_t from_end) const { return pages_[pages_.size() - from_end].dma; }

  // A user CQ of 2^6 CQEs (one page) with its doorbell record on page 2.
  vhca_core_cq* UserCq(unsigned db_page = 3) {
    vhca_core_cq* cq = nullptr;
    unsigned cqn = 0;
    EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 4096, 0, db_page,
                                       &cq_context_, &cq, &cqn), 0);
    if (cq) {
      cqs_.push_back(cq);
      EXPECT_EQ(cqn, Cq(cq).cqn());
    }
    return cq;
  }

  // The rings ComputeQpLayout gives QpInit's capabilities (16 WRs, 2 SGEs):
  // SQ 16 x 128 bytes, RQ 16 x 64 bytes.
  vhca_core_user_qp_rings Rings(bool with_rq = true) {
    vhca_core_user_qp_rings rings{};
    rings.sq = Ubuf(1);
    rings.rq = with_rq ? Ubuf(1) : nullptr;
    rings.sq_log_size = 4;
    rings.sq_wqe_shift = 7;
    rings.rq_log_size = with_rq ? 4 : 0;
    rings.rq_wqe_shift = 6;
    rings.rq_dbrec_offset = 1024;  // after 16 x 64 bytes
    rings.db_page = 3;
    return rings;
  }

  // 100 WRs of 3 SGEs: the core's geometry is 128 x 64 bytes (two pages),
  // the doorbell record right after them, on doorbell page 4.
  vhca_core_user_srq_init SrqInit(unsigned npages) {
    vhca_core_user_srq_init init{};
    init.pdn = pdn_;
    init.max_wr = 100;
    init.max_sge = 3;
    init.limit = 10;
    init.buf = Ubuf(npages);
    init.log_size = 7;
    init.wqe_shift = 6;
    init.dbrec_offset = 8192;
    init.db_page = 4;
    return init;
  }

  std::vector<vhca_kapi_dma_buf> pages_;
};

TEST(DoorbellPagesTest, AllocatesUserPagesOnly) {
  vhca::DoorbellPages pages;
  pages.Init(4);
  EXPECT_EQ(pages.Alloc().value(), 1u);
  EXPECT_EQ(pages.Alloc().value(), 2u);
  EXPECT_EQ(pages.Alloc().value(), 3u);
  EXPECT_EQ(pages.Alloc().error(), -VHCA_ENOSPC);
  EXPECT_EQ(pages.in_use(), 3u);
  pages.Free(2);
  pages.Free(0);   // the kernel's page: ignored
  pages.Free(99);  // not a page: ignored
  EXPECT_EQ(pages.Alloc().value(), 2u);
  pages.Init(vhca::DoorbellPages::kMaxPages + 100);
  EXPECT_EQ(pages.count(), vhca::DoorbellPages::kMaxPages);
}

TEST_F(UserVerbsTest, DoorbellPagesOfTheDevice) {
  unsigned page = 0;
  std::vector<unsigned> got;
  while (vhca_core_alloc_db_page(core_, &page) == 0) got.push_back(page);
  EXPECT_EQ(got.size(), 15u);  // the fake device has 16 pages
  EXPECT_EQ(got.front(), 1u);
  for (unsigned p : got) vhca_core_free_db_page(core_, p);
  EXPECT_EQ(vhca_core_alloc_db_page(core_, &page), 0);
  EXPECT_EQ(page, 1u);
}

TEST_F(UserVerbsTest, UserCqCommand) {
  vhca_core_cq* cq = UserCq(5);
  ASSERT_NE(cq, nullptr);
  const vhca_cmd_create_cq& in = device_.cqs[Cq(cq).cqn()].in;
  EXPECT_EQ(in.buf.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(in.buf.npages, 1u);
  EXPECT_EQ(in.buf.page_shift, 12);
  EXPECT_EQ(DevicePages(device_, in.buf), std::vector<uint64_t>{PageDma(2)});
  EXPECT_EQ(in.dbrec_addr, PageDma(1));  // byte 4096: page 2
  EXPECT_EQ(in.db_page, 5u);
  EXPECT_EQ(in.log_size, 6);
  EXPECT_TRUE(Cq(cq).user());
  // The provider polls and arms it.
  EXPECT_TRUE(Poll(cq).empty());
  const size_t doorbells = device_.data_doorbells.size();
  EXPECT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
  unsigned actual = 0;
  EXPECT_EQ(vhca_core_resize_cq(cq, 100, &actual), -VHCA_EOPNOTSUPP);
}

// ibv_resize_cq: the provider's new ring (2^7 CQEs on 2 pages, its
// record on page 3) replaces the old; the CQEs it had not consumed (per
// the old record) move to the start of the new ring.
TEST_F(UserVerbsTest, UserCqResize) {
  vhca_core_cq* cq = UserCq(5);
  ASSERT_NE(cq, nullptr);
  const uint32_t cqn = Cq(cq).cqn();
  for (int i = 0; i < 5; i++) device_.PostCqe(cqn, Cqe(7, VHCA_CQE_SEND, i));
  auto* old_dbrec = static_cast<vhca_cq_dbrec*>(pages_[1].cpu);
  old_dbrec->consumer_index = 2;  // the provider polled 2
  const int64_t before = kernel_.outstanding();
  vhca_core_ubuf* bigger = Ubuf(3);
  ASSERT_EQ(vhca_core_resize_user_cq(cq, bigger, 7, 8192), 0);
  EXPECT_EQ(Cq(cq).capacity(), 127u);
  // The 3 new "user" pages; the old page list went as the new one came.
  EXPECT_EQ(kernel_.outstanding(), before + 3);
  const vhca_cmd_create_cq& in = device_.cqs[cqn].in;
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_RESIZE_CQ);
  EXPECT_EQ(in.log_size, 7);
  EXPECT_EQ(in.db_page, 5u);  // the device refuses another page
  EXPECT_EQ(DevicePages(device_, in.buf), (std::vector<uint64_t>{PageDma(3), PageDma(2)}));
  EXPECT_EQ(in.dbrec_addr, PageDma(1));
  auto* ring = static_cast<const vhca_cqe*>(pages_[pages_.size() - 3].cpu);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(ring[i].wr_id, uint64_t(i + 2));
    EXPECT_EQ(ring[i].owner & VHCA_EQE_OWNER_BIT, vhca_eqe_owner(i, 7));
  }
  // Refused before any command: a size out of range, the record inside
  // the ring, a ring longer than the buffer.
  const size_t resizes = CountExecuted(VHCA_CMD_RESIZE_CQ);
  EXPECT_EQ(vhca_core_resize_user_cq(cq, Ubuf(3), 17, 8192), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_resize_user_cq(cq, Ubuf(3), 7, 4096), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_resize_user_cq(cq, Ubuf(1), 7, 8192), -VHCA_EINVAL);
  EXPECT_EQ(CountExecuted(VHCA_CMD_RESIZE_CQ), resizes);
  // Fewer entries than the 3 waiting: the device's BAD_PARAM, CQ unchanged.
  device_.PostCqe(cqn, Cqe(7, VHCA_CQE_SEND, 9));
  device_.PostCqe(cqn, Cqe(7, VHCA_CQE_SEND, 10));
  EXPECT_EQ(vhca_core_resize_user_cq(cq, Ubuf(2), 2, 4096), -VHCA_EINVAL);
  EXPECT_EQ(Cq(cq).capacity(), 127u);
  EXPECT_EQ(device_.cqs[cqn].in.log_size, 7);
  // A kernel CQ is resized with vhca_core_resize_cq, a user CQ only so.
  unsigned actual = 0;
  EXPECT_EQ(vhca_core_resize_cq(cq, 100, &actual), -VHCA_EOPNOTSUPP);
  vhca_core_cq* kcq = CreateCq(7);
  EXPECT_EQ(vhca_core_resize_user_cq(kcq, Ubuf(3), 7, 8192), -VHCA_EINVAL);
}

TEST_F(UserVerbsTest, UserCqRefusals) {
  vhca_core_cq* cq = nullptr;
  unsigned cqn = 0;
  // The record inside the ring, outside the buffer, misaligned; no page.
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 64, 0, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 8192, 0, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 4100, 0, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 4096, 0, 0, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  // A ring longer than the buffer; a bad size; a bad vector.
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 7, 8184, 0, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 0, 4096, 0, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_create_user_cq(core_, Ubuf(2), 6, 4096, 9, 1, nullptr, &cq, &cqn),
            -VHCA_EINVAL);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_CQ), 0u);  // all refused before
}

TEST_F(UserVerbsTest, UserQpCommandAndGeometry) {
  vhca_core_cq* cq = UserCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_user_qp_rings rings = Rings();
  vhca_core_qp* qp = nullptr;
  ASSERT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), 0);
  qps_.push_back(qp);
  const vhca_cmd_create_qp& in = device_.qps[vhca_core_qp_num(qp)].in;
  EXPECT_EQ(in.db_page, 3u);
  EXPECT_EQ(in.sq_buf.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(in.rq_buf.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(in.sq_log_size, 4);
  EXPECT_EQ(in.sq_wqe_shift, 7);
  EXPECT_EQ(in.rq_log_size, 4);
  EXPECT_EQ(in.rq_wqe_shift, 6);
  EXPECT_EQ(DevicePages(device_, in.rq_buf), std::vector<uint64_t>{PageDma(1)});
  EXPECT_EQ(in.rq_dbrec_addr, PageDma(1) + 1024);
  EXPECT_EQ(device_.executed.back().in_len, sizeof(vhca_cmd_create_qp));
  EXPECT_EQ(init.cap.max_send_wr, 16u);
  EXPECT_EQ(vhca_core_qp_max_inline(qp), 128u - 80u);
  // The provider posts and rings; the kernel entry points refuse.
  vhca_core_send_wr wr = SendWr(1);
  const size_t doorbells = device_.data_doorbells.size();
  EXPECT_EQ(PostSend(qp, wr), -VHCA_EINVAL);
  const vhca_core_sge sge{0x9000, 16, 1};
  vhca_core_recv_wr rwr{2, 1, &sge};
  EXPECT_EQ(PostRecv(qp, rwr), -VHCA_EINVAL);
  EXPECT_EQ(device_.data_doorbells.size(), doorbells);
  // RESET and destroy leave the provider's CQ ring alone.
  vhca_core_qp_attr attr{};
  attr.qp_state = VHCA_QPS_RESET;
  EXPECT_EQ(vhca_core_modify_qp(qp, &attr, VHCA_QP_ATTR_STATE), 0);
  // A CQ in use is not destroyed.
  EXPECT_EQ(vhca_core_destroy_cq(cq), -VHCA_EBUSY);
}

TEST_F(UserVerbsTest, UserQpRefusals) {
  vhca_core_cq* ucq = UserCq();
  vhca_core_cq* kcq = CreateCq();
  vhca_core_qp* qp = nullptr;
  // Another geometry than the core's for these capabilities.
  vhca_core_qp_init init = QpInit(ucq);
  vhca_core_user_qp_rings rings = Rings();
  rings.sq_wqe_shift = 8;
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  // A ring bigger than its buffer (64 x 128 bytes in one page).
  init = QpInit(ucq);
  init.cap.max_send_wr = 64;
  rings = Rings();
  rings.sq_log_size = 6;
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  // Kernel CQs for a user QP, and a user CQ for a kernel QP.
  init = QpInit(kcq);
  rings = Rings();
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  init = QpInit(ucq);
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
  // No receive ring without an SRQ; no GSI from user space; no page.
  init = QpInit(ucq);
  rings = Rings(false);
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  init = QpInit(ucq, VHCA_QPT_GSI);
  init.port = 1;
  rings = Rings();
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  init = QpInit(ucq);
  rings = Rings();
  rings.db_page = 0;
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL);
  // The receive doorbell record inside the WQEs, misaligned, or past the
  // buffer.
  for (uint32_t offset : {1016u, 1028u, 4096u}) {
    rings = Rings();
    rings.rq_dbrec_offset = offset;
    EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EINVAL)
        << offset;
  }
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_QP), 0u);
}

// The provider posts receives through the record only: a device that
// does not read records (ABI minor 0) gets no user receive queue.
TEST_F(UserVerbsTest, UserReceiveQueuesNeedRecordReadingDevice) {
  RestartAs(VHCA_ABI_MAJOR << 16);
  vhca_core_cq* cq = UserCq();
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_user_qp_rings rings = Rings();
  vhca_core_qp* qp = nullptr;
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EOPNOTSUPP);
  vhca_core_srq* srq = nullptr;
  vhca_core_user_srq_init srq_init = SrqInit(2);
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, nullptr, &srq),
            -VHCA_EOPNOTSUPP);
}

TEST_F(UserVerbsTest, UserSrq) {
  vhca_core_srq* srq = nullptr;
  vhca_core_user_srq_init srq_init = SrqInit(2);
  srq_init.wqe_shift = 5;  // the core's stride is 64 bytes
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, nullptr, &srq), -VHCA_EINVAL);
  // The record inside the WQEs or past the buffer (two pages, then three).
  srq_init = SrqInit(2);
  srq_init.dbrec_offset = 8184;
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, nullptr, &srq), -VHCA_EINVAL);
  srq_init = SrqInit(2);
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, nullptr, &srq), -VHCA_EINVAL);
  srq_init = SrqInit(3);
  ASSERT_EQ(vhca_core_create_user_srq(core_, &srq_init, nullptr, &srq), 0);
  srqs_.push_back(srq);
  EXPECT_EQ(srq_init.max_wr, 128u);
  EXPECT_EQ(srq_init.max_sge, 3u);
  const unsigned srqn = srq_init.srqn;
  const vhca_cmd_create_srq& in = device_.srqs[srqn].in;
  EXPECT_EQ(in.buf.mode, VHCA_BUF_DIRECT);
  EXPECT_EQ(in.buf.npages, 2u);
  EXPECT_EQ(in.dbrec_addr, PageDma(1));  // the third page's first byte
  EXPECT_EQ(in.db_page, 4u);
  EXPECT_EQ(in.limit, 10u);
  const vhca_core_sge one{0x9000, 16, 1};
  vhca_core_recv_wr rwr{2, 1, &one};
  EXPECT_EQ(PostSrqRecv(srq, rwr), -VHCA_EINVAL);
  EXPECT_EQ(vhca_core_modify_srq(srq, 20), 0);

  // A user QP on it; a kernel QP may not use it.
  vhca_core_cq* cq = UserCq();
  vhca_core_qp_init init = QpInit(cq);
  init.srq = srq;
  init.cap.max_recv_wr = 0;
  vhca_core_user_qp_rings rings = Rings(false);
  vhca_core_qp* qp = nullptr;
  ASSERT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), 0);
  qps_.push_back(qp);
  EXPECT_EQ(device_.qps[vhca_core_qp_num(qp)].in.srqn, srqn);
  vhca_core_cq* kcq = CreateCq();
  init = QpInit(kcq);
  init.srq = srq;
  EXPECT_EQ(vhca_core_create_qp(core_, &init, &qp), -VHCA_EINVAL);
}

TEST_F(UserVerbsTest, AddressVector) {
  vhca_core_ah_attr ah{};
  ah.dlid = 0x1234;
  ah.sl = 3;
  ah.port_num = 2;
  ah.has_grh = 1;
  ah.sgid_index = 1;
  ah.flow_label = 0xfffff;
  ah.dgid[15] = 7;
  vhca_av av{};
  vhca_core_make_av(&ah, &av);
  EXPECT_EQ(av.dlid, 0x1234);
  EXPECT_EQ(av.sl, 3);
  EXPECT_EQ(av.port, 2);
  EXPECT_EQ(av.flags, VHCA_AV_F_GRH);
  EXPECT_EQ(av.flow_label, 0xfffffu);
  EXPECT_EQ(av.dgid[15], 7);
}

// XRC (IBA A14) needs VHCA_DEV_CAP_XRC: without it the core sends no
// command for a domain, an XRC SRQ, an XRC initiator or target.
TEST_F(UserVerbsTest, XrcNeedsTheDeviceCap) {
  unsigned xrcdn = 0;
  EXPECT_EQ(vhca_core_alloc_xrcd(core_, &xrcdn), -VHCA_EOPNOTSUPP);
  vhca_core_cq* cq = UserCq();
  const vhca_core_srq_xrc xrc{1, cq};
  vhca_core_srq* srq = nullptr;
  vhca_core_user_srq_init srq_init = SrqInit(3);
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, &xrc, &srq), -VHCA_EOPNOTSUPP);
  vhca_core_qp_init init = QpInit(cq);
  init.type = VHCA_QPT_XRC_INI;
  init.recv_cq = nullptr;
  vhca_core_user_qp_rings rings = Rings(false);
  vhca_core_qp* qp = nullptr;
  EXPECT_EQ(vhca_core_create_user_qp(core_, &init, &rings, &qp), -VHCA_EOPNOTSUPP);
  vhca_core_qp_init tgt{};
  tgt.type = VHCA_QPT_XRC_TGT;
  tgt.xrcdn = 1;
  EXPECT_EQ(vhca_core_create_qp(core_, &tgt, &qp), -VHCA_EOPNOTSUPP);
  EXPECT_EQ(CountExecuted(VHCA_CMD_ALLOC_XRCD), 0u);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_SRQ), 0u);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_QP), 0u);
}

class XrcUserVerbsTest : public UserVerbsTest {
 protected:
  void SetUp() override {
    device_.dev_caps |= VHCA_DEV_CAP_XRC;
    UserVerbsTest::SetUp();
  }
};

// An XRC SRQ carries its domain and CQ to the device (VHCA_SRQ_F_XRC);
// one without a CQ or domain is refused before any command.
TEST_F(XrcUserVerbsTest, XrcSrqCommand) {
  vhca_core_cq* cq = UserCq();
  vhca_core_srq* srq = nullptr;
  const vhca_core_srq_xrc no_cq{5, nullptr};
  const vhca_core_srq_xrc no_domain{0, cq};
  vhca_core_user_srq_init srq_init = SrqInit(3);
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, &no_cq, &srq), -VHCA_EINVAL);
  srq_init = SrqInit(3);
  EXPECT_EQ(vhca_core_create_user_srq(core_, &srq_init, &no_domain, &srq), -VHCA_EINVAL);
  EXPECT_EQ(CountExecuted(VHCA_CMD_CREATE_SRQ), 0u);
  const vhca_core_srq_xrc xrc{5, cq};
  srq_init = SrqInit(3);
  ASSERT_EQ(vhca_core_create_user_srq(core_, &srq_init, &xrc, &srq), 0);
  srqs_.push_back(srq);
  const vhca_cmd_create_srq& in = device_.srqs[srq_init.srqn].in;
  EXPECT_EQ(in.flags, VHCA_SRQ_F_XRC);
  EXPECT_EQ(in.xrcdn, 5u);
  EXPECT_EQ(in.cqn, Cq(cq).cqn());
}

}  // namespace
