/*
 * vhca - the SA's multicast groups: MCMemberRecord (IBA 15.2.5.17).
 *
 * SubnAdmSet(MCMemberRecord) joins the port named by PortGID to the group
 * named by MGID with the JoinState bits of the request.  A group that does
 * not exist is created when the ComponentMask has what creation needs
 * (Q_Key, P_Key, SL, FlowLabel and TClass, as OpenSM asks) and the join is
 * a full one; MTU, Rate and PacketLifeTime follow their selectors (default
 * MTU 2048, 40 Gb/s), an MGID of zero gets one assigned (ff12:a01b:...),
 * and the group gets the next free MLID from 0xc000 up.  Joining a group
 * that exists checks the request's components against it.
 * SubnAdmDelete(MCMemberRecord) removes JoinState bits; a member left with
 * none leaves, and a group left without members is deleted, except the
 * IPoIB broadcast group of the default partition, which exists from the
 * start (like OpenSM's default partition): MGID ff12:401b:ffff::ffff:ffff,
 * Q_Key 0x0b1b, MTU 2048, 40 Gb/s, SL 0, MLID 0xc000.  Members whose port
 * is no longer ACTIVE are removed before each request (an SM notices such
 * ports on its sweeps).  Get and GetTable answer one record per member
 * (a group without members: one record with a zero PortGID).
 *
 * Pure, like vhca-sa.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sa.h"

/* ComponentMask bits of MCMemberRecord. */
#define MCR_MGID        (1ull << 0)
#define MCR_PORT_GID    (1ull << 1)
#define MCR_QKEY        (1ull << 2)
#define MCR_MTU         (1ull << 5)
#define MCR_TCLASS      (1ull << 6)
#define MCR_PKEY        (1ull << 7)
#define MCR_RATE        (1ull << 9)
#define MCR_PLT         (1ull << 11)
#define MCR_SL          (1ull << 12)
#define MCR_FLOW        (1ull << 13)
#define MCR_HOP         (1ull << 14)
#define MCR_JOIN        (1ull << 16)
#define MCR_PROXY       (1ull << 17)
#define MCR_CREATE      (MCR_QKEY | MCR_PKEY | MCR_SL | MCR_FLOW | MCR_TCLASS)

#define JOIN_FULL           0x1
#define JOIN_SENDONLY_FULL  0x8

static const VhcaSaField mcmember_fields[] = {
    /* ..MLID */
    { 0, 128, 0 }, { 128, 128, 0 }, { 256, 32, 0 }, { 288, 16, 0 },
    { 304, 2, VHCA_SA_F_SEL }, { 306, 6, 0 }, { 312, 8, 0 }, { 320, 16, 0 },
    { 336, 2, VHCA_SA_F_SEL }, { 338, 6, 0 },                  /* Rate */
    { 344, 2, VHCA_SA_F_SEL }, { 346, 6, 0 },                  /* PacketLife */
    /* SL..Scope */
    { 352, 4, 0 }, { 356, 20, 0 }, { 376, 8, 0 }, { 384, 4, 0 },
    /* Join, Proxy */
    { 388, 4, 0 }, { 392, 1, 0 },
};

static const uint8_t ipoib_broadcast_mgid[16] = {
    0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff
};

void vhca_sa_mcast_init(VhcaSa *sa)
{
    VhcaSaGroup *g = &sa->groups[0];

    memset(g, 0, sizeof(*g));
    g->valid = true;
    g->permanent = true;
    memcpy(g->mgid, ipoib_broadcast_mgid, sizeof(g->mgid));
    g->qkey = VHCA_SA_IPOIB_QKEY;
    g->mlid = VHCA_MIN_MLID;
    g->pkey = VHCA_DEFAULT_PKEY;
    g->mtu = VHCA_MTU_2048;
    g->rate = VHCA_SA_RATE_40G;
    g->plt = VHCA_SA_PACKET_LIFE;
    g->scope = 2;                               /* link local */
}

static void mcr_remove_member(VhcaSaGroup *g, uint32_t i)
{
    g->members[i] = g->members[--g->nmembers];
    if (g->nmembers == 0 && !g->permanent) {
        g->valid = false;
    }
}

void vhca_sa_mcast_prune(VhcaSa *sa)
{
    VhcaSaGroup *g;
    uint32_t i, j;

    for (i = 0; i < VHCA_SA_MAX_GROUPS; i++) {
        g = &sa->groups[i];
        if (g->nmembers > VHCA_SA_MAX_MEMBERS) {
            g->nmembers = VHCA_SA_MAX_MEMBERS;
        }
        for (j = g->nmembers; g->valid && j-- > 0;) {
            if (!vhca_sa_port_by_gid(sa, g->members[j].gid)) {
                mcr_remove_member(g, j);
            }
        }
    }
}

/* The record of group g as member gid (with its join state) sees it. */
static void mcr_make(const VhcaSaGroup *g, const VhcaSaMember *m,
                     uint8_t *rec)
{
    memset(rec, 0, VHCA_SA_MCMEMBER_SIZE);
    memcpy(rec, g->mgid, 16);
    if (m) {
        memcpy(rec + 16, m->gid, 16);
        rec[48] = m->join_state & 0xf;
        rec[49] = m->proxy ? 0x80 : 0;
    }
    vhca_put_be32(rec + 32, g->qkey);
    vhca_put_be16(rec + 36, g->mlid);
    rec[38] = 2 << 6 | g->mtu;                  /* selectors: exactly */
    rec[39] = g->tclass;
    vhca_put_be16(rec + 40, g->pkey);
    rec[42] = 2 << 6 | g->rate;
    rec[43] = 2 << 6 | g->plt;
    vhca_put_be32(rec + 44, (uint32_t)g->sl << 28 | g->flow_label << 8 |
                       g->hop_limit);
    rec[48] |= g->scope << 4;
}

static bool mcr_add(VhcaSaTable *t, const VhcaSaGroup *g,
                    const VhcaSaMember *m)
{
    uint8_t *rec = vhca_sa_table_add(t);

    if (rec) {
        mcr_make(g, m, rec);
    }
    return rec != NULL;
}

static VhcaSaGroup *mcr_group(VhcaSa *sa, const uint8_t *mgid)
{
    uint32_t i;

    for (i = 0; i < VHCA_SA_MAX_GROUPS; i++) {
        if (sa->groups[i].valid &&
            !memcmp(sa->groups[i].mgid, mgid, sizeof(sa->groups[i].mgid))) {
            return &sa->groups[i];
        }
    }
    return NULL;
}

static VhcaSaMember *mcr_member(VhcaSaGroup *g, const uint8_t *gid)
{
    uint32_t i;

    for (i = 0; i < g->nmembers; i++) {
        if (!memcmp(g->members[i].gid, gid, sizeof(g->members[i].gid))) {
            return &g->members[i];
        }
    }
    return NULL;
}

/*
 * A value for a new group from the request's value and selector (byte:
 * selector in bits 7..6, value in 5..0), in [min, max]: the largest one
 * selected, or dflt when the component is not given.
 */
static bool mcr_choose(uint64_t mask, uint64_t bit, uint8_t byte, uint8_t min,
                       uint8_t max, uint8_t dflt, uint8_t *out)
{
    uint8_t v = byte & 0x3f;

    if (!(mask & bit)) {
        *out = dflt;
        return true;
    }
    switch (mask & (bit >> 1) ? byte >> 6 : 2) {
    case 0:                                     /* greater than */
        *out = max;
        return v < max;
    case 1:                                     /* less than */
        *out = MIN(max, v - 1);
        return v > min;
    case 2:                                     /* exactly */
        *out = v;
        return v >= min && v <= max;
    default:                                    /* largest available */
        *out = max;
        return true;
    }
}

static uint16_t mcr_create(VhcaSa *sa, uint64_t mask, const uint8_t *want,
                           VhcaSaGroup **out)
{
    static const uint8_t zero[16];
    uint8_t join = want[48] & 0xf;
    uint32_t flow = vhca_get_be32(want + 44);
    VhcaSaGroup *g = NULL;
    uint32_t i;

    if ((mask & MCR_CREATE) != MCR_CREATE) {
        return VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
    }
    if (!(join & (JOIN_FULL | JOIN_SENDONLY_FULL)) ||
        ((mask & MCR_MGID) && memcmp(want, zero, 16) && want[0] != 0xff)) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    for (i = 0; i < VHCA_SA_MAX_GROUPS && !g; i++) {
        if (!sa->groups[i].valid) {
            g = &sa->groups[i];
        }
    }
    if (!g) {
        return VHCA_SA_ERR_NO_RESOURCES;
    }
    memset(g, 0, sizeof(*g));
    g->mlid = VHCA_MIN_MLID + (g - sa->groups);
    if (!(mask & MCR_MGID) || !memcmp(want, zero, 16)) {
        g->mgid[0] = 0xff;                      /* SA-assigned (15.2.5.17) */
        g->mgid[1] = 0x12;
        g->mgid[2] = 0xa0;
        g->mgid[3] = 0x1b;
        memcpy(g->mgid + 4, want + 40, 2);      /* P_Key */
        vhca_put_be16(g->mgid + 14, g->mlid);
        /* A requester may have named this very MGID for another group:
         * of VHCA_SA_MAX_GROUPS + 1 variants one is free. */
        for (i = 0; i <= VHCA_SA_MAX_GROUPS && mcr_group(sa, g->mgid); i++) {
            vhca_put_be16(g->mgid + 12, i + 1);
        }
    } else {
        memcpy(g->mgid, want, 16);
    }
    if (!mcr_choose(mask, MCR_MTU, want[38], 1, VHCA_MTU_4096,
                    VHCA_MTU_2048, &g->mtu) ||
        !mcr_choose(mask, MCR_RATE, want[42], 2, VHCA_SA_RATE_40G,
                    VHCA_SA_RATE_40G, &g->rate) ||
        !mcr_choose(mask, MCR_PLT, want[43], 0, 63, VHCA_SA_PACKET_LIFE,
                    &g->plt)) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    g->valid = true;
    g->qkey = vhca_get_be32(want + 32);
    g->tclass = want[39];
    g->pkey = vhca_get_be16(want + 40);
    g->sl = flow >> 28;
    g->flow_label = (flow >> 8) & 0xfffff;
    g->hop_limit = mask & MCR_HOP ? (flow & 0xff) : 0;
    g->scope = g->mgid[1] & 0xf;
    *out = g;
    return 0;
}

static uint16_t mcr_join(VhcaSa *sa, uint64_t mask, const uint8_t *want,
                         VhcaSaTable *t)
{
    uint8_t join = want[48] & 0xf, rec[VHCA_SA_MCMEMBER_SIZE];
    VhcaSaGroup *g = mask & MCR_MGID ? mcr_group(sa, want) : NULL;
    VhcaSaMember *m;
    uint16_t st;

    if ((mask & (MCR_PORT_GID | MCR_JOIN)) != (MCR_PORT_GID | MCR_JOIN)) {
        return VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
    }
    if (!join) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    if (!vhca_sa_port_by_gid(sa, want + 16)) {
        return VHCA_SA_ERR_REQ_INVALID_GID;
    }
    if (g) {
        mcr_make(g, NULL, rec);
        if (!vhca_sa_match(mcmember_fields, ARRAY_SIZE(mcmember_fields),
                           mask & ~(MCR_MGID | MCR_PORT_GID | MCR_JOIN |
                                    MCR_PROXY), want, rec)) {
            return VHCA_SA_ERR_REQ_INVALID;
        }
    } else {
        st = mcr_create(sa, mask, want, &g);
        if (st) {
            return st;
        }
    }
    m = mcr_member(g, want + 16);
    if (!m) {
        if (g->nmembers >= VHCA_SA_MAX_MEMBERS) {
            return VHCA_SA_ERR_NO_RESOURCES;
        }
        m = &g->members[g->nmembers++];
        memset(m, 0, sizeof(*m));
        memcpy(m->gid, want + 16, sizeof(m->gid));
    }
    m->join_state |= join;
    m->proxy = mask & MCR_PROXY ? want[49] >> 7 : 0;
    mcr_add(t, g, m);
    return 0;
}

static uint16_t mcr_leave(VhcaSa *sa, uint64_t mask, const uint8_t *want,
                          VhcaSaTable *t)
{
    uint64_t need = MCR_MGID | MCR_PORT_GID | MCR_JOIN;
    VhcaSaGroup *g;
    VhcaSaMember *m, left;

    if ((mask & need) != need) {
        return VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
    }
    g = mcr_group(sa, want);
    m = g ? mcr_member(g, want + 16) : NULL;
    if (!m || !(m->join_state & want[48] & 0xf)) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    left = *m;
    left.join_state = want[48] & 0xf;
    mcr_add(t, g, &left);
    m->join_state &= ~(want[48] & 0xf);
    if (!(m->join_state & 0xf)) {
        mcr_remove_member(g, m - g->members);
    }
    return 0;
}

static uint16_t mcr_records(VhcaSa *sa, uint64_t mask, const uint8_t *want,
                            VhcaSaTable *t)
{
    uint8_t rec[VHCA_SA_MCMEMBER_SIZE];
    VhcaSaGroup *g;
    uint32_t i, j;

    for (i = 0; i < VHCA_SA_MAX_GROUPS; i++) {
        g = &sa->groups[i];
        for (j = 0; g->valid && j < MAX(g->nmembers, 1); j++) {
            mcr_make(g, g->nmembers ? &g->members[j] : NULL, rec);
            if (vhca_sa_match(mcmember_fields, ARRAY_SIZE(mcmember_fields),
                              mask, want, rec) &&
                !mcr_add(t, g, g->nmembers ? &g->members[j] : NULL)) {
                return 0;
            }
        }
    }
    return 0;
}

uint16_t vhca_sa_mcast(VhcaSa *sa, uint8_t method, uint64_t mask,
                       const uint8_t *rec, VhcaSaTable *t)
{
    t->rec_size = VHCA_SA_MCMEMBER_SIZE;
    switch (method) {
    case VHCA_SA_METHOD_SET:
        return mcr_join(sa, mask, rec, t);
    case VHCA_SA_METHOD_DELETE:
        return mcr_leave(sa, mask, rec, t);
    default:
        return mcr_records(sa, mask, rec, t);
    }
}
