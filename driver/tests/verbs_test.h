// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fixture of the data path tests: a started device with a PD, helpers
// that create CQs and QPs through vhca_core_verbs.h as the shim will, and
// CQE/completion helpers.  Objects a test leaves behind are destroyed in
// TearDown before the leak check of CoreTest.
#ifndef VHCA_TESTS_VERBS_TEST_H
#define VHCA_TESTS_VERBS_TEST_H

#include <algorithm>
#include <vector>

#include "core_test.h"
#include "completion_queue.h"
#include "device.h"
#include "memory_region.h"
#include "queue_pair.h"
#include "shared_receive_queue.h"
#include "vhca_core_verbs.h"
#include "vhca_errno.h"

// A chain over an array: the converter's context knows where it ends.
template <typename Wr>
struct ArrayChain {
  const Wr* begin;
  const Wr* end;
};

// Receive converters have no context: the chain is linked, like
// ib_recv_wr's next.
struct LinkedRecvWr {
  vhca_core_recv_wr wr;
  const LinkedRecvWr* next;
};

inline int ConvertSend(void* ctx, const void* item, vhca_core_send_wr* wr,
                       const void** next) {
  const auto* chain = static_cast<const ArrayChain<vhca_core_send_wr>*>(ctx);
  const auto* it = static_cast<const vhca_core_send_wr*>(item);
  *wr = *it;
  *next = it + 1 < chain->end ? it + 1 : nullptr;
  return 0;
}

inline int ConvertRecv(const void* item, vhca_core_recv_wr* wr, const void** next) {
  const auto* it = static_cast<const LinkedRecvWr*>(item);
  *wr = it->wr;
  *next = it->next;
  return 0;
}

// wrs linked into a chain (valid while `links` lives); its first item.
inline const void* LinkRecvs(const std::vector<vhca_core_recv_wr>& wrs,
                             std::vector<LinkedRecvWr>* links) {
  links->resize(wrs.size());
  for (size_t i = 0; i < wrs.size(); i++)
    (*links)[i] = {wrs[i], i + 1 < wrs.size() ? &(*links)[i + 1] : nullptr};
  return links->empty() ? nullptr : links->data();
}

class VerbsTest : public CoreTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(CreateAndStart(), 0);
    ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn_), 0);
  }

  void TearDown() override {
    if (core_) {
      for (auto it = qps_.rbegin(); it != qps_.rend(); ++it)
        EXPECT_EQ(vhca_core_destroy_qp(*it), 0);
      for (auto* srq : srqs_) EXPECT_EQ(vhca_core_destroy_srq(srq), 0);
      for (auto* cq : cqs_) EXPECT_EQ(vhca_core_destroy_cq(cq), 0);
      for (auto* mr : mrs_) EXPECT_EQ(vhca_core_destroy_mr(mr), 0);
      EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn_), 0);
    }
    CoreTest::TearDown();
  }

  vhca::Device& device() { return *reinterpret_cast<vhca::Device*>(core_); }

  // The core again, on a device that reports another ABI version.
  void RestartAs(uint32_t version) {
    EXPECT_EQ(vhca_core_dealloc_pd(core_, pdn_), 0);
    StopAndDestroy();
    device_.version = version;
    ASSERT_EQ(CreateAndStart(), 0);
    ASSERT_EQ(vhca_core_alloc_pd(core_, &pdn_), 0);
  }

  vhca_core_cq* CreateCq(unsigned entries = 15, unsigned vector = 0) {
    vhca_core_cq* cq = nullptr;
    unsigned actual = 0;
    EXPECT_EQ(vhca_core_create_cq(core_, entries, vector, &cq_context_, &cq, &actual), 0);
    if (cq) cqs_.push_back(cq);
    return cq;
  }
  void DestroyCq(vhca_core_cq* cq) {
    EXPECT_EQ(vhca_core_destroy_cq(cq), 0);
    cqs_.erase(std::find(cqs_.begin(), cqs_.end(), cq));
  }

  vhca_core_qp_init QpInit(vhca_core_cq* cq, unsigned type = VHCA_QPT_RC) {
    vhca_core_qp_init init{};
    init.type = type;
    init.pdn = pdn_;
    init.send_cq = cq;
    init.recv_cq = cq;
    init.cap.max_send_wr = 16;
    init.cap.max_recv_wr = 16;
    init.cap.max_send_sge = 2;
    init.cap.max_recv_sge = 2;
    init.qp_context = &qp_context_;
    return init;
  }
  vhca_core_qp* CreateQp(vhca_core_qp_init* init) {
    vhca_core_qp* qp = nullptr;
    EXPECT_EQ(vhca_core_create_qp(core_, init, &qp), 0);
    if (qp) qps_.push_back(qp);
    return qp;
  }
  void DestroyQp(vhca_core_qp* qp) {
    EXPECT_EQ(vhca_core_destroy_qp(qp), 0);
    qps_.erase(std::find(qps_.begin(), qps_.end(), qp));
  }
  vhca::QueuePair& Qp(vhca_core_qp* qp) { return *reinterpret_cast<vhca::QueuePair*>(qp); }
  vhca::CompletionQueue& Cq(vhca_core_cq* cq) {
    return *reinterpret_cast<vhca::CompletionQueue*>(cq);
  }

  static vhca_cqe Cqe(uint32_t qpn, uint8_t opcode, uint64_t wr_id,
                      uint16_t wqe_index = 0, uint8_t status = VHCA_WC_SUCCESS) {
    vhca_cqe cqe{};
    cqe.wr_id = wr_id;
    cqe.qpn = qpn;
    cqe.opcode = opcode;
    cqe.status = status;
    cqe.wqe_index = wqe_index;
    return cqe;
  }

  // vhca_core_poll_cq with a converter that keeps the completions as the
  // core hands them over (and checks that their indexes count up from 0).
  std::vector<vhca_core_wc> Poll(vhca_core_cq* cq, int max = 64) {
    std::vector<vhca_core_wc> wc;
    const int n = vhca_core_poll_cq(cq, max, KeepWc, &wc);
    EXPECT_GE(n, 0);
    EXPECT_EQ(size_t(n < 0 ? 0 : n), wc.size());
    return wc;
  }
  static void KeepWc(void* ctx, int index, const vhca_core_wc* wc) {
    auto* out = static_cast<std::vector<vhca_core_wc>*>(ctx);
    EXPECT_EQ(size_t(index), out->size());
    out->push_back(*wc);
  }

  // The chain API with the WRs of an array, as the shim hands over an
  // ib_send_wr list: returns the error and, in *failed, the index of the
  // WR it stopped at (wrs.size() when all went in).
  static int PostSends(vhca_core_qp* qp, const std::vector<vhca_core_send_wr>& wrs,
                       size_t* failed = nullptr) {
    ArrayChain<vhca_core_send_wr> chain{wrs.data(), wrs.data() + wrs.size()};
    const void* item = wrs.empty() ? nullptr : wrs.data();
    const int err = vhca_core_post_send_chain(qp, &item, ConvertSend, &chain);
    if (failed) *failed = item ? static_cast<const vhca_core_send_wr*>(item) - wrs.data()
                               : wrs.size();
    return err;
  }
  static int PostSend(vhca_core_qp* qp, const vhca_core_send_wr& wr) {
    return PostSends(qp, {wr});
  }
  static int PostRecvs(vhca_core_qp* qp, const std::vector<vhca_core_recv_wr>& wrs) {
    std::vector<LinkedRecvWr> links;
    const void* item = LinkRecvs(wrs, &links);
    return vhca_core_post_recv_chain(qp, &item, ConvertRecv);
  }
  static int PostRecv(vhca_core_qp* qp, const vhca_core_recv_wr& wr) {
    return PostRecvs(qp, {wr});
  }
  static int PostSrqRecvs(vhca_core_srq* srq, const std::vector<vhca_core_recv_wr>& wrs) {
    std::vector<LinkedRecvWr> links;
    const void* item = LinkRecvs(wrs, &links);
    return vhca_core_post_srq_recv_chain(srq, &item, ConvertRecv);
  }
  static int PostSrqRecv(vhca_core_srq* srq, const vhca_core_recv_wr& wr) {
    return PostSrqRecvs(srq, {wr});
  }

  // A signaled RC send of one SGE.
  static vhca_core_send_wr SendWr(uint64_t wr_id, uint32_t flags = VHCA_CORE_SEND_SIGNALED) {
    static const vhca_core_sge sge{0x10000, 64, 0};
    vhca_core_send_wr wr{};
    wr.wr_id = wr_id;
    wr.opcode = VHCA_WQE_SEND;
    wr.flags = flags;
    wr.num_sge = 1;
    wr.sg_list = &sge;
    return wr;
  }

  FakeDevice::DataDoorbell LastDoorbell() const {
    return device_.data_doorbells.empty() ? FakeDevice::DataDoorbell{0, 0}
                                          : device_.data_doorbells.back();
  }

  unsigned pdn_ = 0;
  int cq_context_ = 0;
  int qp_context_ = 0;
  std::vector<vhca_core_cq*> cqs_;
  std::vector<vhca_core_qp*> qps_;
  std::vector<vhca_core_srq*> srqs_;
  std::vector<vhca_core_mr*> mrs_;
};

#endif  // VHCA_TESTS_VERBS_TEST_H
