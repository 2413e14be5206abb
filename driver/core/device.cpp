// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "device.h"

#include "endian.h"
#include "log.h"
#include "memory.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

uint32_t Clamp(uint32_t value, uint32_t low, uint32_t high) {
  return value < low ? low : value > high ? high : value;
}

// The object limits ib_core sees are the ones the registry's tables hold.
void ClampObjectLimits(vhca_device_attr* attr) {
  vhca_le32* const limits[] = {&attr->max_qp, &attr->max_cq, &attr->max_srq};
  for (vhca_le32* limit : limits)
    if (FromLe32(*limit) > ObjectRegistry::kMaxObjects)
      *limit = ToLe32(ObjectRegistry::kMaxObjects);
}

// Polls for ENABLE's effect (the device applies it synchronously; the
// loop tolerates a device that takes a moment).
constexpr uint32_t kEnablePolls = 50;
constexpr uint32_t kEnablePollMs = 2;

}  // namespace

Result<OwnedPtr<Device>> Device::Create(vhca_kapi_device* kdev) {
  OwnedPtr<Device> device(new Device(kdev));
  if (!device) return Error{-VHCA_ENOMEM};
  VHCA_TRY(device->Init());
  return device;
}

Device::~Device() {
  // Members (rings) are freed after this body: stop the device first.
  if (hw_enabled_) regs_.Reset();
  // The device does no DMA now: retired resources can go.
  ListNode* node = Exchange<ListNode>(&retired_, nullptr);
  while (node) {
    ListNode* next = node->next;
    node->next = nullptr;
    static_cast<DeviceResource*>(node)->Delete();
    node = next;
  }
}

int Device::FinishDestroy(DeviceResource* resource, int error) {
  if (error == 0) {
    resource->Delete();
    return 0;
  }
  if (!DeviceMayStillUse(error)) return error;
  VHCA_LOG_WARN(regs_.kdev(),
                "destroy command failed (%d): memory kept until reset\n", error);
  Retire(resource);
  return 0;
}

void Device::Retire(DeviceResource* resource) {
  ListNode* node = resource;
  // A lock-free push (any context): on a lost race node->next gets the
  // new top and the exchange is tried again.
  node->next = nullptr;
  while (!CompareExchange<ListNode>(&retired_, &node->next, node)) {
  }
}

Status Device::Init() {
  vhca_kapi_device* kdev = regs_.kdev();
  const AbiVersion version = regs_.ReadVersion();
  if (version.major != VHCA_ABI_MAJOR) {
    VHCA_LOG_ERR(kdev, "device ABI %u.%u, driver supports %u.x\n",
                 version.major, version.minor, VHCA_ABI_MAJOR);
    return Error{-VHCA_ENODEV};
  }
  reads_recv_dbrec_ = version.minor >= VHCA_ABI_MINOR_WQ_DBREC;
  abi_send_dbrec_ = version.minor >= VHCA_ABI_MINOR_SQ_DBREC;
  caps_ = regs_.ReadCaps();
  if (caps_.num_ports < 1 || caps_.num_ports > VHCA_MAX_PORTS ||
      caps_.num_vectors < 1 || caps_.num_vectors > VHCA_MAX_VECTORS ||
      caps_.max_log_cmdq < VHCA_MIN_LOG_CMDQ ||
      caps_.max_log_eq < VHCA_MIN_LOG_EQ) {
    VHCA_LOG_ERR(kdev, "bad capabilities: ports %u vectors %u log cmdq %u log eq %u\n",
                 caps_.num_ports, caps_.num_vectors, caps_.max_log_cmdq,
                 caps_.max_log_eq);
    return Error{-VHCA_ENODEV};
  }
  ports_.set_num_ports(caps_.num_ports);
  db_pages_.Init(regs_.ReadDoorbellPages());
  objects_.Init(kdev);

  auto cmdq = CommandQueue::Create(
      regs_, Clamp(kCmdqLogSize, VHCA_MIN_LOG_CMDQ, caps_.max_log_cmdq));
  VHCA_TRY(cmdq);
  cmdq_ = cmdq.Take();
  commands_ = DeviceCommands(cmdq_.get());

  auto eq0 = EventQueue::Create(
      regs_, Clamp(kEq0LogSize, VHCA_MIN_LOG_EQ, caps_.max_log_eq));
  VHCA_TRY(eq0);
  eq0_ = eq0.Take();
  return Enable();
}

Status Device::Enable() {
  regs_.Reset();
  regs_.SetCmdq(cmdq_->ring_dma(), cmdq_->log_size());
  regs_.SetEq0(eq0_->ring_dma(), eq0_->log_size());
  // From here on the device may DMA into the rings: ~Device resets it.
  hw_enabled_ = true;
  regs_.Enable();
  for (uint32_t poll = 0; poll < kEnablePolls; poll++) {
    const DeviceStatus status = regs_.ReadStatus();
    if (status.fatal) {
      VHCA_LOG_ERR(regs_.kdev(), "device failed to enable: fatal code %u\n",
                   status.fatal_code);
      return Error{-VHCA_EIO};
    }
    if (status.enabled) return Ok();
    vhca_kapi_msleep(kEnablePollMs);
  }
  VHCA_LOG_ERR(regs_.kdev(), "device did not become enabled\n");
  return Error{-VHCA_ETIMEDOUT};
}

Status Device::Start(uint32_t num_vectors) {
  if (num_vectors < 1 || num_vectors > caps_.num_vectors)
    return Error{-VHCA_EINVAL};
  eq0_->Arm();
  VHCA_TRY(commands_.QueryDevice(&attr_));
  if (attr_.num_ports != caps_.num_ports) {
    VHCA_LOG_ERR(regs_.kdev(), "QUERY_DEVICE reports %u ports, CAPS %u\n",
                 attr_.num_ports, caps_.num_ports);
    return Error{-VHCA_EPROTO};
  }
  ClampObjectLimits(&attr_);
  polls_send_dbrec_ =
      abi_send_dbrec_ && (FromLe32(attr_.dev_caps) & VHCA_DEV_CAP_SQ_POLL);
  VHCA_TRY(objects_.SetLimits(attr_));
  uint32_t comp_vectors = num_vectors - 1;
  // max_eq counts EQ 0.
  if (attr_.max_eq >= 1 && comp_vectors > attr_.max_eq - 1u)
    comp_vectors = attr_.max_eq - 1u;
  return CreateCompEqs(comp_vectors);
}

Status Device::CreateCompEqs(uint32_t count) {
  const uint32_t log_size =
      Clamp(kCompEqLogSize, VHCA_MIN_LOG_EQ, caps_.max_log_eq);
  comp_eqs_live_ = true;
  for (uint32_t i = 0; i < count; i++) {
    auto eq = EventQueue::Create(regs_, log_size);
    VHCA_TRY(eq);
    comp_eqs_[i] = eq.Take();
    // Even a failed CREATE_EQ may have reached the device (a timeout):
    // the ring stays in comp_eqs_[i], unpublished, until ~Device has reset
    // the device.
    auto eqn = commands_.CreateEq(comp_eqs_[i]->ring_dma(), log_size,
                                  static_cast<uint16_t>(i + 1));
    VHCA_TRY(eqn);
    comp_eqs_[i]->set_eqn(eqn.value());
    // Publish before arming: the handler of vector i + 1 looks it up.
    StoreRelease(&num_comp_eqs_, i + 1);
    comp_eqs_[i]->Arm();
  }
  return Ok();
}

void Device::HandleEq0Event(const vhca_eqe& event) {
  switch (event.type) {
    case VHCA_EQE_CMD_DONE:
      cmdq_->Complete(event.data.cmd_done);
      break;
    case VHCA_EQE_PORT_EVENT:
      ports_.HandleEvent(event);
      break;
    case VHCA_EQE_QP_EVENT:
    case VHCA_EQE_CQ_ERROR:
    case VHCA_EQE_SRQ_EVENT:
      objects_.DispatchAsync(event);
      break;
    case VHCA_EQE_PAGE_FAULT:
      HandlePageFault(event);
      break;
    default:
      VHCA_LOG_WARN(regs_.kdev(), "EQ 0: unexpected event type %u\n",
                    event.type);
      break;
  }
}

// vhca_hw_odp.h: the shim resolves the fault in a work item.  Without a
// handler nobody would resume the QP: warn (no ODP region can exist then).
void Device::HandlePageFault(const vhca_eqe& event) {
  vhca_eqe_page_fault fault;
  CopyBytes(&fault, event.data.raw, sizeof(fault));
  if (!page_fault_fn_) {
    VHCA_LOG_WARN(regs_.kdev(), "EQ 0: page fault without a handler\n");
    return;
  }
  page_fault_fn_(page_fault_context_, event.subtype, FromLe32(fault.qpn),
                 FromLe32(fault.key), FromLe64(fault.addr),
                 FromLe32(fault.len), fault.flags);
}

uint32_t Device::HandleIrq(uint32_t vector) {
  if (vector == 0)
    return eq0_->Poll(
        [this](const vhca_eqe& event) { HandleEq0Event(event); });
  const uint32_t live = LoadAcquire(&num_comp_eqs_);
  if (vector - 1 >= live) return 0;
  return comp_eqs_[vector - 1]->Poll([this](const vhca_eqe& event) {
    if (event.type == VHCA_EQE_COMPLETION)
      objects_.DispatchCompletion(FromLe32(event.data.completion.cqn));
    else
      VHCA_LOG_WARN(regs_.kdev(), "completion EQ: unexpected event type %u\n",
                    event.type);
  });
}

void Device::Stop() {
  if (comp_eqs_live_) {
    for (uint32_t i = 0; i < num_comp_eqs_; i++) {
      auto destroyed = commands_.DestroyEq(comp_eqs_[i]->eqn());
      if (!destroyed.ok())
        VHCA_LOG_WARN(regs_.kdev(), "DESTROY_EQ %u failed: %d\n",
                      comp_eqs_[i]->eqn(), destroyed.error());
    }
    comp_eqs_live_ = false;
  }
  if (pds_.outstanding())
    VHCA_LOG_WARN(regs_.kdev(), "%u protection domains still allocated\n",
                  pds_.outstanding());
  if (hw_enabled_) {
    regs_.Reset();
    hw_enabled_ = false;
  }
}

}  // namespace vhca
