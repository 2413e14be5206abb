// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fake kernel behind vhca_kapi.h for the host unit tests: malloc-based
// memory with allocation-failure injection and leak accounting, DMA
// buffers whose "bus address" is their host address, single-threaded
// locks/semaphores/completions that check their own use, captured logs and
// port events, the vectors synchronize_irq waited for.  Waiting on a
// completion runs the fake device (commands are asynchronous on the real
// device too).  It is also the environment of the fake device
// (driver/fake/fake_env.h): single-threaded, so the device runs only when
// a test or a waiting command calls FakeDevice::Run().
#ifndef VHCA_TESTS_FAKE_KERNEL_H
#define VHCA_TESTS_FAKE_KERNEL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fake_device.h"
#include "vhca_kapi.h"

using FakeDevice = vhca::fake::Device;

struct vhca_kapi_device {
  FakeDevice* device;
};

class FakeKernel {
 public:
  FakeKernel();
  ~FakeKernel();
  static FakeKernel& Current();

  // Allocation n (1-based, counted over zalloc, DMA and the lock,
  // semaphore and completion objects) fails; 0 = none fails.
  void FailAllocation(uint64_t n) { fail_at_ = n; allocations_ = 0; }
  uint64_t allocations() const { return allocations_; }
  // Allocations not yet freed (all kinds).
  int64_t outstanding() const { return outstanding_; }
  // True for allocation number `allocations_ + 1`, counting it.
  bool NextAllocationFails();
  void Allocated() { outstanding_++; }
  void Freed() { outstanding_--; }

  // DMA buffers currently allocated, by bus address.
  bool IsDmaRange(uint64_t dma, size_t size) const;
  std::map<uint64_t, size_t>& dma_buffers() { return dma_buffers_; }

  std::vector<std::string>& log() { return log_; }
  bool LogContains(const std::string& needle) const;
  std::vector<std::pair<unsigned, unsigned>>& port_events() {
    return port_events_;
  }
  // Vectors vhca_kapi_synchronize_irq waited for, in order.
  std::vector<unsigned>& synchronized_irqs() { return synchronized_irqs_; }
  int locks_held = 0;
  unsigned sleeps_ms = 0;
  int in_irq_vector = -1;  // the vector whose handler runs (FakeDevice)
  bool device_locked = false;  // the fake device's lock (fake_env.h)
  // The device of vhca_kapi_wait_timeout (a completion has no device).
  FakeDevice* device = nullptr;

 private:
  uint64_t fail_at_ = 0;
  uint64_t allocations_ = 0;
  int64_t outstanding_ = 0;
  std::map<uint64_t, size_t> dma_buffers_;
  std::vector<std::string> log_;
  std::vector<std::pair<unsigned, unsigned>> port_events_;
  std::vector<unsigned> synchronized_irqs_;
};

#endif  // VHCA_TESTS_FAKE_KERNEL_H
