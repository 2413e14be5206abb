// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The C entry points of vhca_core.h: each converts C types and calls the
// Device.  struct vhca_core_device is never defined: it is a Device seen
// from C.
#include "device.h"
#include "endian.h"
#include "vhca_core.h"
#include "vhca_errno.h"

namespace {

vhca::Device* ToDevice(vhca_core_device* dev) {
  return reinterpret_cast<vhca::Device*>(dev);
}
const vhca::Device* ToDevice(const vhca_core_device* dev) {
  return reinterpret_cast<const vhca::Device*>(dev);
}

}  // namespace

extern "C" {

int vhca_core_create(vhca_kapi_device* kdev, vhca_core_device** out) {
  auto device = vhca::Device::Create(kdev);
  if (!device.ok()) return device.error();
  *out = reinterpret_cast<vhca_core_device*>(device.value().Release());
  return 0;
}

unsigned int vhca_core_max_vectors(const vhca_core_device* dev) {
  return ToDevice(dev)->max_vectors();
}

int vhca_core_start(vhca_core_device* dev, unsigned int num_vectors) {
  return ToDevice(dev)->Start(num_vectors).error();
}

unsigned int vhca_core_irq(vhca_core_device* dev, unsigned int vector) {
  return ToDevice(dev)->HandleIrq(vector);
}

void vhca_core_stop(vhca_core_device* dev) { ToDevice(dev)->Stop(); }

void vhca_core_destroy(vhca_core_device* dev) { delete ToDevice(dev); }

void vhca_core_set_cmd_timeout(vhca_core_device* dev,
                               unsigned int timeout_ms) {
  ToDevice(dev)->command_queue().set_timeout_ms(timeout_ms);
}

const vhca_device_attr* vhca_core_device_attr(const vhca_core_device* dev) {
  return &ToDevice(dev)->attr();
}

unsigned int vhca_core_num_ports(const vhca_core_device* dev) {
  return ToDevice(dev)->attr().num_ports;
}

unsigned int vhca_core_num_comp_vectors(const vhca_core_device* dev) {
  return ToDevice(dev)->num_comp_vectors();
}

int vhca_core_replay_port_events(vhca_core_device* dev) {
  return ToDevice(dev)->ports().ReplayEvents().error();
}

int vhca_core_query_port(vhca_core_device* dev, unsigned int port,
                         vhca_port_attr* attr) {
  return ToDevice(dev)->ports().Query(port, attr).error();
}

int vhca_core_query_gid(vhca_core_device* dev, unsigned int port,
                        unsigned int index, vhca_gid* gid) {
  vhca::Device* device = ToDevice(dev);
  if (!device->ports().valid(port) || index >= VHCA_GID_TABLE_LEN)
    return -VHCA_EINVAL;
  return device->commands()
      .QueryGid(static_cast<uint8_t>(port), static_cast<uint16_t>(index), gid)
      .error();
}

int vhca_core_query_pkey(vhca_core_device* dev, unsigned int port,
                         unsigned int index, unsigned short* pkey) {
  vhca::Device* device = ToDevice(dev);
  if (!device->ports().valid(port) || index >= VHCA_PKEY_TABLE_LEN)
    return -VHCA_EINVAL;
  auto result = device->commands().QueryPkey(static_cast<uint8_t>(port),
                                             static_cast<uint16_t>(index));
  if (!result.ok()) return result.error();
  *pkey = result.value();
  return 0;
}

int vhca_core_set_node_desc(vhca_core_device* dev,
                            const vhca_node_desc* desc) {
  return ToDevice(dev)->commands().SetNodeDesc(*desc).error();
}

int vhca_core_set_port_cap(vhca_core_device* dev, unsigned int port,
                           unsigned int set, unsigned int clear) {
  vhca::Device* device = ToDevice(dev);
  if (!device->ports().valid(port) ||
      ((set | clear) & ~uint32_t{VHCA_PORT_CAP_SETTABLE}))
    return -VHCA_EINVAL;
  return device->commands()
      .SetPortCap(static_cast<uint8_t>(port), set, clear)
      .error();
}

int vhca_core_mad_ifc(vhca_core_device* dev, unsigned int port,
                      const vhca_mad* in, vhca_mad* out) {
  vhca::Device* device = ToDevice(dev);
  if (!device->ports().valid(port)) return -VHCA_EINVAL;
  auto answered =
      device->commands().MadIfc(static_cast<uint8_t>(port), *in, out);
  if (!answered.ok()) return answered.error();
  return answered.value() ? 1 : 0;
}

int vhca_core_alloc_pd(vhca_core_device* dev, unsigned int* pdn) {
  auto result = ToDevice(dev)->protection_domains().Alloc();
  if (!result.ok()) return result.error();
  *pdn = result.value();
  return 0;
}

int vhca_core_dealloc_pd(vhca_core_device* dev, unsigned int pdn) {
  return ToDevice(dev)->protection_domains().Dealloc(pdn).error();
}

int vhca_core_alloc_xrcd(vhca_core_device* dev, unsigned int* xrcdn) {
  vhca::Device* device = ToDevice(dev);
  if (!(vhca::FromLe32(device->attr().dev_caps) & VHCA_DEV_CAP_XRC))
    return -VHCA_EOPNOTSUPP;
  auto result = device->commands().AllocXrcd();
  if (!result.ok()) return result.error();
  *xrcdn = result.value();
  return 0;
}

int vhca_core_dealloc_xrcd(vhca_core_device* dev, unsigned int xrcdn) {
  return ToDevice(dev)->commands().DeallocXrcd(xrcdn).error();
}

}  // extern "C"
