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
  // Data path objects (vhca_hw_verbs.h), as the commands created them.
  struct Cq {
    vhca_cmd_create_cq in{};
    uint32_t producer = 0;   // free running
    uint32_t armed = 0;      // VHCA_DB_CQ_ARM_* of the last arm doorbell
    uint32_t arm_ci = 0;     // consumer index of the last arm doorbell
  };
  struct Qp {
    vhca_cmd_create_qp in{};
    vhca_qp_context context{};  // accumulated by MODIFY_QP
    std::vector<vhca_qp_context> modifies;
  };
  struct Srq {
    vhca_cmd_create_srq in{};
    uint32_t limit = 0;
  };
  struct Mr {
    bool fast_reg = false;
    vhca_cmd_create_mr in{};
    vhca_cmd_alloc_mr_in alloc{};
    std::vector<uint64_t> pages;  // copied at CREATE_MR (DIRECT/INDIRECT)
    uint8_t variant = 0;          // the key variant the device knows
  };
  struct DataDoorbell {
    uint32_t offset;
    uint64_t value;
  };
  struct Port {
    uint8_t state = VHCA_PORT_ACTIVE;
    uint16_t lid = 0;
    uint32_t cap_mask = VHCA_PORT_CAP_CM;  // SET_PORT_CAP
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
  // false: the device of first light (no data path: zero limits in
  // QUERY_DEVICE, BAD_OPCODE for the verbs commands).
  bool data_path = true;
  uint32_t max_qp = 64, max_qp_wr = 1u << 15, max_sge = 32, max_cq = 64,
           max_cqe = 1u << 16, max_mr = 64, max_srq = 16, max_srq_wr = 1u << 15;
  bool fail_enable = false;   // ENABLE -> FATAL (BAD_CMDQ_CONFIG)
  // >= 0: the next CREATE_CQ answers this cqn, whatever the handle rule
  // says (a broken device); then back to -1.
  int64_t forced_cqn = -1;
  bool hang = false;          // consume commands, never complete them
  std::map<uint16_t, uint8_t> forced_status;  // opcode -> status
  uint64_t node_guid = 0x5254000000001000ull;
  Port ports[VHCA_MAX_PORTS];

  // ---- MMIO ----
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);
  void WriteDoorbell(uint32_t offset, uint32_t value);
  void WriteDoorbell64(uint32_t offset, uint64_t value);

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
  // Writes a CQE into CQ cqn as the device does (owner byte last; the
  // owner is filled in) and raises a completion event if the CQ is armed
  // for it.  Fails the test on overrun (doorbell record consumer index).
  void PostCqe(uint32_t cqn, const vhca_cqe& cqe);
  // Decodes a data path buffer descriptor into page addresses (CONTIG: the
  // start address only).
  std::vector<uint64_t> ReadPages(const vhca_buf_desc& desc);
  // A ring of `bytes` described by desc lies in live DMA memory (CONTIG,
  // or DIRECT/INDIRECT pages as user rings come).
  bool RingReachable(const vhca_buf_desc& desc, uint64_t bytes);
  // `len` bytes at byte `offset` of such a ring; nullptr outside it.
  void* RingSlot(const vhca_buf_desc& desc, uint64_t offset, uint32_t len);

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
  std::map<uint32_t, Cq> cqs;
  std::map<uint32_t, Qp> qps;
  std::map<uint32_t, Srq> srqs;
  std::map<uint32_t, Mr> mrs;       // by key index
  std::map<uint32_t, vhca_cmd_alloc_mw_in> mws;  // by key index (ALLOC_MW)
  uint32_t dev_caps = VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2;
  std::set<std::pair<uint32_t, uint16_t>> mcast;  // (qpn, mlid)
  std::vector<DataDoorbell> data_doorbells;
  vhca_node_desc node_desc{};

 private:
  void Reset();
  void Enable();
  void ExecuteOne(const vhca_cmd& cmd);
  uint8_t Execute(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t ExecuteDataPath(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t MigrateCq(Cq* cq, const vhca_cmd_create_cq& in);
  template <typename T>
  bool ReadIn(const vhca_cmd& cmd, T* in);
  void* Dma(uint64_t addr, uint32_t len);
  bool WriteOut(const vhca_cmd& cmd, const void* data, uint32_t size);
  void DeliverInterrupts();

  std::vector<uint32_t> hung_tokens_;
  uint32_t next_mr_index_ = 1;
  bool irq_pending_[VHCA_MAX_VECTORS] = {};
};

#endif  // VHCA_TESTS_FAKE_DEVICE_H
