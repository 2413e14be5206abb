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

// A device that writes a new event as soon as there is room (other CPUs'
// work) must not keep one interrupt handler going: one ring's worth, then
// the arm, and the device fires again at once for the rest.
TEST_F(EventQueueTest, OneCallConsumesAtMostARing) {
  auto eq = MakeQueue(2, 0);  // 4 entries
  uint32_t posted = 0;
  const uint32_t total = 40;
  vhca_eqe event{};
  event.type = VHCA_EQE_COMPLETION;
  auto refill = [&] {
    while (posted < total && device_.PostEvent(0, event) == 0) posted++;
  };
  refill();
  uint32_t consumed = 0, calls = 0;
  while (consumed < total && calls < 2 * total) {
    device_.eq_doorbells.clear();
    const uint32_t handled = eq->Poll([&](const vhca_eqe&) { refill(); });
    calls++;
    EXPECT_LE(handled, 4u) << "call " << calls;
    consumed += handled;
    ASSERT_FALSE(device_.eq_doorbells.empty());
    EXPECT_EQ(device_.eq_doorbells.back(), vhca_db_eq_value(0, consumed, 1));
    if (consumed < total) {
      EXPECT_FALSE(device_.eqs[0].armed) << "fired at once";
    }
  }
  EXPECT_EQ(consumed, total);
  EXPECT_GE(calls, total / 4);
  EXPECT_TRUE(device_.EqIdle(0));
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

// vhca_core_irq reports what it consumed: the shim's IRQ_NONE for an
// interrupt with nothing new (driver/shim/irq.c).
TEST_F(EventQueueTest, InterruptReportsTheEventsItConsumed) {
  ASSERT_EQ(CreateAndStart(3), 0);
  device_.Run();  // bring-up's command completions consumed
  const uint32_t vector = device_.eqs[1].vector;
  Post(1, 42);
  Post(1, 43);
  EXPECT_EQ(vhca_core_irq(core_, vector), 2u);
  EXPECT_EQ(vhca_core_irq(core_, vector), 0u) << "nothing new: IRQ_NONE";
  EXPECT_EQ(vhca_core_irq(core_, 0), 0u) << "EQ 0 holds nothing new";
  device_.PostPortEvent(1, VHCA_PORT_EV_SM_CHANGE, VHCA_PORT_ACTIVE, 1);
  EXPECT_EQ(vhca_core_irq(core_, 0), 1u);
  // The vectors the posts raised, delivered late: nothing left for them.
  device_.Run();
  EXPECT_TRUE(device_.EqIdle(0));
  EXPECT_TRUE(device_.EqIdle(1));
}

// The storm the shim's IRQ_NONE lets the kernel stop: a device whose
// producer index runs ahead of the entries it wrote (any disagreement on
// the ring's state) fires at every arm, and every one of those interrupts
// consumes nothing.
TEST_F(EventQueueTest, InterruptThatCannotConsumeReportsNothing) {
  ASSERT_EQ(CreateAndStart(3), 0);
  device_.Run();
  FakeDevice::Eq& model = device_.eqs[1];
  model.producer++;  // no entry written
  for (int i = 0; i < 3; i++) {
    device_.eq_doorbells.clear();
    EXPECT_EQ(vhca_core_irq(core_, model.vector), 0u) << "interrupt " << i;
    // Re-armed with the entry still pending: the device fired again.
    ASSERT_EQ(device_.eq_doorbells.size(), 1u);
    EXPECT_EQ(device_.eq_doorbells.back(), vhca_db_eq_value(1, 0, 1));
    EXPECT_FALSE(model.armed) << "fired at once";
  }
  model.producer--;  // agreed again: the next interrupt re-arms for good
  device_.Run();
  EXPECT_TRUE(device_.EqIdle(1));
}

}  // namespace
