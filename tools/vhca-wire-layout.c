/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhca-wire-layout - print the fabric wire's layouts and constants
 * (uapi/vhca_hw_wire.h, and the QP types of uapi/vhca_hw_verbs.h that a
 * frame carries), the MADs a frame carries (fabric/vhca-mad.h) and the
 * BTH opcodes of a captured packet (fabric/vhca-bth.h) as JSON, for the
 * Python tests (selftests/host/wirelayout.py), so that no test restates a
 * struct or a number by hand.  Built beside the switch by
 * scripts/build-switch.sh.
 *
 * Each field is printed with the offset and size the compiler gives it;
 * the tool refuses to print a struct whose fields listed here do not cover
 * it byte for byte, so a field added to the header and not here fails the
 * build's first run rather than shifting the tests' view.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "vhca_hw_wire.h"
#include "vhca-bth.h"
#include "vhca-mad.h"
#include "vhca-sa.h"
#include "vhca-sm-state.h"
#include "vhca-switch-sma.h"
#include "vhca-trap-mad.h"

struct field {
	const char *name;
	size_t offset;
	size_t size;
};

#define FIELD(type, member) \
	{ #member, offsetof(type, member), sizeof(((type *)0)->member) }
/* A field of a nested struct, listed by its own name. */
#define FIELD_IN(type, outer, member) \
	{ #member, offsetof(type, outer.member), sizeof(((type *)0)->outer.member) }

static const struct field hdr_fields[] = {
	FIELD(struct vhca_wire_hdr, magic),
	FIELD(struct vhca_wire_hdr, version),
	FIELD(struct vhca_wire_hdr, kind),
	FIELD(struct vhca_wire_hdr, opcode),
	FIELD(struct vhca_wire_hdr, syndrome),
	FIELD(struct vhca_wire_hdr, slid),
	FIELD(struct vhca_wire_hdr, dlid),
	FIELD(struct vhca_wire_hdr, src_qpn),
	FIELD(struct vhca_wire_hdr, dst_qpn),
	FIELD(struct vhca_wire_hdr, psn),
	FIELD(struct vhca_wire_hdr, packets),
	FIELD(struct vhca_wire_hdr, length),
	FIELD(struct vhca_wire_hdr, payload_len),
	FIELD(struct vhca_wire_hdr, imm_inv),
	FIELD(struct vhca_wire_hdr, rkey),
	FIELD(struct vhca_wire_hdr, qkey),
	FIELD(struct vhca_wire_hdr, nak_psn),
	FIELD(struct vhca_wire_hdr, offset),
	FIELD(struct vhca_wire_hdr, remote_addr),
	FIELD(struct vhca_wire_hdr, compare_add),
	FIELD(struct vhca_wire_hdr, swap),
	FIELD(struct vhca_wire_hdr, src_guid),
	FIELD(struct vhca_wire_hdr, sl),
	FIELD(struct vhca_wire_hdr, flags),
	FIELD(struct vhca_wire_hdr, rnr_timer),
	FIELD(struct vhca_wire_hdr, qp_type),
	FIELD(struct vhca_wire_hdr, traffic_class),
	FIELD(struct vhca_wire_hdr, hop_limit),
	FIELD(struct vhca_wire_hdr, rsvd),
	FIELD(struct vhca_wire_hdr, flow_label),
	FIELD(struct vhca_wire_hdr, xrc_srqn),
	FIELD(struct vhca_wire_hdr, dgid),
};

static const struct field hello_fields[] = {
	FIELD(struct vhca_wire_hello, node_guid),
	FIELD(struct vhca_wire_hello, sys_image_guid),
	FIELD(struct vhca_wire_hello, port_guid),
	FIELD(struct vhca_wire_hello, vendor_id),
	FIELD(struct vhca_wire_hello, revision),
	FIELD(struct vhca_wire_hello, cap_mask),
	FIELD(struct vhca_wire_hello, device_id),
	FIELD(struct vhca_wire_hello, num_ports),
	FIELD(struct vhca_wire_hello, local_port),
	FIELD(struct vhca_wire_hello, node_desc),
};

/* The MADs: big-endian (IBA 13.4.2). */
#define MAD_HDR_FIELDS(type, F)						\
	F(type, base_version), F(type, mgmt_class), F(type, class_version),	\
	F(type, method), F(type, status)

static const struct field mad_hdr_fields[] = {
	MAD_HDR_FIELDS(struct vhca_mad_hdr, FIELD),
	FIELD(struct vhca_mad_hdr, class_specific),
	FIELD(struct vhca_mad_hdr, tid),
	FIELD(struct vhca_mad_hdr, attr_id),
	FIELD(struct vhca_mad_hdr, rsvd),
	FIELD(struct vhca_mad_hdr, attr_mod),
};

static const struct field smp_fields[] = {
	MAD_HDR_FIELDS(struct vhca_smp, FIELD),
	FIELD(struct vhca_smp, hop_ptr),
	FIELD(struct vhca_smp, hop_cnt),
	FIELD(struct vhca_smp, tid),
	FIELD(struct vhca_smp, attr_id),
	FIELD(struct vhca_smp, rsvd),
	FIELD(struct vhca_smp, attr_mod),
	FIELD(struct vhca_smp, mkey),
	FIELD(struct vhca_smp, dr_slid),
	FIELD(struct vhca_smp, dr_dlid),
	FIELD(struct vhca_smp, rsvd2),
	FIELD(struct vhca_smp, data),
	FIELD(struct vhca_smp, initial_path),
	FIELD(struct vhca_smp, return_path),
};

#define SA_FIELD(member) FIELD_IN(struct vhca_sa_mad, mad, member)
#define SA_HDR_FIELD(type, member) SA_FIELD(member)
#define RMPP_FIELD(member) FIELD_IN(struct vhca_sa_mad, rmpp, member)

static const struct field sa_mad_fields[] = {
	MAD_HDR_FIELDS(struct vhca_sa_mad, SA_HDR_FIELD),
	SA_FIELD(class_specific),
	SA_FIELD(tid),
	SA_FIELD(attr_id),
	SA_FIELD(rsvd),
	SA_FIELD(attr_mod),
	RMPP_FIELD(rmpp_version),
	RMPP_FIELD(rmpp_type),
	RMPP_FIELD(rtime_flags),
	RMPP_FIELD(rmpp_status),
	RMPP_FIELD(data1),
	RMPP_FIELD(data2),
	FIELD(struct vhca_sa_mad, sm_key),
	FIELD(struct vhca_sa_mad, attr_offset),
	{ "sa_rsvd", offsetof(struct vhca_sa_mad, rsvd), 2 },
	FIELD(struct vhca_sa_mad, comp_mask),
	FIELD(struct vhca_sa_mad, data),
};

static const struct field sm_info_fields[] = {
	FIELD(struct vhca_smp_sm_info, guid),
	FIELD(struct vhca_smp_sm_info, sm_key),
	FIELD(struct vhca_smp_sm_info, act_count),
	FIELD(struct vhca_smp_sm_info, priority_state),
	FIELD(struct vhca_smp_sm_info, rsvd),
};

static const struct field notice_fields[] = {
	FIELD(struct vhca_smp_notice, generic_type),
	FIELD(struct vhca_smp_notice, producer_type),
	FIELD(struct vhca_smp_notice, trap_number),
	FIELD(struct vhca_smp_notice, issuer_lid),
	FIELD(struct vhca_smp_notice, toggle_count),
	FIELD(struct vhca_smp_notice, details),
};

static const struct field node_info_fields[] = {
	FIELD(struct vhca_smp_node_info, base_version),
	FIELD(struct vhca_smp_node_info, class_version),
	FIELD(struct vhca_smp_node_info, node_type),
	FIELD(struct vhca_smp_node_info, num_ports),
	FIELD(struct vhca_smp_node_info, sys_image_guid),
	FIELD(struct vhca_smp_node_info, node_guid),
	FIELD(struct vhca_smp_node_info, port_guid),
	FIELD(struct vhca_smp_node_info, partition_cap),
	FIELD(struct vhca_smp_node_info, device_id),
	FIELD(struct vhca_smp_node_info, revision),
	FIELD(struct vhca_smp_node_info, local_port),
	FIELD(struct vhca_smp_node_info, vendor_id),
	FIELD(struct vhca_smp_node_info, rsvd),
};

static const struct field switch_info_fields[] = {
	FIELD(struct vhca_smp_switch_info, lft_cap),
	FIELD(struct vhca_smp_switch_info, rft_cap),
	FIELD(struct vhca_smp_switch_info, mft_cap),
	FIELD(struct vhca_smp_switch_info, lft_top),
	FIELD(struct vhca_smp_switch_info, default_port),
	FIELD(struct vhca_smp_switch_info, default_mcast_primary_port),
	FIELD(struct vhca_smp_switch_info, default_mcast_not_primary_port),
	FIELD(struct vhca_smp_switch_info, life_time_psc),
	FIELD(struct vhca_smp_switch_info, lids_per_port),
	FIELD(struct vhca_smp_switch_info, partition_enforcement_cap),
	FIELD(struct vhca_smp_switch_info, enforcement_caps),
	FIELD(struct vhca_smp_switch_info, port0_caps),
	FIELD(struct vhca_smp_switch_info, mft_top),
	FIELD(struct vhca_smp_switch_info, rsvd),
};

#define PI_FIELD(member) FIELD(struct vhca_smp_port_info, member)

static const struct field port_info_fields[] = {
	PI_FIELD(mkey), PI_FIELD(gid_prefix), PI_FIELD(lid), PI_FIELD(master_sm_lid),
	PI_FIELD(cap_mask), PI_FIELD(diag_code), PI_FIELD(mkey_lease),
	PI_FIELD(local_port), PI_FIELD(link_width_enabled),
	PI_FIELD(link_width_supported), PI_FIELD(link_width_active),
	PI_FIELD(speed_supported_state), PI_FIELD(phys_state_down_default),
	PI_FIELD(mkey_protect_lmc), PI_FIELD(speed_active_enabled),
	PI_FIELD(neighbor_mtu_sm_sl), PI_FIELD(vl_cap_init_type),
	PI_FIELD(vl_high_limit), PI_FIELD(vl_arb_high_cap), PI_FIELD(vl_arb_low_cap),
	PI_FIELD(init_type_reply_mtu_cap), PI_FIELD(vl_stall_hoq_life),
	PI_FIELD(oper_vls_enforcement), PI_FIELD(mkey_violations),
	PI_FIELD(pkey_violations), PI_FIELD(qkey_violations), PI_FIELD(guid_cap),
	PI_FIELD(rereg_subnet_timeout), PI_FIELD(resp_time_value),
	PI_FIELD(phy_overrun_errors), PI_FIELD(max_credit_hint),
	PI_FIELD(link_round_trip_latency), PI_FIELD(cap_mask2),
	PI_FIELD(speed_ext_active_supported), PI_FIELD(speed_ext_enabled),
};

struct constant {
	const char *name;
	unsigned long long value;
};

#define CONSTANT(name) { #name, (unsigned long long)(name) }

static const struct constant constants[] = {
	CONSTANT(VHCA_WIRE_MAGIC),
	CONSTANT(VHCA_WIRE_VERSION),
	CONSTANT(VHCA_WIRE_MAX_PAYLOAD),
	CONSTANT(VHCA_WIRE_SM_LID),
	CONSTANT(VHCA_WIRE_GSI_QKEY),
	CONSTANT(VHCA_WIRE_HELLO),
	CONSTANT(VHCA_WIRE_LINK),
	CONSTANT(VHCA_WIRE_REQUEST),
	CONSTANT(VHCA_WIRE_RESPONSE),
	CONSTANT(VHCA_WIRE_DATAGRAM),
	CONSTANT(VHCA_WIRE_ACK),
	CONSTANT(VHCA_WIRE_NAK_RNR),
	CONSTANT(VHCA_WIRE_NAK_INV_REQ),
	CONSTANT(VHCA_WIRE_NAK_REM_ACCESS),
	CONSTANT(VHCA_WIRE_NAK_REM_OP),
	CONSTANT(VHCA_WIRE_NAK_SEQ),
	CONSTANT(VHCA_WIRE_F_SOLICITED),
	CONSTANT(VHCA_WIRE_F_GRH),
	CONSTANT(VHCA_WIRE_F_IMM),
	CONSTANT(VHCA_WIRE_F_INV),
	CONSTANT(VHCA_WIRE_LINK_F_REREG),
	CONSTANT(VHCA_QPT_RC),
	CONSTANT(VHCA_QPT_UC),
	CONSTANT(VHCA_QPT_UD),
	CONSTANT(VHCA_QPT_SMI),
	CONSTANT(VHCA_QPT_GSI),
	CONSTANT(VHCA_QPT_XRC_INI),
	CONSTANT(VHCA_QPT_XRC_TGT),
	CONSTANT(VHCA_WQE_SEND),
	CONSTANT(VHCA_WQE_RDMA_READ),
	CONSTANT(VHCA_NODE_DESC_LEN),
	CONSTANT(VHCA_MAD_SIZE),
	CONSTANT(VHCA_MGMT_CLASS_SUBN_LID),
	CONSTANT(VHCA_MGMT_CLASS_SUBN_DR),
	CONSTANT(VHCA_MGMT_METHOD_GET),
	CONSTANT(VHCA_MGMT_METHOD_SET),
	CONSTANT(VHCA_MGMT_METHOD_GET_RESP),
	CONSTANT(VHCA_MGMT_METHOD_TRAP),
	CONSTANT(VHCA_MGMT_METHOD_TRAP_REPRESS),
	CONSTANT(VHCA_MAD_STATUS_UNSUP_METHOD_ATTR),
	CONSTANT(VHCA_MAD_STATUS_INVALID_ATTR_VALUE),
	CONSTANT(VHCA_SMP_DIRECTION),
	CONSTANT(VHCA_SMP_ATTR_NOTICE),
	CONSTANT(VHCA_NOTICE_GENERIC),
	CONSTANT(VHCA_TRAP_TYPE_INFO),
	CONSTANT(VHCA_TRAP_PRODUCER_CA),
	CONSTANT(VHCA_SMP_ATTR_NODE_INFO),
	CONSTANT(VHCA_NODE_TYPE_CA),
	CONSTANT(VHCA_NODE_TYPE_SWITCH),
	CONSTANT(VHCA_SMP_ATTR_PORT_INFO),
	CONSTANT(VHCA_SMP_ATTR_SM_INFO),
	CONSTANT(VHCA_SMP_ATTR_SWITCH_INFO),
	CONSTANT(VHCA_SMP_ATTR_LFT),
	CONSTANT(VHCA_LID_PERMISSIVE),
	CONSTANT(VHCA_MGMT_CLASS_SUBN_ADM),
	CONSTANT(VHCA_SA_CLASS_VERSION),
	CONSTANT(VHCA_SA_ATTR_CLASS_PORT_INFO),
	CONSTANT(VHCA_SA_ATTR_NODE_RECORD),
	CONSTANT(VHCA_SM_STATE_NOT_ACTIVE),
	CONSTANT(VHCA_SM_STATE_DISCOVERING),
	CONSTANT(VHCA_SM_STATE_STANDBY),
	CONSTANT(VHCA_SM_STATE_MASTER),
	CONSTANT(VHCA_SMINFO_HANDOVER),
	CONSTANT(VHCA_SMINFO_ACKNOWLEDGE),
	CONSTANT(VHCA_PORT_DOWN),
	CONSTANT(VHCA_PORT_INIT),
	CONSTANT(VHCA_PORT_ARMED),
	CONSTANT(VHCA_PORT_ACTIVE),
	CONSTANT(VHCA_PORT_CAP_SM),
	CONSTANT(VHCA_BTH_RC),
	CONSTANT(VHCA_BTH_UC),
	CONSTANT(VHCA_BTH_UD),
	CONSTANT(VHCA_BTH_SEND_FIRST),
	CONSTANT(VHCA_BTH_SEND_MIDDLE),
	CONSTANT(VHCA_BTH_SEND_LAST),
	CONSTANT(VHCA_BTH_SEND_LAST_IMM),
	CONSTANT(VHCA_BTH_SEND_ONLY),
	CONSTANT(VHCA_BTH_SEND_ONLY_IMM),
	CONSTANT(VHCA_BTH_WRITE_FIRST),
	CONSTANT(VHCA_BTH_WRITE_MIDDLE),
	CONSTANT(VHCA_BTH_WRITE_LAST),
	CONSTANT(VHCA_BTH_WRITE_LAST_IMM),
	CONSTANT(VHCA_BTH_WRITE_ONLY),
	CONSTANT(VHCA_BTH_WRITE_ONLY_IMM),
	CONSTANT(VHCA_BTH_READ_REQUEST),
	CONSTANT(VHCA_BTH_READ_RESP_FIRST),
	CONSTANT(VHCA_BTH_READ_RESP_MIDDLE),
	CONSTANT(VHCA_BTH_READ_RESP_LAST),
	CONSTANT(VHCA_BTH_READ_RESP_ONLY),
	CONSTANT(VHCA_BTH_ACK),
	CONSTANT(VHCA_BTH_CMP_SWAP),
	CONSTANT(VHCA_BTH_FETCH_ADD),
	CONSTANT(VHCA_LRH_SIZE),
	CONSTANT(VHCA_BTH_SIZE),
	CONSTANT(VHCA_ICRC_SIZE),
	CONSTANT(VHCA_VCRC_SIZE),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Print one struct; exit 1 when the fields leave a byte of it uncovered. */
static void print_struct(const char *name, size_t size, const char *endian,
			 const struct field *fields, size_t count, int last)
{
	size_t next = 0;

	printf("    \"%s\": {\"size\": %zu, \"endian\": \"%s\", \"fields\": [\n",
	       name, size, endian);
	for (size_t i = 0; i < count; i++) {
		if (fields[i].offset != next) {
			fprintf(stderr, "vhca-wire-layout: struct %s: %zu bytes before %s "
				"are not listed\n", name, fields[i].offset - next,
				fields[i].name);
			exit(1);
		}
		next = fields[i].offset + fields[i].size;
		printf("      [\"%s\", %zu, %zu]%s\n", fields[i].name, fields[i].offset,
		       fields[i].size, i + 1 < count ? "," : "");
	}
	if (next != size) {
		fprintf(stderr, "vhca-wire-layout: struct %s: its last %zu bytes are "
			"not listed\n", name, size - next);
		exit(1);
	}
	printf("    ]}%s\n", last ? "" : ",");
}

int main(void)
{
	printf("{\n  \"structs\": {\n");
#define STRUCT(type, endian, fields, last) \
	print_struct(#type, sizeof(struct type), endian, fields, ARRAY_LEN(fields), last)
	STRUCT(vhca_wire_hdr, "little", hdr_fields, 0);
	STRUCT(vhca_wire_hello, "little", hello_fields, 0);
	STRUCT(vhca_mad_hdr, "big", mad_hdr_fields, 0);
	STRUCT(vhca_smp, "big", smp_fields, 0);
	STRUCT(vhca_sa_mad, "big", sa_mad_fields, 0);
	STRUCT(vhca_smp_sm_info, "big", sm_info_fields, 0);
	STRUCT(vhca_smp_notice, "big", notice_fields, 0);
	STRUCT(vhca_smp_node_info, "big", node_info_fields, 0);
	STRUCT(vhca_smp_switch_info, "big", switch_info_fields, 0);
	STRUCT(vhca_smp_port_info, "big", port_info_fields, 1);
	printf("  },\n  \"constants\": {\n");
	for (size_t i = 0; i < ARRAY_LEN(constants); i++)
		printf("    \"%s\": %llu%s\n", constants[i].name, constants[i].value,
		       i + 1 < ARRAY_LEN(constants) ? "," : "");
	printf("  }\n}\n");
	return 0;
}
