// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The data path commands of vhca_hw_verbs.h (CQ, QP, SRQ, MR, multicast),
// members of DeviceCommands (device_commands.h): the same pattern, one
// function per command, device status -> errno only in StatusToErrno.
#include "command_request.h"
#include "device_commands.h"
#include "endian.h"
#include "memory.h"
#include "vhca_errno.h"

namespace vhca {
namespace {

vhca_cmd_mcast_in McastIn(uint32_t qpn, uint16_t mlid, const uint8_t mgid[16]) {
  vhca_cmd_mcast_in in{};
  in.qpn = ToLe32(qpn);
  in.mlid = ToLe16(mlid);
  CopyBytes(in.mgid, mgid, sizeof(in.mgid));
  return in;
}

}  // namespace

Result<uint32_t> DeviceCommands::CreateCq(const vhca_cmd_create_cq& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_CREATE_CQ);
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DestroyCq(uint32_t cqn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DESTROY_CQ, HandleIn(cqn))));
  return Ok();
}

Status DeviceCommands::ResizeCq(uint32_t cqn, const vhca_cmd_create_cq& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_RESIZE_CQ, HandleIn(cqn));
  SetInput(&request, in);
  VHCA_TRY(Run(request));
  return Ok();
}

Result<uint32_t> DeviceCommands::CreateQp(const vhca_cmd_create_qp& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_CREATE_QP);
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::ModifyQp(uint32_t qpn, const vhca_qp_context& context) {
  CommandRequest request = MakeRequest(VHCA_CMD_MODIFY_QP, HandleIn(qpn));
  SetInput(&request, context);
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::QueryQp(uint32_t qpn, vhca_qp_context* context) {
  CommandRequest request = MakeRequest(VHCA_CMD_QUERY_QP, HandleIn(qpn));
  SetOutput(&request, context);
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::DestroyQp(uint32_t qpn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DESTROY_QP, HandleIn(qpn))));
  return Ok();
}

Result<uint32_t> DeviceCommands::CreateSrq(const vhca_cmd_create_srq& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_CREATE_SRQ);
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Result<uint32_t> DeviceCommands::CreateSrq(const vhca_cmd_create_tm_srq& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_CREATE_SRQ);
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::ModifySrq(uint32_t srqn, uint32_t limit) {
  vhca_cmd_srq_limit_in in{};
  in.srqn = ToLe32(srqn);
  in.limit = ToLe32(limit);
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_MODIFY_SRQ, in)));
  return Ok();
}

Result<uint32_t> DeviceCommands::ResizeSrq(uint32_t srqn,
                                           const vhca_cmd_create_srq& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_RESIZE_SRQ, HandleIn(srqn));
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Result<uint32_t> DeviceCommands::QuerySrq(uint32_t srqn) {
  auto response = Run(MakeRequest(VHCA_CMD_QUERY_SRQ, HandleIn(srqn)));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DestroySrq(uint32_t srqn) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DESTROY_SRQ, HandleIn(srqn))));
  return Ok();
}

Result<uint32_t> DeviceCommands::CreateMr(const vhca_cmd_create_mr& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_CREATE_MR);
  SetInput(&request, in);
  auto response = Run(request);
  VHCA_TRY(response);
  return response.value().result[0];
}

Result<uint32_t> DeviceCommands::AllocMr(uint32_t pdn, uint32_t max_pages,
                                         uint8_t key_variant) {
  vhca_cmd_alloc_mr_in in{};
  in.pdn = ToLe32(pdn);
  in.max_pages = ToLe32(max_pages);
  in.key_variant = key_variant;
  auto response = Run(MakeRequest(VHCA_CMD_ALLOC_MR, in));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DestroyMr(uint32_t key, uint8_t expected_status) {
  CommandRequest request = MakeRequest(VHCA_CMD_DESTROY_MR, HandleIn(key));
  request.expected_status = expected_status;
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::ReregMr(uint32_t key, const vhca_cmd_create_mr& in) {
  CommandRequest request = MakeRequest(VHCA_CMD_REREG_MR, HandleIn(key));
  SetInput(&request, in);
  VHCA_TRY(Run(request));
  return Ok();
}

namespace {

vhca_cmd_odp_range_in OdpRangeIn(uint32_t key, uint64_t first_page,
                                 uint32_t npages) {
  vhca_cmd_odp_range_in in{};
  in.key = ToLe32(key);
  in.first_page = ToLe32(static_cast<uint32_t>(first_page));
  in.first_page_hi = ToLe32(static_cast<uint32_t>(first_page >> 32));
  in.npages = ToLe32(npages);
  return in;
}

}  // namespace

Status DeviceCommands::OdpMap(uint32_t key, uint64_t first_page,
                              uint32_t npages, const uint64_t* pages_le) {
  static_assert(kOdpMapMax * 8 <= CommandQueue::kMailboxHalf,
                "an ODP_MAP list fits the mailbox");
  if (npages == 0 || npages > kOdpMapMax) return Error{-VHCA_EINVAL};
  CommandRequest request =
      MakeRequest(VHCA_CMD_ODP_MAP, OdpRangeIn(key, first_page, npages));
  request.in_data = pages_le;
  request.in_len = npages * 8;
  VHCA_TRY(Run(request));
  return Ok();
}

Status DeviceCommands::OdpInvalidate(uint32_t key, uint64_t first_page,
                                     uint32_t npages) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_ODP_INVALIDATE,
                           OdpRangeIn(key, first_page, npages))));
  return Ok();
}

Status DeviceCommands::OdpResume(uint32_t qpn, uint8_t flags) {
  vhca_cmd_odp_resume_in in{};
  in.qpn = ToLe32(qpn);
  in.flags = flags;
  CommandRequest request = MakeRequest(VHCA_CMD_ODP_RESUME, in);
  // The QP was destroyed while its fault was being handled: nothing
  // waits any more (the shim's fault work item does not hold the QP).
  request.expected_status = VHCA_CMD_BAD_HANDLE;
  VHCA_TRY(Run(request));
  return Ok();
}

Result<uint32_t> DeviceCommands::AllocMw(uint32_t pdn, uint32_t type,
                                         uint8_t key_variant) {
  vhca_cmd_alloc_mw_in in{};
  in.pdn = ToLe32(pdn);
  in.type = static_cast<uint8_t>(type);
  in.key_variant = key_variant;
  auto response = Run(MakeRequest(VHCA_CMD_ALLOC_MW, in));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::DeallocMw(uint32_t key) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DEALLOC_MW, HandleIn(key))));
  return Ok();
}

Result<uint32_t> DeviceCommands::AllocDm(uint64_t length, uint32_t log_align) {
  vhca_cmd_alloc_dm_in in{};
  in.length = ToLe64(length);
  in.log_align = static_cast<uint8_t>(log_align);
  auto response = Run(MakeRequest(VHCA_CMD_ALLOC_DM, in));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::FreeDm(uint32_t offset) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_FREE_DM, HandleIn(offset))));
  return Ok();
}

Result<uint32_t> DeviceCommands::RegDmMr(const vhca_cmd_reg_dm_mr_in& in) {
  auto response = Run(MakeRequest(VHCA_CMD_REG_DM_MR, in));
  VHCA_TRY(response);
  return response.value().result[0];
}

Status DeviceCommands::AttachMcast(uint32_t qpn, uint16_t mlid,
                                   const uint8_t mgid[16]) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_ATTACH_MCAST, McastIn(qpn, mlid, mgid))));
  return Ok();
}

Status DeviceCommands::DetachMcast(uint32_t qpn, uint16_t mlid,
                                   const uint8_t mgid[16]) {
  VHCA_TRY(Run(MakeRequest(VHCA_CMD_DETACH_MCAST, McastIn(qpn, mlid, mgid))));
  return Ok();
}

}  // namespace vhca
