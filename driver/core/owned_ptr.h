// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Single-owner pointers: OwnedPtr<T> for one HeapObject, OwnedArray<T> for
// a fixed-size array of any type (raw kapi memory + placement new).
#ifndef VHCA_CORE_OWNED_PTR_H
#define VHCA_CORE_OWNED_PTR_H

#include "placement_new.h"
#include "type_traits.h"
#include "vhca_kapi.h"

namespace vhca {

template <typename T>
class OwnedPtr {
 public:
  OwnedPtr() = default;
  explicit OwnedPtr(T* ptr) : ptr_(ptr) {}
  OwnedPtr(OwnedPtr&& other) : ptr_(other.Release()) {}
  OwnedPtr& operator=(OwnedPtr&& other) {
    Reset(other.Release());
    return *this;
  }
  OwnedPtr(const OwnedPtr&) = delete;
  OwnedPtr& operator=(const OwnedPtr&) = delete;
  ~OwnedPtr() { Reset(); }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }

  T* Release() {
    T* ptr = ptr_;
    ptr_ = nullptr;
    return ptr;
  }
  void Reset(T* ptr = nullptr) {
    T* old = ptr_;
    ptr_ = ptr;
    delete old;  // T::operator delete (HeapObject)
  }

 private:
  T* ptr_ = nullptr;
};

template <typename T>
class OwnedArray {
 public:
  OwnedArray() = default;
  OwnedArray(OwnedArray&& other) : items_(other.items_), size_(other.size_) {
    other.items_ = nullptr;
    other.size_ = 0;
  }
  OwnedArray& operator=(OwnedArray&& other) {
    Clear();
    items_ = other.items_;
    size_ = other.size_;
    other.items_ = nullptr;
    other.size_ = 0;
    return *this;
  }
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;
  ~OwnedArray() { Clear(); }

  // Default-constructs `size` elements; false when out of memory.
  [[nodiscard]] bool Allocate(size_t size) {
    Clear();
    if (size > ~size_t{0} / sizeof(T)) return false;
    void* memory = vhca_kapi_zalloc(size * sizeof(T));
    if (!memory) return false;
    items_ = static_cast<T*>(memory);
    for (size_t i = 0; i < size; i++) new (&items_[i]) T();
    size_ = size;
    return true;
  }

  size_t size() const { return size_; }
  T& operator[](size_t index) { return items_[index]; }
  const T& operator[](size_t index) const { return items_[index]; }

 private:
  void Clear() {
    for (size_t i = size_; i > 0; i--) items_[i - 1].~T();
    vhca_kapi_free(items_);
    items_ = nullptr;
    size_ = 0;
  }

  T* items_ = nullptr;
  size_t size_ = 0;
};

}  // namespace vhca

#endif  // VHCA_CORE_OWNED_PTR_H
