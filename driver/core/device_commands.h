// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The device's commands (vhca_hw.h enum vhca_cmd_opcode), one function
// each: build the request, run it on the command queue, turn the device
// status into an errno (in StatusToErrno, the only place that does) and
// unpack the result.
#ifndef VHCA_CORE_DEVICE_COMMANDS_H
#define VHCA_CORE_DEVICE_COMMANDS_H

#include "command_queue.h"
#include "result.h"
#include "vhca_hw.h"

namespace vhca {

// enum vhca_cmd_status -> 0 or a negative errno.
int StatusToErrno(uint8_t status);

class DeviceCommands {
 public:
  explicit DeviceCommands(CommandQueue* queue) : queue_(queue) {}

  Status QueryDevice(vhca_device_attr* attr);
  Status QueryPort(uint8_t port, vhca_port_attr* attr);
  Status QueryGid(uint8_t port, uint16_t index, vhca_gid* gid);
  Result<uint16_t> QueryPkey(uint8_t port, uint16_t index);
  Status SetNodeDesc(const vhca_node_desc& desc);
  // PortInfo:CapabilityMask |= set, then &= ~clear (VHCA_PORT_CAP_SETTABLE).
  Status SetPortCap(uint8_t port, uint32_t set, uint32_t clear);
  // A MAD for the port's own SMA/PMA: true with the answer in *out, false
  // when it is for the MAD agents (nothing written).
  Result<bool> MadIfc(uint8_t port, const vhca_mad& in, vhca_mad* out);
  // Returns the eqn.
  Result<uint32_t> CreateEq(uint64_t base, uint8_t log_size, uint16_t vector);
  Status DestroyEq(uint32_t eqn);
  // Returns the pdn.
  Result<uint32_t> AllocPd();
  Status DeallocPd(uint32_t pdn);
  Result<uint32_t> AllocXrcd();
  Status DeallocXrcd(uint32_t xrcdn);

  // Data path objects (vhca_hw_verbs.h), in data_path_commands.cpp.  The
  // large inputs go through the mailbox (in_addr).
  // Returns the cqn.
  Result<uint32_t> CreateCq(const vhca_cmd_create_cq& in);
  Status DestroyCq(uint32_t cqn);
  // in: the new ring (buf, log_size, dbrec_addr).
  Status ResizeCq(uint32_t cqn, const vhca_cmd_create_cq& in);
  // Returns the qpn.
  Result<uint32_t> CreateQp(const vhca_cmd_create_qp& in);
  Status ModifyQp(uint32_t qpn, const vhca_qp_context& context);
  Status QueryQp(uint32_t qpn, vhca_qp_context* context);
  Status DestroyQp(uint32_t qpn);
  // Returns the srqn.
  Result<uint32_t> CreateSrq(const vhca_cmd_create_srq& in);
  Result<uint32_t> CreateSrq(const vhca_cmd_create_tm_srq& in);
  Status ModifySrq(uint32_t srqn, uint32_t limit);
  // The producer index the device took from the old record.
  Result<uint32_t> ResizeSrq(uint32_t srqn, const vhca_cmd_create_srq& in);
  // Returns the SRQ limit.
  Result<uint32_t> QuerySrq(uint32_t srqn);
  Status DestroySrq(uint32_t srqn);
  // Return the key.
  Result<uint32_t> CreateMr(const vhca_cmd_create_mr& in);
  Result<uint32_t> AllocMr(uint32_t pdn, uint32_t max_pages,
                           uint8_t key_variant);
  // expected_status: a failure the caller expects (not logged), e.g.
  // BAD_HANDLE when it probes for a key the device may not know.
  Status DestroyMr(uint32_t key, uint8_t expected_status = VHCA_CMD_OK);
  Status ReregMr(uint32_t key, const vhca_cmd_create_mr& in);
  // On-demand paging (vhca_hw_odp.h): ODP_MAP of npages (at most
  // kOdpMapMax) little-endian page addresses, ODP_INVALIDATE, ODP_RESUME.
  static constexpr uint32_t kOdpMapMax = 64;  // one mailbox half
  Status OdpMap(uint32_t key, uint64_t first_page, uint32_t npages,
                const uint64_t* pages_le);
  Status OdpInvalidate(uint32_t key, uint64_t first_page, uint32_t npages);
  Status OdpResume(uint32_t qpn, uint8_t flags);
  Result<uint32_t> AllocMw(uint32_t pdn, uint32_t type, uint8_t key_variant);
  Status DeallocMw(uint32_t key);
  // Device memory: ALLOC_DM returns the BAR 3 offset; REG_DM_MR the key.
  Result<uint32_t> AllocDm(uint64_t length, uint32_t log_align);
  Status FreeDm(uint32_t offset);
  Result<uint32_t> RegDmMr(const vhca_cmd_reg_dm_mr_in& in);
  Status AttachMcast(uint32_t qpn, uint16_t mlid, const uint8_t mgid[16]);
  Status DetachMcast(uint32_t qpn, uint16_t mlid, const uint8_t mgid[16]);

 private:
  Result<CommandResponse> Run(const CommandRequest& request);

  CommandQueue* queue_;
};

}  // namespace vhca

#endif  // VHCA_CORE_DEVICE_COMMANDS_H
