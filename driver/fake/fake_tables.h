// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Fixed-size containers of the fake device (driver/fake): it is compiled
// freestanding like the core (no standard library, no heap), into the host
// unit tests and into vhca_kunit.ko alike.  Names follow the standard
// containers the tests read them like (size, empty, count, back, ...).
#ifndef VHCA_FAKE_TABLES_H
#define VHCA_FAKE_TABLES_H

#include <stdint.h>

namespace vhca {
namespace fake {

// The last N entries of a sequence.  Indexes are absolute (0 = the first
// entry ever added, size() = how many were added); only the last N can
// still be read (kept()), iteration covers exactly those.
template <typename T, uint32_t N>
class Log {
 public:
  void push_back(const T& value) { items_[total_ % N] = value; total_++; }
  uint32_t size() const { return total_; }
  bool empty() const { return total_ == 0; }
  void clear() { total_ = 0; }
  uint32_t first_kept() const { return total_ > N ? total_ - N : 0; }
  bool kept(uint32_t i) const { return i < total_ && i >= first_kept(); }
  const T& operator[](uint32_t i) const { return items_[i % N]; }
  const T& back() const { return items_[(total_ - 1) % N]; }

  class Iterator {
   public:
    Iterator(const Log* log, uint32_t i) : log_(log), i_(i) {}
    const T& operator*() const { return (*log_)[i_]; }
    Iterator& operator++() { i_++; return *this; }
    bool operator!=(const Iterator& other) const { return i_ != other.i_; }
   private:
    const Log* log_;
    uint32_t i_;
  };
  Iterator begin() const { return Iterator(this, first_kept()); }
  Iterator end() const { return Iterator(this, total_); }

 private:
  T items_[N];
  uint32_t total_ = 0;
};

// Objects by device handle (a CQN, QPN, key index, ...), at most N.
template <typename T, uint32_t N>
class Table {
 public:
  struct Entry {
    bool used;
    uint32_t key;
    T value;
  };
  T* find(uint32_t key) {
    for (auto& entry : entries_)
      if (entry.used && entry.key == key) return &entry.value;
    return nullptr;
  }
  const T* find(uint32_t key) const {
    return const_cast<Table*>(this)->find(key);
  }
  bool count(uint32_t key) const { return find(key) != nullptr; }
  // A new zeroed object under `key` (which must be free); nullptr when
  // all N are in use.
  T* insert(uint32_t key) {
    for (auto& entry : entries_) {
      if (entry.used) continue;
      entry.used = true;
      entry.key = key;
      entry.value = T{};
      size_++;
      return &entry.value;
    }
    return nullptr;
  }
  bool erase(uint32_t key) {
    for (auto& entry : entries_) {
      if (!entry.used || entry.key != key) continue;
      entry.used = false;
      size_--;
      return true;
    }
    return false;
  }
  void clear() {
    for (auto& entry : entries_) entry.used = false;
    size_ = 0;
  }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == N; }
  // The object of an existing key; a test reading one that does not exist
  // gets a zeroed object (and fails on its contents).
  T& operator[](uint32_t key) {
    T* value = find(key);
    if (value) return *value;
    missing_ = T{};
    return missing_;
  }
  // The device's handle rule (Documentation/device-datapath.md "Handles"): the
  // lowest free handle from `first`.
  uint32_t lowest_free(uint32_t first) const {
    uint32_t key = first;
    while (count(key)) key++;
    return key;
  }
  // Calls fn(key, value) for every object, until fn returns true; true
  // when it did.
  template <typename Fn>
  bool any(Fn fn) const {
    for (const auto& entry : entries_)
      if (entry.used && fn(entry.key, entry.value)) return true;
    return false;
  }

 private:
  Entry entries_[N] = {};
  uint32_t size_ = 0;
  T missing_{};
};

// A set of at most N keys.
template <typename K, uint32_t N>
class Set {
 public:
  bool count(K key) const {
    for (uint32_t i = 0; i < size_; i++)
      if (keys_[i] == key) return true;
    return false;
  }
  bool insert(K key) {
    if (count(key) || size_ == N) return false;
    keys_[size_++] = key;
    return true;
  }
  bool erase(K key) {
    for (uint32_t i = 0; i < size_; i++) {
      if (keys_[i] != key) continue;
      keys_[i] = keys_[--size_];
      return true;
    }
    return false;
  }
  void clear() { size_ = 0; }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == N; }

 private:
  K keys_[N] = {};
  uint32_t size_ = 0;
};

// Statuses the test forces on commands, by opcode: a forced failure
// replaces the execution (the command has no effect on the device);
// forcing VHCA_CMD_OK is the same as not forcing.
class ForcedStatus {
 public:
  static constexpr uint32_t kOpcodes = 256;
  void set(uint32_t opcode, uint8_t status) {
    if (opcode < kOpcodes) status_[opcode] = status;
  }
  void erase(uint32_t opcode) { set(opcode, 0); }
  void clear() {
    for (auto& status : status_) status = 0;
  }
  // The forced failure of `opcode`, 0 (VHCA_CMD_OK) for none.
  uint8_t failure(uint32_t opcode) const {
    return opcode < kOpcodes ? status_[opcode] : 0;
  }

 private:
  uint8_t status_[kOpcodes] = {};
};

}  // namespace fake
}  // namespace vhca

#endif  // VHCA_FAKE_TABLES_H
