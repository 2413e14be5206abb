// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// vhca_kapi.h's memory model for the host unit tests: the compiler's
// __atomic builtins with the ordering each kernel primitive gives (the
// kernel's own definitions in driver/shim/barrier.c and atomic.c).
#include <cstddef>

#include "vhca_kapi.h"

static_assert(sizeof(vhca_kapi_atomic) == sizeof(int), "atomic_t layout");

extern "C" {

void vhca_kapi_dma_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
void vhca_kapi_dma_wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
void vhca_kapi_dma_mb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

unsigned int vhca_kapi_read_once32(const unsigned int* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
void vhca_kapi_write_once32(unsigned int* p, unsigned int value) {
  __atomic_store_n(p, value, __ATOMIC_RELAXED);
}
unsigned int vhca_kapi_load_acquire32(const unsigned int* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
void vhca_kapi_store_release32(unsigned int* p, unsigned int value) {
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
}

void* vhca_kapi_load_acquire_ptr(void* const* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
void* vhca_kapi_xchg_ptr(void** p, void* value) {
  return __atomic_exchange_n(p, value, __ATOMIC_SEQ_CST);
}
void* vhca_kapi_cmpxchg_ptr(void** p, void* old, void* value) {
  __atomic_compare_exchange_n(p, &old, value, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
  return old;  // the value found: the old one when the store happened
}

int vhca_kapi_atomic_read(const vhca_kapi_atomic* v) {
  return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}
int vhca_kapi_atomic_read_acquire(const vhca_kapi_atomic* v) {
  return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);
}
void vhca_kapi_atomic_set_release(vhca_kapi_atomic* v, int i) {
  __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);
}
int vhca_kapi_atomic_add_return(vhca_kapi_atomic* v, int i) {
  return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}
int vhca_kapi_atomic_add_return_release(vhca_kapi_atomic* v, int i) {
  return __atomic_add_fetch(&v->counter, i, __ATOMIC_RELEASE);
}

namespace {
constexpr unsigned kBitsPerLong = 8 * sizeof(unsigned long);
unsigned long Mask(unsigned int nr) { return 1ul << (nr % kBitsPerLong); }
}  // namespace

int vhca_kapi_test_and_set_bit_lock(unsigned int nr, unsigned long* addr) {
  return (__atomic_fetch_or(addr + nr / kBitsPerLong, Mask(nr),
                            __ATOMIC_ACQUIRE) & Mask(nr)) != 0;
}
void vhca_kapi_clear_bit_unlock(unsigned int nr, unsigned long* addr) {
  __atomic_fetch_and(addr + nr / kBitsPerLong, ~Mask(nr), __ATOMIC_RELEASE);
}
int vhca_kapi_test_bit(unsigned int nr, const unsigned long* addr) {
  return (__atomic_load_n(addr + nr / kBitsPerLong, __ATOMIC_RELAXED) &
          Mask(nr)) != 0;
}

}  // extern "C"
