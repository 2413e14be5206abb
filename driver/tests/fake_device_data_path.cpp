// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fake device's data path half (vhca_hw_verbs.h): CQ/QP/SRQ/MR and
// multicast commands with the device's argument checks, data doorbells,
// and CQEs written into CQ rings for the poll tests.
#include <gtest/gtest.h>

#include <cstring>

#include "fake_device.h"
#include "fake_kernel.h"

namespace {

// The device's handle rule (Documentation/device.md "Handles"): the
// lowest free number from `first`, so handles stay below the limits.
template <typename Map>
uint32_t LowestFree(const Map& objects, uint32_t first) {
  uint32_t handle = first;
  while (objects.count(handle)) handle++;
  return handle;
}

}  // namespace

template <typename T>
bool FakeDevice::ReadIn(const vhca_cmd& cmd, T* in) {
  if (cmd.in_len != sizeof(T)) return false;
  void* data = Dma(cmd.in_addr, sizeof(T));
  if (!data) return false;
  memcpy(in, data, sizeof(T));
  return true;
}

void FakeDevice::WriteDoorbell64(uint32_t offset, uint64_t value) {
  data_doorbells.push_back({offset, value});
  const uint32_t object = static_cast<uint32_t>(value) & VHCA_DB_OBJ_MASK;
  const uint32_t index = static_cast<uint32_t>(value >> 32);
  switch (offset) {
    case VHCA_DB_CQ: {
      auto it = cqs.find(object);
      ASSERT_NE(it, cqs.end()) << "CQ doorbell for unknown CQ " << object;
      it->second.armed = static_cast<uint32_t>(value) &
                         (VHCA_DB_CQ_ARM_NEXT | VHCA_DB_CQ_ARM_SOLICITED);
      it->second.arm_ci = index;
      break;
    }
    case VHCA_DB_SQ:
    case VHCA_DB_RQ:
      ASSERT_TRUE(qps.count(object)) << "doorbell for unknown QP " << object;
      break;
    case VHCA_DB_SRQ:
      ASSERT_TRUE(srqs.count(object)) << "doorbell for unknown SRQ " << object;
      break;
    default:
      ADD_FAILURE() << "64-bit doorbell at unknown offset " << offset;
  }
}

bool FakeDevice::RingReachable(const vhca_buf_desc& desc, uint64_t bytes) {
  if (desc.mode == VHCA_BUF_CONTIG) return Dma(desc.addr, bytes) != nullptr;
  const uint64_t page_size = uint64_t{1} << desc.page_shift;
  if (uint64_t{desc.npages} * page_size < bytes) return false;
  for (uint64_t page : ReadPages(desc)) {
    const uint64_t len = bytes < page_size ? bytes : page_size;
    if (!Dma(page, static_cast<uint32_t>(len))) return false;
    bytes -= len;
  }
  return bytes == 0;
}

std::vector<uint64_t> FakeDevice::ReadPages(const vhca_buf_desc& desc) {
  std::vector<uint64_t> pages;
  if (desc.mode == VHCA_BUF_CONTIG) {
    pages.push_back(desc.addr);
    return pages;
  }
  if (desc.mode == VHCA_BUF_DIRECT) {
    EXPECT_LE(desc.npages, uint32_t{VHCA_PBL_ENTRIES_PER_PAGE});
    auto* list = static_cast<uint64_t*>(Dma(desc.addr, desc.npages * 8));
    if (list) pages.assign(list, list + desc.npages);
    return pages;
  }
  EXPECT_EQ(desc.mode, uint8_t{VHCA_BUF_INDIRECT});
  const uint32_t leaves =
      (desc.npages + VHCA_PBL_ENTRIES_PER_PAGE - 1) / VHCA_PBL_ENTRIES_PER_PAGE;
  auto* top = static_cast<uint64_t*>(Dma(desc.addr, leaves * 8));
  if (!top) return pages;
  for (uint32_t i = 0; i < desc.npages; i++) {
    auto* leaf = static_cast<uint64_t*>(
        Dma(top[i / VHCA_PBL_ENTRIES_PER_PAGE], 4096));
    if (!leaf) return pages;
    pages.push_back(leaf[i % VHCA_PBL_ENTRIES_PER_PAGE]);
  }
  return pages;
}

// `len` bytes at byte `offset` of a ring, through its page list (user
// rings are not contiguous); nullptr outside it.
void* FakeDevice::RingSlot(const vhca_buf_desc& desc, uint64_t offset, uint32_t len) {
  if (desc.mode == VHCA_BUF_CONTIG) return Dma(desc.addr + offset, len);
  const uint64_t page_size = uint64_t{1} << desc.page_shift;
  const std::vector<uint64_t> pages = ReadPages(desc);
  const uint64_t page = offset / page_size;
  if (page >= pages.size() || offset % page_size + len > page_size) return nullptr;
  return Dma(pages[page] + offset % page_size, len);
}

void FakeDevice::PostCqe(uint32_t cqn, const vhca_cqe& cqe) {
  auto it = cqs.find(cqn);
  ASSERT_NE(it, cqs.end());
  Cq& cq = it->second;
  const uint32_t size = 1u << cq.in.log_size;
  auto* dbrec = static_cast<vhca_cq_dbrec*>(Dma(cq.in.dbrec_addr, sizeof(vhca_cq_dbrec)));
  ASSERT_NE(dbrec, nullptr);
  ASSERT_LT(cq.producer - dbrec->consumer_index, size) << "CQ " << cqn << " overrun";
  auto* slot = static_cast<vhca_cqe*>(
      RingSlot(cq.in.buf, (cq.producer & (size - 1)) * sizeof(vhca_cqe), sizeof(vhca_cqe)));
  ASSERT_NE(slot, nullptr);
  memcpy(slot, &cqe, offsetof(vhca_cqe, owner));
  slot->owner = vhca_eqe_owner(cq.producer, cq.in.log_size);
  cq.producer++;
  const bool solicited_or_error = cqe.status != VHCA_WC_SUCCESS;
  if ((cq.armed & VHCA_DB_CQ_ARM_NEXT) ||
      ((cq.armed & VHCA_DB_CQ_ARM_SOLICITED) && solicited_or_error)) {
    cq.armed = 0;
    vhca_eqe event{};
    event.type = VHCA_EQE_COMPLETION;
    event.data.completion.cqn = cqn;
    PostEvent(cq.in.eqn, event);
  }
}

// RESIZE_CQ as the device does it: the CQEs past the old doorbell
// record's consumer index move to the start of the new ring.
uint8_t FakeDevice::MigrateCq(Cq* cq, const vhca_cmd_create_cq& in) {
  const uint32_t old_size = 1u << cq->in.log_size;
  const uint32_t new_size = 1u << in.log_size;
  auto* dbrec = static_cast<vhca_cq_dbrec*>(Dma(cq->in.dbrec_addr, sizeof(vhca_cq_dbrec)));
  if (!dbrec) return VHCA_CMD_BAD_ADDR;
  const uint32_t ci = dbrec->consumer_index;
  const uint32_t pending = cq->producer - ci;
  if (pending > old_size || pending > new_size) return VHCA_CMD_BAD_PARAM;
  for (uint32_t i = 0; i < pending; i++) {
    auto* from = static_cast<vhca_cqe*>(RingSlot(
        cq->in.buf, ((ci + i) & (old_size - 1)) * sizeof(vhca_cqe), sizeof(vhca_cqe)));
    auto* to = static_cast<vhca_cqe*>(RingSlot(in.buf, i * sizeof(vhca_cqe), sizeof(vhca_cqe)));
    if (!from || !to) return VHCA_CMD_BAD_ADDR;
    memcpy(to, from, offsetof(vhca_cqe, owner));
    to->owner = vhca_eqe_owner(i, in.log_size);
  }
  cq->in = in;
  cq->producer = pending;
  return VHCA_CMD_OK;
}

uint8_t FakeDevice::ExecuteDataPath(const vhca_cmd& cmd, uint32_t result[2]) {
  const uint32_t handle = cmd.in.handle.handle;
  switch (cmd.opcode) {
    case VHCA_CMD_CREATE_CQ:
    case VHCA_CMD_RESIZE_CQ: {
      vhca_cmd_create_cq in{};
      if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
      if (in.log_size < VHCA_MIN_LOG_CQ || in.log_size > VHCA_MAX_LOG_CQ ||
          in.eqn == 0 || in.eqn >= VHCA_MAX_EQS || !eqs[in.eqn].live ||
          in.buf.mode > VHCA_BUF_INDIRECT || in.dbrec_addr % 8)
        return VHCA_CMD_BAD_PARAM;
      if (!RingReachable(in.buf, sizeof(vhca_cqe) << in.log_size) ||
          !Dma(in.dbrec_addr, sizeof(vhca_cq_dbrec)))
        return VHCA_CMD_BAD_ADDR;
      if (cmd.opcode == VHCA_CMD_RESIZE_CQ) {
        auto it = cqs.find(handle);
        if (it == cqs.end()) return VHCA_CMD_BAD_HANDLE;
        return MigrateCq(&it->second, in);
      }
      if (cqs.size() >= max_cq) return VHCA_CMD_NO_RESOURCES;
      const uint32_t cqn =
          forced_cqn >= 0 ? static_cast<uint32_t>(forced_cqn) : LowestFree(cqs, 0);
      forced_cqn = -1;
      cqs[cqn].in = in;
      result[0] = cqn;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_DESTROY_CQ: {
      if (!cqs.count(handle)) return VHCA_CMD_BAD_HANDLE;
      for (const auto& qp : qps)
        if (qp.second.in.send_cqn == handle || qp.second.in.recv_cqn == handle)
          return VHCA_CMD_BUSY;
      cqs.erase(handle);
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_CREATE_QP: {
      vhca_cmd_create_qp in{};
      if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
      const bool has_srq = in.flags & VHCA_QP_F_HAS_SRQ;
      if (in.type < VHCA_QPT_RC || in.type > VHCA_QPT_GSI ||
          in.sq_log_size > VHCA_MAX_LOG_WQ || in.rq_log_size > VHCA_MAX_LOG_WQ ||
          in.sq_wqe_shift < VHCA_MIN_SQ_WQE_SHIFT || in.sq_wqe_shift > VHCA_MAX_WQE_SHIFT ||
          in.rq_wqe_shift < VHCA_MIN_RQ_WQE_SHIFT || in.rq_wqe_shift > VHCA_MAX_WQE_SHIFT ||
          !pds.count(in.pdn) || !cqs.count(in.send_cqn) || !cqs.count(in.recv_cqn) ||
          (has_srq && (!srqs.count(in.srqn) || in.rq_log_size != 0)) ||
          in.max_inline > 512)  // the device's VHCA_MAX_INLINE
        return VHCA_CMD_BAD_PARAM;
      if (!RingReachable(in.sq_buf, size_t{1} << (in.sq_log_size + in.sq_wqe_shift)) ||
          (!has_srq &&
           !RingReachable(in.rq_buf, size_t{1} << (in.rq_log_size + in.rq_wqe_shift))))
        return VHCA_CMD_BAD_ADDR;
      if (qps.size() >= max_qp) return VHCA_CMD_NO_RESOURCES;
      uint32_t qpn;
      if (in.type == VHCA_QPT_SMI || in.type == VHCA_QPT_GSI) {
        if (in.port < 1 || in.port > num_ports) return VHCA_CMD_BAD_PARAM;
        qpn = VHCA_SPECIAL_QP_HANDLE(in.port, in.type == VHCA_QPT_SMI ? 0 : 1);
        if (qps.count(qpn)) return VHCA_CMD_BUSY;
      } else {
        qpn = LowestFree(qps, 2);
      }
      qps[qpn].in = in;
      result[0] = qpn;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_MODIFY_QP: {
      auto it = qps.find(handle);
      if (it == qps.end()) return VHCA_CMD_BAD_HANDLE;
      vhca_qp_context context{};
      if (!ReadIn(cmd, &context)) return VHCA_CMD_BAD_SIZE;
      it->second.modifies.push_back(context);
      vhca_qp_context& c = it->second.context;
      // Keep the masked fields (a model, not the device's state machine).
      const uint32_t mask = context.attr_mask;
      if (mask & VHCA_QP_ATTR_STATE) c.state = context.state;
      if (mask & VHCA_QP_ATTR_QKEY) c.qkey = context.qkey;
      if (mask & VHCA_QP_ATTR_PORT) c.port = context.port;
      if (mask & VHCA_QP_ATTR_PKEY_INDEX) c.pkey_index = context.pkey_index;
      if (mask & VHCA_QP_ATTR_AV) c.av = context.av;
      if (mask & VHCA_QP_ATTR_DEST_QPN) c.dest_qpn = context.dest_qpn;
      if (mask & VHCA_QP_ATTR_SQ_PSN) c.sq_psn = context.sq_psn;
      if (mask & VHCA_QP_ATTR_RQ_PSN) c.rq_psn = context.rq_psn;
      if (mask & VHCA_QP_ATTR_PATH_MTU) c.path_mtu = context.path_mtu;
      if (mask & VHCA_QP_ATTR_ACCESS_FLAGS) c.access_flags = context.access_flags;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_QUERY_QP: {
      auto it = qps.find(handle);
      if (it == qps.end()) return VHCA_CMD_BAD_HANDLE;
      return WriteOut(cmd, &it->second.context, sizeof(vhca_qp_context))
                 ? VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_DESTROY_QP:
      return qps.erase(handle) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_CREATE_SRQ: {
      vhca_cmd_create_srq in{};
      if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
      if (!pds.count(in.pdn) || in.log_size > VHCA_MAX_LOG_WQ ||
          in.wqe_shift < VHCA_MIN_RQ_WQE_SHIFT || in.wqe_shift > VHCA_MAX_WQE_SHIFT)
        return VHCA_CMD_BAD_PARAM;
      if (!RingReachable(in.buf, size_t{1} << (in.log_size + in.wqe_shift)))
        return VHCA_CMD_BAD_ADDR;
      if (srqs.size() >= max_srq) return VHCA_CMD_NO_RESOURCES;
      const uint32_t srqn = LowestFree(srqs, 0);
      srqs[srqn].in = in;
      srqs[srqn].limit = in.limit;
      result[0] = srqn;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_MODIFY_SRQ: {
      auto it = srqs.find(cmd.in.handle.handle);  // srq_limit_in.srqn
      if (it == srqs.end()) return VHCA_CMD_BAD_HANDLE;
      vhca_cmd_srq_limit_in in;
      memcpy(&in, cmd.in.raw, sizeof(in));
      it->second.limit = in.limit;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_QUERY_SRQ: {
      auto it = srqs.find(handle);
      if (it == srqs.end()) return VHCA_CMD_BAD_HANDLE;
      result[0] = it->second.limit;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_DESTROY_SRQ: {
      if (!srqs.count(handle)) return VHCA_CMD_BAD_HANDLE;
      for (const auto& qp : qps)
        if ((qp.second.in.flags & VHCA_QP_F_HAS_SRQ) && qp.second.in.srqn == handle)
          return VHCA_CMD_BUSY;
      srqs.erase(handle);
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_CREATE_MR:
    case VHCA_CMD_REREG_MR: {
      Mr mr;
      if (!ReadIn(cmd, &mr.in)) return VHCA_CMD_BAD_SIZE;
      if (!pds.count(mr.in.pdn) || mr.in.access & ~0x1fu) return VHCA_CMD_BAD_PARAM;
      if (!(mr.in.flags & VHCA_MR_F_PHYSICAL)) {
        if (mr.in.pages.mode == VHCA_BUF_CONTIG || mr.in.pages.npages == 0 ||
            mr.in.pages.page_shift < VHCA_MIN_PAGE_SHIFT ||
            mr.in.pages.page_shift > VHCA_MAX_PAGE_SHIFT)
          return VHCA_CMD_BAD_PARAM;
        mr.pages = ReadPages(mr.in.pages);
      }
      if (cmd.opcode == VHCA_CMD_REREG_MR) {  // the key stays
        auto it = mrs.find(VHCA_KEY_INDEX(handle));
        if (it == mrs.end() || it->second.fast_reg ||
            it->second.variant != VHCA_KEY_VARIANT(handle))
          return VHCA_CMD_BAD_HANDLE;
        mr.variant = it->second.variant;
        it->second = mr;
        return VHCA_CMD_OK;
      }
      if (mrs.size() >= max_mr) return VHCA_CMD_NO_RESOURCES;
      const uint32_t index = next_mr_index_++;
      result[0] = (index << 8) | mr.in.key_variant;
      mr.variant = mr.in.key_variant;
      mrs[index] = mr;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_ALLOC_MR: {
      Mr mr;
      mr.fast_reg = true;
      memcpy(&mr.alloc, cmd.in.raw, sizeof(mr.alloc));
      if (!pds.count(mr.alloc.pdn) || mr.alloc.max_pages == 0) return VHCA_CMD_BAD_PARAM;
      if (mrs.size() >= max_mr) return VHCA_CMD_NO_RESOURCES;
      const uint32_t index = next_mr_index_++;
      result[0] = (index << 8) | mr.alloc.key_variant;
      mr.variant = mr.alloc.key_variant;
      mrs[index] = mr;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_DESTROY_MR: {
      // The whole key, variant included (REG_MR WQEs are not modelled:
      // the variant stays the one of CREATE/ALLOC_MR).
      auto it = mrs.find(VHCA_KEY_INDEX(handle));
      if (it == mrs.end() || it->second.variant != VHCA_KEY_VARIANT(handle))
        return VHCA_CMD_BAD_HANDLE;
      mrs.erase(it);
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_ALLOC_MW: {
      vhca_cmd_alloc_mw_in in;
      memcpy(&in, cmd.in.raw, sizeof(in));
      if (!pds.count(in.pdn)) return VHCA_CMD_BAD_HANDLE;
      if (in.type != VHCA_MW_TYPE_1 && in.type != VHCA_MW_TYPE_2) return VHCA_CMD_BAD_PARAM;
      if (mrs.size() + mws.size() >= max_mr) return VHCA_CMD_NO_RESOURCES;
      const uint32_t index = next_mr_index_++;
      mws[index] = in;
      result[0] = (index << 8) | in.key_variant;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_DEALLOC_MW:  // the index only (binds change the variant)
      return mws.erase(VHCA_KEY_INDEX(handle)) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_ATTACH_MCAST:
    case VHCA_CMD_DETACH_MCAST: {
      vhca_cmd_mcast_in in;
      memcpy(&in, cmd.in.raw, sizeof(in));
      if (!qps.count(in.qpn) || in.mlid < 0xc000 || in.mlid == 0xffff)
        return VHCA_CMD_BAD_PARAM;
      if (cmd.opcode == VHCA_CMD_ATTACH_MCAST) {
        mcast.insert({in.qpn, in.mlid});
        return VHCA_CMD_OK;
      }
      return mcast.erase({in.qpn, in.mlid}) ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
    }
    default:
      return VHCA_CMD_BAD_OPCODE;
  }
}
