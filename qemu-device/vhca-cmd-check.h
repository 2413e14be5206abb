/*
 * vhca - command decoding and static validation.
 *
 * Pure functions: no device state, no guest memory access, no main loop.
 * They see one command entry as the guest wrote it and the device's fixed
 * limits, and say whether it can be executed at all.  Kept apart so that
 * they can be built into a host fuzzing harness on their own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_CMD_CHECK_H
#define HW_INFINIBAND_VHCA_CMD_CHECK_H

#include "vhca_hw.h"

/* A command entry in host byte order. */
typedef struct VhcaCmd {
    uint16_t opcode;
    uint16_t flags;
    uint32_t token;
    uint64_t in_addr;
    uint32_t in_len;
    uint32_t out_len;
    uint64_t out_addr;
    union {
        struct {
            uint8_t port;
        } port;                         /* QUERY_PORT, MAD_IFC */
        struct {
            uint8_t port;
            uint32_t set;
            uint32_t clear;
        } port_cap;                     /* SET_PORT_CAP */
        struct {
            uint8_t port;
            uint16_t index;
        } table;                        /* QUERY_GID, QUERY_PKEY */
        struct {
            uint64_t base;
            uint8_t log_size;
            uint16_t vector;
        } create_eq;                    /* CREATE_EQ */
        uint32_t handle;                /* DESTROY_EQ, DEALLOC_PD, FREE_DM */
        struct {
            uint64_t length;
            uint8_t log_align;
        } alloc_dm;                     /* ALLOC_DM */
        struct {
            uint32_t dm_offset;
            uint32_t pdn;
            uint64_t length;
            uint32_t access;
            uint8_t key_variant;
        } reg_dm_mr;                    /* REG_DM_MR */
    } in;
} VhcaCmd;

/* What the static checks need to know about the device. */
typedef struct VhcaCmdLimits {
    uint8_t num_ports;
    uint32_t num_vectors;
    uint64_t dm_size;               /* bytes of BAR 3, 0: no device memory */
} VhcaCmdLimits;

/* A verdict: VHCA_CMD_OK or an error status, with the reason for the log. */
typedef struct VhcaCmdCheck {
    uint8_t status;
    const char *why;
} VhcaCmdCheck;

/* Per-opcode facts the checks use. */
typedef struct VhcaCmdInfo {
    uint16_t opcode;
    const char *name;
    uint32_t in_size;       /* bytes needed at in_addr, 0: none */
    uint32_t out_size;      /* bytes written at out_addr, 0: none */
} VhcaCmdInfo;

/*
 * IBA 10.6.3.1: remote write and atomic rights need local write (the
 * FLUSH rights of IBA 1.5 A19 do not: a FLUSH writes nothing).  Used by
 * REG_DM_MR here and by every region of vhca-mr.c.
 */
static inline bool vhca_access_flags_valid(uint32_t access)
{
    const uint32_t all = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE |
                         VHCA_ACCESS_REMOTE_READ | VHCA_ACCESS_REMOTE_ATOMIC |
                         VHCA_ACCESS_MW_BIND | VHCA_ACCESS_FLUSH;

    if (access & ~all) {
        return false;
    }
    return !(access & (VHCA_ACCESS_REMOTE_WRITE | VHCA_ACCESS_REMOTE_ATOMIC)) ||
           (access & VHCA_ACCESS_LOCAL_WRITE);
}

void vhca_cmd_decode(const struct vhca_cmd *raw, VhcaCmd *cmd);
const VhcaCmdInfo *vhca_cmd_info(uint16_t opcode);
const char *vhca_cmd_name(uint16_t opcode);
VhcaCmdCheck vhca_cmd_check(const VhcaCmd *cmd, const VhcaCmdLimits *limits);
/* ODP_MAP/ODP_INVALIDATE/ODP_RESUME (vhca_hw_odp.h): the inline input
 * (page count, against in_len for ODP_MAP; RESUME's flags); the region
 * or QP is looked up after. */
VhcaCmdCheck vhca_odp_cmd_check(uint16_t opcode, const uint8_t in[32],
                                uint32_t in_len);

#endif /* HW_INFINIBAND_VHCA_CMD_CHECK_H */
