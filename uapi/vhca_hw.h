/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw.h - the one description of the vhca device.
 *
 * Shared unchanged by the QEMU device model (qemu-device/), the driver core
 * (driver/core, freestanding C++), the driver shims (driver/shim, kernel C)
 * and, later, the userspace provider.  Nothing else may redefine a layout
 * described here.  Documentation/device.md explains the model in prose.
 *
 * Rules:
 *  - Plain C99 (plus a static-assert macro); fixed-width fields only.
 *  - Every multi-byte field in guest memory and in registers is
 *    little-endian: the device reads them with le*_to_cpu, the driver
 *    writes them with cpu_to_le*.  The vhca_le* typedefs only document that.
 *  - Every struct has a size check.  Reserved fields must be written as 0
 *    by the driver; the device ignores them (so that later versions may
 *    give them a meaning behind a comp_mask or a version bump).
 *  - Ring indexes are free-running counters; the slot is index & (size-1).
 */
#ifndef VHCA_HW_H
#define VHCA_HW_H

#if defined(__KERNEL__) && !defined(__cplusplus)
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#ifdef __cplusplus
#define VHCA_SIZE_CHECK(type, size) \
	static_assert(sizeof(type) == (size), #type " has the wrong size")
#else
#define VHCA_SIZE_CHECK(type, size) \
	_Static_assert(sizeof(type) == (size), #type " has the wrong size")
#endif

typedef uint16_t vhca_le16;
typedef uint32_t vhca_le32;
typedef uint64_t vhca_le64;

/* ------------------------------------------------------------------------
 * PCI identity (QEMU's docs/specs/pci-ids.txt: 1af4:10f0..10ff are free for
 * experimental devices).  Class 0x0c06 is "Serial bus: InfiniBand".
 */
#define VHCA_PCI_VENDOR_ID		0x1af4
#define VHCA_PCI_DEVICE_ID		0x10f0
#define VHCA_PCI_CLASS			0x0c06
#define VHCA_PCI_REVISION		0x01

/* BARs.  BAR 0: registers.  BAR 2: MSI-X table and PBA.  BAR 4: doorbells.
 * BAR 3: device memory (vhca_hw_verbs.h "Device memory"), present only when
 * vhca_device_attr.max_dm_size is not 0.  All are 32-bit memory BARs. */
#define VHCA_REG_BAR			0
#define VHCA_MSIX_BAR			2
#define VHCA_DM_BAR			3
#define VHCA_DB_BAR			4
#define VHCA_REG_BAR_SIZE		0x1000
#define VHCA_DB_PAGE_SIZE		0x1000

/* Device ABI version, read from VHCA_REG_VERSION.  A driver refuses a device
 * whose major differs from the one it was built with; minor only grows. */
#define VHCA_ABI_MAJOR			1
#define VHCA_ABI_MINOR			2
/* Minor 1: receive doorbell records (struct vhca_wq_dbrec; CREATE_QP's
 * rq_dbrec_addr, in_len 128; CREATE_SRQ's dbrec_addr). */
#define VHCA_ABI_MINOR_WQ_DBREC		1
/* Minor 2: send doorbell records (CREATE_QP's sq_dbrec_addr), polled by
 * the device when dev_caps has VHCA_DEV_CAP_SQ_POLL. */
#define VHCA_ABI_MINOR_SQ_DBREC		2

/* ------------------------------------------------------------------------
 * BAR 0 register map.  All registers are 32 bits wide and accessed with
 * 32-bit reads and writes; other sizes are ignored (reads return 0).
 */
enum vhca_reg {
	/* RO: [31:16] major, [15:0] minor ABI version. */
	VHCA_REG_VERSION		= 0x000,
	/* RO: device capabilities, see VHCA_CAPS_*. */
	VHCA_REG_CAPS			= 0x004,
	/* RO: number of 4 KiB doorbell pages in BAR 4 (page 0 is the kernel's). */
	VHCA_REG_DB_PAGES		= 0x008,
	/* RO: device status, see VHCA_STATUS_*. */
	VHCA_REG_STATUS			= 0x00c,
	/* WO: device control, see VHCA_CONTROL_*. Reads return 0. */
	VHCA_REG_CONTROL		= 0x010,
	/* RW: command queue base (guest physical/DMA address, 4 KiB aligned)
	 * and log2 of its entry count.  Writable only while not ENABLED. */
	VHCA_REG_CMDQ_BASE_LO		= 0x020,
	VHCA_REG_CMDQ_BASE_HI		= 0x024,
	VHCA_REG_CMDQ_LOG_SIZE		= 0x028,
	/* RO: the device's command queue consumer index (free running). */
	VHCA_REG_CMDQ_CI		= 0x02c,
	/* RW: event queue 0 (command completions and asynchronous events,
	 * MSI-X vector 0): base (4 KiB aligned) and log2 of its entry count.
	 * Writable only while not ENABLED. */
	VHCA_REG_EQ0_BASE_LO		= 0x030,
	VHCA_REG_EQ0_BASE_HI		= 0x034,
	VHCA_REG_EQ0_LOG_SIZE		= 0x038,
};

/* VHCA_REG_CAPS bits. */
#define VHCA_CAPS_NUM_PORTS(caps)	((caps) & 0xf)		/* [3:0]   1..2 */
#define VHCA_CAPS_NUM_VECTORS(caps)	(((caps) >> 8) & 0xff)	/* [15:8]  MSI-X vectors */
#define VHCA_CAPS_MAX_LOG_CMDQ(caps)	(((caps) >> 16) & 0xff)	/* [23:16] */
#define VHCA_CAPS_MAX_LOG_EQ(caps)	(((caps) >> 24) & 0xff)	/* [31:24] */

/* VHCA_REG_STATUS bits. */
#define VHCA_STATUS_ENABLED		(1u << 0)	/* queues live, commands accepted */
#define VHCA_STATUS_FATAL		(1u << 1)	/* stopped until reset */
#define VHCA_STATUS_FATAL_CODE(st)	(((st) >> 8) & 0xff)	/* enum vhca_fatal */

/* VHCA_REG_CONTROL bits (write 1 to act). */
#define VHCA_CONTROL_ENABLE		(1u << 0)	/* validate queue registers, go live */
#define VHCA_CONTROL_RESET		(1u << 1)	/* synchronous full reset */

/* Why the device stopped (VHCA_STATUS_FATAL_CODE).  Any fatal condition
 * stops all queue processing; only a reset (CONTROL or PCI) recovers. */
enum vhca_fatal {
	VHCA_FATAL_NONE			= 0,
	VHCA_FATAL_BAD_CMDQ_CONFIG	= 1,	/* base unaligned/zero or log size out of range */
	VHCA_FATAL_BAD_EQ0_CONFIG	= 2,
	VHCA_FATAL_CMDQ_OVERRUN		= 3,	/* producer index more than size ahead */
	VHCA_FATAL_CMDQ_DMA		= 4,	/* a command could not be read */
	VHCA_FATAL_EQ0_DMA		= 5,	/* an EQ0 entry could not be written */
	VHCA_FATAL_EQ0_OVERFLOW		= 6,	/* EQ0 full: an event was lost */
};

/* Queue size limits (log2 of entry counts). */
#define VHCA_MIN_LOG_CMDQ		1
#define VHCA_MAX_LOG_CMDQ		12
#define VHCA_MIN_LOG_EQ			2
#define VHCA_MAX_LOG_EQ			16
#define VHCA_QUEUE_ALIGN		0x1000

/* ------------------------------------------------------------------------
 * Doorbells (BAR 4).  Page 0 belongs to the kernel driver; pages 1.. are
 * handed to user contexts by later ABI versions.  Doorbells are 32-bit
 * writes; reads return 0.
 */
enum vhca_db {
	/* Write the new command queue producer index (free running, 32 bits).
	 * The device processes entries [CI, PI) asynchronously. */
	VHCA_DB_CMDQ_PI			= 0x000,
	/* Event queue doorbell, see VHCA_DB_EQ_*: tells the device how far
	 * the driver has consumed, optionally (re-)arming the interrupt. */
	VHCA_DB_EQ			= 0x008,
};

#define VHCA_DB_EQ_CI_MASK		0x00ffffffu	/* [23:0]  consumer index, low 24 bits */
#define VHCA_DB_EQ_EQN_SHIFT		24		/* [30:24] event queue number */
#define VHCA_DB_EQ_EQN_MASK		0x7fu
#define VHCA_DB_EQ_ARM			(1u << 31)	/* [31] interrupt on next event */

static inline uint32_t vhca_db_eq_value(uint32_t eqn, uint32_t ci, int arm)
{
	return (ci & VHCA_DB_EQ_CI_MASK) |
	       ((eqn & VHCA_DB_EQ_EQN_MASK) << VHCA_DB_EQ_EQN_SHIFT) |
	       (arm ? VHCA_DB_EQ_ARM : 0);
}

/* ------------------------------------------------------------------------
 * Command queue.  A ring of struct vhca_cmd in guest memory.  The driver
 * fills entries and writes the producer index to VHCA_DB_CMDQ_PI; the
 * device executes them in order and reports each one with a
 * VHCA_EQE_CMD_DONE entry on EQ 0 carrying the command's token.
 *
 * Input beyond the 32 inline bytes and all output bigger than the EQE's
 * two result words go through DMA buffers named by in_addr/out_addr.
 */
/*
 * The commands, one row each: X(opcode, value).  The enum below is made
 * from these rows, and so is the driver's table of command names for its
 * log (driver/core/device_commands.cpp), so a new command is written
 * here once.  0x0030.. CQ, 0x0040.. QP, 0x0050.. SRQ, 0x0060.. MR,
 * 0x0070.. XRC, 0x0080.. multicast, 0x0090.. device memory:
 * VHCA_CMD_VERBS_OPCODES of vhca_hw_verbs.h.
 */
#define VHCA_CMD_BASE_OPCODES(X) \
	X(VHCA_CMD_QUERY_DEVICE,	0x0001)	/* out: vhca_device_attr */ \
	X(VHCA_CMD_QUERY_PORT,		0x0002)	/* in: port; out: vhca_port_attr */ \
	X(VHCA_CMD_QUERY_GID,		0x0003)	/* in: port, index; out: vhca_gid */ \
	X(VHCA_CMD_QUERY_PKEY,		0x0004)	/* in: port, index; result[0]: pkey */ \
	X(VHCA_CMD_SET_NODE_DESC,	0x0005)	/* in_addr: vhca_node_desc */ \
	X(VHCA_CMD_SET_PORT_CAP,	0x0006)	/* in: vhca_cmd_port_cap_in */ \
	/* in: port; in_addr, out_addr: vhca_mad; result[0]: 1 answered, 0 not the device's */ \
	X(VHCA_CMD_MAD_IFC,		0x0007) \
	X(VHCA_CMD_CREATE_EQ,		0x0010)	/* in: vhca_cmd_create_eq; result[0]: eqn */ \
	X(VHCA_CMD_DESTROY_EQ,		0x0011)	/* in: eqn */ \
	X(VHCA_CMD_ALLOC_PD,		0x0020)	/* result[0]: pdn */ \
	X(VHCA_CMD_DEALLOC_PD,		0x0021)	/* in: pdn */

#define VHCA_ENUM_ROW(name, value)	name = value,

enum vhca_cmd_opcode {
	VHCA_CMD_BASE_OPCODES(VHCA_ENUM_ROW)
};

/* Command completion status, carried in vhca_eqe_cmd_done.status, one row
 * each: X(status, value).  The driver turns these into errnos in exactly
 * one place and logs a failed command with the status's name. */
#define VHCA_CMD_STATUSES(X) \
	X(VHCA_CMD_OK,			0x00) \
	X(VHCA_CMD_BAD_OPCODE,		0x01)	/* opcode unknown to this device */ \
	X(VHCA_CMD_BAD_PARAM,		0x02)	/* a field is out of range */ \
	X(VHCA_CMD_BAD_HANDLE,		0x03)	/* object number not allocated */ \
	X(VHCA_CMD_NO_RESOURCES,	0x04)	/* table full */ \
	X(VHCA_CMD_BAD_ADDR,		0x05)	/* in/out buffer DMA failed */ \
	X(VHCA_CMD_BAD_STATE,		0x06)	/* object in the wrong state */ \
	X(VHCA_CMD_BAD_SIZE,		0x07)	/* in_len/out_len too small or too big */ \
	X(VHCA_CMD_BUSY,		0x08)	/* object still referenced */ \
	X(VHCA_CMD_INTERNAL,		0x09)	/* device bug */

enum vhca_cmd_status {
	VHCA_CMD_STATUSES(VHCA_ENUM_ROW)
};

#define VHCA_CMD_MAX_IN_LEN		4096
#define VHCA_CMD_MAX_OUT_LEN		4096

/* Inline inputs, one struct per command that needs one (32 bytes each). */
struct vhca_cmd_port_in {		/* QUERY_PORT, MAD_IFC */
	uint8_t		port;		/* 1..num_ports */
	uint8_t		rsvd[31];
};
VHCA_SIZE_CHECK(struct vhca_cmd_port_in, 32);

/*
 * IBA 14.2.5.6 PortInfo:CapabilityMask bits that belong to the CA's own
 * software (its management agents), which it may set and clear with
 * SET_PORT_CAP (ib_modify_port): CM, SNMP tunnelling, device management,
 * vendor class and boot management.  The others describe the port or the
 * SMA and are the device's.
 */
#define VHCA_PORT_CAP_SM		(1u << 1)	/* IsSM: an SM runs here */
#define VHCA_PORT_CAP_CM		(1u << 16)
#define VHCA_PORT_CAP_SNMP_TUNNEL	(1u << 17)
#define VHCA_PORT_CAP_DEVICE_MGMT	(1u << 19)
#define VHCA_PORT_CAP_VENDOR_CLASS	(1u << 20)
#define VHCA_PORT_CAP_BOOT_MGMT		(1u << 23)
/* the device's: ClientReregister in a PortInfo Set is an event (14.4.11) */
#define VHCA_PORT_CAP_CLIENT_REREG	(1u << 25)
/* the device's: an SM may set the SLtoVLMappingTable (14.2.5.8); opensm's
 * QoS manager programs a port's table only when this bit is on */
#define VHCA_PORT_CAP_SL_MAP		(1u << 6)
#define VHCA_PORT_CAP_SETTABLE \
	(VHCA_PORT_CAP_SM | VHCA_PORT_CAP_CM | VHCA_PORT_CAP_SNMP_TUNNEL | \
	 VHCA_PORT_CAP_DEVICE_MGMT | VHCA_PORT_CAP_VENDOR_CLASS | \
	 VHCA_PORT_CAP_BOOT_MGMT)

struct vhca_cmd_port_cap_in {		/* SET_PORT_CAP */
	uint8_t		port;		/* 1..num_ports */
	uint8_t		rsvd0[3];
	vhca_le32	set;		/* bits to set, within VHCA_PORT_CAP_SETTABLE */
	vhca_le32	clear;		/* bits to clear (after setting), likewise */
	uint8_t		rsvd[20];
};
VHCA_SIZE_CHECK(struct vhca_cmd_port_cap_in, 32);

struct vhca_cmd_table_in {		/* QUERY_GID, QUERY_PKEY */
	uint8_t		port;		/* 1..num_ports */
	uint8_t		rsvd0;
	vhca_le16	index;		/* < gid_tbl_len / pkey_tbl_len */
	uint8_t		rsvd[28];
};
VHCA_SIZE_CHECK(struct vhca_cmd_table_in, 32);

struct vhca_cmd_create_eq_in {		/* CREATE_EQ */
	vhca_le64	base;		/* ring address, VHCA_QUEUE_ALIGN aligned */
	uint8_t		log_size;	/* VHCA_MIN_LOG_EQ..VHCA_MAX_LOG_EQ */
	uint8_t		rsvd0;
	vhca_le16	vector;		/* MSI-X vector, 1..num_vectors-1 */
	uint8_t		rsvd[20];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_eq_in, 32);

struct vhca_cmd_handle_in {		/* DESTROY_EQ, DEALLOC_PD */
	vhca_le32	handle;		/* eqn, pdn */
	uint8_t		rsvd[28];
};
VHCA_SIZE_CHECK(struct vhca_cmd_handle_in, 32);

/* A command queue entry. */
struct vhca_cmd {
	vhca_le16	opcode;		/* enum vhca_cmd_opcode */
	vhca_le16	flags;		/* reserved, 0 */
	vhca_le32	token;		/* echoed in the completion */
	vhca_le64	in_addr;	/* DMA address of extra input, 0 if none */
	vhca_le32	in_len;		/* bytes at in_addr, <= VHCA_CMD_MAX_IN_LEN */
	vhca_le32	out_len;	/* bytes at out_addr, <= VHCA_CMD_MAX_OUT_LEN */
	vhca_le64	out_addr;	/* DMA address of the output buffer, 0 if none */
	union {
		uint8_t				raw[32];
		struct vhca_cmd_port_in		port;
		struct vhca_cmd_port_cap_in	port_cap;
		struct vhca_cmd_table_in	table;
		struct vhca_cmd_create_eq_in	create_eq;
		struct vhca_cmd_handle_in	handle;
	} in;
};
VHCA_SIZE_CHECK(struct vhca_cmd, 64);

/* ------------------------------------------------------------------------
 * Command outputs (written at out_addr; the device writes
 * min(out_len, sizeof) bytes and fails with BAD_SIZE if out_len is smaller
 * than the struct).
 */
struct vhca_device_attr {
	vhca_le64	node_guid;	/* network order value stored little-endian: */
	vhca_le64	sys_image_guid;	/*  see Documentation/device.md "GUIDs" */
	vhca_le64	fw_version;	/* [47:32] major, [31:16] minor, [15:0] sub */
	vhca_le64	max_mr_size;
	vhca_le64	page_size_cap;	/* bit n set: 2^n byte pages supported */
	vhca_le32	vendor_id;	/* IEEE OUI of the vendor */
	vhca_le32	vendor_part_id;
	vhca_le32	hw_version;
	uint8_t		num_ports;
	uint8_t		num_vectors;	/* MSI-X vectors, vector 0 is EQ 0's */
	uint8_t		max_eq;		/* including EQ 0 */
	uint8_t		rsvd0;
	vhca_le32	max_pd;
	vhca_le32	max_qp;		/* object limits of later ABI versions; */
	vhca_le32	max_qp_wr;	/* 0 while the device has no such object */
	vhca_le32	max_sge;
	vhca_le32	max_cq;
	vhca_le32	max_cqe;
	vhca_le32	max_mr;
	vhca_le32	max_srq;
	vhca_le32	max_srq_wr;
	vhca_le32	max_ah;
	vhca_le32	max_mcast_grp;
	vhca_le32	max_mcast_qp_attach;
	vhca_le32	max_qp_rd_atom;
	vhca_le32	max_mw;		/* windows share the regions' key table */
	vhca_le32	dev_caps;	/* VHCA_DEV_CAP_* */
	vhca_le32	hca_core_clock_khz; /* rate of the CQE timestamps'
					 * clock (VHCA_DB_CLOCK); 0: none */
	vhca_le32	max_xrcd;	/* VHCA_DEV_CAP_XRC: XRC domains */
	uint8_t		rsvd2[4];	/* max_dm_size's alignment */
	vhca_le64	max_dm_size;	/* bytes of device memory in BAR 3
					 * (VHCA_DEV_CAP_DM); 0: none */
	uint8_t		rsvd[120];
};
VHCA_SIZE_CHECK(struct vhca_device_attr, 256);

/*
 * fw_version's packing, and the text "major.minor.sub" made of it: the
 * ib_device's fw_ver string (driver/shim/ib.c) and ibv_device_attr's
 * (provider/vhca.c) print VHCA_FW_VERSION_FMT with VHCA_FW_VERSION_ARGS.
 */
#define VHCA_FW_VERSION_PACK(major, minor, sub) \
	((uint64_t)(major) << 32 | (uint64_t)(minor) << 16 | (uint64_t)(sub))
#define VHCA_FW_VERSION_FMT		"%u.%u.%u"
#define VHCA_FW_VERSION_ARGS(fw) \
	(unsigned int)((fw) >> 32 & 0xffff), \
	(unsigned int)((fw) >> 16 & 0xffff), (unsigned int)((fw) & 0xffff)

/* vhca_device_attr.dev_caps */
#define VHCA_DEV_CAP_MW_TYPE_1		(1u << 0)	/* memory windows type 1 */
#define VHCA_DEV_CAP_MW_TYPE_2		(1u << 1)	/* memory windows type 2B */
#define VHCA_DEV_CAP_CQE_TIMESTAMP	(1u << 2)	/* vhca_cqe.timestamp, VHCA_DB_CLOCK */
#define VHCA_DEV_CAP_XRC		(1u << 3)	/* XRC domains, SRQs, QPs (IBA A14) */
#define VHCA_DEV_CAP_ODP		(1u << 4)	/* VHCA_MR_F_ODP regions (vhca_hw_odp.h) */
#define VHCA_DEV_CAP_DM			(1u << 5)	/* device memory: BAR 3, ALLOC_DM */
#define VHCA_DEV_CAP_SQ_POLL		(1u << 6)	/* the device polls send doorbell
							 * records (vhca_hw_verbs.h) */
#define VHCA_DEV_CAP_ATOMIC_WRITE	(1u << 7)	/* VHCA_WQE_ATOMIC_WRITE (IBA 1.5 9.4.6) */
#define VHCA_DEV_CAP_ODP_IMPLICIT	(1u << 8)	/* VHCA_MR_F_ODP_IMPLICIT (vhca_hw_odp.h) */
#define VHCA_DEV_CAP_TAG_MATCHING	(1u << 9)	/* tag matching SRQs (vhca_hw_tm.h) */
/* VHCA_WQE_FLUSH of each placement type and VHCA_ACCESS_FLUSH_* rights
 * (IBA 1.5 A19.4.1; IB_DEVICE_FLUSH_GLOBAL, IB_DEVICE_FLUSH_PERSISTENT) */
#define VHCA_DEV_CAP_FLUSH_GLOBAL	(1u << 10)
#define VHCA_DEV_CAP_FLUSH_PERSISTENT	(1u << 11)
#define VHCA_DEV_CAP_SRQ_RESIZE		(1u << 12)	/* RESIZE_SRQ (vhca_hw_verbs.h) */

/* IBA 14.2.5.6 PortInfo values used below. */
enum vhca_port_state {
	VHCA_PORT_NOP			= 0,
	VHCA_PORT_DOWN			= 1,
	VHCA_PORT_INIT			= 2,
	VHCA_PORT_ARMED			= 3,
	VHCA_PORT_ACTIVE		= 4,
};

enum vhca_port_phys_state {
	VHCA_PHYS_SLEEP			= 1,
	VHCA_PHYS_POLLING		= 2,
	VHCA_PHYS_DISABLED		= 3,
	VHCA_PHYS_LINK_UP		= 5,
};

/* IB MTU codes (IBA 14.2.5.6 MTUCap, 15.2.5.16 PathRecord:MTU); a port
 * runs at VHCA_MTU_4096. */
enum vhca_ib_mtu {
	VHCA_MTU_256			= 1,
	VHCA_MTU_512			= 2,
	VHCA_MTU_1024			= 3,
	VHCA_MTU_2048			= 4,
	VHCA_MTU_4096			= 5,
};
#define VHCA_MTU_BYTES(code)		(128u << (code))

struct vhca_port_attr {
	uint8_t		state;		/* enum vhca_port_state */
	uint8_t		phys_state;	/* enum vhca_port_phys_state */
	uint8_t		max_mtu;	/* enum vhca_ib_mtu */
	uint8_t		active_mtu;
	vhca_le16	lid;		/* 0 until the SM assigns one */
	vhca_le16	sm_lid;
	uint8_t		lmc;
	uint8_t		sm_sl;
	uint8_t		active_width;	/* IB width code: 1=1x 2=4x 4=8x 8=12x */
	uint8_t		active_speed;	/* IB speed code: 1=SDR 2=DDR 4=QDR ... */
	vhca_le32	port_cap_flags;	/* IBA PortInfo:CapabilityMask */
	vhca_le32	max_msg_sz;
	vhca_le16	gid_tbl_len;
	vhca_le16	pkey_tbl_len;
	uint8_t		subnet_timeout;
	uint8_t		max_vl_num;	/* IB code: 1 = VL0 only */
	uint8_t		rsvd0[6];
	vhca_le64	subnet_prefix;	/* GID prefix, as a number (fe80:: = 0xfe80000000000000) */
	vhca_le64	port_guid;	/* as a number, see "GUIDs" in device.md */
	vhca_le32	qkey_viol_cntr;
	vhca_le32	bad_pkey_cntr;
	uint8_t		rsvd[8];
};
VHCA_SIZE_CHECK(struct vhca_port_attr, 64);

struct vhca_gid {
	uint8_t		raw[16];	/* network byte order, as on the wire */
};
VHCA_SIZE_CHECK(struct vhca_gid, 16);

#define VHCA_NODE_DESC_LEN		64
struct vhca_node_desc {
	uint8_t		desc[VHCA_NODE_DESC_LEN];	/* IBA NodeDescription, NUL padded */
};
VHCA_SIZE_CHECK(struct vhca_node_desc, 64);

/*
 * MAD_IFC: a MAD the port's own agents answer without the link, as the
 * kernel's MAD layer asks a CA's process_mad (IBA 14.2.2, C14-9:3): a
 * directed-route SMP with hop count 0 (the port's SMA) or a PerfMgt
 * request (its PMA).  The answer, a GetResp, goes to out_addr and
 * result[0] is 1; anything else (SMInfo, which is the SM's; a response)
 * is result[0] 0 and nothing is written: it is for the guest's agents.
 */
struct vhca_mad {
	uint8_t		data[256];	/* the MAD, network byte order */
};
VHCA_SIZE_CHECK(struct vhca_mad, 256);

/* ------------------------------------------------------------------------
 * Event queues.  Rings of struct vhca_eqe written by the device.  An entry
 * is valid when its owner bit equals the pass parity the consumer expects:
 * the device writes owner = 1 on the first pass over the ring, 0 on the
 * second, and so on, i.e. owner = ((pi >> log_size) & 1) ^ 1.  The driver
 * zeroes a ring before handing it over.  The device writes the 31 leading
 * bytes first and the owner byte last.
 *
 * Interrupts: after an event is written, the EQ's MSI-X vector fires if
 * the EQ is armed, and the EQ is disarmed.  Arming (VHCA_DB_EQ_ARM) with
 * unconsumed entries pending fires at once.
 */
enum vhca_eqe_type {
	VHCA_EQE_CMD_DONE		= 0x01,
	VHCA_EQE_PORT_EVENT		= 0x02,
	VHCA_EQE_COMPLETION		= 0x03,	/* later: a CQ has a new CQE */
};

/* Subtypes of VHCA_EQE_PORT_EVENT (the IB async events they become). */
enum vhca_port_event {
	VHCA_PORT_EV_ACTIVE		= 0x01,	/* IB_EVENT_PORT_ACTIVE */
	VHCA_PORT_EV_DOWN		= 0x02,	/* IB_EVENT_PORT_ERR */
	VHCA_PORT_EV_LID_CHANGE		= 0x03,	/* IB_EVENT_LID_CHANGE */
	VHCA_PORT_EV_SM_CHANGE		= 0x04,	/* IB_EVENT_SM_CHANGE */
	VHCA_PORT_EV_PKEY_CHANGE	= 0x05,	/* IB_EVENT_PKEY_CHANGE */
	VHCA_PORT_EV_GID_CHANGE		= 0x06,	/* IB_EVENT_GID_CHANGE */
	/* an SM's Set(PortInfo) had ClientReregister (IBA 14.4.11) */
	VHCA_PORT_EV_CLIENT_REREGISTER	= 0x07,	/* IB_EVENT_CLIENT_REREGISTER */
};

struct vhca_eqe_cmd_done {
	vhca_le32	token;		/* the command's token */
	uint8_t		status;		/* enum vhca_cmd_status */
	uint8_t		rsvd0[3];
	vhca_le32	result[2];	/* small results: object numbers, pkey */
	uint8_t		rsvd[8];
};
VHCA_SIZE_CHECK(struct vhca_eqe_cmd_done, 24);

struct vhca_eqe_port {
	uint8_t		port;		/* 1..num_ports */
	uint8_t		state;		/* enum vhca_port_state after the event */
	vhca_le16	lid;		/* LID after the event */
	uint8_t		rsvd[20];
};
VHCA_SIZE_CHECK(struct vhca_eqe_port, 24);

struct vhca_eqe_completion {
	vhca_le32	cqn;
	uint8_t		rsvd[20];
};
VHCA_SIZE_CHECK(struct vhca_eqe_completion, 24);

/* QP, CQ and SRQ events (vhca_hw_verbs.h). */
struct vhca_eqe_object {
	vhca_le32	handle;		/* qpn, cqn or srqn */
	uint8_t		rsvd[20];
};
VHCA_SIZE_CHECK(struct vhca_eqe_object, 24);

struct vhca_eqe {
	uint8_t		type;		/* enum vhca_eqe_type */
	uint8_t		subtype;	/* enum vhca_port_event for PORT_EVENT */
	uint8_t		rsvd0[2];
	union {
		uint8_t				raw[24];
		struct vhca_eqe_cmd_done	cmd_done;
		struct vhca_eqe_port		port;
		struct vhca_eqe_completion	completion;
		struct vhca_eqe_object		object;
	} data;
	uint8_t		rsvd1[3];
	uint8_t		owner;		/* [0] pass parity, see above; [7:1] 0 */
};
VHCA_SIZE_CHECK(struct vhca_eqe, 32);

#define VHCA_EQE_OWNER_BIT		0x01

/* Owner value of the entry at free-running index idx of a 2^log_size ring. */
static inline uint8_t vhca_eqe_owner(uint32_t idx, uint32_t log_size)
{
	return (uint8_t)(((idx >> log_size) & 1u) ^ 1u);
}

/* ------------------------------------------------------------------------
 * Fixed device limits of this ABI version.
 */
#define VHCA_MAX_PORTS			2
#define VHCA_MAX_VECTORS		33	/* EQ 0 + up to 32 completion vectors */
#define VHCA_MAX_EQS			VHCA_MAX_VECTORS
#define VHCA_GID_TABLE_LEN		16
#define VHCA_PKEY_TABLE_LEN		16
#define VHCA_DEFAULT_PKEY		0xffff
/* IBA 4.1.3 (Table 7): LIDs 0x0001..0xbfff unicast, 0xc000..0xfffe
 * multicast, 0xffff the permissive LID. */
#define VHCA_MAX_UNICAST_LID		0xbfff
#define VHCA_MIN_MLID			0xc000
#define VHCA_MAX_MLID			0xfffe
#define VHCA_GID_PREFIX_DEFAULT		0xfe80000000000000ull

/* The data path: CQs, QPs, SRQs, memory keys, WQE and CQE formats. */
#include "vhca_hw_verbs.h"

#endif /* VHCA_HW_H */
