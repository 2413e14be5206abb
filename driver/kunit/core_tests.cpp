// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The C++ half of vhca_kunit.ko: the whole core (one translation unit, as
// in vhca.ko: vhca_core.cpp explains why) plus test bodies that reach its
// classes directly, reporting failures through vhca_kunit_fail(), and the
// fake device of driver/fake.
#include "../core/vhca_core.cpp"
// The fake device, in the same translation unit for the same reason.
#include "../fake/fake_api.cpp"
#include "../fake/fake_data_path.cpp"
#include "../fake/fake_device.cpp"
#include "kunit_bridge.h"

#define KT_EXPECT(test, cond)                                             \
  do {                                                                    \
    if (!(cond))                                                          \
      vhca_kunit_fail((test), __FILE__, __LINE__, "expected %s", #cond); \
  } while (0)
#define KT_EXPECT_EQ(test, a, b)                                              \
  do {                                                                        \
    const unsigned long long kt_a = (a), kt_b = (b);                          \
    if (kt_a != kt_b)                                                         \
      vhca_kunit_fail((test), __FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx", \
                      #a, #b, kt_a, kt_b);                                    \
  } while (0)

namespace {

vhca::Device* TestDevice(vhca_core_device* core) {
  return reinterpret_cast<vhca::Device*>(core);
}

// Writes the EQE at free-running index `index` of a 2^log_size ring as the
// device does (owner byte last), with `marker` in the subtype.
void WriteEqe(vhca_eqe* ring, uint32_t log_size, uint32_t index,
              uint8_t owner, uint8_t marker) {
  vhca_eqe* slot = &ring[index & ((1u << log_size) - 1)];
  vhca::ZeroBytes(slot, offsetof(vhca_eqe, owner));
  slot->type = VHCA_EQE_COMPLETION;
  slot->subtype = marker;
  // dma_wmb(): the entry before the byte that hands it over.
  vhca_kapi_dma_wmb();
  *static_cast<volatile uint8_t*>(&slot->owner) = owner;
}

}  // namespace

extern "C" {

// EventQueue::Poll over many passes of the smallest ring: an entry is new
// only when its owner bit equals the pass parity (1, 0, 1, ...); entries
// of the previous pass are never consumed again; the consumer index runs
// free and every Poll ends with an armed doorbell carrying it.
void vhca_kt_eq_owner_bit_wraps(void* test, vhca_fake* fake) {
  constexpr uint32_t kLog = VHCA_MIN_LOG_EQ;
  constexpr uint32_t kSize = 1u << kLog;
  auto created = vhca::EventQueue::Create(vhca::Registers(vhca_fake_kdev(fake)), kLog);
  if (!created.ok()) {
    vhca_kunit_fail(test, __FILE__, __LINE__, "EventQueue::Create: %d", created.error());
    return;
  }
  vhca::OwnedPtr<vhca::EventQueue> eq = created.Take();
  auto* ring = reinterpret_cast<vhca_eqe*>(static_cast<uintptr_t>(eq->ring_dma()));
  // The device is not enabled (the test writes the entries itself), but
  // its model of EQ 0 is this ring, so every doorbell is checked too.
  {
    vhca::fake::Device::Locked lock(fake->device.env());
    vhca::fake::Device::Eq& model = fake->device.eqs[0];
    model = vhca::fake::Device::Eq{};
    model.live = true;
    model.base = eq->ring_dma();
    model.log_size = kLog;
  }
  const unsigned errors = vhca_fake_protocol_errors(fake);

  // Nothing written yet: a zeroed ring has owner 0, the first pass wants 1.
  uint32_t seen = 0;
  KT_EXPECT_EQ(test, eq->Poll([&](const vhca_eqe&) { seen++; }), 0u);

  uint32_t producer = 0;
  for (uint32_t round = 0; round < 6 * kSize; round++) {
    const uint32_t burst = 1 + round % kSize;  // 1..kSize entries
    for (uint32_t i = 0; i < burst; i++, producer++)
      WriteEqe(ring, kLog, producer, vhca_eqe_owner(producer, kLog),
               static_cast<uint8_t>(producer));
    uint32_t expected_marker = eq->consumer_index();
    bool in_order = true;
    const uint32_t handled = eq->Poll([&](const vhca_eqe& event) {
      in_order &= event.subtype == static_cast<uint8_t>(expected_marker++);
    });
    KT_EXPECT_EQ(test, handled, burst);
    KT_EXPECT(test, in_order);
    KT_EXPECT_EQ(test, eq->consumer_index(), producer);
    // Consumed entries keep their owner bit: polling again finds nothing.
    KT_EXPECT_EQ(test, eq->Poll([](const vhca_eqe&) {}), 0u);
    // The last doorbell re-armed EQ 0 at the consumer index.
    const unsigned doorbells = vhca_fake_num_eq_doorbells(fake);
    KT_EXPECT(test, doorbells > 0);
    KT_EXPECT_EQ(test, vhca_fake_eq_doorbell(fake, doorbells - 1),
                 vhca_db_eq_value(0, producer, 1));
  }
  KT_EXPECT(test, producer > 4 * kSize);  // several wraps

  // A stale entry (previous pass's owner value) at the consumer index
  // stops consumption even if later slots look new.
  WriteEqe(ring, kLog, producer, static_cast<uint8_t>(vhca_eqe_owner(producer, kLog) ^ 1), 0xaa);
  WriteEqe(ring, kLog, producer + 1, vhca_eqe_owner(producer + 1, kLog), 0xbb);
  KT_EXPECT_EQ(test, eq->Poll([](const vhca_eqe&) {}), 0u);
  KT_EXPECT_EQ(test, eq->consumer_index(), producer);
  KT_EXPECT_EQ(test, vhca_fake_protocol_errors(fake), errors);
}

// Requests bigger than a mailbox half fail before touching the ring.
void vhca_kt_cmdq_rejects_oversized(void* test, vhca_fake* fake) {
  auto created = vhca::CommandQueue::Create(vhca::Registers(vhca_fake_kdev(fake)), 2);
  if (!created.ok()) {
    vhca_kunit_fail(test, __FILE__, __LINE__, "CommandQueue::Create: %d", created.error());
    return;
  }
  vhca::OwnedPtr<vhca::CommandQueue> queue = created.Take();
  static uint8_t buffer[vhca::CommandQueue::kMailboxHalf + 1];
  vhca::CommandRequest request;
  request.opcode = VHCA_CMD_SET_NODE_DESC;
  request.in_data = buffer;
  request.in_len = sizeof(buffer);
  auto response = queue->Execute(request);
  KT_EXPECT(test, !response.ok());
  KT_EXPECT_EQ(test, response.error(), -VHCA_EINVAL);
  request.in_len = 0;
  request.in_data = nullptr;
  request.out_data = buffer;
  request.out_len = sizeof(buffer);
  auto response2 = queue->Execute(request);
  KT_EXPECT_EQ(test, response2.error(), -VHCA_EINVAL);
  request.out_data = nullptr;
  request.out_len = 8;  // a length without a buffer
  auto response3 = queue->Execute(request);
  KT_EXPECT_EQ(test, response3.error(), -VHCA_EINVAL);
  KT_EXPECT_EQ(test, vhca_fake_cmdq_pi(fake), 0u);
}

unsigned int vhca_kt_pds_outstanding(vhca_core_device* core) {
  return TestDevice(core)->protection_domains().outstanding();
}

unsigned int vhca_kt_eq0_consumer_index(vhca_core_device* core) {
  return TestDevice(core)->eq0().consumer_index();
}

int vhca_kt_cmdq_dead(vhca_core_device* core) {
  return TestDevice(core)->command_queue().dead();
}

unsigned int vhca_kt_cq_num(vhca_core_cq* cq) {
  return reinterpret_cast<vhca::CompletionQueue*>(cq)->cqn();
}

}  // extern "C"
