// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Events that name data path objects: COMPLETION EQEs on the completion
// EQs reach the CQ's completion handler, QP/CQ/SRQ events on EQ 0 the
// asynchronous handler, each with the object's context, found in the
// registry's tables by handle; nothing reaches an object after its
// destroy, which synchronize_irq()s the vectors that could dispatch to it.
#include <tuple>

#include "verbs_test.h"

namespace {

std::vector<void*> g_completions;
std::vector<std::tuple<unsigned, unsigned, void*>> g_async;

void OnCompletion(void* cq_context) { g_completions.push_back(cq_context); }
void OnAsync(unsigned type, unsigned subtype, void* context) {
  g_async.emplace_back(type, subtype, context);
}

class EventsTest : public VerbsTest {
 protected:
  void SetUp() override {
    VerbsTest::SetUp();
    g_completions.clear();
    g_async.clear();
    const vhca_core_event_ops ops{OnCompletion, OnAsync};
    vhca_core_set_event_ops(core_, &ops);
  }
  void PostObjectEvent(uint8_t type, uint8_t subtype, uint32_t handle) {
    vhca_eqe event{};
    event.type = type;
    event.subtype = subtype;
    event.data.object.handle = handle;
    device_.PostEvent(0, event);
    device_.Run();
  }
};

TEST_F(EventsTest, CompletionReachesTheCqHandler) {
  vhca_core_cq* cq = CreateCq(15, 1);
  vhca_core_qp_init init = QpInit(cq);
  const uint32_t qpn = vhca_core_qp_num(CreateQp(&init));
  ASSERT_EQ(vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 1));
  device_.Run();
  ASSERT_EQ(g_completions.size(), 1u);
  EXPECT_EQ(g_completions[0], &cq_context_);
  // Not armed: no event.
  device_.PostCqe(Cq(cq).cqn(), Cqe(qpn, VHCA_CQE_SEND, 2));
  device_.Run();
  EXPECT_EQ(g_completions.size(), 1u);
}

TEST_F(EventsTest, NoEventAfterDestroy) {
  vhca_core_cq* cq = CreateCq();
  const uint32_t cqn = Cq(cq).cqn();
  const uint32_t eqn = device_.cqs[cqn].in.eqn;
  DestroyCq(cq);
  vhca_eqe event{};
  event.type = VHCA_EQE_COMPLETION;
  event.data.completion.cqn = cqn;
  device_.eqs[eqn].armed = true;
  device_.PostEvent(eqn, event);
  device_.Run();
  EXPECT_TRUE(g_completions.empty());
  EXPECT_EQ(device().objects().dropped(), 1u);
  PostObjectEvent(VHCA_EQE_CQ_ERROR, 0, cqn);
  EXPECT_TRUE(g_async.empty());
}

TEST_F(EventsTest, AsyncEventsCarryTheObjectContext) {
  vhca_core_cq* cq = CreateCq();
  vhca_core_srq* srq = nullptr;
  unsigned wr = 0, sge = 0;
  int srq_context = 0;
  ASSERT_EQ(vhca_core_create_srq(core_, pdn_, 8, 1, 2, &srq_context, &srq, &wr, &sge), 0);
  srqs_.push_back(srq);
  vhca_core_qp_init init = QpInit(cq);
  init.srq = srq;
  vhca_core_qp* qp = CreateQp(&init);
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_COMM_EST, Qp(qp).handle());
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_LAST_WQE_REACHED, Qp(qp).handle());
  PostObjectEvent(VHCA_EQE_CQ_ERROR, 0, Cq(cq).cqn());
  PostObjectEvent(VHCA_EQE_SRQ_EVENT, VHCA_SRQ_EV_LIMIT_REACHED,
                  reinterpret_cast<vhca::SharedReceiveQueue*>(srq)->srqn());
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_FATAL, 999);  // no such QP
  ASSERT_EQ(g_async.size(), 4u);
  EXPECT_EQ(g_async[0], std::make_tuple(unsigned{VHCA_EQE_QP_EVENT},
                                        unsigned{VHCA_QP_EV_COMM_EST},
                                        static_cast<void*>(&qp_context_)));
  EXPECT_EQ(std::get<1>(g_async[1]), unsigned{VHCA_QP_EV_LAST_WQE_REACHED});
  EXPECT_EQ(g_async[2], std::make_tuple(unsigned{VHCA_EQE_CQ_ERROR}, 0u,
                                        static_cast<void*>(&cq_context_)));
  EXPECT_EQ(g_async[3], std::make_tuple(unsigned{VHCA_EQE_SRQ_EVENT},
                                        unsigned{VHCA_SRQ_EV_LIMIT_REACHED},
                                        static_cast<void*>(&srq_context)));
  EXPECT_EQ(device().objects().dropped(), 1u);
  EXPECT_FALSE(kernel_.LogContains("unexpected event type"));
}

// Destroy waits with synchronize_irq for exactly the vectors whose
// handlers could have found the object: the CQ's completion vector and EQ
// 0's for a CQ, EQ 0's for a QP or SRQ, after the slot was emptied.
TEST_F(EventsTest, DestroyWaitsForTheVectorsThatDispatch) {
  vhca_core_cq* cq = CreateCq(15, 1);  // completion vector 1 = MSI-X 2
  vhca_core_srq* srq = nullptr;
  unsigned wr = 0, sge = 0;
  int srq_context = 0;
  ASSERT_EQ(vhca_core_create_srq(core_, pdn_, 8, 1, 2, &srq_context, &srq, &wr, &sge), 0);
  vhca_core_qp_init init = QpInit(cq);
  vhca_core_qp* qp = CreateQp(&init);
  EXPECT_TRUE(kernel_.synchronized_irqs().empty());
  DestroyQp(qp);
  EXPECT_EQ(kernel_.synchronized_irqs(), std::vector<unsigned>{0});
  kernel_.synchronized_irqs().clear();
  ASSERT_EQ(vhca_core_destroy_srq(srq), 0);
  EXPECT_EQ(kernel_.synchronized_irqs(), std::vector<unsigned>{0});
  kernel_.synchronized_irqs().clear();
  const uint32_t cqn = Cq(cq).cqn();
  DestroyCq(cq);
  EXPECT_EQ(kernel_.synchronized_irqs(), (std::vector<unsigned>{2, 0}));
  // The slot is empty: an event naming the old cqn is dropped.
  PostObjectEvent(VHCA_EQE_CQ_ERROR, 0, cqn);
  EXPECT_TRUE(g_async.empty());
  EXPECT_EQ(device().objects().dropped(), 1u);
}

// A new object reusing a destroyed one's handle gets its events, the old
// context never does (Guide 8.2.3 note 4).
TEST_F(EventsTest, AReusedHandleNamesTheNewObject) {
  vhca_core_cq* first = CreateCq();
  const uint32_t cqn = Cq(first).cqn();
  DestroyCq(first);
  int other_context = 0;
  vhca_core_cq* second = nullptr;
  unsigned actual = 0;
  ASSERT_EQ(vhca_core_create_cq(core_, 15, 0, &other_context, &second, &actual), 0);
  cqs_.push_back(second);
  ASSERT_EQ(Cq(second).cqn(), cqn);  // the device's lowest free handle
  PostObjectEvent(VHCA_EQE_CQ_ERROR, 0, cqn);
  ASSERT_EQ(g_async.size(), 1u);
  EXPECT_EQ(std::get<2>(g_async[0]), static_cast<void*>(&other_context));
}

// A destroy takes the object out of its slot before DESTROY (the device
// may give the handle to the next create at once); a DESTROY the device
// refuses puts it back, and its events still reach it.
TEST_F(EventsTest, ARefusedDestroyKeepsTheObjectRegistered) {
  vhca_core_cq* cq = CreateCq();
  const uint32_t cqn = Cq(cq).cqn();
  device_.forced_status.set(VHCA_CMD_DESTROY_CQ, VHCA_CMD_BAD_PARAM);
  EXPECT_EQ(vhca_core_destroy_cq(cq), -VHCA_EINVAL);
  EXPECT_EQ(kernel_.synchronized_irqs().size(), 2u);  // it was removed
  device_.forced_status.erase(VHCA_CMD_DESTROY_CQ);
  PostObjectEvent(VHCA_EQE_CQ_ERROR, 0, cqn);
  ASSERT_EQ(g_async.size(), 1u);
  EXPECT_EQ(std::get<2>(g_async[0]), static_cast<void*>(&cq_context_));
}

// The tables hold what QUERY_DEVICE promised: a device answering a handle
// outside them fails the create (-EPROTO), and the object is destroyed on
// the device again; nothing leaks.
TEST_F(EventsTest, AHandleOutsideTheLimitsFailsTheCreate) {
  device_.forced_cqn = device_.max_cq;
  vhca_core_cq* cq = nullptr;
  unsigned actual = 0;
  EXPECT_EQ(vhca_core_create_cq(core_, 15, 0, &cq_context_, &cq, &actual),
            -VHCA_EPROTO);
  EXPECT_EQ(device_.executed.back().opcode, VHCA_CMD_DESTROY_CQ);
  EXPECT_EQ(device_.executed.back().in.handle.handle, device_.max_cq);
  EXPECT_TRUE(device_.cqs.empty());
  EXPECT_TRUE(kernel_.LogContains("handle outside"));
}

// SMI/GSI handles of every port have their own slots.
TEST_F(EventsTest, SpecialQpsOfEachPortHaveTheirOwnSlot) {
  vhca_core_cq* cq = CreateCq();
  int contexts[2] = {};
  uint32_t handles[2];
  for (unsigned port = 1; port <= 2; port++) {
    vhca_core_qp_init init = QpInit(cq, VHCA_QPT_GSI);
    init.port = port;
    init.qp_context = &contexts[port - 1];
    handles[port - 1] = Qp(CreateQp(&init)).handle();
  }
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_FATAL, handles[1]);
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_FATAL, handles[0]);
  PostObjectEvent(VHCA_EQE_QP_EVENT, VHCA_QP_EV_FATAL,
                  VHCA_SPECIAL_QP_HANDLE(3, 1));  // no port 3
  ASSERT_EQ(g_async.size(), 2u);
  EXPECT_EQ(std::get<2>(g_async[0]), static_cast<void*>(&contexts[1]));
  EXPECT_EQ(std::get<2>(g_async[1]), static_cast<void*>(&contexts[0]));
  EXPECT_EQ(device().objects().dropped(), 1u);
}

}  // namespace
