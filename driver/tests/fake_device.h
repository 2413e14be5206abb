// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A model of the vhca device behind the fake MMIO, enough for the core:
// registers, RESET/ENABLE, the command queue (executed when the test or a
// waiting command runs the device, i.e. asynchronously like the real
// device's bottom half), EQ 0 and completion EQs with owner bits and
// arming, MSI-X "interrupts" delivered by calling vhca_core_irq().
// Every DMA access is checked against the fake kernel's live DMA buffers.
#ifndef VHCA_TESTS_FAKE_DEVICE_H
#define VHCA_TESTS_FAKE_DEVICE_H

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "vhca_core.h"
#include "vhca_hw.h"

class FakeDevice {
 public:
  struct Eq {
    bool live = false;
    uint64_t base = 0;
    uint32_t log_size = 0;
    uint32_t vector = 0;
    uint32_t producer = 0;  // free running
    uint32_t consumer = 0;  // last doorbell value (24 bits)
    bool armed = false;
  };
  struct Port {
    uint8_t state = VHCA_PORT_ACTIVE;
    uint16_t lid = 0;
  };

  FakeDevice();
  ~FakeDevice();
  static void RunAll();

  // The core whose vhca_core_irq() interrupts go to (set after create).
  vhca_core_device* core = nullptr;

  // ---- configuration the tests change ----
  uint32_t version = (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR;
  uint8_t num_ports = 2;
  uint8_t num_vectors = 3;
  uint8_t max_log_cmdq = VHCA_MAX_LOG_CMDQ;
  uint8_t max_log_eq = VHCA_MAX_LOG_EQ;
  uint32_t max_pd = 8;
  bool fail_enable = false;   // ENABLE -> FATAL (BAD_CMDQ_CONFIG)
  bool hang = false;          // consume commands, never complete them
  std::map<uint16_t, uint8_t> forced_status;  // opcode -> status
  uint64_t node_guid = 0x0002c90300001000ull;
  Port ports[VHCA_MAX_PORTS];

  // ---- MMIO ----
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);
  void WriteDoorbell(uint32_t offset, uint32_t value);

  // Executes posted commands and delivers pending interrupts until idle.
  void Run();
  // Completes commands that hung (hang = true) with a late CMD_DONE.
  void CompleteHungCommands();
  // Posts a port event on EQ 0 (also updates the port).
  void PostPortEvent(uint8_t port, uint8_t subtype, uint8_t state,
                     uint16_t lid);
  // Writes an event into an EQ and raises its vector if armed.
  void PostEvent(uint32_t eqn, const vhca_eqe& event);
  bool OwnsRing(uint64_t dma) const;

  // ---- observations ----
  bool enabled = false;
  bool fatal = false;
  uint8_t fatal_code = 0;
  unsigned resets = 0;
  unsigned enables = 0;
  uint64_t cmdq_base = 0;
  uint32_t cmdq_log = 0;
  uint32_t cmdq_pi = 0;
  uint32_t cmdq_ci = 0;
  Eq eqs[VHCA_MAX_EQS];
  std::vector<uint32_t> eq_doorbells;      // raw VHCA_DB_EQ values
  std::vector<vhca_cmd> executed;          // every command consumed
  std::vector<uint32_t> irqs_delivered;    // vectors
  std::set<uint32_t> pds;
  vhca_node_desc node_desc{};

 private:
  void Reset();
  void Enable();
  void ExecuteOne(const vhca_cmd& cmd);
  uint8_t Execute(const vhca_cmd& cmd, uint32_t result[2]);
  void* Dma(uint64_t addr, uint32_t len);
  bool WriteOut(const vhca_cmd& cmd, const void* data, uint32_t size);
  void DeliverInterrupts();

  std::vector<uint32_t> hung_tokens_;
  bool irq_pending_[VHCA_MAX_VECTORS] = {};
};

#endif  // VHCA_TESTS_FAKE_DEVICE_H
