// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The base of data path objects (CQ, QP, SRQ, MR) whose DMA memory the
// device may write.  When a CREATE or DESTROY command of such an object
// fails without a device answer (-ETIMEDOUT, or -EIO from a dead command
// queue), nobody knows whether the device still uses its rings: the
// object is then retired to the Device (Device::Retire) and freed only
// after the device reset, like the ring of a failed CREATE_EQ.
#ifndef VHCA_CORE_DEVICE_RESOURCE_H
#define VHCA_CORE_DEVICE_RESOURCE_H

#include "heap.h"
#include "intrusive_list.h"
#include "vhca_errno.h"

namespace vhca {

// No virtual destructor: the core has no RTTI (and the host tests'
// UBSan vptr check wants type info for every vtable), so each object
// hands its own deleter to the base.
class DeviceResource : public HeapObject, public ListNode {
 public:
  // Deletes the object as its own type.
  void Delete() { deleter_(this); }

 protected:
  template <typename T>
  static void DeleteAs(DeviceResource* resource) {
    delete static_cast<T*>(resource);
  }
  explicit DeviceResource(void (*deleter)(DeviceResource*)) : deleter_(deleter) {}
  ~DeviceResource() = default;

 private:
  void (*deleter_)(DeviceResource*);
};

// True when a command error leaves the device's use of the object's
// memory unknown.
inline bool DeviceMayStillUse(int error) {
  return error == -VHCA_ETIMEDOUT || error == -VHCA_EIO;
}

}  // namespace vhca

#endif  // VHCA_CORE_DEVICE_RESOURCE_H
