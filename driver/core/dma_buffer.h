// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// An owned DMA-coherent buffer (dma_alloc_coherent through the shim).
// The device may write into it until it is reset or told to stop, so the
// owners in this core free rings and mailboxes only after that.
#ifndef VHCA_CORE_DMA_BUFFER_H
#define VHCA_CORE_DMA_BUFFER_H

#include "result.h"
#include "vhca_errno.h"
#include "vhca_kapi.h"

namespace vhca {

class DmaBuffer {
 public:
  static Result<DmaBuffer> Create(vhca_kapi_device* kdev, size_t size) {
    DmaBuffer buffer;
    buffer.kdev_ = kdev;
    if (vhca_kapi_dma_alloc(kdev, size, &buffer.buf_) != 0)
      return Error{-VHCA_ENOMEM};
    return buffer;
  }

  DmaBuffer() = default;
  DmaBuffer(DmaBuffer&& other) : kdev_(other.kdev_), buf_(other.buf_) {
    other.buf_ = vhca_kapi_dma_buf{};
  }
  DmaBuffer& operator=(DmaBuffer&& other) {
    Free();
    kdev_ = other.kdev_;
    buf_ = other.buf_;
    other.buf_ = vhca_kapi_dma_buf{};
    return *this;
  }
  DmaBuffer(const DmaBuffer&) = delete;
  DmaBuffer& operator=(const DmaBuffer&) = delete;
  ~DmaBuffer() { Free(); }

  void* cpu() const { return buf_.cpu; }
  uint64_t dma() const { return buf_.dma; }
  size_t size() const { return buf_.size; }

 private:
  void Free() {
    if (buf_.cpu) vhca_kapi_dma_free(kdev_, &buf_);
    buf_ = vhca_kapi_dma_buf{};
  }

  vhca_kapi_device* kdev_ = nullptr;
  vhca_kapi_dma_buf buf_{};
};

}  // namespace vhca

#endif  // VHCA_CORE_DMA_BUFFER_H
