// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "qp_attributes.h"

#include "endian.h"
#include "wqe_builder.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

constexpr uint32_t kPsnMask = 0xffffffu;
constexpr uint32_t kQpnMask = 0xffffffu;
constexpr uint32_t kMaxSgePerWqe = 255;  // vhca_wqe_ctrl.num_sge is 8 bits
// CREATE_QP refuses a max_inline above 512 (Documentation/device.md
// "Queue pairs"); vhca_device_attr does not report it.
constexpr uint32_t kMaxInlineData = 512;

// Smallest log2 with 2^log >= value (value >= 1).
uint32_t CeilLog2(uint32_t value) {
  uint32_t log = 0;
  while ((uint64_t{1} << log) < value) log++;
  return log;
}

uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }
uint32_t Max(uint32_t a, uint32_t b) { return a > b ? a : b; }

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
                             VHCA_ACCESS_REMOTE_ATOMIC));
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

Result<QpLayout> ComputeQpLayout(const vhca_core_qp_cap& cap, bool has_srq,
                                 uint32_t device_max_wr,
                                 uint32_t device_max_sge) {
  const uint32_t max_wr = Min(device_max_wr, 1u << VHCA_MAX_LOG_WQ);
  const uint32_t max_sge = Min(device_max_sge, kMaxSgePerWqe);
  if (cap.max_send_wr > max_wr || cap.max_send_sge > max_sge ||
      cap.max_recv_sge > max_sge || cap.max_inline_data > kMaxInlineData ||
      (!has_srq && cap.max_recv_wr > max_wr))
    return Error{-VHCA_EINVAL};
  QpLayout layout;
  // Send WQE: control, the largest opcode segment, then SGEs or inline
  // data (the reported limits hold for every opcode).
  const uint32_t send_head = sizeof(vhca_wqe_ctrl) + MaxSendSegmentSize();
  const uint32_t send_data = Max(cap.max_send_sge * sizeof(vhca_sge),
                                 cap.max_inline_data);
  layout.sq_wqe_shift = Max(CeilLog2(send_head + send_data), VHCA_MIN_SQ_WQE_SHIFT);
  layout.sq_log_size = CeilLog2(Max(cap.max_send_wr, 1));
  const uint32_t recv_bytes = sizeof(vhca_rwqe_hdr) + cap.max_recv_sge * sizeof(vhca_sge);
  layout.rq_wqe_shift = Max(CeilLog2(recv_bytes), VHCA_MIN_RQ_WQE_SHIFT);
  layout.rq_log_size = has_srq ? 0 : CeilLog2(Max(cap.max_recv_wr, 1));
  if (layout.sq_wqe_shift > VHCA_MAX_WQE_SHIFT ||
      layout.rq_wqe_shift > VHCA_MAX_WQE_SHIFT)
    return Error{-VHCA_EINVAL};

  const uint32_t sq_room = (1u << layout.sq_wqe_shift) - send_head;
  layout.granted.max_send_wr = 1u << layout.sq_log_size;
  layout.granted.max_send_sge = Min(sq_room / sizeof(vhca_sge), max_sge);
  layout.granted.max_inline_data = Min(sq_room, kMaxInlineData);
  layout.granted.max_recv_wr = has_srq ? 0 : 1u << layout.rq_log_size;
  layout.granted.max_recv_sge =
      has_srq ? 0
              : Min(((1u << layout.rq_wqe_shift) - sizeof(vhca_rwqe_hdr)) /
                        sizeof(vhca_sge),
                    max_sge);
  return layout;
}

}  // namespace vhca
