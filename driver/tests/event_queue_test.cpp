// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Event queue consumption: owner bit over many passes, doorbell and arm
// values, progress doorbells in long bursts.
#include <vector>

#include "core_test.h"
#include "event_queue.h"
#include "vhca_errno.h"

namespace {

class EventQueueTest : public CoreTest {
 protected:
  // An EventQueue the fake device writes as EQ `eqn`.
  vhca::OwnedPtr<vhca::EventQueue> MakeQueue(uint32_t log_size, uint32_t eqn) {
    auto queue = vhca::EventQueue::Create(vhca::Registers(&kdev_), log_size);
    EXPECT_TRUE(queue.ok());
    vhca::OwnedPtr<vhca::EventQueue> eq = queue.Take();
    eq->set_eqn(eqn);
    FakeDevice::Eq& model = device_.eqs[eqn];
    model = FakeDevice::Eq{};
    model.live = true;
    model.base = eq->ring_dma();
    model.log_size = log_size;
    return eq;
  }

  void Post(uint32_t eqn, uint32_t sequence) {
    vhca_eqe event{};
    event.type = VHCA_EQE_COMPLETION;
    event.data.completion.cqn = sequence;
    device_.PostEvent(eqn, event);
  }

  std::vector<uint32_t> PollAll(vhca::EventQueue& eq) {
    std::vector<uint32_t> seen;
    eq.Poll([&](const vhca_eqe& event) {
      EXPECT_EQ(event.type, VHCA_EQE_COMPLETION);
      seen.push_back(event.data.completion.cqn);
    });
    return seen;
  }
};

TEST_F(EventQueueTest, OwnerBitWrapsOverManyPasses) {
  auto eq = MakeQueue(2, 0);  // 4 entries
  uint32_t next = 0;
  // Batches of 3 drift across the ring boundary: 12 passes in all.
  for (int batch = 0; batch < 16; batch++) {
    std::vector<uint32_t> expected;
    for (int i = 0; i < 3; i++) {
      expected.push_back(next);
      Post(0, next++);
    }
    EXPECT_EQ(PollAll(*eq), expected) << "batch " << batch;
    EXPECT_TRUE(PollAll(*eq).empty()) << "stale entries consumed";
  }
  EXPECT_EQ(eq->consumer_index(), 48u);
}

TEST_F(EventQueueTest, FullRingIsConsumedCompletely) {
  auto eq = MakeQueue(2, 0);
  for (int pass = 0; pass < 5; pass++) {
    for (uint32_t i = 0; i < 4; i++) Post(0, pass * 4 + i);
    const auto seen = PollAll(*eq);
    ASSERT_EQ(seen.size(), 4u) << "pass " << pass;
    for (uint32_t i = 0; i < 4; i++) EXPECT_EQ(seen[i], pass * 4 + i);
  }
}

TEST_F(EventQueueTest, DoorbellCarriesEqnConsumerIndexAndArm) {
  auto eq = MakeQueue(3, 5);
  for (uint32_t i = 0; i < 3; i++) Post(5, i);
  device_.eq_doorbells.clear();
  EXPECT_EQ(PollAll(*eq).size(), 3u);
  ASSERT_EQ(device_.eq_doorbells.size(), 1u);
  const uint32_t value = device_.eq_doorbells.back();
  EXPECT_EQ(value, vhca_db_eq_value(5, 3, 1));
  EXPECT_EQ(value, (5u << 24) | 3u | (1u << 31));
  EXPECT_TRUE(device_.eqs[5].armed);
}

TEST_F(EventQueueTest, LongBurstReportsProgressWithoutArming) {
  auto eq = MakeQueue(3, 1);  // 8 entries
  for (uint32_t i = 0; i < 8; i++) Post(1, i);
  device_.eq_doorbells.clear();
  EXPECT_EQ(PollAll(*eq).size(), 8u);
  const std::vector<uint32_t> expected = {vhca_db_eq_value(1, 4, 0),
                                          vhca_db_eq_value(1, 8, 0),
                                          vhca_db_eq_value(1, 8, 1)};
  EXPECT_EQ(ToVector(device_.eq_doorbells), expected);
}

TEST_F(EventQueueTest, ConsumerIndexWrapsIn24Bits) {
  // The doorbell holds the low 24 bits of the free-running index.
  EXPECT_EQ(vhca_db_eq_value(2, 0x01000005, 1), (2u << 24) | 5u | (1u << 31));
}

TEST_F(EventQueueTest, BadLogSizeIsRejected) {
  EXPECT_EQ(vhca::EventQueue::Create(vhca::Registers(&kdev_), 1).error(),
            -VHCA_EINVAL);
  EXPECT_EQ(vhca::EventQueue::Create(vhca::Registers(&kdev_), 17).error(),
            -VHCA_EINVAL);
}

TEST_F(EventQueueTest, CompletionEqInterruptIsConsumedAndRearmed) {
  ASSERT_EQ(CreateAndStart(3), 0);
  ASSERT_TRUE(device_.eqs[1].live);
  const uint32_t vector = device_.eqs[1].vector;
  Post(1, 42);
  device_.Run();
  ASSERT_FALSE(device_.irqs_delivered.empty());
  EXPECT_EQ(device_.irqs_delivered.back(), vector);
  EXPECT_EQ(device_.eqs[1].consumer, 1u);
  EXPECT_TRUE(device_.eqs[1].armed);
}

}  // namespace
