// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Expected device-visible bytes written by offset, independently of the
// vhca_hw.h structs (the offsets in the tests are read off the header's
// field order), so that an encoding test compares whole buffers byte for
// byte: every byte not Put is expected to be zero.
#ifndef VHCA_TESTS_WIRE_BYTES_H
#define VHCA_TESTS_WIRE_BYTES_H

#include <cstdint>
#include <cstring>
#include <vector>

class WireBytes {
 public:
  explicit WireBytes(size_t size) : bytes_(size, 0) {}
  WireBytes& Put8(size_t offset, uint8_t v) {
    bytes_.at(offset) = v;
    return *this;
  }
  WireBytes& Put16(size_t offset, uint16_t v) { return PutLe(offset, v, 2); }
  WireBytes& Put32(size_t offset, uint32_t v) { return PutLe(offset, v, 4); }
  WireBytes& Put64(size_t offset, uint64_t v) { return PutLe(offset, v, 8); }
  WireBytes& PutRaw(size_t offset, const void* data, size_t size) {
    for (size_t i = 0; i < size; i++)
      bytes_.at(offset + i) = static_cast<const uint8_t*>(data)[i];
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  static std::vector<uint8_t> Of(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    return std::vector<uint8_t>(p, p + size);
  }

 private:
  WireBytes& PutLe(size_t offset, uint64_t v, size_t size) {
    for (size_t i = 0; i < size; i++)
      bytes_.at(offset + i) = static_cast<uint8_t>(v >> (8 * i));
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

#endif  // VHCA_TESTS_WIRE_BYTES_H
