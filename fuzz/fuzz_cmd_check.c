/*
 * libFuzzer target: command decoding and static validation
 * (qemu-device/vhca-cmd-check.c), the first thing the device does with a
 * command entry the guest wrote.
 *
 * Input: a struct vhca_cmd as the guest wrote it (64 bytes, shorter inputs
 * are zero-padded), then three bytes choosing the device's limits (ports
 * 1..2, MSI-X vectors 2..33, device memory 0..255 4 KiB pages: the ranges
 * the properties allow, dm-size cut short).
 *
 * Besides the sanitizers, the target checks the verdict against a model
 * written from Documentation/device.md ("Command queue": validation order
 * and the command table), independently of the device's code: a verdict
 * that differs aborts, and libFuzzer keeps the input as a crash.  The
 * model reads the entry's bytes at the offsets of the uapi structs and
 * takes every limit by its uapi name (the contract it checks the device
 * against, stated once), never a number of its own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-cmd-check.h"

#define CMD_BYTES       sizeof(struct vhca_cmd)
#define INLINE_OFFSET   offsetof(struct vhca_cmd, in)
/* A little-endian field of a uapi struct laid out at buf. */
#define FIELD(buf, type, field) \
    le_at(buf, offsetof(struct type, field), sizeof(((struct type *)0)->field))

static void fail(const char *what, uint16_t opcode, unsigned got,
                 unsigned want)
{
    fprintf(stderr, "fuzz_cmd_check: %s (opcode 0x%04x): got %u, want %u\n",
            what, opcode, got, want);
    abort();
}

static void expect(bool ok, const char *what, uint16_t opcode)
{
    if (!ok) {
        fail(what, opcode, 0, 1);
    }
}

/* Little-endian field at a byte offset, assembled byte by byte. */
static uint64_t le_at(const uint8_t *raw, size_t offset, size_t bytes)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; i < bytes; i++) {
        v |= (uint64_t)raw[offset + i] << (8 * i);
    }
    return v;
}

/* The opcodes of this ABI version and their buffer sizes (device.md). */
static const struct {
    uint16_t opcode;
    uint32_t in_size;
    uint32_t out_size;
} base_opcodes[] = {
    { VHCA_CMD_QUERY_DEVICE, 0, 256 },
    { VHCA_CMD_QUERY_PORT, 0, 64 },
    { VHCA_CMD_QUERY_GID, 0, 16 },
    { VHCA_CMD_QUERY_PKEY, 0, 0 },
    { VHCA_CMD_SET_NODE_DESC, 64, 0 },
    { VHCA_CMD_SET_PORT_CAP, 0, 0 },
    { VHCA_CMD_MAD_IFC, 256, 256 },     /* struct vhca_mad both ways */
    { VHCA_CMD_CREATE_EQ, 0, 0 },
    { VHCA_CMD_DESTROY_EQ, 0, 0 },
    { VHCA_CMD_ALLOC_PD, 0, 0 },
    { VHCA_CMD_DEALLOC_PD, 0, 0 },
    { VHCA_CMD_ALLOC_DM, 0, 0 },
    { VHCA_CMD_FREE_DM, 0, 0 },
    { VHCA_CMD_REG_DM_MR, 0, 0 },
};

/* Data path opcodes (vhca_hw_verbs.h): a device may or may not have them. */
static const uint16_t verbs_opcodes[] = {
    VHCA_CMD_CREATE_CQ, VHCA_CMD_DESTROY_CQ, VHCA_CMD_RESIZE_CQ,
    VHCA_CMD_CREATE_QP, VHCA_CMD_MODIFY_QP, VHCA_CMD_QUERY_QP,
    VHCA_CMD_DESTROY_QP, VHCA_CMD_CREATE_SRQ, VHCA_CMD_MODIFY_SRQ,
    VHCA_CMD_QUERY_SRQ, VHCA_CMD_DESTROY_SRQ, VHCA_CMD_RESIZE_SRQ,
    VHCA_CMD_CREATE_MR,
    VHCA_CMD_ALLOC_MR, VHCA_CMD_DESTROY_MR, VHCA_CMD_ALLOC_MW,
    VHCA_CMD_DEALLOC_MW, VHCA_CMD_REREG_MR, VHCA_CMD_ODP_MAP,
    VHCA_CMD_ODP_INVALIDATE, VHCA_CMD_ODP_RESUME, VHCA_CMD_ATTACH_MCAST,
    VHCA_CMD_DETACH_MCAST, VHCA_CMD_ALLOC_XRCD, VHCA_CMD_DEALLOC_XRCD,
};

static int base_index(uint16_t opcode)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(base_opcodes); i++) {
        if (base_opcodes[i].opcode == opcode) {
            return (int)i;
        }
    }
    return -1;
}

static bool is_verbs_opcode(uint16_t opcode)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(verbs_opcodes); i++) {
        if (verbs_opcodes[i] == opcode) {
            return true;
        }
    }
    return false;
}

/*
 * A buffer of size bytes at addr whose end (exclusive) is not a 64-bit
 * address: the device's convention everywhere (vhca_dma_range_valid too),
 * so a buffer ending exactly at 2^64 counts as wrapping.
 */
static bool wraps(uint64_t addr, uint32_t size)
{
    return (unsigned __int128)addr + size >= ((unsigned __int128)1 << 64);
}

/* device.md validation steps 2-4: lengths and buffer addresses. */
static uint8_t model_buffers(const uint8_t *raw, uint32_t in_size,
                             uint32_t out_size)
{
    uint64_t in_addr = FIELD(raw, vhca_cmd, in_addr);
    uint64_t out_addr = FIELD(raw, vhca_cmd, out_addr);
    uint32_t in_len = FIELD(raw, vhca_cmd, in_len);
    uint32_t out_len = FIELD(raw, vhca_cmd, out_len);

    if (in_len > VHCA_CMD_MAX_IN_LEN || out_len > VHCA_CMD_MAX_OUT_LEN) {
        return VHCA_CMD_BAD_SIZE;
    }
    if (in_size && in_len < in_size) {
        return VHCA_CMD_BAD_SIZE;
    }
    if (in_size && (in_addr == 0 || wraps(in_addr, in_size))) {
        return VHCA_CMD_BAD_ADDR;
    }
    if (out_size && out_len < out_size) {
        return VHCA_CMD_BAD_SIZE;
    }
    if (out_size && (out_addr == 0 || wraps(out_addr, out_size))) {
        return VHCA_CMD_BAD_ADDR;
    }
    return VHCA_CMD_OK;
}

/*
 * device-datapath.md "Device memory": lengths within max_dm_size,
 * log_align <= 20, FREE_DM's offset a 4 KiB multiple inside BAR 3, a
 * REG_DM_MR range inside BAR 3 with access bits 0..4 and the two FLUSH
 * placement bits 8..9 (IBA 1.5 A19) where remote write (bit 1) and atomic
 * (bit 3) need local write (bit 0).
 */
static uint8_t model_dm(const uint8_t *in, uint16_t opcode, uint64_t dm_size)
{
    const uint32_t known = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE |
                           VHCA_ACCESS_REMOTE_READ | VHCA_ACCESS_REMOTE_ATOMIC |
                           VHCA_ACCESS_MW_BIND | VHCA_ACCESS_FLUSH;
    const uint32_t need_local = VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_ATOMIC;
    uint64_t length = opcode == VHCA_CMD_ALLOC_DM
                      ? FIELD(in, vhca_cmd_alloc_dm_in, length)
                      : FIELD(in, vhca_cmd_reg_dm_mr_in, length);
    uint32_t offset = FIELD(in, vhca_cmd_reg_dm_mr_in, dm_offset);
    uint32_t access = FIELD(in, vhca_cmd_reg_dm_mr_in, access);
    bool ok;

    switch (opcode) {
    case VHCA_CMD_ALLOC_DM:
        ok = length >= 1 && length <= dm_size &&
             FIELD(in, vhca_cmd_alloc_dm_in, log_align) <= VHCA_DM_MAX_LOG_ALIGN;
        break;
    case VHCA_CMD_FREE_DM:
        offset = FIELD(in, vhca_cmd_handle_in, handle);
        ok = offset % VHCA_DM_PAGE_SIZE == 0 && offset < dm_size;
        break;
    default:
        ok = length <= dm_size &&
             offset + (unsigned __int128)length <= dm_size &&
             !(access & ~known) &&
             (!(access & need_local) || (access & VHCA_ACCESS_LOCAL_WRITE));
        break;
    }
    return ok ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
}

/* device.md validation step 5: the inline input of this ABI's opcodes. */
static uint8_t model_inline(const uint8_t *raw, uint16_t opcode,
                            const VhcaCmdLimits *limits)
{
    const uint8_t *in = raw + INLINE_OFFSET;
    uint8_t port = FIELD(in, vhca_cmd_port_in, port);
    bool port_ok = port >= 1 && port <= limits->num_ports;
    uint64_t base = FIELD(in, vhca_cmd_create_eq_in, base);
    uint8_t log_size = FIELD(in, vhca_cmd_create_eq_in, log_size);
    uint16_t vector = FIELD(in, vhca_cmd_create_eq_in, vector);

    switch (opcode) {
    case VHCA_CMD_QUERY_PORT:
    case VHCA_CMD_MAD_IFC:
        return port_ok ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
    case VHCA_CMD_SET_PORT_CAP:
        /* IBA 14.2.5.6: only IsSM (an SM on this port, opensm through
         * ib_umad's issm), CM, SNMP, DevMgt, vendor class, boot. */
        return port_ok && ((FIELD(in, vhca_cmd_port_cap_in, set) |
                            FIELD(in, vhca_cmd_port_cap_in, clear)) &
                           ~(uint64_t)VHCA_PORT_CAP_SETTABLE) == 0
               ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
    case VHCA_CMD_QUERY_GID:
        return port_ok && FIELD(in, vhca_cmd_table_in, index) < VHCA_GID_TABLE_LEN
               ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
    case VHCA_CMD_QUERY_PKEY:
        return port_ok && FIELD(in, vhca_cmd_table_in, index) < VHCA_PKEY_TABLE_LEN
               ? VHCA_CMD_OK : VHCA_CMD_BAD_PARAM;
    case VHCA_CMD_CREATE_EQ:
        if (base == 0 || base % VHCA_QUEUE_ALIGN || log_size < VHCA_MIN_LOG_EQ ||
            log_size > VHCA_MAX_LOG_EQ ||
            vector < 1 || vector >= limits->num_vectors) {
            return VHCA_CMD_BAD_PARAM;
        }
        return VHCA_CMD_OK;
    case VHCA_CMD_DESTROY_EQ:
        return FIELD(in, vhca_cmd_handle_in, handle) == 0 ? VHCA_CMD_BAD_PARAM
                                                           : VHCA_CMD_OK;
    case VHCA_CMD_ALLOC_DM:
    case VHCA_CMD_FREE_DM:
    case VHCA_CMD_REG_DM_MR:
        return model_dm(in, opcode, limits->dm_size);
    default:
        return VHCA_CMD_OK;
    }
}

/* The decoded entry must hold exactly the bytes the guest wrote. */
static void check_decode(const uint8_t *raw, const VhcaCmd *cmd)
{
    const uint8_t *in = raw + INLINE_OFFSET;
    uint16_t op = cmd->opcode;

    expect(cmd->opcode == FIELD(raw, vhca_cmd, opcode), "opcode decode", op);
    expect(cmd->flags == FIELD(raw, vhca_cmd, flags), "flags decode", op);
    expect(cmd->token == FIELD(raw, vhca_cmd, token), "token decode", op);
    expect(cmd->in_addr == FIELD(raw, vhca_cmd, in_addr), "in_addr decode", op);
    expect(cmd->in_len == FIELD(raw, vhca_cmd, in_len), "in_len decode", op);
    expect(cmd->out_len == FIELD(raw, vhca_cmd, out_len), "out_len decode", op);
    expect(cmd->out_addr == FIELD(raw, vhca_cmd, out_addr), "out_addr decode", op);
    switch (op) {
    case VHCA_CMD_QUERY_PORT:
    case VHCA_CMD_MAD_IFC:
        expect(cmd->in.port.port == FIELD(in, vhca_cmd_port_in, port),
               "port decode", op);
        break;
    case VHCA_CMD_SET_PORT_CAP:
        expect(cmd->in.port_cap.port == FIELD(in, vhca_cmd_port_cap_in, port),
               "cap port decode", op);
        expect(cmd->in.port_cap.set == FIELD(in, vhca_cmd_port_cap_in, set),
               "cap set decode", op);
        expect(cmd->in.port_cap.clear == FIELD(in, vhca_cmd_port_cap_in, clear),
               "cap clear", op);
        break;
    case VHCA_CMD_QUERY_GID:
    case VHCA_CMD_QUERY_PKEY:
        expect(cmd->in.table.port == FIELD(in, vhca_cmd_table_in, port),
               "table port decode", op);
        expect(cmd->in.table.index == FIELD(in, vhca_cmd_table_in, index),
               "index decode", op);
        break;
    case VHCA_CMD_CREATE_EQ:
        expect(cmd->in.create_eq.base == FIELD(in, vhca_cmd_create_eq_in, base),
               "base decode", op);
        expect(cmd->in.create_eq.log_size ==
               FIELD(in, vhca_cmd_create_eq_in, log_size), "log decode", op);
        expect(cmd->in.create_eq.vector ==
               FIELD(in, vhca_cmd_create_eq_in, vector), "vector", op);
        break;
    case VHCA_CMD_DESTROY_EQ:
    case VHCA_CMD_DEALLOC_PD:
    case VHCA_CMD_FREE_DM:
        expect(cmd->in.handle == FIELD(in, vhca_cmd_handle_in, handle),
               "handle decode", op);
        break;
    case VHCA_CMD_ALLOC_DM:
        expect(cmd->in.alloc_dm.length == FIELD(in, vhca_cmd_alloc_dm_in, length),
               "dm length", op);
        expect(cmd->in.alloc_dm.log_align ==
               FIELD(in, vhca_cmd_alloc_dm_in, log_align), "dm log_align", op);
        break;
    case VHCA_CMD_REG_DM_MR:
#define DM_MR(field) FIELD(in, vhca_cmd_reg_dm_mr_in, field)
        expect(cmd->in.reg_dm_mr.dm_offset == DM_MR(dm_offset), "dm off", op);
        expect(cmd->in.reg_dm_mr.pdn == DM_MR(pdn), "dm pdn", op);
        expect(cmd->in.reg_dm_mr.length == DM_MR(length), "dm mr len", op);
        expect(cmd->in.reg_dm_mr.access == DM_MR(access), "dm access", op);
        expect(cmd->in.reg_dm_mr.key_variant == DM_MR(key_variant), "dm variant",
               op);
#undef DM_MR
        break;
    default:
        break;
    }
}

static void check_verdict(const uint8_t *raw, const VhcaCmd *cmd,
                          const VhcaCmdLimits *limits)
{
    uint16_t op = cmd->opcode;
    const VhcaCmdInfo *info = vhca_cmd_info(op);
    int base = base_index(op);
    VhcaCmd copy = *cmd;
    VhcaCmdCheck check = vhca_cmd_check(cmd, limits);
    VhcaCmdCheck again = vhca_cmd_check(cmd, limits);
    uint8_t want;

    /* Pure: same verdict twice, the entry untouched. */
    expect(memcmp(&copy, cmd, sizeof(copy)) == 0, "check modified cmd", op);
    expect(check.status == again.status, "verdict not repeatable", op);
    expect((check.status == VHCA_CMD_OK) == (check.why == NULL),
           "reason given iff failed", op);
    expect(check.status <= VHCA_CMD_INTERNAL, "status defined", op);
    expect(vhca_cmd_name(op) != NULL, "name", op);

    if (base >= 0) {
        expect(info && info->opcode == op, "documented opcode known", op);
        if (info->in_size != base_opcodes[base].in_size) {
            fail("in_size", op, info->in_size, base_opcodes[base].in_size);
        }
        if (info->out_size != base_opcodes[base].out_size) {
            fail("out_size", op, info->out_size, base_opcodes[base].out_size);
        }
        want = model_buffers(raw, info->in_size, info->out_size);
        if (want == VHCA_CMD_OK) {
            want = model_inline(raw, op, limits);
        }
    } else if (info) {
        /* A data path command: only the common steps are modelled here. */
        expect(is_verbs_opcode(op), "undocumented opcode accepted", op);
        expect(info->opcode == op, "info for the wrong opcode", op);
        want = model_buffers(raw, info->in_size, info->out_size);
        if (want == VHCA_CMD_OK) {
            expect(check.status != VHCA_CMD_BAD_OPCODE, "known opcode", op);
            return;
        }
    } else {
        want = VHCA_CMD_BAD_OPCODE;
    }
    if (check.status != want) {
        fail("status", op, check.status, want);
    }
}

/*
 * The ODP commands' own input check (vhca_hw_odp.h,
 * device-datapath.md "On-demand paging"): npages 1.., ODP_MAP at most
 * VHCA_ODP_MAX_MAP pages and in_len holding 8 bytes per page; ODP_RESUME
 * flags only VHCA_ODP_RESUME_F_ERROR.
 */
static void check_odp_range(const uint8_t *raw, uint16_t op)
{
    const uint8_t *in = raw + INLINE_OFFSET;
    uint64_t npages = FIELD(in, vhca_cmd_odp_range_in, npages);
    uint64_t in_len = FIELD(raw, vhca_cmd, in_len);
    uint8_t want = VHCA_CMD_OK;
    VhcaCmdCheck got;

    if (op == VHCA_CMD_ODP_RESUME) {
        want = VHCA_CMD_OK;     /* flags: below */
    } else if (npages == 0) {
        want = VHCA_CMD_BAD_PARAM;
    } else if (op == VHCA_CMD_ODP_MAP && npages > VHCA_ODP_MAX_MAP) {
        want = VHCA_CMD_BAD_PARAM;
    } else if (op == VHCA_CMD_ODP_MAP && in_len < sizeof(uint64_t) * npages) {
        want = VHCA_CMD_BAD_SIZE;
    }
    if (op == VHCA_CMD_ODP_RESUME) {
        want = FIELD(in, vhca_cmd_odp_resume_in, flags) & ~VHCA_ODP_RESUME_F_ERROR
               ? VHCA_CMD_BAD_PARAM : VHCA_CMD_OK;
    }
    got = vhca_odp_cmd_check(op, in, (uint32_t)in_len);
    expect((got.status == VHCA_CMD_OK) == (got.why == NULL),
           "ODP reason given iff failed", op);
    if (got.status != want) {
        fail("ODP range status", op, got.status, want);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vhca_cmd entry;          /* aligned like the ring slot */
    uint8_t *raw = (uint8_t *)&entry;
    VhcaCmdLimits limits;
    VhcaCmd cmd;

    memset(&entry, 0, sizeof(entry));
    memcpy(raw, data, MIN(size, CMD_BYTES));
    limits.num_ports = size > CMD_BYTES ? 1 + (data[CMD_BYTES] & 1) : 2;
    limits.num_vectors = size > CMD_BYTES + 1 ?
                         2 + data[CMD_BYTES + 1] % 32 : 3;
    limits.dm_size = (size > CMD_BYTES + 2 ? data[CMD_BYTES + 2] : 64) *
                     (uint64_t)VHCA_DM_PAGE_SIZE;

    vhca_cmd_decode(&entry, &cmd);
    check_decode(raw, &cmd);
    check_verdict(raw, &cmd, &limits);
    if (cmd.opcode == VHCA_CMD_ODP_MAP ||
        cmd.opcode == VHCA_CMD_ODP_INVALIDATE ||
        cmd.opcode == VHCA_CMD_ODP_RESUME) {
        check_odp_range(raw, cmd.opcode);
    }
    return 0;
}
