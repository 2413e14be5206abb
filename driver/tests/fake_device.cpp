// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "fake_device.h"

#include <gtest/gtest.h>

#include <cstring>

#include "fake_kernel.h"

namespace {
FakeDevice* g_device = nullptr;
}

FakeDevice::FakeDevice() { g_device = this; }
FakeDevice::~FakeDevice() { g_device = nullptr; }

void FakeDevice::RunAll() {
  if (g_device) g_device->Run();
}

uint32_t FakeDevice::ReadRegister(uint32_t offset) {
  switch (offset) {
    case VHCA_REG_VERSION:
      return version;
    case VHCA_REG_CAPS:
      return num_ports | (uint32_t{num_vectors} << 8) |
             (uint32_t{max_log_cmdq} << 16) | (uint32_t{max_log_eq} << 24);
    case VHCA_REG_DB_PAGES:
      return 16;
    case VHCA_REG_STATUS:
      return (enabled ? VHCA_STATUS_ENABLED : 0) |
             (fatal ? VHCA_STATUS_FATAL : 0) | (uint32_t{fatal_code} << 8);
    case VHCA_REG_CMDQ_CI:
      return cmdq_ci;
    default:
      return 0;
  }
}

void FakeDevice::WriteRegister(uint32_t offset, uint32_t value) {
  const bool writable = !enabled;
  switch (offset) {
    case VHCA_REG_CONTROL:
      if (value & VHCA_CONTROL_RESET) Reset();
      if (value & VHCA_CONTROL_ENABLE) Enable();
      break;
    case VHCA_REG_CMDQ_BASE_LO:
      if (writable) cmdq_base = (cmdq_base & ~0xffffffffull) | value;
      break;
    case VHCA_REG_CMDQ_BASE_HI:
      if (writable) cmdq_base = (cmdq_base & 0xffffffffull) | (uint64_t{value} << 32);
      break;
    case VHCA_REG_CMDQ_LOG_SIZE:
      if (writable) cmdq_log = value;
      break;
    case VHCA_REG_EQ0_BASE_LO:
      if (writable) eqs[0].base = (eqs[0].base & ~0xffffffffull) | value;
      break;
    case VHCA_REG_EQ0_BASE_HI:
      if (writable)
        eqs[0].base = (eqs[0].base & 0xffffffffull) | (uint64_t{value} << 32);
      break;
    case VHCA_REG_EQ0_LOG_SIZE:
      if (writable) eqs[0].log_size = value;
      break;
    default:
      ADD_FAILURE() << "write to read-only/unknown register " << offset;
  }
}

void FakeDevice::Reset() {
  resets++;
  enabled = fatal = false;
  fatal_code = 0;
  cmdq_base = 0;
  cmdq_log = 0;
  cmdq_pi = cmdq_ci = 0;
  for (auto& eq : eqs) eq = Eq{};
  pds.clear();
  cqs.clear();
  qps.clear();
  srqs.clear();
  mrs.clear();
  mcast.clear();
  hung_tokens_.clear();
  for (auto& pending : irq_pending_) pending = false;
}

void FakeDevice::Enable() {
  enables++;
  if (fail_enable || cmdq_base == 0 || cmdq_base % VHCA_QUEUE_ALIGN ||
      cmdq_log < VHCA_MIN_LOG_CMDQ || cmdq_log > max_log_cmdq) {
    fatal = true;
    fatal_code = VHCA_FATAL_BAD_CMDQ_CONFIG;
    return;
  }
  if (eqs[0].base == 0 || eqs[0].base % VHCA_QUEUE_ALIGN ||
      eqs[0].log_size < VHCA_MIN_LOG_EQ || eqs[0].log_size > max_log_eq) {
    fatal = true;
    fatal_code = VHCA_FATAL_BAD_EQ0_CONFIG;
    return;
  }
  EXPECT_TRUE(FakeKernel::Current().IsDmaRange(
      cmdq_base, sizeof(vhca_cmd) << cmdq_log));
  EXPECT_TRUE(FakeKernel::Current().IsDmaRange(
      eqs[0].base, sizeof(vhca_eqe) << eqs[0].log_size));
  eqs[0].live = true;
  enabled = true;
}

void FakeDevice::WriteDoorbell(uint32_t offset, uint32_t value) {
  if (offset == VHCA_DB_CMDQ_PI) {
    EXPECT_LE(value - cmdq_ci, 1u << cmdq_log) << "command queue overrun";
    cmdq_pi = value;
    return;
  }
  ASSERT_EQ(offset, uint32_t{VHCA_DB_EQ});
  eq_doorbells.push_back(value);
  const uint32_t eqn = (value >> VHCA_DB_EQ_EQN_SHIFT) & VHCA_DB_EQ_EQN_MASK;
  ASSERT_LT(eqn, uint32_t{VHCA_MAX_EQS});
  Eq& eq = eqs[eqn];
  ASSERT_TRUE(eq.live) << "doorbell for EQ " << eqn << " that does not exist";
  eq.consumer = value & VHCA_DB_EQ_CI_MASK;
  if (value & VHCA_DB_EQ_ARM) {
    eq.armed = true;
    // Arming with unconsumed events fires at once.
    if ((eq.producer & VHCA_DB_EQ_CI_MASK) != eq.consumer) {
      irq_pending_[eq.vector] = true;
      eq.armed = false;
    }
  }
}

bool FakeDevice::OwnsRing(uint64_t dma) const {
  if (!enabled) return false;
  if (dma == cmdq_base) return true;
  for (const auto& eq : eqs)
    if (eq.live && eq.base == dma) return true;
  for (const auto& cq : cqs)
    if (cq.second.in.buf.addr == dma) return true;
  for (const auto& qp : qps)
    if (qp.second.in.sq_buf.addr == dma ||
        (qp.second.in.rq_buf.npages && qp.second.in.rq_buf.addr == dma))
      return true;
  for (const auto& srq : srqs)
    if (srq.second.in.buf.addr == dma) return true;
  return false;
}

void* FakeDevice::Dma(uint64_t addr, uint32_t len) {
  if (!FakeKernel::Current().IsDmaRange(addr, len)) {
    ADD_FAILURE() << "device DMA outside any live buffer: 0x" << std::hex
                  << addr;
    return nullptr;
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
}

void FakeDevice::PostEvent(uint32_t eqn, const vhca_eqe& event) {
  Eq& eq = eqs[eqn];
  ASSERT_TRUE(eq.live);
  const uint32_t size = 1u << eq.log_size;
  ASSERT_LT(eq.producer - eq.consumer, size) << "EQ " << eqn << " overflow";
  auto* ring = static_cast<vhca_eqe*>(Dma(eq.base, sizeof(vhca_eqe) * size));
  ASSERT_NE(ring, nullptr);
  vhca_eqe* slot = &ring[eq.producer & (size - 1)];
  // The 31 leading bytes first, the owner byte last.
  memcpy(slot, &event, offsetof(vhca_eqe, owner));
  slot->owner = vhca_eqe_owner(eq.producer, eq.log_size);
  eq.producer++;
  if (eq.armed) {
    eq.armed = false;
    irq_pending_[eq.vector] = true;
  }
}

void FakeDevice::PostPortEvent(uint8_t port, uint8_t subtype, uint8_t state,
                               uint16_t lid) {
  ports[port - 1].state = state;
  ports[port - 1].lid = lid;
  vhca_eqe event{};
  event.type = VHCA_EQE_PORT_EVENT;
  event.subtype = subtype;
  event.data.port.port = port;
  event.data.port.state = state;
  event.data.port.lid = lid;
  PostEvent(0, event);
}

void FakeDevice::Run() {
  for (int round = 0; round < 1000; round++) {
    bool busy = false;
    while (enabled && cmdq_ci != cmdq_pi) {
      const uint32_t size = 1u << cmdq_log;
      auto* ring = static_cast<vhca_cmd*>(Dma(cmdq_base, sizeof(vhca_cmd) * size));
      ASSERT_NE(ring, nullptr);
      const vhca_cmd cmd = ring[cmdq_ci & (size - 1)];
      cmdq_ci++;
      ExecuteOne(cmd);
      busy = true;
    }
    for (uint32_t v = 0; v < VHCA_MAX_VECTORS; v++)
      if (irq_pending_[v]) busy = true;
    if (!busy) return;
    DeliverInterrupts();
  }
  ADD_FAILURE() << "device never went idle";
}

void FakeDevice::DeliverInterrupts() {
  for (uint32_t v = 0; v < VHCA_MAX_VECTORS; v++) {
    if (!irq_pending_[v]) continue;
    irq_pending_[v] = false;
    irqs_delivered.push_back(v);
    if (!core) continue;
    FakeKernel::Current().in_irq_vector = static_cast<int>(v);
    vhca_core_irq(core, v);
    FakeKernel::Current().in_irq_vector = -1;
  }
}

void FakeDevice::ExecuteOne(const vhca_cmd& cmd) {
  executed.push_back(cmd);
  if (hang) {
    hung_tokens_.push_back(cmd.token);
    return;
  }
  vhca_eqe event{};
  event.type = VHCA_EQE_CMD_DONE;
  event.data.cmd_done.token = cmd.token;
  uint32_t result[2] = {0, 0};
  // A forced failure replaces the execution: a failed command has no
  // effect on the device (no object is created).
  auto forced = forced_status.find(cmd.opcode);
  const bool fail = forced != forced_status.end() && forced->second != VHCA_CMD_OK;
  event.data.cmd_done.status = fail ? forced->second : Execute(cmd, result);
  event.data.cmd_done.result[0] = result[0];
  event.data.cmd_done.result[1] = result[1];
  PostEvent(0, event);
}

void FakeDevice::CompleteHungCommands() {
  for (uint32_t token : hung_tokens_) {
    vhca_eqe event{};
    event.type = VHCA_EQE_CMD_DONE;
    event.data.cmd_done.token = token;
    PostEvent(0, event);
  }
  hung_tokens_.clear();
}

bool FakeDevice::WriteOut(const vhca_cmd& cmd, const void* data, uint32_t size) {
  if (cmd.out_len < size) return false;
  void* out = Dma(cmd.out_addr, size);
  if (!out) return false;
  memcpy(out, data, size);
  return true;
}

uint8_t FakeDevice::Execute(const vhca_cmd& cmd, uint32_t result[2]) {
  EXPECT_EQ(cmd.flags, 0);
  const uint8_t port = cmd.in.port.port;
  switch (cmd.opcode) {
    case VHCA_CMD_QUERY_DEVICE: {
      vhca_device_attr attr{};
      attr.node_guid = node_guid;
      attr.sys_image_guid = node_guid;
      attr.fw_version = (1ull << 32) | (2ull << 16) | 3;
      attr.vendor_id = 0x1af4;
      attr.vendor_part_id = 0x10f0;
      attr.num_ports = num_ports;
      attr.num_vectors = num_vectors;
      attr.max_eq = num_vectors;
      attr.max_pd = max_pd;
      if (data_path) {
        attr.max_qp = max_qp;
        attr.max_qp_wr = max_qp_wr;
        attr.max_sge = max_sge;
        attr.max_cq = max_cq;
        attr.max_cqe = max_cqe;
        attr.max_mr = max_mr;
        attr.max_srq = max_srq;
        attr.max_srq_wr = max_srq_wr;
        attr.max_mr_size = 1ull << 40;
        attr.max_mw = max_mr;
        attr.dev_caps = dev_caps;
      }
      return WriteOut(cmd, &attr, sizeof(attr)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_QUERY_PORT: {
      if (port < 1 || port > num_ports) return VHCA_CMD_BAD_PARAM;
      vhca_port_attr attr{};
      attr.state = ports[port - 1].state;
      attr.phys_state = attr.state == VHCA_PORT_DOWN ? VHCA_PHYS_DISABLED
                                                     : VHCA_PHYS_LINK_UP;
      attr.lid = ports[port - 1].lid;
      attr.sm_lid = 1;
      attr.gid_tbl_len = VHCA_GID_TABLE_LEN;
      attr.pkey_tbl_len = VHCA_PKEY_TABLE_LEN;
      attr.port_guid = node_guid + port;
      attr.port_cap_flags = ports[port - 1].cap_mask;
      return WriteOut(cmd, &attr, sizeof(attr)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_SET_PORT_CAP: {
      const auto& in = cmd.in.port_cap;
      if (in.port < 1 || in.port > num_ports ||
          ((in.set | in.clear) & ~VHCA_PORT_CAP_SETTABLE))
        return VHCA_CMD_BAD_PARAM;
      uint32_t& mask = ports[in.port - 1].cap_mask;
      mask = (mask | in.set) & ~in.clear;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_QUERY_GID: {
      if (port < 1 || port > num_ports || cmd.in.table.index >= VHCA_GID_TABLE_LEN)
        return VHCA_CMD_BAD_PARAM;
      vhca_gid gid{};
      if (cmd.in.table.index == 0) {
        const uint64_t prefix = VHCA_GID_PREFIX_DEFAULT, guid = node_guid + port;
        for (int i = 0; i < 8; i++) {
          gid.raw[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
          gid.raw[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
        }
      }
      return WriteOut(cmd, &gid, sizeof(gid)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_QUERY_PKEY:
      if (port < 1 || port > num_ports || cmd.in.table.index >= VHCA_PKEY_TABLE_LEN)
        return VHCA_CMD_BAD_PARAM;
      result[0] = cmd.in.table.index == 0 ? VHCA_DEFAULT_PKEY : 0;
      return VHCA_CMD_OK;
    case VHCA_CMD_SET_NODE_DESC: {
      if (cmd.in_len != sizeof(node_desc)) return VHCA_CMD_BAD_SIZE;
      void* in = Dma(cmd.in_addr, cmd.in_len);
      if (!in) return VHCA_CMD_BAD_ADDR;
      memcpy(&node_desc, in, sizeof(node_desc));
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_CREATE_EQ: {
      const auto& in = cmd.in.create_eq;
      if (in.vector < 1 || in.vector >= num_vectors || in.log_size < VHCA_MIN_LOG_EQ ||
          in.log_size > max_log_eq || in.base % VHCA_QUEUE_ALIGN)
        return VHCA_CMD_BAD_PARAM;
      if (!Dma(in.base, sizeof(vhca_eqe) << in.log_size)) return VHCA_CMD_BAD_ADDR;
      for (uint32_t eqn = 1; eqn < VHCA_MAX_EQS; eqn++) {
        if (eqs[eqn].live) continue;
        eqs[eqn] = Eq{};
        eqs[eqn].live = true;
        eqs[eqn].base = in.base;
        eqs[eqn].log_size = in.log_size;
        eqs[eqn].vector = in.vector;
        result[0] = eqn;
        return VHCA_CMD_OK;
      }
      return VHCA_CMD_NO_RESOURCES;
    }
    case VHCA_CMD_DESTROY_EQ: {
      const uint32_t eqn = cmd.in.handle.handle;
      if (eqn == 0 || eqn >= VHCA_MAX_EQS || !eqs[eqn].live) return VHCA_CMD_BAD_HANDLE;
      eqs[eqn] = Eq{};
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_ALLOC_PD:
      for (uint32_t pdn = 1; pdn <= max_pd; pdn++) {
        if (pds.count(pdn)) continue;
        pds.insert(pdn);
        result[0] = pdn;
        return VHCA_CMD_OK;
      }
      return VHCA_CMD_NO_RESOURCES;
    case VHCA_CMD_DEALLOC_PD:
      return pds.erase(cmd.in.handle.handle) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    default:
      if (!data_path) return VHCA_CMD_BAD_OPCODE;
      return ExecuteDataPath(cmd, result);
  }
}
