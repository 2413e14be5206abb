// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Logging through the shim's dev_printk (format checked by the compiler).
#ifndef VHCA_CORE_LOG_H
#define VHCA_CORE_LOG_H

#include "vhca_kapi.h"

#define VHCA_LOG_ERR(kdev, ...) vhca_kapi_log((kdev), VHCA_KAPI_LOG_ERR, __VA_ARGS__)
#define VHCA_LOG_WARN(kdev, ...) vhca_kapi_log((kdev), VHCA_KAPI_LOG_WARN, __VA_ARGS__)
#define VHCA_LOG_INFO(kdev, ...) vhca_kapi_log((kdev), VHCA_KAPI_LOG_INFO, __VA_ARGS__)
#define VHCA_LOG_DEBUG(kdev, ...) vhca_kapi_log((kdev), VHCA_KAPI_LOG_DEBUG, __VA_ARGS__)
#define VHCA_LOG_ERR_RATELIMITED(kdev, ...) \
  vhca_kapi_log((kdev), VHCA_KAPI_LOG_ERR | VHCA_KAPI_LOG_RATELIMITED, __VA_ARGS__)

#endif  // VHCA_CORE_LOG_H
