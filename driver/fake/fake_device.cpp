// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fake device's registers, command queue, event queues and interrupts,
// and its control path commands (fake_device.h explains the model).
#include "fake_device.h"

#include "fake_internal.h"
#include "../core/memory.h"
#include "vhca_errno.h"

namespace vhca {
namespace fake {

Device::Device(vhca_fake_env* env) : env_(env) {
  for (auto& port : ports) {
    port.state = VHCA_PORT_ACTIVE;
    port.lid = 0;
    port.cap_mask = VHCA_PORT_CAP_CM;
  }
}

uint32_t Device::ReadRegister(uint32_t offset) {
  Locked lock(env_);
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

namespace {
void SetLow(uint64_t* value, uint32_t low) { *value = (*value & ~0xffffffffull) | low; }
void SetHigh(uint64_t* value, uint32_t high) {
  *value = (*value & 0xffffffffull) | (uint64_t{high} << 32);
}
}  // namespace

void Device::WriteRegister(uint32_t offset, uint32_t value) {
  Locked lock(env_);
  // The queue registers are latched at ENABLE: writes while enabled are
  // ignored (Documentation/device.md "Registers").
  const bool writable = !enabled;
  switch (offset) {
    case VHCA_REG_CONTROL:
      if (value & VHCA_CONTROL_RESET) Reset();
      if (value & VHCA_CONTROL_ENABLE) Enable();
      break;
    case VHCA_REG_CMDQ_BASE_LO:
      if (writable) SetLow(&cmdq_base, value);
      break;
    case VHCA_REG_CMDQ_BASE_HI:
      if (writable) SetHigh(&cmdq_base, value);
      break;
    case VHCA_REG_CMDQ_LOG_SIZE:
      if (writable) cmdq_log = value;
      break;
    case VHCA_REG_EQ0_BASE_LO:
      if (writable) SetLow(&eqs[0].base, value);
      break;
    case VHCA_REG_EQ0_BASE_HI:
      if (writable) SetHigh(&eqs[0].base, value);
      break;
    case VHCA_REG_EQ0_LOG_SIZE:
      if (writable) eqs[0].log_size = value;
      break;
    default:
      VHCA_FAKE_VIOLATION("write to read-only/unknown register 0x%x", offset);
  }
}

// RESET forgets every queue and object (Documentation/device.md).
void Device::Reset() {
  resets++;
  enabled = fatal = false;
  fatal_code = 0;
  cmdq_base = 0;
  cmdq_log = cmdq_pi = cmdq_ci = 0;
  for (auto& eq : eqs) eq = Eq{};
  pds.clear();
  cqs.clear();
  qps.clear();
  srqs.clear();
  mrs.clear();
  mws.clear();
  dms.clear();
  dm_mrs.clear();
  mcast.clear();
  for (auto& used : mtt_used_) used = false;
  num_hung_ = 0;
  irq_pending_ = 0;
}

void Device::Enable() {
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
  if (!Dma(cmdq_base, sizeof(vhca_cmd) << cmdq_log) ||
      !Dma(eqs[0].base, sizeof(vhca_eqe) << eqs[0].log_size)) {
    fatal = true;
    fatal_code = VHCA_FATAL_BAD_CMDQ_CONFIG;
    return;
  }
  eqs[0].live = true;
  enabled = true;
}

void Device::WriteDoorbell(uint32_t offset, uint32_t value) {
  Locked lock(env_);
  if (offset == VHCA_DB_CMDQ_PI) {
    if (value - cmdq_ci > (1u << cmdq_log))
      VHCA_FAKE_VIOLATION("command queue overrun: pi %u ci %u", value, cmdq_ci);
    cmdq_pi = value;
    if (enabled) vhca_fake_env_kick(env_);
    return;
  }
  eq_doorbells.push_back(value);
  const uint32_t eqn = (value >> VHCA_DB_EQ_EQN_SHIFT) & VHCA_DB_EQ_EQN_MASK;
  if (offset != VHCA_DB_EQ || eqn >= VHCA_MAX_EQS || !eqs[eqn].live) {
    VHCA_FAKE_VIOLATION("doorbell 0x%x at 0x%x for an EQ that does not exist", value,
                        offset);
    return;
  }
  Eq& eq = eqs[eqn];
  eq.consumer = value & VHCA_DB_EQ_CI_MASK;
  if (value & VHCA_DB_EQ_ARM) {
    eq.armed = true;
    // Arming with unconsumed events fires at once.
    if ((eq.producer & VHCA_DB_EQ_CI_MASK) != eq.consumer) {
      eq.armed = false;
      Raise(eq.vector);
    }
  }
}

void* Device::Dma(uint64_t addr, uint64_t len) {
  if (!vhca_fake_env_dma_live(env_, addr, len)) {
    VHCA_FAKE_VIOLATION("device DMA outside any live buffer: 0x%llx, %llu bytes",
                        static_cast<unsigned long long>(addr),
                        static_cast<unsigned long long>(len));
    return nullptr;
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
}

void Device::Raise(uint32_t vector) {
  irq_pending_ |= uint64_t{1} << vector;
  vhca_fake_env_raise(env_, vector);
}

int Device::PostEventLocked(uint32_t eqn, const vhca_eqe& event) {
  if (eqn >= VHCA_MAX_EQS || !eqs[eqn].live) return -VHCA_EINVAL;
  Eq& eq = eqs[eqn];
  const uint32_t size = 1u << eq.log_size;
  if (eq.producer - eq.consumer >= size) return -VHCA_ENOSPC;
  auto* ring = static_cast<vhca_eqe*>(Dma(eq.base, sizeof(vhca_eqe) * size));
  if (!ring) return -VHCA_EFAULT;
  vhca_eqe* slot = &ring[eq.producer & (size - 1)];
  // The 31 leading bytes first, the owner byte last (dma_wmb between).
  CopyBytes(slot, &event, offsetof(vhca_eqe, owner));
  vhca_kapi_dma_wmb();
  *static_cast<volatile uint8_t*>(&slot->owner) = vhca_eqe_owner(eq.producer, eq.log_size);
  eq.producer++;
  if (eq.armed) {
    eq.armed = false;
    Raise(eq.vector);
  }
  return 0;
}

int Device::PostEvent(uint32_t eqn, const vhca_eqe& event) {
  Locked lock(env_);
  return PostEventLocked(eqn, event);
}

void Device::SetPort(uint8_t port, uint8_t state, uint16_t lid) {
  if (port < 1 || port > VHCA_MAX_PORTS) return;
  Locked lock(env_);
  ports[port - 1].state = state;
  ports[port - 1].lid = lid;
}

int Device::PostPortEvent(uint8_t port, uint8_t subtype, uint8_t state, uint16_t lid) {
  SetPort(port, state, lid);
  vhca_eqe event{};
  event.type = VHCA_EQE_PORT_EVENT;
  event.subtype = subtype;
  event.data.port.port = port;
  event.data.port.state = state;
  event.data.port.lid = lid;
  return PostEvent(0, event);
}

void Device::RunCommands() {
  for (;;) {
    Locked lock(env_);
    if (!enabled || cmdq_ci == cmdq_pi) return;
    ExecuteOne();
  }
}

void Device::ExecuteOne() {
  const uint32_t size = 1u << cmdq_log;
  const uint32_t slot = cmdq_ci & (size - 1);
  cmdq_ci++;
  auto* ring = static_cast<vhca_cmd*>(Dma(cmdq_base, sizeof(vhca_cmd) * size));
  if (!ring) return;
  vhca_cmd cmd;
  CopyBytes(&cmd, &ring[slot], sizeof(cmd));
  executed.push_back(cmd);
  executed_slots.push_back(slot);
  if (hang) {
    if (num_hung_ < sizeof(hung_tokens_) / sizeof(hung_tokens_[0]))
      hung_tokens_[num_hung_++] = cmd.token;
    return;
  }
  vhca_eqe event{};
  event.type = VHCA_EQE_CMD_DONE;
  event.data.cmd_done.token = cmd.token;
  uint32_t result[2] = {0, 0};
  // A forced failure replaces the execution: a failed command has no
  // effect on the device (no object is created).
  const uint8_t forced = forced_status.failure(cmd.opcode);
  event.data.cmd_done.status = forced ? forced : Execute(cmd, result);
  event.data.cmd_done.result[0] = result[0];
  event.data.cmd_done.result[1] = result[1];
  // EQ 0 holds a completion for every command the ring holds: the driver
  // sizes it so (Documentation/device.md "Command queue").
  if (PostEventLocked(0, event))
    VHCA_FAKE_VIOLATION("no room on EQ 0 for the completion of token 0x%x", cmd.token);
}

void Device::CompleteHungCommands() {
  Locked lock(env_);
  for (uint32_t i = 0; i < num_hung_; i++) {
    vhca_eqe event{};
    event.type = VHCA_EQE_CMD_DONE;
    event.data.cmd_done.token = hung_tokens_[i];
    if (PostEventLocked(0, event))
      VHCA_FAKE_VIOLATION("no room on EQ 0 for a late completion");
  }
  num_hung_ = 0;
}

void Device::DeliverInterrupt(uint32_t vector) {
  if (vector >= VHCA_MAX_VECTORS) return;
  vhca_core_device* target;
  {
    Locked lock(env_);
    irq_pending_ &= ~(uint64_t{1} << vector);
    irqs_delivered.push_back(vector);
    irqs[vector]++;
    target = core;
  }
  if (target) vhca_fake_env_irq_handler(env_, target, vector);
}

void Device::Run() {
  for (int round = 0; round < 1000; round++) {
    RunCommands();
    uint64_t pending;
    {
      Locked lock(env_);
      pending = irq_pending_;
    }
    if (!pending) return;
    for (uint32_t v = 0; v < VHCA_MAX_VECTORS; v++)
      if (pending & (uint64_t{1} << v)) DeliverInterrupt(v);
  }
  Locked lock(env_);
  VHCA_FAKE_VIOLATION("device never went idle");
}

bool Device::EqIdle(uint32_t eqn) {
  Locked lock(env_);
  if (eqn >= VHCA_MAX_EQS) return false;
  const Eq& eq = eqs[eqn];
  return eq.live && (eq.producer & VHCA_DB_EQ_CI_MASK) == eq.consumer && eq.armed;
}

bool Device::OwnsRing(uint64_t dma) {
  Locked lock(env_);
  if (!enabled) return false;
  if (dma == cmdq_base) return true;
  for (const auto& eq : eqs)
    if (eq.live && eq.base == dma) return true;
  return cqs.any([dma](uint32_t, const Cq& cq) { return cq.in.buf.addr == dma; }) ||
         qps.any([dma](uint32_t, const Qp& qp) {
           return qp.in.sq_buf.addr == dma || (qp.in.rq_buf.npages && qp.in.rq_buf.addr == dma);
         }) ||
         srqs.any([dma](uint32_t, const Srq& srq) { return srq.in.buf.addr == dma; });
}

bool Device::WriteOut(const vhca_cmd& cmd, const void* data, uint32_t size) {
  if (cmd.out_len < size) return false;
  void* out = Dma(cmd.out_addr, size);
  if (!out) return false;
  CopyBytes(out, data, size);
  return true;
}

uint8_t Device::CreateEq(const vhca_cmd& cmd, uint32_t result[2]) {
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

// The port commands: QUERY_PORT, SET_PORT_CAP, QUERY_GID, QUERY_PKEY.
uint8_t Device::ExecutePort(const vhca_cmd& cmd, uint32_t result[2]) {
  const uint8_t port = cmd.in.port.port;
  switch (cmd.opcode) {
    case VHCA_CMD_QUERY_PORT: {
      if (port < 1 || port > num_ports) return VHCA_CMD_BAD_PARAM;
      vhca_port_attr attr{};
      attr.state = ports[port - 1].state;
      attr.phys_state = attr.state == VHCA_PORT_DOWN ? VHCA_PHYS_DISABLED : VHCA_PHYS_LINK_UP;
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
      if (in.port < 1 || in.port > num_ports || ((in.set | in.clear) & ~VHCA_PORT_CAP_SETTABLE))
        return VHCA_CMD_BAD_PARAM;
      uint32_t& mask = ports[in.port - 1].cap_mask;
      mask = (mask | in.set) & ~in.clear;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_QUERY_GID: {
      if (port < 1 || port > num_ports || cmd.in.table.index >= VHCA_GID_TABLE_LEN)
        return VHCA_CMD_BAD_PARAM;
      vhca_gid gid{};
      if (cmd.in.table.index == 0) {  // the default GID: subnet prefix + port GUID
        const uint64_t prefix = VHCA_GID_PREFIX_DEFAULT, guid = node_guid + port;
        for (int i = 0; i < 8; i++) {
          gid.raw[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
          gid.raw[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
        }
      }
      return WriteOut(cmd, &gid, sizeof(gid)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    default:  // VHCA_CMD_QUERY_PKEY
      if (port < 1 || port > num_ports || cmd.in.table.index >= VHCA_PKEY_TABLE_LEN)
        return VHCA_CMD_BAD_PARAM;
      result[0] = cmd.in.table.index == 0 ? VHCA_DEFAULT_PKEY : 0;
      return VHCA_CMD_OK;
  }
}

uint8_t Device::Execute(const vhca_cmd& cmd, uint32_t result[2]) {
  if (cmd.flags) VHCA_FAKE_VIOLATION("command 0x%x with reserved flags 0x%x", cmd.opcode, cmd.flags);
  switch (cmd.opcode) {
    case VHCA_CMD_QUERY_DEVICE: {
      vhca_device_attr attr{};
      attr.node_guid = node_guid;
      attr.sys_image_guid = node_guid;
      attr.fw_version = VHCA_FW_VERSION_PACK(1, 2, 3);
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
        if (dev_caps & VHCA_DEV_CAP_DM) attr.max_dm_size = max_dm_size;
      }
      return WriteOut(cmd, &attr, sizeof(attr)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_QUERY_PORT:
    case VHCA_CMD_SET_PORT_CAP:
    case VHCA_CMD_QUERY_GID:
    case VHCA_CMD_QUERY_PKEY:
      return ExecutePort(cmd, result);
    case VHCA_CMD_MAD_IFC: {
      // The SMA's part only as far as the core sees it: a directed-route
      // Get of hop count 0 is answered (GetResp), SMInfo is not.
      const uint8_t port = cmd.in.port.port;
      if (port < 1 || port > num_ports) return VHCA_CMD_BAD_PARAM;
      if (cmd.in_len < sizeof(vhca_mad)) return VHCA_CMD_BAD_SIZE;
      void* in = Dma(cmd.in_addr, sizeof(vhca_mad));
      if (!in) return VHCA_CMD_BAD_ADDR;
      vhca_mad mad;
      CopyBytes(&mad, in, sizeof(mad));
      result[0] = mad.data[1] == 0x81 && mad.data[7] == 0 && mad.data[3] == 0x01 &&
                  !(mad.data[16] == 0 && mad.data[17] == 0x20);
      if (!result[0]) return VHCA_CMD_OK;
      mad.data[3] = 0x81;
      return WriteOut(cmd, &mad, sizeof(mad)) ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_SET_NODE_DESC: {
      if (cmd.in_len != sizeof(node_desc)) return VHCA_CMD_BAD_SIZE;
      void* in = Dma(cmd.in_addr, cmd.in_len);
      if (!in) return VHCA_CMD_BAD_ADDR;
      CopyBytes(&node_desc, in, sizeof(node_desc));
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_CREATE_EQ:
      return CreateEq(cmd, result);
    case VHCA_CMD_DESTROY_EQ: {
      const uint32_t eqn = cmd.in.handle.handle;
      if (eqn == 0 || eqn >= VHCA_MAX_EQS || !eqs[eqn].live) return VHCA_CMD_BAD_HANDLE;
      eqs[eqn] = Eq{};
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_ALLOC_PD:
      for (uint32_t pdn = 1; pdn <= max_pd && pdn <= kMaxPd; pdn++) {
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

}  // namespace fake
}  // namespace vhca
