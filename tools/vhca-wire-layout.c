/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhca-wire-layout - print the fabric wire's layouts and constants
 * (uapi/vhca_hw_wire.h, and the QP types of uapi/vhca_hw_verbs.h that a
 * frame carries) as JSON, for the Python tests (selftests/host/
 * wirelayout.py), so that no test restates a struct by hand.  Built beside
 * the switch by scripts/build-switch.sh.
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

struct field {
	const char *name;
	size_t offset;
	size_t size;
};

#define FIELD(type, member) \
	{ #member, offsetof(type, member), sizeof(((type *)0)->member) }

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
	CONSTANT(VHCA_NODE_DESC_LEN),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Print one struct; exit 1 when the fields leave a byte of it uncovered. */
static void print_struct(const char *name, size_t size,
			 const struct field *fields, size_t count, int last)
{
	size_t next = 0;

	printf("    \"%s\": {\"size\": %zu, \"fields\": [\n", name, size);
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
	print_struct("vhca_wire_hdr", sizeof(struct vhca_wire_hdr), hdr_fields,
		     ARRAY_LEN(hdr_fields), 0);
	print_struct("vhca_wire_hello", sizeof(struct vhca_wire_hello),
		     hello_fields, ARRAY_LEN(hello_fields), 1);
	printf("  },\n  \"constants\": {\n");
	for (size_t i = 0; i < ARRAY_LEN(constants); i++)
		printf("    \"%s\": %llu%s\n", constants[i].name, constants[i].value,
		       i + 1 < ARRAY_LEN(constants) ? "," : "");
	printf("  }\n}\n");
	return 0;
}
