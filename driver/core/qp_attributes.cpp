// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "qp_attributes.h"

#include "endian.h"
#include "wqe_builder.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

constexpr uint32_t kPsnMask = 0xffffffu;
constexpr uint32_t kQpnMask = 0xffffffu;

vhca_wq_caps ToWqCaps(const vhca_core_qp_cap& cap) {
  return {cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge,
          cap.max_inline_data};
}

vhca_core_qp_cap FromWqCaps(const vhca_wq_caps& caps) {
  return {caps.max_send_wr, caps.max_recv_wr, caps.max_send_sge, caps.max_recv_sge,
          caps.max_inline_data};
}

}  // namespace

Result<vhca_qp_context> QpAttrToContext(const vhca_core_qp_attr& attr,
                                        uint32_t mask) {
  if (mask & ~kQpAttrMask) return Error{-VHCA_EOPNOTSUPP};
  vhca_qp_context c{};
  c.attr_mask = ToLe32(mask);
  if (mask & VHCA_QP_ATTR_STATE) c.state = static_cast<uint8_t>(attr.qp_state);
  if (mask & VHCA_QP_ATTR_CUR_STATE)
    c.cur_state = static_cast<uint8_t>(attr.cur_qp_state);
  if (mask & VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY)
    c.en_sqd_async_notify = attr.en_sqd_async_notify;
  if (mask & VHCA_QP_ATTR_ACCESS_FLAGS)
    c.access_flags = ToLe32(attr.qp_access_flags &
                            (VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_READ |
                             VHCA_ACCESS_REMOTE_ATOMIC | VHCA_ACCESS_FLUSH));
  if (mask & VHCA_QP_ATTR_PKEY_INDEX) c.pkey_index = ToLe16(attr.pkey_index);
  if (mask & VHCA_QP_ATTR_PORT) c.port = attr.port_num;
  if (mask & VHCA_QP_ATTR_QKEY) c.qkey = ToLe32(attr.qkey);
  if (mask & VHCA_QP_ATTR_AV) c.av = MakeAv(attr.ah_attr);
  if (mask & VHCA_QP_ATTR_PATH_MTU) c.path_mtu = static_cast<uint8_t>(attr.path_mtu);
  if (mask & VHCA_QP_ATTR_TIMEOUT) c.timeout = attr.timeout;
  if (mask & VHCA_QP_ATTR_RETRY_CNT) c.retry_cnt = attr.retry_cnt;
  if (mask & VHCA_QP_ATTR_RNR_RETRY) c.rnr_retry = attr.rnr_retry;
  if (mask & VHCA_QP_ATTR_RQ_PSN) c.rq_psn = ToLe32(attr.rq_psn & kPsnMask);
  if (mask & VHCA_QP_ATTR_MAX_QP_RD_ATOMIC) c.max_rd_atomic = attr.max_rd_atomic;
  if (mask & VHCA_QP_ATTR_MIN_RNR_TIMER) c.min_rnr_timer = attr.min_rnr_timer;
  if (mask & VHCA_QP_ATTR_SQ_PSN) c.sq_psn = ToLe32(attr.sq_psn & kPsnMask);
  if (mask & VHCA_QP_ATTR_MAX_DEST_RD_ATOMIC)
    c.max_dest_rd_atomic = attr.max_dest_rd_atomic;
  if (mask & VHCA_QP_ATTR_DEST_QPN) c.dest_qpn = ToLe32(attr.dest_qp_num & kQpnMask);
  return c;
}

void QpContextToAttr(const vhca_qp_context& c, vhca_core_qp_attr* attr) {
  *attr = vhca_core_qp_attr{};
  attr->qp_state = c.state;
  attr->cur_qp_state = c.cur_state;
  attr->path_mtu = c.path_mtu;
  attr->qkey = FromLe32(c.qkey);
  attr->rq_psn = FromLe32(c.rq_psn) & kPsnMask;
  attr->sq_psn = FromLe32(c.sq_psn) & kPsnMask;
  attr->dest_qp_num = FromLe32(c.dest_qpn) & kQpnMask;
  attr->qp_access_flags = FromLe32(c.access_flags);
  attr->pkey_index = FromLe16(c.pkey_index);
  attr->port_num = c.port;
  attr->max_rd_atomic = c.max_rd_atomic;
  attr->max_dest_rd_atomic = c.max_dest_rd_atomic;
  attr->min_rnr_timer = c.min_rnr_timer;
  attr->timeout = c.timeout;
  attr->retry_cnt = c.retry_cnt;
  attr->rnr_retry = c.rnr_retry;
  attr->en_sqd_async_notify = c.en_sqd_async_notify;
  attr->sq_draining = c.sq_draining;
  AvToAhAttr(c.av, &attr->ah_attr);
}

// The geometry is uapi's vhca_wq_compute_geometry (vhca_hw_qp_layout.h),
// which the provider computes too.
Result<QpLayout> ComputeQpLayout(const vhca_core_qp_cap& cap, bool has_srq,
                                 uint32_t device_max_wr,
                                 uint32_t device_max_sge) {
  const vhca_wq_caps asked = ToWqCaps(cap);
  vhca_wq_geometry g{};
  if (vhca_wq_compute_geometry(&asked, has_srq, device_max_wr, device_max_sge, &g))
    return Error{-VHCA_EINVAL};
  QpLayout layout;
  layout.sq_log_size = g.sq_log_size;
  layout.sq_wqe_shift = g.sq_wqe_shift;
  layout.rq_log_size = g.rq_log_size;
  layout.rq_wqe_shift = g.rq_wqe_shift;
  layout.granted = FromWqCaps(g.granted);
  return layout;
}

}  // namespace vhca
