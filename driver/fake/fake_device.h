// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The one test double of the vhca device behind the core's boundary
// (vhca_kapi.h), for the host unit tests (driver/tests) and the KUnit
// suites (driver/kunit) alike.  Freestanding C++ like the core (its own
// headers and vhca_kapi.h, no standard library, no heap: fixed tables);
// the environment it runs in is driver/fake/fake_env.h.
//
// The model follows uapi/vhca_hw*.h and Documentation/device.md:
// registers, RESET/ENABLE, the command queue executed in order by
// RunCommands() (the real device's bottom half: called by the host tests
// when they or a waiting command run the device, by a work item in KUnit),
// a CMD_DONE EQE on EQ 0 per command, EQ 0 and completion EQs with owner
// bits and arming (arming with unconsumed entries fires at once), MSI-X
// vectors delivered to vhca_core_irq() through the environment, the data
// path objects (CQ/QP/SRQ/MR/MW, multicast) with the device's argument
// checks, data doorbells, CQEs written into CQ rings, RESIZE_CQ's
// migration, and a memory translation table (MTT) that keeps the page
// lists of registered regions.  Every DMA access is checked against the
// environment's live DMA buffers; every protocol violation is counted
// and reported (fake_env.h).
//
// Locking: the public methods below take the environment's lock, except
// the plain fields, which a test reads or sets directly (the host tests are
// single-threaded; KUnit goes through fake_api.cpp, which locks).
#ifndef VHCA_FAKE_DEVICE_H
#define VHCA_FAKE_DEVICE_H

#include <stdint.h>

#include "fake_env.h"
#include "fake_tables.h"
#include "vhca_core.h"
#include "vhca_hw.h"

namespace vhca {
namespace fake {

class Device {
 public:
  static constexpr uint32_t kMaxPd = 64;
  static constexpr uint32_t kMaxObjects = 64;   // of each data path kind
  static constexpr uint32_t kMaxSrq = 16;
  static constexpr uint32_t kMaxMcast = 64;
  static constexpr uint32_t kMttEntries = 8192; // pages of all regions
  static constexpr uint32_t kLogSize = 1024;    // entries each log keeps

  struct Eq {
    bool live;
    uint64_t base;
    uint32_t log_size;
    uint32_t vector;
    uint32_t producer;  // free running
    uint32_t consumer;  // last doorbell value (24 bits)
    bool armed;
  };
  // Data path objects (vhca_hw_verbs.h), as the commands created them.
  struct Cq {
    vhca_cmd_create_cq in;
    uint32_t producer;  // free running
    uint32_t armed;     // VHCA_DB_CQ_ARM_* of the last arm doorbell
    uint32_t arm_ci;    // consumer index of the last arm doorbell
  };
  struct Qp {
    vhca_cmd_create_qp in;
    vhca_qp_context context;      // accumulated by MODIFY_QP
    vhca_qp_context last_modify;  // as the last MODIFY_QP gave it
    uint32_t modifies;
  };
  struct Srq {
    vhca_cmd_create_srq in;
    uint32_t limit;
  };
  struct Mr {
    bool fast_reg;
    vhca_cmd_create_mr in;
    vhca_cmd_alloc_mr_in alloc;
    uint8_t variant;          // the key variant the device knows
    const uint64_t* pages;    // copied into the MTT at CREATE/REREG_MR
    uint32_t num_pages;
    bool odp;                 // VHCA_MR_F_ODP: pages come by ODP_MAP
  };
  struct DataDoorbell {
    uint32_t offset;
    uint64_t value;
  };
  struct Port {
    uint8_t state;
    uint16_t lid;
    uint32_t cap_mask;  // SET_PORT_CAP
  };

  explicit Device(vhca_fake_env* env = nullptr);
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  vhca_fake_env* env() const { return env_; }

  // The core whose vhca_core_irq() the vectors go to (nullptr: none).
  vhca_core_device* core = nullptr;

  // ---- configuration the tests change ----
  uint32_t version = (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR;
  uint8_t num_ports = 2;
  uint8_t num_vectors = 3;
  uint8_t max_log_cmdq = VHCA_MAX_LOG_CMDQ;
  uint8_t max_log_eq = VHCA_MAX_LOG_EQ;
  uint32_t max_pd = 8;  // at most kMaxPd
  // false: the device of first light (no data path: zero limits in
  // QUERY_DEVICE, BAD_OPCODE for the verbs commands).
  bool data_path = true;
  uint32_t max_qp = 64, max_qp_wr = 1u << 15, max_sge = 32, max_cq = 64,
           max_cqe = 1u << 16, max_mr = 64, max_srq = 16, max_srq_wr = 1u << 15;
  uint32_t dev_caps = VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2 |
                      VHCA_DEV_CAP_DM;
  uint64_t max_dm_size = 16 * VHCA_DM_PAGE_SIZE;  // BAR 3, pages in order
  bool fail_enable = false;  // ENABLE -> FATAL (BAD_CMDQ_CONFIG)
  // >= 0: the next CREATE_CQ answers this cqn, whatever the handle rule
  // says (a broken device); then back to -1.
  int64_t forced_cqn = -1;
  bool hang = false;  // consume commands, never complete them
  ForcedStatus forced_status;
  uint64_t node_guid = 0x5254000000001000ull;
  Port ports[VHCA_MAX_PORTS];

  // ---- MMIO (vhca_kapi_reg_*, vhca_kapi_db_*) ----
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);
  void WriteDoorbell(uint32_t offset, uint32_t value);
  void WriteDoorbell64(uint32_t offset, uint64_t value);

  // ---- the device's own activity ----
  // The bottom half: executes every posted command.
  void RunCommands();
  // MSI-X vector `vector` fires: counted, then the core's handler runs
  // (through the environment) unless no core is set.
  void DeliverInterrupt(uint32_t vector);
  // For a synchronous environment (the host tests): runs commands and
  // delivers the raised vectors until the device is idle.
  void Run();

  // ---- events the test makes the device produce ----
  // Completes the commands that hung (hang = true) with a late CMD_DONE.
  void CompleteHungCommands();
  // Writes an event into an EQ (owner byte last) and raises its vector if
  // armed: 0, -VHCA_EINVAL without such an EQ, -VHCA_ENOSPC when it is
  // full (a protocol error too: the driver let it overflow), -VHCA_EFAULT.
  int PostEvent(uint32_t eqn, const vhca_eqe& event);
  // Guest memory the device would read at addr (a command's input).
  const void* DmaForTest(uint64_t addr, uint64_t len) { return Dma(addr, len); }
  // A port changes (the model and a port event on EQ 0).
  int PostPortEvent(uint8_t port, uint8_t subtype, uint8_t state, uint16_t lid);
  void SetPort(uint8_t port, uint8_t state, uint16_t lid);
  // Writes a CQE into CQ cqn as the device does (owner byte last; the
  // owner is filled in) and raises a completion event if the CQ is armed
  // for it.  A protocol error on overrun (doorbell record consumer index).
  void PostCqe(uint32_t cqn, const vhca_cqe& cqe);

  // ---- questions ----
  // True while the device may still write the DMA buffer at `dma` (a
  // queue or ring of a live object): it must not be freed.
  bool OwnsRing(uint64_t dma);
  // True when every event of the EQ is consumed and the EQ is armed.
  bool EqIdle(uint32_t eqn);
  // Page `index` of a data path buffer descriptor (CONTIG: the start
  // address for page 0); false when it cannot be read.
  bool PageAddress(const vhca_buf_desc& desc, uint32_t index, uint64_t* page);
  // The producer index the driver stored in a receive doorbell record
  // (vhca_hw_verbs.h "Receive doorbell records"); 0 when unreadable.
  uint32_t RecordProducer(uint64_t addr);
  // What a polling device writes into a send record's device_flags.
  void SetRecordFlags(uint64_t addr, uint32_t flags);

  // RESIZE_SRQ answers the old record's producer index less this many:
  // WQEs posted during the command, which the driver copies itself.
  uint32_t srq_resize_lag = 0;

  // ---- observations ----
  bool enabled = false;
  bool fatal = false;
  uint8_t fatal_code = 0;
  unsigned resets = 0;
  unsigned enables = 0;
  unsigned protocol_errors = 0;
  uint64_t cmdq_base = 0;
  uint32_t cmdq_log = 0;
  uint32_t cmdq_pi = 0;
  uint32_t cmdq_ci = 0;
  Eq eqs[VHCA_MAX_EQS] = {};
  Log<uint32_t, kLogSize> eq_doorbells;       // raw VHCA_DB_EQ values
  Log<vhca_cmd, kLogSize> executed;           // every command consumed
  Log<uint32_t, kLogSize> executed_slots;     // the ring slot of each
  Log<uint64_t, kLogSize> odp_mapped;         // ODP_MAP page addresses, in order
  Log<uint32_t, kLogSize> irqs_delivered;     // vectors
  unsigned irqs[VHCA_MAX_VECTORS] = {};       // deliveries per vector
  Set<uint32_t, kMaxPd> pds;
  Table<Cq, kMaxObjects> cqs;
  Table<Qp, kMaxObjects> qps;
  Table<Srq, kMaxSrq> srqs;
  Table<Mr, kMaxObjects> mrs;                  // by key index
  Table<vhca_cmd_alloc_mw_in, kMaxObjects> mws;  // by key index
  Table<vhca_cmd_alloc_dm_in, kMaxObjects> dms;  // by first page of BAR 3
  Table<vhca_cmd_reg_dm_mr_in, kMaxObjects> dm_mrs;  // by key index
  Set<uint64_t, kMaxMcast> mcast;              // McastKey(qpn, mlid)
  Log<DataDoorbell, kLogSize> data_doorbells;
  vhca_node_desc node_desc = {};

  static uint64_t McastKey(uint32_t qpn, uint16_t mlid) {
    return (uint64_t{qpn} << 16) | mlid;
  }

  // The environment's lock for one scope (fake_internal.h): for readers
  // of the fields above that run concurrently with the device (KUnit).
  class Locked;

 private:
  void Reset();
  void Enable();
  void ExecuteOne();
  uint8_t Execute(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t ExecutePort(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t CreateEq(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t ExecuteDataPath(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t CreateCq(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t DestroyCq(uint32_t cqn);
  uint8_t CreateQp(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t ModifyQp(const vhca_cmd& cmd);
  uint8_t CreateSrq(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t DestroySrq(uint32_t srqn);
  uint8_t ResizeSrq(const vhca_cmd& cmd, uint32_t srqn, uint32_t result[2]);
  uint8_t RegisterMr(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t OdpRange(const vhca_cmd& cmd);
  uint8_t AllocMr(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t DestroyMr(uint32_t key);
  uint8_t AllocMw(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t Multicast(const vhca_cmd& cmd);
  uint8_t AllocDm(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t RegDmMr(const vhca_cmd& cmd, uint32_t result[2]);
  uint8_t MigrateCq(Cq* cq, const vhca_cmd_create_cq& in);
  int PostEventLocked(uint32_t eqn, const vhca_eqe& event);
  void Raise(uint32_t vector);
  template <typename T>
  bool ReadIn(const vhca_cmd& cmd, T* in);
  bool WriteOut(const vhca_cmd& cmd, const void* data, uint32_t size);
  void* Dma(uint64_t addr, uint64_t len);
  bool RingReachable(const vhca_buf_desc& desc, uint64_t bytes);
  // A receive doorbell record: none (0), or 8-byte aligned in DMA memory.
  bool RecordReachable(uint64_t addr);
  void* RingSlot(const vhca_buf_desc& desc, uint64_t offset, uint32_t len);
  // The page list of a region into the MTT; false when it does not fit.
  bool CopyPages(const vhca_buf_desc& desc, Mr* mr);
  void FreePages(Mr* mr);
  vhca_fake_env* env_;
  uint32_t hung_tokens_[64] = {};
  uint32_t num_hung_ = 0;
  uint32_t next_mr_index_ = 1;
  uint32_t next_dm_page_ = 0;  // allocations are never reused
  uint64_t irq_pending_ = 0;  // bit per vector
  uint64_t mtt_[kMttEntries] = {};
  bool mtt_used_[kMttEntries] = {};
};

}  // namespace fake
}  // namespace vhca

#endif  // VHCA_FAKE_DEVICE_H
