// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Typed access to the device's BAR 0 registers and BAR 4 doorbell page 0
// (vhca_hw.h "BAR 0 register map" and "Doorbells").  The only code in the
// core that knows register offsets and bit layouts; everyone else deals in
// the structs below.
#ifndef VHCA_CORE_REGISTERS_H
#define VHCA_CORE_REGISTERS_H

#include "vhca_hw.h"
#include "vhca_kapi.h"

namespace vhca {

struct AbiVersion {
  uint16_t major;
  uint16_t minor;
};

struct DeviceCaps {
  uint8_t num_ports;
  uint8_t num_vectors;
  uint8_t max_log_cmdq;
  uint8_t max_log_eq;
};

struct DeviceStatus {
  bool enabled;
  bool fatal;
  uint8_t fatal_code;  // enum vhca_fatal
};

class Registers {
 public:
  explicit Registers(vhca_kapi_device* kdev) : kdev_(kdev) {}

  AbiVersion ReadVersion() const {
    const uint32_t raw = Read(VHCA_REG_VERSION);
    return {static_cast<uint16_t>(raw >> 16), static_cast<uint16_t>(raw & 0xffff)};
  }
  DeviceCaps ReadCaps() const {
    const uint32_t raw = Read(VHCA_REG_CAPS);
    return {static_cast<uint8_t>(VHCA_CAPS_NUM_PORTS(raw)),
            static_cast<uint8_t>(VHCA_CAPS_NUM_VECTORS(raw)),
            static_cast<uint8_t>(VHCA_CAPS_MAX_LOG_CMDQ(raw)),
            static_cast<uint8_t>(VHCA_CAPS_MAX_LOG_EQ(raw))};
  }
  DeviceStatus ReadStatus() const {
    const uint32_t raw = Read(VHCA_REG_STATUS);
    return {(raw & VHCA_STATUS_ENABLED) != 0, (raw & VHCA_STATUS_FATAL) != 0,
            static_cast<uint8_t>(VHCA_STATUS_FATAL_CODE(raw))};
  }
  uint32_t ReadCmdqConsumerIndex() const { return Read(VHCA_REG_CMDQ_CI); }
  uint32_t ReadDoorbellPages() const { return Read(VHCA_REG_DB_PAGES); }

  // CONTROL=RESET is synchronous: when the write returns, the device has
  // stopped all DMA and forgotten its queues.
  void Reset() { Write(VHCA_REG_CONTROL, VHCA_CONTROL_RESET); }
  void Enable() { Write(VHCA_REG_CONTROL, VHCA_CONTROL_ENABLE); }

  // Writable only while the device is not ENABLED.
  void SetCmdq(uint64_t base, uint32_t log_size) {
    Write(VHCA_REG_CMDQ_BASE_LO, static_cast<uint32_t>(base));
    Write(VHCA_REG_CMDQ_BASE_HI, static_cast<uint32_t>(base >> 32));
    Write(VHCA_REG_CMDQ_LOG_SIZE, log_size);
  }
  void SetEq0(uint64_t base, uint32_t log_size) {
    Write(VHCA_REG_EQ0_BASE_LO, static_cast<uint32_t>(base));
    Write(VHCA_REG_EQ0_BASE_HI, static_cast<uint32_t>(base >> 32));
    Write(VHCA_REG_EQ0_LOG_SIZE, log_size);
  }

  // Doorbells.  The kernel's writel orders the ring writes before them.
  void RingCmdq(uint32_t producer_index) {
    vhca_kapi_db_write32(kdev_, VHCA_DB_CMDQ_PI, producer_index);
  }
  void RingEq(uint32_t eqn, uint32_t consumer_index, bool arm) {
    vhca_kapi_db_write32(kdev_, VHCA_DB_EQ,
                         vhca_db_eq_value(eqn, consumer_index, arm ? 1 : 0));
  }

  // A data doorbell (vhca_hw_verbs.h "Data doorbells"): one 64-bit write
  // of vhca_db_data_value() to the kernel's doorbell page.
  void RingData(uint32_t offset, uint32_t object, uint32_t flags,
                uint32_t index) {
    vhca_kapi_db_write64(kdev_, offset, vhca_db_data_value(object, flags, index));
  }

  vhca_kapi_device* kdev() const { return kdev_; }

 private:
  uint32_t Read(uint32_t offset) const {
    return vhca_kapi_reg_read32(kdev_, offset);
  }
  void Write(uint32_t offset, uint32_t value) {
    vhca_kapi_reg_write32(kdev_, offset, value);
  }

  vhca_kapi_device* kdev_;
};

}  // namespace vhca

#endif  // VHCA_CORE_REGISTERS_H
