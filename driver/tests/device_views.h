// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fake device's fixed tables (driver/fake) as standard containers, for
// comparisons in the host tests.
#ifndef VHCA_TESTS_DEVICE_VIEWS_H
#define VHCA_TESTS_DEVICE_VIEWS_H

#include <cstdint>
#include <vector>

#include "fake_kernel.h"

// The entries a log still keeps, oldest first.
template <typename T, uint32_t N>
std::vector<T> ToVector(const vhca::fake::Log<T, N>& log) {
  std::vector<T> out;
  for (const T& item : log) out.push_back(item);
  return out;
}

// The pages of a data path buffer descriptor as the device reads them
// (CONTIG: the start address only).
inline std::vector<uint64_t> DevicePages(FakeDevice& device, const vhca_buf_desc& desc) {
  std::vector<uint64_t> pages;
  const uint32_t n = desc.mode == VHCA_BUF_CONTIG ? 1 : desc.npages;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t page;
    if (!device.PageAddress(desc, i, &page)) break;
    pages.push_back(page);
  }
  return pages;
}

// The pages the device keeps for a region (its MTT entries).
inline std::vector<uint64_t> DevicePages(const FakeDevice::Mr& mr) {
  return std::vector<uint64_t>(mr.pages, mr.pages + mr.num_pages);
}

#endif  // VHCA_TESTS_DEVICE_VIEWS_H
