// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The fake device's data path half (vhca_hw_verbs.h): CQ/QP/SRQ/MR/MW and
// multicast commands with the device's argument checks, data doorbells,
// page lists and the MTT, and CQEs written into CQ rings.
#include "fake_device.h"

#include "fake_internal.h"
#include "../core/memory.h"

namespace vhca {
namespace fake {

template <typename T>
bool Device::ReadIn(const vhca_cmd& cmd, T* in) {
  if (cmd.in_len != sizeof(T)) return false;
  void* data = Dma(cmd.in_addr, sizeof(T));
  if (!data) return false;
  CopyBytes(in, data, sizeof(T));
  return true;
}

void Device::WriteDoorbell64(uint32_t offset, uint64_t value) {
  Locked lock(env_);
  data_doorbells.push_back({offset, value});
  const uint32_t object = static_cast<uint32_t>(value) & VHCA_DB_OBJ_MASK;
  const uint32_t index = static_cast<uint32_t>(value >> 32);
  switch (offset) {
    case VHCA_DB_CQ: {
      Cq* cq = cqs.find(object);
      if (!cq) {
        VHCA_FAKE_VIOLATION("CQ doorbell for unknown CQ %u", object);
        return;
      }
      cq->armed = static_cast<uint32_t>(value) & (VHCA_DB_CQ_ARM_NEXT | VHCA_DB_CQ_ARM_SOLICITED);
      cq->arm_ci = index;
      return;
    }
    case VHCA_DB_SQ:
    case VHCA_DB_RQ:
      if (!qps.count(object)) VHCA_FAKE_VIOLATION("doorbell for unknown QP %u", object);
      return;
    case VHCA_DB_SRQ:
      if (!srqs.count(object)) VHCA_FAKE_VIOLATION("doorbell for unknown SRQ %u", object);
      return;
    default:
      VHCA_FAKE_VIOLATION("64-bit doorbell at unknown offset 0x%x", offset);
  }
}

// Page lists (vhca_hw_verbs.h "Buffer descriptors"): DIRECT holds the page
// addresses in one page, INDIRECT points at a page of leaf page addresses.
bool Device::PageAddress(const vhca_buf_desc& desc, uint32_t index, uint64_t* page) {
  if (desc.mode == VHCA_BUF_CONTIG) {
    *page = desc.addr + (uint64_t{index} << desc.page_shift);
    return index == 0 || index < desc.npages;
  }
  if (index >= desc.npages) return false;
  if (desc.mode == VHCA_BUF_DIRECT) {
    if (desc.npages > VHCA_PBL_ENTRIES_PER_PAGE) {
      VHCA_FAKE_VIOLATION("DIRECT page list of %u pages", desc.npages);
      return false;
    }
    auto* list = static_cast<const uint64_t*>(Dma(desc.addr, uint64_t{desc.npages} * 8));
    if (!list) return false;
    *page = list[index];
    return true;
  }
  if (desc.mode != VHCA_BUF_INDIRECT) {
    VHCA_FAKE_VIOLATION("page list mode %u", desc.mode);
    return false;
  }
  const uint32_t leaves = (desc.npages + VHCA_PBL_ENTRIES_PER_PAGE - 1) / VHCA_PBL_ENTRIES_PER_PAGE;
  auto* top = static_cast<const uint64_t*>(Dma(desc.addr, uint64_t{leaves} * 8));
  if (!top) return false;
  auto* leaf = static_cast<const uint64_t*>(Dma(top[index / VHCA_PBL_ENTRIES_PER_PAGE],
                                                       VHCA_PBL_PAGE_SIZE));
  if (!leaf) return false;
  *page = leaf[index % VHCA_PBL_ENTRIES_PER_PAGE];
  return true;
}

// A ring of `bytes` described by desc lies in live DMA memory (CONTIG, or
// DIRECT/INDIRECT pages as user rings come).
bool Device::RecordReachable(uint64_t addr) {
  return addr == 0 || (addr % 8 == 0 && Dma(addr, sizeof(vhca_wq_dbrec)) != nullptr);
}

uint32_t Device::RecordProducer(uint64_t addr) {
  auto* rec = static_cast<const vhca_wq_dbrec*>(Dma(addr, sizeof(vhca_wq_dbrec)));
  return rec ? rec->producer_index : 0;
}

void Device::SetRecordFlags(uint64_t addr, uint32_t flags) {
  auto* rec = static_cast<vhca_wq_dbrec*>(Dma(addr, sizeof(vhca_wq_dbrec)));
  if (rec) rec->device_flags = flags;
}

bool Device::RingReachable(const vhca_buf_desc& desc, uint64_t bytes) {
  if (desc.mode == VHCA_BUF_CONTIG) return Dma(desc.addr, bytes) != nullptr;
  const uint64_t page_size = uint64_t{1} << desc.page_shift;
  if (uint64_t{desc.npages} * page_size < bytes) return false;
  for (uint32_t i = 0; bytes; i++) {
    uint64_t page;
    const uint64_t len = bytes < page_size ? bytes : page_size;
    if (!PageAddress(desc, i, &page) || !Dma(page, len)) return false;
    bytes -= len;
  }
  return true;
}

// `len` bytes at byte `offset` of a ring, through its page list (user
// rings are not contiguous); nullptr outside it.
void* Device::RingSlot(const vhca_buf_desc& desc, uint64_t offset, uint32_t len) {
  if (desc.mode == VHCA_BUF_CONTIG) return Dma(desc.addr + offset, len);
  const uint64_t page_size = uint64_t{1} << desc.page_shift;
  uint64_t page;
  if (offset % page_size + len > page_size ||
      !PageAddress(desc, static_cast<uint32_t>(offset / page_size), &page))
    return nullptr;
  return Dma(page + offset % page_size, len);
}

// First fit in the MTT: a region's pages stay with the device after
// CREATE_MR, whatever the driver does with its page list.
bool Device::CopyPages(const vhca_buf_desc& desc, Mr* mr) {
  mr->pages = nullptr;
  mr->num_pages = 0;
  const uint32_t n = desc.npages;
  if (n == 0 || n > kMttEntries) return false;
  for (uint32_t start = 0; start + n <= kMttEntries; start++) {
    uint32_t run = 0;
    while (run < n && !mtt_used_[start + run]) run++;
    if (run < n) {
      start += run;
      continue;
    }
    for (uint32_t i = 0; i < n; i++)
      if (!PageAddress(desc, i, &mtt_[start + i])) return false;
    for (uint32_t i = 0; i < n; i++) mtt_used_[start + i] = true;
    mr->pages = &mtt_[start];
    mr->num_pages = n;
    return true;
  }
  return false;
}

void Device::FreePages(Mr* mr) {
  if (!mr->pages) return;
  const uint32_t start = static_cast<uint32_t>(mr->pages - mtt_);
  for (uint32_t i = 0; i < mr->num_pages; i++) mtt_used_[start + i] = false;
  mr->pages = nullptr;
  mr->num_pages = 0;
}

void Device::PostCqe(uint32_t cqn, const vhca_cqe& cqe) {
  Locked lock(env_);
  Cq* cq = cqs.find(cqn);
  if (!cq) {
    VHCA_FAKE_VIOLATION("CQE for CQ %u that does not exist", cqn);
    return;
  }
  const uint32_t size = 1u << cq->in.log_size;
  auto* dbrec = static_cast<vhca_cq_dbrec*>(Dma(cq->in.dbrec_addr, sizeof(vhca_cq_dbrec)));
  if (!dbrec) return;
  if (cq->producer - dbrec->consumer_index >= size) {
    VHCA_FAKE_VIOLATION("CQ %u overrun", cqn);
    return;
  }
  auto* slot = static_cast<vhca_cqe*>(
      RingSlot(cq->in.buf, (cq->producer & (size - 1)) * sizeof(vhca_cqe), sizeof(vhca_cqe)));
  if (!slot) return;
  CopyBytes(slot, &cqe, offsetof(vhca_cqe, owner));
  vhca_kapi_dma_wmb();
  *static_cast<volatile uint8_t*>(&slot->owner) = vhca_eqe_owner(cq->producer, cq->in.log_size);
  cq->producer++;
  const bool solicited_or_error = cqe.status != VHCA_WC_SUCCESS;
  if ((cq->armed & VHCA_DB_CQ_ARM_NEXT) ||
      ((cq->armed & VHCA_DB_CQ_ARM_SOLICITED) && solicited_or_error)) {
    cq->armed = 0;
    vhca_eqe event{};
    event.type = VHCA_EQE_COMPLETION;
    event.data.completion.cqn = cqn;
    if (PostEventLocked(cq->in.eqn, event))
      VHCA_FAKE_VIOLATION("no room on EQ %u for a completion event", cq->in.eqn);
  }
}

// RESIZE_CQ as the device does it: the CQEs past the old doorbell
// record's consumer index move to the start of the new ring.
uint8_t Device::MigrateCq(Cq* cq, const vhca_cmd_create_cq& in) {
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
    CopyBytes(to, from, offsetof(vhca_cqe, owner));
    to->owner = vhca_eqe_owner(i, in.log_size);
  }
  cq->in = in;
  cq->producer = pending;
  return VHCA_CMD_OK;
}

uint8_t Device::CreateCq(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_create_cq in{};
  if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
  if (in.log_size < VHCA_MIN_LOG_CQ || in.log_size > VHCA_MAX_LOG_CQ || in.eqn == 0 ||
      in.eqn >= VHCA_MAX_EQS || !eqs[in.eqn].live || in.buf.mode > VHCA_BUF_INDIRECT ||
      in.dbrec_addr % 8)
    return VHCA_CMD_BAD_PARAM;
  if (!RingReachable(in.buf, sizeof(vhca_cqe) << in.log_size) ||
      !Dma(in.dbrec_addr, sizeof(vhca_cq_dbrec)))
    return VHCA_CMD_BAD_ADDR;
  if (cmd.opcode == VHCA_CMD_RESIZE_CQ) {
    Cq* cq = cqs.find(cmd.in.handle.handle);
    return cq ? MigrateCq(cq, in) : uint8_t{VHCA_CMD_BAD_HANDLE};
  }
  const uint32_t cqn = forced_cqn >= 0 ? static_cast<uint32_t>(forced_cqn) : cqs.lowest_free(0);
  forced_cqn = -1;
  Cq* cq = cqs.size() < max_cq ? cqs.insert(cqn) : nullptr;
  if (!cq) return VHCA_CMD_NO_RESOURCES;
  cq->in = in;
  result[0] = cqn;
  return VHCA_CMD_OK;
}

uint8_t Device::DestroyCq(uint32_t cqn) {
  if (!cqs.count(cqn)) return VHCA_CMD_BAD_HANDLE;
  if (qps.any([cqn](uint32_t, const Qp& qp) {
        return qp.in.send_cqn == cqn || qp.in.recv_cqn == cqn;
      }))
    return VHCA_CMD_BUSY;
  cqs.erase(cqn);
  return VHCA_CMD_OK;
}

uint8_t Device::CreateQp(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_create_qp in{};
  if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
  const bool has_srq = in.flags & VHCA_QP_F_HAS_SRQ;
  if (in.type < VHCA_QPT_RC || in.type > VHCA_QPT_GSI || in.sq_log_size > VHCA_MAX_LOG_WQ ||
      in.rq_log_size > VHCA_MAX_LOG_WQ || in.sq_wqe_shift < VHCA_MIN_SQ_WQE_SHIFT ||
      in.sq_wqe_shift > VHCA_MAX_WQE_SHIFT || in.rq_wqe_shift < VHCA_MIN_RQ_WQE_SHIFT ||
      in.rq_wqe_shift > VHCA_MAX_WQE_SHIFT || !pds.count(in.pdn) || !cqs.count(in.send_cqn) ||
      !cqs.count(in.recv_cqn) || (has_srq && (!srqs.count(in.srqn) || in.rq_log_size != 0)) ||
      in.max_inline > VHCA_MAX_INLINE)
    return VHCA_CMD_BAD_PARAM;
  if (!RingReachable(in.sq_buf, uint64_t{1} << (in.sq_log_size + in.sq_wqe_shift)) ||
      (!has_srq && !RingReachable(in.rq_buf, uint64_t{1} << (in.rq_log_size + in.rq_wqe_shift))) ||
      (!has_srq && !RecordReachable(in.rq_dbrec_addr)) || !RecordReachable(in.sq_dbrec_addr))
    return VHCA_CMD_BAD_ADDR;
  if (qps.size() >= max_qp || qps.full()) return VHCA_CMD_NO_RESOURCES;
  uint32_t qpn;
  if (in.type == VHCA_QPT_SMI || in.type == VHCA_QPT_GSI) {
    if (in.port < 1 || in.port > num_ports) return VHCA_CMD_BAD_PARAM;
    qpn = VHCA_SPECIAL_QP_HANDLE(in.port, in.type == VHCA_QPT_SMI ? 0 : 1);
    if (qps.count(qpn)) return VHCA_CMD_BUSY;
  } else {
    qpn = qps.lowest_free(2);
  }
  qps.insert(qpn)->in = in;
  result[0] = qpn;
  return VHCA_CMD_OK;
}

uint8_t Device::ModifyQp(const vhca_cmd& cmd) {
  Qp* qp = qps.find(cmd.in.handle.handle);
  if (!qp) return VHCA_CMD_BAD_HANDLE;
  vhca_qp_context context{};
  if (!ReadIn(cmd, &context)) return VHCA_CMD_BAD_SIZE;
  qp->last_modify = context;
  qp->modifies++;
  vhca_qp_context& c = qp->context;
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

uint8_t Device::CreateSrq(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_create_srq in{};
  if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
  if (!pds.count(in.pdn) || in.log_size > VHCA_MAX_LOG_WQ ||
      in.wqe_shift < VHCA_MIN_RQ_WQE_SHIFT || in.wqe_shift > VHCA_MAX_WQE_SHIFT)
    return VHCA_CMD_BAD_PARAM;
  if (!RingReachable(in.buf, uint64_t{1} << (in.log_size + in.wqe_shift)) ||
      !RecordReachable(in.dbrec_addr))
    return VHCA_CMD_BAD_ADDR;
  const uint32_t srqn = srqs.lowest_free(0);
  Srq* srq = srqs.size() < max_srq ? srqs.insert(srqn) : nullptr;
  if (!srq) return VHCA_CMD_NO_RESOURCES;
  srq->in = in;
  srq->limit = in.limit;
  result[0] = srqn;
  return VHCA_CMD_OK;
}

uint8_t Device::DestroySrq(uint32_t srqn) {
  if (!srqs.count(srqn)) return VHCA_CMD_BAD_HANDLE;
  if (qps.any([srqn](uint32_t, const Qp& qp) {
        return (qp.in.flags & VHCA_QP_F_HAS_SRQ) && qp.in.srqn == srqn;
      }))
    return VHCA_CMD_BUSY;
  srqs.erase(srqn);
  return VHCA_CMD_OK;
}

// RESIZE_SRQ: the SRQ's fields kept, the new ring taken (the fake moves
// no WQEs: its data path is the test's).
uint8_t Device::ResizeSrq(const vhca_cmd& cmd, uint32_t srqn,
                          uint32_t result[2]) {
  Srq* srq = srqs.find(srqn);
  if (!srq) return VHCA_CMD_BAD_HANDLE;
  vhca_cmd_create_srq in{};
  if (!ReadIn(cmd, &in)) return VHCA_CMD_BAD_SIZE;
  if (in.pdn != srq->in.pdn || in.wqe_shift != srq->in.wqe_shift ||
      in.flags != srq->in.flags || in.db_page != srq->in.db_page ||
      in.limit || in.log_size > VHCA_MAX_LOG_WQ)
    return VHCA_CMD_BAD_PARAM;
  if (!RingReachable(in.buf, uint64_t{1} << (in.log_size + in.wqe_shift)) ||
      !RecordReachable(in.dbrec_addr))
    return VHCA_CMD_BAD_ADDR;
  result[0] = RecordProducer(srq->in.dbrec_addr) - srq_resize_lag;
  srq->in.buf = in.buf;
  srq->in.log_size = in.log_size;
  srq->in.dbrec_addr = in.dbrec_addr;
  return VHCA_CMD_OK;
}

// ODP_MAP/ODP_INVALIDATE (vhca_hw_odp.h): the range of an ODP region;
// ODP_MAP's page addresses are logged in odp_mapped.
uint8_t Device::OdpRange(const vhca_cmd& cmd) {
  vhca_cmd_odp_range_in in;
  CopyBytes(&in, cmd.in.raw, sizeof(in));
  const Mr* mr = mrs.find(VHCA_KEY_INDEX(in.key));
  if (!mr || !mr->odp || mr->variant != VHCA_KEY_VARIANT(in.key))
    return VHCA_CMD_BAD_HANDLE;
  const uint64_t first = uint64_t{in.first_page_hi} << 32 | in.first_page;
  // An implicit region has an entry for every page of the 64-bit space.
  const uint64_t entries = mr->in.flags & VHCA_MR_F_ODP_IMPLICIT
                               ? ~uint64_t{0} >> mr->in.pages.page_shift
                               : uint64_t{mr->in.pages.npages} - 1;
  if (in.npages == 0 || first > entries || in.npages - 1 > entries - first)
    return VHCA_CMD_BAD_PARAM;
  if (cmd.opcode != VHCA_CMD_ODP_MAP) return VHCA_CMD_OK;
  // The device's order and statuses (qemu-device/vhca-cmd-check.c).
  if (in.npages > VHCA_ODP_MAX_MAP) return VHCA_CMD_BAD_PARAM;
  if (cmd.in_len < in.npages * 8u) return VHCA_CMD_BAD_SIZE;
  const uint64_t* pages =
      static_cast<const uint64_t*>(Dma(cmd.in_addr, in.npages * 8u));
  if (!pages) return VHCA_CMD_BAD_ADDR;
  for (uint32_t i = 0; i < in.npages; i++) odp_mapped.push_back(pages[i]);
  return VHCA_CMD_OK;
}

// CREATE_MR, and REREG_MR, which keeps the key.
uint8_t Device::RegisterMr(const vhca_cmd& cmd, uint32_t result[2]) {
  Mr mr{};
  if (!ReadIn(cmd, &mr.in)) return VHCA_CMD_BAD_SIZE;
  if (!pds.count(mr.in.pdn) || mr.in.access & ~0x1fu) return VHCA_CMD_BAD_PARAM;
  mr.odp = mr.in.flags & VHCA_MR_F_ODP;
  if (mr.odp && (mr.in.pages.addr != 0 || mr.in.flags & VHCA_MR_F_PHYSICAL))
    return VHCA_CMD_BAD_PARAM;
  const bool paged = !(mr.in.flags & VHCA_MR_F_PHYSICAL);
  const bool implicit = mr.in.flags & VHCA_MR_F_ODP_IMPLICIT;
  if (implicit && (!mr.odp || mr.in.iova != 0 || ~mr.in.length != 0 ||
                   mr.in.pages.npages != 0))
    return VHCA_CMD_BAD_PARAM;
  if (paged && (mr.in.pages.mode == VHCA_BUF_CONTIG ||
                (mr.in.pages.npages == 0 && !implicit) ||
                mr.in.pages.page_shift < VHCA_MIN_PAGE_SHIFT ||
                mr.in.pages.page_shift > VHCA_MAX_PAGE_SHIFT))
    return VHCA_CMD_BAD_PARAM;
  const uint32_t handle = cmd.in.handle.handle;
  Mr* old = nullptr;
  if (cmd.opcode == VHCA_CMD_REREG_MR) {
    old = mrs.find(VHCA_KEY_INDEX(handle));
    if (!old || old->fast_reg || old->variant != VHCA_KEY_VARIANT(handle))
      return VHCA_CMD_BAD_HANDLE;
  } else if (mrs.size() >= max_mr || mrs.full()) {
    return VHCA_CMD_NO_RESOURCES;
  }
  if (paged && !mr.odp && !CopyPages(mr.in.pages, &mr))
    return VHCA_CMD_NO_RESOURCES;
  if (old) {
    mr.variant = old->variant;
    FreePages(old);
    *old = mr;
    return VHCA_CMD_OK;
  }
  const uint32_t index = next_mr_index_++;
  mr.variant = mr.in.key_variant;
  *mrs.insert(index) = mr;
  result[0] = (index << 8) | mr.in.key_variant;
  return VHCA_CMD_OK;
}

uint8_t Device::AllocMr(const vhca_cmd& cmd, uint32_t result[2]) {
  Mr mr{};
  mr.fast_reg = true;
  CopyBytes(&mr.alloc, cmd.in.raw, sizeof(mr.alloc));
  if (!pds.count(mr.alloc.pdn) || mr.alloc.max_pages == 0) return VHCA_CMD_BAD_PARAM;
  if (mrs.size() >= max_mr || mrs.full()) return VHCA_CMD_NO_RESOURCES;
  const uint32_t index = next_mr_index_++;
  mr.variant = mr.alloc.key_variant;
  *mrs.insert(index) = mr;
  result[0] = (index << 8) | mr.alloc.key_variant;
  return VHCA_CMD_OK;
}

uint8_t Device::DestroyMr(uint32_t key) {
  // The whole key, variant included (REG_MR WQEs are not modelled: the
  // variant stays the one of CREATE/ALLOC_MR).
  const vhca_cmd_reg_dm_mr_in* dm_mr = dm_mrs.find(VHCA_KEY_INDEX(key));
  if (dm_mr && dm_mr->key_variant == VHCA_KEY_VARIANT(key)) {
    dm_mrs.erase(VHCA_KEY_INDEX(key));
    return VHCA_CMD_OK;
  }
  Mr* mr = mrs.find(VHCA_KEY_INDEX(key));
  if (!mr || mr->variant != VHCA_KEY_VARIANT(key)) return VHCA_CMD_BAD_HANDLE;
  FreePages(mr);
  mrs.erase(VHCA_KEY_INDEX(key));
  return VHCA_CMD_OK;
}

uint8_t Device::AllocMw(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_alloc_mw_in in;
  CopyBytes(&in, cmd.in.raw, sizeof(in));
  if (!pds.count(in.pdn)) return VHCA_CMD_BAD_HANDLE;
  if (in.type != VHCA_MW_TYPE_1 && in.type != VHCA_MW_TYPE_2) return VHCA_CMD_BAD_PARAM;
  if (mrs.size() + mws.size() >= max_mr || mws.full()) return VHCA_CMD_NO_RESOURCES;
  const uint32_t index = next_mr_index_++;
  *mws.insert(index) = in;
  result[0] = (index << 8) | in.key_variant;
  return VHCA_CMD_OK;
}

// Device memory: whole pages in allocation order (a bump allocator).
uint8_t Device::AllocDm(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_alloc_dm_in in;
  CopyBytes(&in, cmd.in.raw, sizeof(in));
  const uint64_t pages = (in.length + VHCA_DM_PAGE_SIZE - 1) / VHCA_DM_PAGE_SIZE;
  if (in.length == 0 || in.log_align > VHCA_DM_MAX_LOG_ALIGN)
    return VHCA_CMD_BAD_PARAM;
  if ((next_dm_page_ + pages) * VHCA_DM_PAGE_SIZE > max_dm_size || dms.full())
    return VHCA_CMD_NO_RESOURCES;
  *dms.insert(next_dm_page_) = in;
  result[0] = next_dm_page_ * VHCA_DM_PAGE_SIZE;
  next_dm_page_ += static_cast<uint32_t>(pages);
  return VHCA_CMD_OK;
}

uint8_t Device::RegDmMr(const vhca_cmd& cmd, uint32_t result[2]) {
  vhca_cmd_reg_dm_mr_in in;
  CopyBytes(&in, cmd.in.raw, sizeof(in));
  if (!pds.count(in.pdn)) return VHCA_CMD_BAD_HANDLE;
  if (in.dm_offset + in.length > max_dm_size) return VHCA_CMD_BAD_PARAM;
  if (mrs.size() + mws.size() + dm_mrs.size() >= max_mr || dm_mrs.full())
    return VHCA_CMD_NO_RESOURCES;
  const uint32_t index = next_mr_index_++;
  *dm_mrs.insert(index) = in;
  result[0] = (index << 8) | in.key_variant;
  return VHCA_CMD_OK;
}

uint8_t Device::Multicast(const vhca_cmd& cmd) {
  vhca_cmd_mcast_in in;
  CopyBytes(&in, cmd.in.raw, sizeof(in));
  if (!qps.count(in.qpn) || in.mlid < VHCA_MIN_MLID || in.mlid > VHCA_MAX_MLID) return VHCA_CMD_BAD_PARAM;
  const uint64_t key = McastKey(in.qpn, in.mlid);
  if (cmd.opcode == VHCA_CMD_ATTACH_MCAST) {
    if (mcast.count(key)) return VHCA_CMD_OK;
    return mcast.insert(key) ? VHCA_CMD_OK : VHCA_CMD_NO_RESOURCES;
  }
  return mcast.erase(key) ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
}

uint8_t Device::ExecuteDataPath(const vhca_cmd& cmd, uint32_t result[2]) {
  const uint32_t handle = cmd.in.handle.handle;
  switch (cmd.opcode) {
    case VHCA_CMD_CREATE_CQ:
    case VHCA_CMD_RESIZE_CQ:
      return CreateCq(cmd, result);
    case VHCA_CMD_DESTROY_CQ:
      return DestroyCq(handle);
    case VHCA_CMD_CREATE_QP:
      return CreateQp(cmd, result);
    case VHCA_CMD_MODIFY_QP:
      return ModifyQp(cmd);
    case VHCA_CMD_QUERY_QP: {
      Qp* qp = qps.find(handle);
      if (!qp) return VHCA_CMD_BAD_HANDLE;
      return WriteOut(cmd, &qp->context, sizeof(vhca_qp_context)) ? VHCA_CMD_OK
                                                                  : VHCA_CMD_BAD_SIZE;
    }
    case VHCA_CMD_DESTROY_QP:
      return qps.erase(handle) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_CREATE_SRQ:
      return CreateSrq(cmd, result);
    case VHCA_CMD_MODIFY_SRQ: {
      vhca_cmd_srq_limit_in in;
      CopyBytes(&in, cmd.in.raw, sizeof(in));
      Srq* srq = srqs.find(handle);  // srq_limit_in.srqn
      if (!srq) return VHCA_CMD_BAD_HANDLE;
      srq->limit = in.limit;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_QUERY_SRQ: {
      const Srq* srq = srqs.find(handle);
      if (!srq) return VHCA_CMD_BAD_HANDLE;
      result[0] = srq->limit;
      return VHCA_CMD_OK;
    }
    case VHCA_CMD_DESTROY_SRQ:
      return DestroySrq(handle);
    case VHCA_CMD_RESIZE_SRQ:
      return ResizeSrq(cmd, handle, result);
    case VHCA_CMD_CREATE_MR:
    case VHCA_CMD_REREG_MR:
      return RegisterMr(cmd, result);
    case VHCA_CMD_ALLOC_MR:
      return AllocMr(cmd, result);
    case VHCA_CMD_DESTROY_MR:
      return DestroyMr(handle);
    case VHCA_CMD_ALLOC_MW:
      return AllocMw(cmd, result);
    case VHCA_CMD_DEALLOC_MW:  // the index only (binds change the variant)
      return mws.erase(VHCA_KEY_INDEX(handle)) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_ODP_MAP:
    case VHCA_CMD_ODP_INVALIDATE:
      return OdpRange(cmd);
    case VHCA_CMD_ODP_RESUME:
      return qps.find(cmd.in.handle.handle) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_ATTACH_MCAST:
    case VHCA_CMD_DETACH_MCAST:
      return Multicast(cmd);
    case VHCA_CMD_ALLOC_DM:
      return AllocDm(cmd, result);
    case VHCA_CMD_FREE_DM:
      return dms.erase(handle / VHCA_DM_PAGE_SIZE) ? VHCA_CMD_OK : VHCA_CMD_BAD_HANDLE;
    case VHCA_CMD_REG_DM_MR:
      return RegDmMr(cmd, result);
    default:
      return VHCA_CMD_BAD_OPCODE;
  }
}

}  // namespace fake
}  // namespace vhca
