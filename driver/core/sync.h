// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Owning handles for the kernel's synchronization objects (vhca_kapi.h):
// a spinlock with an RAII guard, a counting semaphore and a completion.
// Each is created by Create() (the kernel object is allocated, so it can
// fail) and destroyed with its handle.
#ifndef VHCA_CORE_SYNC_H
#define VHCA_CORE_SYNC_H

#include "result.h"
#include "vhca_errno.h"
#include "vhca_kapi.h"

namespace vhca {

// Shared move/destroy logic of the three handle types.
template <typename Object, void (*kDestroy)(Object*)>
class KernelHandle {
 public:
  KernelHandle() = default;
  explicit KernelHandle(Object* object) : object_(object) {}
  KernelHandle(KernelHandle&& other) : object_(other.object_) {
    other.object_ = nullptr;
  }
  KernelHandle& operator=(KernelHandle&& other) {
    if (object_) kDestroy(object_);
    object_ = other.object_;
    other.object_ = nullptr;
    return *this;
  }
  KernelHandle(const KernelHandle&) = delete;
  KernelHandle& operator=(const KernelHandle&) = delete;
  ~KernelHandle() {
    if (object_) kDestroy(object_);
  }
  Object* get() const { return object_; }

 private:
  Object* object_ = nullptr;
};

class SpinLock {
 public:
  // cls: the lockdep class (vhca_kapi.h): one per kind of lock.
  static Result<SpinLock> Create(vhca_kapi_lock_class cls) {
    vhca_kapi_lock* lock = vhca_kapi_lock_create(cls);
    if (!lock) return Error{-VHCA_ENOMEM};
    return SpinLock(lock);
  }
  SpinLock() = default;
  unsigned long Lock() { return vhca_kapi_lock_irqsave(handle_.get()); }
  void Unlock(unsigned long flags) {
    vhca_kapi_unlock_irqrestore(handle_.get(), flags);
  }

 private:
  explicit SpinLock(vhca_kapi_lock* lock) : handle_(lock) {}
  KernelHandle<vhca_kapi_lock, vhca_kapi_lock_destroy> handle_;
};

class LockGuard {
 public:
  explicit LockGuard(SpinLock& lock) : lock_(lock), flags_(lock.Lock()) {}
  ~LockGuard() { lock_.Unlock(flags_); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  SpinLock& lock_;
  unsigned long flags_;
};

class Semaphore {
 public:
  static Result<Semaphore> Create(unsigned int count) {
    vhca_kapi_sema* sema = vhca_kapi_sema_create(count);
    if (!sema) return Error{-VHCA_ENOMEM};
    return Semaphore(sema);
  }
  Semaphore() = default;
  void Down() { vhca_kapi_sema_down(handle_.get()); }
  void Up() { vhca_kapi_sema_up(handle_.get()); }

 private:
  explicit Semaphore(vhca_kapi_sema* sema) : handle_(sema) {}
  KernelHandle<vhca_kapi_sema, vhca_kapi_sema_destroy> handle_;
};

class Completion {
 public:
  static Result<Completion> Create() {
    vhca_kapi_completion* completion = vhca_kapi_completion_create();
    if (!completion) return Error{-VHCA_ENOMEM};
    return Completion(completion);
  }
  Completion() = default;
  void Reinit() { vhca_kapi_completion_reinit(handle_.get()); }
  void Complete() { vhca_kapi_complete(handle_.get()); }
  // 0 or -ETIMEDOUT.
  int Wait(unsigned int timeout_ms) {
    return vhca_kapi_wait_timeout(handle_.get(), timeout_ms);
  }

 private:
  explicit Completion(vhca_kapi_completion* completion)
      : handle_(completion) {}
  KernelHandle<vhca_kapi_completion, vhca_kapi_completion_destroy> handle_;
};

}  // namespace vhca

#endif  // VHCA_CORE_SYNC_H
