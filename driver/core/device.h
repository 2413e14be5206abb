// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// One vhca PCI function: bring-up (vhca_hw.h "Bring-up" via the contract:
// RESET, program the command queue and EQ 0, ENABLE, check STATUS), the
// interrupt handlers, completion EQs, and teardown (the device is reset
// before any ring it could still write is freed).
#ifndef VHCA_CORE_DEVICE_H
#define VHCA_CORE_DEVICE_H

#include "command_queue.h"
#include "device_resource.h"
#include "object_registry.h"
#include "device_commands.h"
#include "doorbell_pages.h"
#include "event_queue.h"
#include "heap.h"
#include "memory_model.h"
#include "owned_ptr.h"
#include "ports.h"
#include "protection_domains.h"
#include "registers.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

class Device : public HeapObject {
 public:
  // Queue sizes this driver asks for (clamped to the device's limits).
  static constexpr uint32_t kCmdqLogSize = 5;     // 32 commands in flight
  static constexpr uint32_t kEq0LogSize = 8;      // 256 events
  static constexpr uint32_t kCompEqLogSize = 7;   // 128 events, one page

  // Checks the ABI version, allocates the command queue and EQ 0 and
  // enables the device.  Interrupts are not needed yet.
  static Result<OwnedPtr<Device>> Create(vhca_kapi_device* kdev);
  ~Device();

  uint32_t max_vectors() const { return caps_.num_vectors; }
  // Arms EQ 0, queries the device, creates one completion EQ per extra
  // MSI-X vector.  The shim has requested the interrupts already.
  Status Start(uint32_t num_vectors);
  // Polls the vector's EQ; returns the number of events consumed (0 for a
  // vector without a live EQ, or an EQ that held nothing new).
  uint32_t HandleIrq(uint32_t vector);
  // Destroys the completion EQs and resets the device: no DMA after this.
  void Stop();

  const vhca_device_attr& attr() const { return attr_; }
  uint32_t num_comp_vectors() const { return num_comp_eqs_; }
  CommandQueue& command_queue() { return *cmdq_; }
  DeviceCommands& commands() { return commands_; }
  Ports& ports() { return ports_; }
  ProtectionDomains& protection_domains() { return pds_; }
  ObjectRegistry& objects() { return objects_; }
  DoorbellPages& doorbell_pages() { return db_pages_; }
  Registers& registers() { return regs_; }
  vhca_kapi_device* kdev() const { return regs_.kdev(); }
  // The device reads receive doorbell records (ABI minor >= 1): receives
  // are posted without an RQ/SRQ doorbell.
  bool reads_recv_dbrec() const { return reads_recv_dbrec_; }
  // The device polls send doorbell records (ABI minor >= 2 and
  // VHCA_DEV_CAP_SQ_POLL): send queues get one, and a post rings the SQ
  // doorbell only when the record says the device sleeps.
  bool polls_send_dbrec() const { return polls_send_dbrec_; }
  const EventQueue& eq0() const { return *eq0_; }
  // The eqn of completion vector `index` (0..num_comp_vectors-1).
  uint32_t comp_eqn(uint32_t index) const { return comp_eqs_[index]->eqn(); }

  // A fresh key variant for each memory region (vhca_hw_verbs.h "Memory
  // regions"), so that a key of a destroyed region whose index was
  // reused does not name the new one.
  uint8_t NextKeyVariant() {
    return static_cast<uint8_t>(key_variant_.Add(1));
  }
  // Takes an object whose memory the device may still use (see
  // device_resource.h); it is deleted after the device reset.  Any context.
  void Retire(DeviceResource* resource);
  // The error of a failed CREATE (or register) command: when the device
  // may have taken the object's memory (DeviceMayStillUse), the object is
  // retired instead of freed with `object`.
  template <typename T>
  Error FailCreate(OwnedPtr<T>& object, int error) {
    if (DeviceMayStillUse(error)) Retire(object.Release());
    return Error{error};
  }
  // Ends a resource after its DESTROY command: freed on success, retired
  // (and reported as destroyed: the device is dead) when the device may
  // still use it; kept with the error otherwise (e.g. -EBUSY).
  int FinishDestroy(DeviceResource* resource, int error);
  // Registers a created CQ, QP or SRQ for its events.  A handle the
  // registry refuses (a device bug) destroys the object again and fails
  // the create with -EPROTO.
  template <typename T>
  Result<OwnedPtr<T>> Publish(OwnedPtr<T> object) {
    const Status added = objects_.Add(object.get());
    if (added.ok()) return object;
    T* raw = object.Release();
    FinishDestroy(raw, raw->DestroyOnDevice().error());
    return Error{added.error()};
  }
  // Page-fault events (vhca_hw_odp.h) go to fn(context, ...) from the
  // EQ 0 interrupt handler; set before any ODP region exists.
  void SetPageFaultHandler(vhca_core_page_fault_fn fn, void* context) {
    page_fault_context_ = context;
    page_fault_fn_ = fn;
  }
  const EventQueue* comp_eq(uint32_t index) const {
    return index < num_comp_eqs_ ? comp_eqs_[index].get() : nullptr;
  }

 private:
  explicit Device(vhca_kapi_device* kdev)
      : regs_(kdev), commands_(nullptr), ports_(kdev, &commands_),
        pds_(&commands_) {}
  Status Init();
  Status Enable();
  Status CreateCompEqs(uint32_t count);
  void HandleEq0Event(const vhca_eqe& event);

  Registers regs_;
  DeviceCaps caps_{};
  bool reads_recv_dbrec_ = false;
  bool abi_send_dbrec_ = false;
  bool polls_send_dbrec_ = false;
  bool hw_enabled_ = false;
  OwnedPtr<CommandQueue> cmdq_;
  OwnedPtr<EventQueue> eq0_;
  DeviceCommands commands_;
  Ports ports_;
  ProtectionDomains pds_;
  ObjectRegistry objects_;
  DoorbellPages db_pages_;
  vhca_device_attr attr_{};
  // comp_eqs_[i] serves MSI-X vector i + 1.  Written before the EQ is
  // armed, so the interrupt handler sees it filled in.
  OwnedPtr<EventQueue> comp_eqs_[VHCA_MAX_VECTORS - 1];
  uint32_t num_comp_eqs_ = 0;
  bool comp_eqs_live_ = false;  // created on the device, not yet destroyed
  AtomicU32 key_variant_;
  vhca_core_page_fault_fn page_fault_fn_ = nullptr;
  void* page_fault_context_ = nullptr;
  void HandlePageFault(const vhca_eqe& event);
  // Retired resources, a lock-free stack linked through ListNode::next.
  ListNode* retired_ = nullptr;
};

}  // namespace vhca

#endif  // VHCA_CORE_DEVICE_H
