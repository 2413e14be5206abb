// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Queue pair attributes: ib_qp_attr <-> vhca_qp_context (MODIFY_QP and
// QUERY_QP, IBA 11.2.4.2) and the ring geometry for ib_qp_cap (also used
// for SRQs).
#ifndef VHCA_CORE_QP_ATTRIBUTES_H
#define VHCA_CORE_QP_ATTRIBUTES_H

#include "result.h"
#include "vhca_core_verbs.h"
#include "vhca_hw.h"

namespace vhca {

// enum vhca_qp_attr bits this driver knows (IB_QP_* of the same value).
constexpr uint32_t kQpAttrMask =
    VHCA_QP_ATTR_STATE | VHCA_QP_ATTR_CUR_STATE |
    VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY | VHCA_QP_ATTR_ACCESS_FLAGS |
    VHCA_QP_ATTR_PKEY_INDEX | VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_QKEY |
    VHCA_QP_ATTR_AV | VHCA_QP_ATTR_PATH_MTU | VHCA_QP_ATTR_TIMEOUT |
    VHCA_QP_ATTR_RETRY_CNT | VHCA_QP_ATTR_RNR_RETRY | VHCA_QP_ATTR_RQ_PSN |
    VHCA_QP_ATTR_MAX_QP_RD_ATOMIC | VHCA_QP_ATTR_MIN_RNR_TIMER |
    VHCA_QP_ATTR_SQ_PSN | VHCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
    VHCA_QP_ATTR_DEST_QPN;

// ib_qp_attr + mask -> vhca_qp_context (only the masked fields are set);
// -EOPNOTSUPP for a mask bit the device does not have (alternate path,
// path migration, rate limit, ...).
Result<vhca_qp_context> QpAttrToContext(const vhca_core_qp_attr& attr,
                                        uint32_t mask);
void QpContextToAttr(const vhca_qp_context& context, vhca_core_qp_attr* attr);

// Ring geometry for the requested capabilities: log sizes and strides.
struct QpLayout {
  uint32_t sq_log_size = 0;
  uint32_t sq_wqe_shift = 0;
  uint32_t rq_log_size = 0;
  uint32_t rq_wqe_shift = 0;
  vhca_core_qp_cap granted{};
};
// -EINVAL when a request exceeds the device's or the ABI's limits.
Result<QpLayout> ComputeQpLayout(const vhca_core_qp_cap& cap, bool has_srq,
                                 uint32_t device_max_wr,
                                 uint32_t device_max_sge);

}  // namespace vhca

#endif  // VHCA_CORE_QP_ATTRIBUTES_H
