// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "wqe_builder.h"

#include "endian.h"
#include "memory.h"
#include "memory_region.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

// The rules themselves are uapi/vhca_hw_wqe_rules.h, shared with the
// provider and the device; opcodes are 8 bits on the wire.

// What follows the control segment for `opcode` on `qp_type`: the
// segment's size, or -EINVAL when the QP type cannot carry the opcode.
Result<uint32_t> OpcodeSegmentSize(uint8_t qp_type, uint32_t opcode) {
  if (opcode > 0xff || !vhca_wqe_opcode_allowed(static_cast<uint8_t>(opcode), qp_type))
    return Error{-VHCA_EINVAL};
  return vhca_wqe_segment_size(static_cast<uint8_t>(opcode), qp_type);
}

bool CarriesData(uint32_t opcode) {
  return vhca_wqe_carries_data(static_cast<uint8_t>(opcode)) != 0;
}

bool MayInline(uint32_t opcode) {
  return vhca_wqe_may_inline(static_cast<uint8_t>(opcode)) != 0;
}

uint8_t WqeFlags(const SendQueueLayout& layout, const vhca_core_send_wr& wr) {
  uint8_t flags = 0;
  if ((wr.flags & VHCA_CORE_SEND_SIGNALED) || layout.sig_all)
    flags |= VHCA_WQE_F_SIGNALED;
  if (wr.flags & VHCA_CORE_SEND_SOLICITED) flags |= VHCA_WQE_F_SOLICITED;
  if (wr.flags & VHCA_CORE_SEND_FENCE) flags |= VHCA_WQE_F_FENCE;
  return flags;
}

// The opcode's segment (its row's `segment`), all but REG_MR's.
void WriteSegment(uint8_t* wqe, uint8_t opcode, const vhca_core_send_wr& wr) {
  switch (vhca_wqe_opcode_row(opcode)->segment) {
    case VHCA_WQE_SEG_RADDR: {
      vhca_wqe_raddr seg{};
      seg.remote_addr = ToLe64(wr.rdma.remote_addr);
      seg.rkey = ToLe32(wr.rdma.rkey);
      CopyBytes(wqe, &seg, sizeof(seg));
      break;
    }
    case VHCA_WQE_SEG_ATOMIC: {
      vhca_wqe_atomic seg{};
      seg.remote_addr = ToLe64(wr.atomic.remote_addr);
      seg.rkey = ToLe32(wr.atomic.rkey);
      if (opcode == VHCA_WQE_ATOMIC_WRITE) {  // IBA 1.5 9.4.6: the bytes, unchanged
        CopyBytes(&seg.swap, &wr.atomic.swap, sizeof(seg.swap));
      } else {
        seg.compare_add = ToLe64(wr.atomic.compare_add);
        seg.swap = ToLe64(opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ? wr.atomic.swap : 0);
      }
      CopyBytes(wqe, &seg, sizeof(seg));
      break;
    }
    case VHCA_WQE_SEG_AV: {  // SEND* on a datagram QP
      vhca_wqe_ud seg{};
      seg.av = MakeAv(wr.ud.ah);
      seg.remote_qpn = ToLe32(wr.ud.remote_qpn & VHCA_DB_OBJ_MASK);
      seg.remote_qkey = ToLe32(wr.ud.remote_qkey);
      seg.pkey_index = ToLe16(wr.ud.pkey_index);
      CopyBytes(wqe, &seg, sizeof(seg));
      break;
    }
    default:  // REG_MR: WriteRegMr; BIND_MW: kernel verbs have no window binding
      break;
  }
}

Status WriteRegMr(uint8_t* wqe, const vhca_core_send_wr& wr) {
  if (!wr.reg.mr) return Error{-VHCA_EINVAL};
  vhca_wqe_reg_mr seg{};
  VHCA_TRY(reinterpret_cast<const MemoryRegion*>(wr.reg.mr)
               ->FillRegSegment(wr.reg.key, wr.reg.access, wr.reg.iova,
                                wr.reg.length, &seg));
  CopyBytes(wqe, &seg, sizeof(seg));
  return Ok();
}

// Inline data: the bytes the SGEs name (kernel virtual addresses,
// IB_SEND_INLINE), packed after the segments.
Status WriteInline(const SendQueueLayout& layout, const vhca_core_send_wr& wr,
                   uint32_t offset, uint8_t* wqe, uint32_t* inline_len) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < wr.num_sge; i++) total += wr.sg_list[i].length;
  if (total > layout.max_inline || offset + total > layout.stride)
    return Error{-VHCA_EINVAL};
  uint8_t* data = wqe + offset;
  for (uint32_t i = 0; i < wr.num_sge; i++) {
    const vhca_core_sge& sge = wr.sg_list[i];
    CopyBytes(data, reinterpret_cast<const void*>(static_cast<uintptr_t>(sge.addr)),
              sge.length);
    data += sge.length;
  }
  *inline_len = static_cast<uint32_t>(total);
  return Ok();
}

void WriteSges(const vhca_core_sge* sg_list, uint32_t num_sge, uint8_t* at) {
  for (uint32_t i = 0; i < num_sge; i++) {
    vhca_sge sge{};
    sge.addr = ToLe64(sg_list[i].addr);
    sge.length = ToLe32(sg_list[i].length);
    sge.lkey = ToLe32(sg_list[i].lkey);
    CopyBytes(at + i * sizeof(sge), &sge, sizeof(sge));
  }
}

}  // namespace

vhca_av MakeAv(const vhca_core_ah_attr& ah) {
  vhca_av av{};
  av.dlid = ToLe16(ah.dlid);
  av.sl = ah.sl;
  av.src_path_bits = ah.src_path_bits;
  av.static_rate = ah.static_rate;
  av.port = ah.port_num;
  if (ah.has_grh) {
    av.flags = VHCA_AV_F_GRH;
    av.sgid_index = ah.sgid_index;
    av.hop_limit = ah.hop_limit;
    av.traffic_class = ah.traffic_class;
    av.flow_label = ToLe32(ah.flow_label & 0xfffffu);
    CopyBytes(av.dgid, ah.dgid, sizeof(av.dgid));
  }
  return av;
}

void AvToAhAttr(const vhca_av& av, vhca_core_ah_attr* ah) {
  *ah = vhca_core_ah_attr{};
  ah->dlid = FromLe16(av.dlid);
  ah->sl = av.sl;
  ah->src_path_bits = av.src_path_bits;
  ah->static_rate = av.static_rate;
  ah->port_num = av.port;
  ah->has_grh = (av.flags & VHCA_AV_F_GRH) ? 1 : 0;
  ah->sgid_index = av.sgid_index;
  ah->hop_limit = av.hop_limit;
  ah->traffic_class = av.traffic_class;
  ah->flow_label = FromLe32(av.flow_label) & 0xfffffu;
  CopyBytes(ah->dgid, av.dgid, sizeof(ah->dgid));
}

Status BuildSendWqe(const SendQueueLayout& layout, const vhca_core_send_wr& wr,
                    uint8_t* wqe) {
  auto segment_size = OpcodeSegmentSize(layout.qp_type, wr.opcode);
  VHCA_TRY(segment_size);
  const uint32_t data_offset = sizeof(vhca_wqe_ctrl) + segment_size.value();
  const bool inline_data = (wr.flags & VHCA_CORE_SEND_INLINE) != 0;
  if (!CarriesData(wr.opcode) && wr.num_sge) return Error{-VHCA_EINVAL};
  if (inline_data && !MayInline(wr.opcode)) return Error{-VHCA_EINVAL};
  if (wr.num_sge && !wr.sg_list) return Error{-VHCA_EINVAL};
  if (!inline_data && (wr.num_sge > layout.max_sge ||
                       data_offset + wr.num_sge * sizeof(vhca_sge) > layout.stride))
    return Error{-VHCA_EINVAL};

  ZeroBytes(wqe, layout.stride);
  vhca_wqe_ctrl ctrl{};
  ctrl.wr_id = ToLe64(wr.wr_id);
  ctrl.opcode = static_cast<uint8_t>(wr.opcode);
  ctrl.flags = WqeFlags(layout, wr);
  // Immediate data stays in wire order: ib_send_wr.ex.imm_data is a
  // __be32 and goes to the wire byte for byte.  A key is a number.
  if (vhca_wqe_opcode_has(ctrl.opcode, VHCA_WQE_OPF_IMM))
    ctrl.imm_inv = wr.imm_inv;
  else if (vhca_wqe_opcode_has(ctrl.opcode, VHCA_WQE_OPF_INV))
    ctrl.imm_inv = ToLe32(wr.imm_inv);
  if (wr.opcode == VHCA_WQE_REG_MR) {
    VHCA_TRY(WriteRegMr(wqe + sizeof(ctrl), wr));
  } else if (segment_size.value()) {
    WriteSegment(wqe + sizeof(ctrl), ctrl.opcode, wr);
  }
  if (inline_data) {
    uint32_t inline_len = 0;
    VHCA_TRY(WriteInline(layout, wr, data_offset, wqe, &inline_len));
    ctrl.flags |= VHCA_WQE_F_INLINE;
    ctrl.inline_len = ToLe32(inline_len);
  } else {
    WriteSges(wr.sg_list, wr.num_sge, wqe + data_offset);
    ctrl.num_sge = static_cast<uint8_t>(wr.num_sge);
  }
  CopyBytes(wqe, &ctrl, sizeof(ctrl));
  return Ok();
}

Status BuildRecvWqe(const RecvQueueLayout& layout, const vhca_core_recv_wr& wr,
                    uint8_t* wqe) {
  if (wr.num_sge > layout.max_sge || (wr.num_sge && !wr.sg_list) ||
      sizeof(vhca_rwqe_hdr) + wr.num_sge * sizeof(vhca_sge) > layout.stride)
    return Error{-VHCA_EINVAL};
  ZeroBytes(wqe, layout.stride);
  vhca_rwqe_hdr hdr{};
  hdr.wr_id = ToLe64(wr.wr_id);
  hdr.num_sge = static_cast<uint8_t>(wr.num_sge);
  CopyBytes(wqe, &hdr, sizeof(hdr));
  WriteSges(wr.sg_list, wr.num_sge, wqe + sizeof(hdr));
  return Ok();
}

}  // namespace vhca
