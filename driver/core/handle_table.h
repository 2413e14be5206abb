// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A bounded-index table of live objects, by the index bits of their
// device handle (EFA's xa_load on cqs_xa / qp_table): the interrupt path
// finds an object with one acquire load, no lock and no walk.
//
// Slots change only by cmpxchg (Insert, Erase: process context), so two
// creates or destroys never need a lock between them; Find is callable
// from any context.  Erasing does not wait for readers: the owner
// (ObjectRegistry) does, with synchronize_irq.
#ifndef VHCA_CORE_HANDLE_TABLE_H
#define VHCA_CORE_HANDLE_TABLE_H

#include "memory_model.h"
#include "result.h"
#include "vhca_errno.h"
#include "vhca_kapi.h"

namespace vhca {

template <typename T>
class HandleTable {
 public:
  HandleTable() = default;
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;
  ~HandleTable() { vhca_kapi_free(slots_); }

  // `size` slots, all empty (before any Insert).
  Status Allocate(uint32_t size) {
    if (size == 0) return Ok();
    slots_ = static_cast<T**>(vhca_kapi_zalloc(sizeof(T*) * size));
    if (!slots_) return Error{-VHCA_ENOMEM};
    size_ = size;
    return Ok();
  }
  uint32_t size() const { return size_; }

  // -EPROTO when index is outside the table or its slot is taken (a
  // device that broke its handle rules).  Publishes `object` fully
  // initialized (cmpxchg is fully ordered).
  Status Insert(uint32_t index, T* object) {
    if (index >= size_) return Error{-VHCA_EPROTO};
    T* expected = nullptr;
    if (!CompareExchange<T>(&slots_[index], &expected, object))
      return Error{-VHCA_EPROTO};
    return Ok();
  }
  // Empties the slot if it holds `object`; false when it did not.
  bool Erase(uint32_t index, T* object) {
    if (index >= size_) return false;
    T* expected = object;
    return CompareExchange<T>(&slots_[index], &expected, static_cast<T*>(nullptr));
  }
  // The object at index, or nullptr (any context).
  T* Find(uint32_t index) const {
    return index < size_ ? LoadAcquire<T>(&slots_[index]) : nullptr;
  }

 private:
  T** slots_ = nullptr;
  uint32_t size_ = 0;
};

}  // namespace vhca

#endif  // VHCA_CORE_HANDLE_TABLE_H
