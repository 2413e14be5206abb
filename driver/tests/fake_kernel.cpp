// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "fake_kernel.h"

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vhca_errno.h"

namespace {
FakeKernel* g_kernel = nullptr;
}

FakeKernel::FakeKernel() {
  EXPECT_EQ(g_kernel, nullptr);
  g_kernel = this;
}

FakeKernel::~FakeKernel() { g_kernel = nullptr; }

FakeKernel& FakeKernel::Current() {
  if (!g_kernel) abort();
  return *g_kernel;
}

bool FakeKernel::NextAllocationFails() {
  allocations_++;
  return fail_at_ != 0 && allocations_ == fail_at_;
}

bool FakeKernel::IsDmaRange(uint64_t dma, size_t size) const {
  auto it = dma_buffers_.upper_bound(dma);
  if (it == dma_buffers_.begin()) return false;
  --it;
  return dma >= it->first && dma + size <= it->first + it->second;
}

bool FakeKernel::LogContains(const std::string& needle) const {
  for (const auto& line : log_)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

// ---- vhca_kapi.h --------------------------------------------------------

extern "C" {

void* vhca_kapi_zalloc(size_t size) {
  FakeKernel& k = FakeKernel::Current();
  if (k.NextAllocationFails()) return nullptr;
  void* p = calloc(1, size);
  if (p) k.Allocated();
  return p;
}

void vhca_kapi_free(void* ptr) {
  if (!ptr) return;
  FakeKernel::Current().Freed();
  free(ptr);
}

int vhca_kapi_dma_alloc(vhca_kapi_device* kdev, size_t size,
                        vhca_kapi_dma_buf* buf) {
  FakeKernel& k = FakeKernel::Current();
  *buf = vhca_kapi_dma_buf{};
  if (k.NextAllocationFails()) return -VHCA_ENOMEM;
  const size_t rounded = (size + 4095) & ~size_t{4095};
  void* p = aligned_alloc(4096, rounded);
  if (!p) return -VHCA_ENOMEM;
  memset(p, 0, rounded);
  buf->cpu = p;
  buf->dma = reinterpret_cast<uintptr_t>(p);
  buf->size = size;
  k.dma_buffers()[buf->dma] = size;
  k.Allocated();
  return 0;
}

void vhca_kapi_dma_free(vhca_kapi_device* kdev, vhca_kapi_dma_buf* buf) {
  if (!buf->cpu) return;
  FakeKernel& k = FakeKernel::Current();
  // The device must not be able to write into memory we give back.
  if (kdev->device->OwnsRing(buf->dma))
    ADD_FAILURE() << "DMA ring freed while the device still uses it";
  EXPECT_EQ(k.dma_buffers().erase(buf->dma), 1u);
  k.Freed();
  free(buf->cpu);
  *buf = vhca_kapi_dma_buf{};
}

unsigned int vhca_kapi_reg_read32(vhca_kapi_device* kdev, unsigned int offset) {
  return kdev->device->ReadRegister(offset);
}

void vhca_kapi_reg_write32(vhca_kapi_device* kdev, unsigned int offset,
                           unsigned int value) {
  kdev->device->WriteRegister(offset, value);
}

void vhca_kapi_db_write32(vhca_kapi_device* kdev, unsigned int offset,
                          unsigned int value) {
  kdev->device->WriteDoorbell(offset, value);
}

void vhca_kapi_db_write64(vhca_kapi_device* kdev, unsigned int offset,
                          unsigned long long value) {
  kdev->device->WriteDoorbell64(offset, value);
}

struct vhca_kapi_lock {
  bool held;
};

vhca_kapi_lock* vhca_kapi_lock_create(vhca_kapi_lock_class cls) {
  EXPECT_LT(cls, VHCA_LOCK_CLASSES);
  FakeKernel& k = FakeKernel::Current();
  if (k.NextAllocationFails()) return nullptr;
  k.Allocated();
  return new vhca_kapi_lock{false};
}

void vhca_kapi_lock_destroy(vhca_kapi_lock* lock) {
  EXPECT_FALSE(lock->held);
  FakeKernel::Current().Freed();
  delete lock;
}

unsigned long vhca_kapi_lock_irqsave(vhca_kapi_lock* lock) {
  // Single-threaded: taking a held lock is a self-deadlock.
  EXPECT_FALSE(lock->held) << "recursive locking";
  lock->held = true;
  FakeKernel::Current().locks_held++;
  return 0x5a;
}

void vhca_kapi_unlock_irqrestore(vhca_kapi_lock* lock, unsigned long flags) {
  EXPECT_TRUE(lock->held);
  EXPECT_EQ(flags, 0x5aul);
  lock->held = false;
  FakeKernel::Current().locks_held--;
}

struct vhca_kapi_sema {
  unsigned count;
};

vhca_kapi_sema* vhca_kapi_sema_create(unsigned int count) {
  FakeKernel& k = FakeKernel::Current();
  if (k.NextAllocationFails()) return nullptr;
  k.Allocated();
  return new vhca_kapi_sema{count};
}

void vhca_kapi_sema_destroy(vhca_kapi_sema* sema) {
  FakeKernel::Current().Freed();
  delete sema;
}

void vhca_kapi_sema_down(vhca_kapi_sema* sema) {
  // Single-threaded: nobody could ever up() it.
  ASSERT_GT(sema->count, 0u) << "semaphore down would sleep forever";
  sema->count--;
}

void vhca_kapi_sema_up(vhca_kapi_sema* sema) { sema->count++; }

struct vhca_kapi_completion {
  bool done;
};

vhca_kapi_completion* vhca_kapi_completion_create(void) {
  FakeKernel& k = FakeKernel::Current();
  if (k.NextAllocationFails()) return nullptr;
  k.Allocated();
  return new vhca_kapi_completion{false};
}

void vhca_kapi_completion_destroy(vhca_kapi_completion* c) {
  FakeKernel::Current().Freed();
  delete c;
}

void vhca_kapi_completion_reinit(vhca_kapi_completion* c) { c->done = false; }

void vhca_kapi_complete(vhca_kapi_completion* c) { c->done = true; }

int vhca_kapi_wait_timeout(vhca_kapi_completion* c, unsigned int timeout_ms) {
  EXPECT_EQ(FakeKernel::Current().locks_held, 0) << "sleeping with a lock held";
  FakeKernel& k = FakeKernel::Current();
  if (!c->done && k.device) k.device->Run();
  return c->done ? 0 : -VHCA_ETIMEDOUT;
}

void vhca_kapi_msleep(unsigned int ms) {
  EXPECT_EQ(FakeKernel::Current().locks_held, 0) << "sleeping with a lock held";
  FakeKernel::Current().sleeps_ms += ms;
}

// Single-threaded: no handler runs while the core waits, so the wait is
// only recorded and checked for what deadlocks in a real kernel.
void vhca_kapi_synchronize_irq(vhca_kapi_device* kdev, unsigned int vector) {
  FakeKernel& k = FakeKernel::Current();
  EXPECT_EQ(k.locks_held, 0) << "synchronize_irq with a lock held";
  EXPECT_NE(k.in_irq_vector, static_cast<int>(vector))
      << "synchronize_irq from the vector's own handler";
  EXPECT_LT(vector, unsigned{VHCA_MAX_VECTORS});
  k.synchronized_irqs().push_back(vector);
}

void vhca_kapi_log(vhca_kapi_device* kdev, int level, const char* fmt, ...) {
  char line[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  // "3: ..." or, rate-limited, "3 ratelimited: ...".
  const bool limited = level & VHCA_KAPI_LOG_RATELIMITED;
  FakeKernel::Current().log().push_back(
      std::to_string(level & ~VHCA_KAPI_LOG_RATELIMITED) +
      (limited ? " ratelimited: " : ": ") + line);
}

void vhca_kapi_port_event(vhca_kapi_device* kdev, unsigned int port,
                          unsigned int event) {
  FakeKernel::Current().port_events().push_back({port, event});
}

// ---- fake_env.h: the fake device's environment ------------------------

unsigned long vhca_fake_env_lock(vhca_fake_env* env) {
  FakeKernel& k = FakeKernel::Current();
  EXPECT_FALSE(k.device_locked) << "the fake device took its own lock twice";
  k.device_locked = true;
  return 0;
}

void vhca_fake_env_unlock(vhca_fake_env* env, unsigned long flags) {
  FakeKernel::Current().device_locked = false;
}

// Single-threaded: commands run and raised vectors fire in
// FakeDevice::Run(), when a waiting command or the test calls it.
void vhca_fake_env_kick(vhca_fake_env* env) {}
void vhca_fake_env_raise(vhca_fake_env* env, unsigned int vector) {}

void vhca_fake_env_irq_handler(vhca_fake_env* env, vhca_core_device* core,
                               unsigned int vector) {
  FakeKernel& k = FakeKernel::Current();
  k.in_irq_vector = static_cast<int>(vector);
  vhca_core_irq(core, vector);
  k.in_irq_vector = -1;
}

int vhca_fake_env_dma_live(vhca_fake_env* env, unsigned long long addr, size_t len) {
  return FakeKernel::Current().IsDmaRange(addr, len);
}

void vhca_fake_env_report(vhca_fake_env* env, const char* fmt, ...) {
  char line[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  ADD_FAILURE() << "fake device: " << line;
}

}  // extern "C"
