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

/* ComponentMask bits of MCMemberRecord (vhca-sa.h). */
#define MCR_MGID        VHCA_MCR_COMP_MGID
#define MCR_PORT_GID    VHCA_MCR_COMP_PORT_GID
#define MCR_MTU         VHCA_MCR_COMP_MTU
#define MCR_RATE        VHCA_MCR_COMP_RATE
#define MCR_PLT         VHCA_MCR_COMP_PLT
#define MCR_HOP         VHCA_MCR_COMP_HOP
#define MCR_JOIN        VHCA_MCR_COMP_JOIN
#define MCR_PROXY       VHCA_MCR_COMP_PROXY
#define MCR_CREATE      (VHCA_MCR_COMP_QKEY | VHCA_MCR_COMP_PKEY | \
                         VHCA_MCR_COMP_SL | VHCA_MCR_COMP_FLOW | \
                         VHCA_MCR_COMP_TCLASS)

/* Each field's bit offset, from vhca-mad.h's struct (vhca-sa.c). */
#define MCR_BIT(f)      ((uint16_t)(VHCA_MCR(f) * 8))

static const VhcaSaField mcmember_fields[] = {
    /* ..MLID */
    { MCR_BIT(mgid), 128, 0 }, { MCR_BIT(port_gid), 128, 0 },
    { MCR_BIT(qkey), 32, 0 }, { MCR_BIT(mlid), 16, 0 },
    { MCR_BIT(mtu), 2, VHCA_SA_F_SEL }, { MCR_BIT(mtu) + 2, 6, 0 },
    { MCR_BIT(tclass), 8, 0 }, { MCR_BIT(pkey), 16, 0 },
    { MCR_BIT(rate), 2, VHCA_SA_F_SEL }, { MCR_BIT(rate) + 2, 6, 0 },
    { MCR_BIT(packet_life), 2, VHCA_SA_F_SEL },
    { MCR_BIT(packet_life) + 2, 6, 0 },
    /* SL, FlowLabel, HopLimit, Scope */
    { MCR_BIT(sl_flow_hop), 4, 0 }, { MCR_BIT(sl_flow_hop) + 4, 20, 0 },
    { MCR_BIT(sl_flow_hop) + 24, 8, 0 }, { MCR_BIT(scope_join_state), 4, 0 },
    /* Join, Proxy */
    { MCR_BIT(scope_join_state) + 4, 4, 0 }, { MCR_BIT(proxy_join), 1, 0 },
};

/* The request's JoinState bits. */
static uint8_t mcr_join_state(const uint8_t *want)
{
    return want[VHCA_MCR(scope_join_state)] & 0xf;
}

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
    memcpy(rec + VHCA_MCR(mgid), g->mgid, sizeof(g->mgid));
    if (m) {
        memcpy(rec + VHCA_MCR(port_gid), m->gid, sizeof(m->gid));
        rec[VHCA_MCR(scope_join_state)] = m->join_state & 0xf;
        rec[VHCA_MCR(proxy_join)] = m->proxy ? VHCA_MCR_PROXY_JOIN : 0;
    }
    vhca_put_be32(rec + VHCA_MCR(qkey), g->qkey);
    vhca_put_be16(rec + VHCA_MCR(mlid), g->mlid);
    rec[VHCA_MCR(mtu)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, g->mtu);
    rec[VHCA_MCR(tclass)] = g->tclass;
    vhca_put_be16(rec + VHCA_MCR(pkey), g->pkey);
    rec[VHCA_MCR(rate)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, g->rate);
    rec[VHCA_MCR(packet_life)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY,
                                                  g->plt);
    vhca_put_be32(rec + VHCA_MCR(sl_flow_hop), (uint32_t)g->sl << 28 |
                  g->flow_label << 8 | g->hop_limit);
    rec[VHCA_MCR(scope_join_state)] |= g->scope << 4;
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
    switch (mask & (bit >> 1) ? byte >> 6 : VHCA_SA_SEL_EXACTLY) {
    case VHCA_SA_SEL_GREATER:
        *out = max;
        return v < max;
    case VHCA_SA_SEL_LESS:
        *out = MIN(max, v - 1);
        return v > min;
    case VHCA_SA_SEL_EXACTLY:
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
    uint8_t join = mcr_join_state(want);
    uint32_t flow = vhca_get_be32(want + VHCA_MCR(sl_flow_hop));
    VhcaSaGroup *g = NULL;
    uint32_t i;

    if ((mask & MCR_CREATE) != MCR_CREATE) {
        return VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
    }
    if (!(join & (VHCA_MCR_JOIN_FULL | VHCA_MCR_JOIN_SENDONLY_FULL)) ||
        ((mask & MCR_MGID) && memcmp(want + VHCA_MCR(mgid), zero, 16) &&
         want[VHCA_MCR(mgid)] != 0xff)) {
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
    if (!(mask & MCR_MGID) || !memcmp(want + VHCA_MCR(mgid), zero, 16)) {
        g->mgid[0] = 0xff;                      /* SA-assigned (15.2.5.17) */
        g->mgid[1] = 0x12;
        g->mgid[2] = 0xa0;
        g->mgid[3] = 0x1b;
        memcpy(g->mgid + 4, want + VHCA_MCR(pkey), 2);     /* P_Key */
        vhca_put_be16(g->mgid + 14, g->mlid);
        /* A requester may have named this very MGID for another group:
         * of VHCA_SA_MAX_GROUPS + 1 variants one is free. */
        for (i = 0; i <= VHCA_SA_MAX_GROUPS && mcr_group(sa, g->mgid); i++) {
            vhca_put_be16(g->mgid + 12, i + 1);
        }
    } else {
        memcpy(g->mgid, want + VHCA_MCR(mgid), sizeof(g->mgid));
    }
    if (!mcr_choose(mask, MCR_MTU, want[VHCA_MCR(mtu)], 1, VHCA_MTU_4096,
                    VHCA_MTU_2048, &g->mtu) ||
        !mcr_choose(mask, MCR_RATE, want[VHCA_MCR(rate)], 2, VHCA_SA_RATE_40G,
                    VHCA_SA_RATE_40G, &g->rate) ||
        !mcr_choose(mask, MCR_PLT, want[VHCA_MCR(packet_life)], 0, 63,
                    VHCA_SA_PACKET_LIFE, &g->plt)) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    g->valid = true;
    g->qkey = vhca_get_be32(want + VHCA_MCR(qkey));
    g->tclass = want[VHCA_MCR(tclass)];
    g->pkey = vhca_get_be16(want + VHCA_MCR(pkey));
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
    uint8_t join = mcr_join_state(want), rec[VHCA_SA_MCMEMBER_SIZE];
    VhcaSaGroup *g = mask & MCR_MGID ? mcr_group(sa, want + VHCA_MCR(mgid))
                                     : NULL;
    VhcaSaMember *m;
    uint16_t st;

    if ((mask & (MCR_PORT_GID | MCR_JOIN)) != (MCR_PORT_GID | MCR_JOIN)) {
        return VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
    }
    if (!join) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    if (!vhca_sa_port_by_gid(sa, want + VHCA_MCR(port_gid))) {
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
    m = mcr_member(g, want + VHCA_MCR(port_gid));
    if (!m) {
        if (g->nmembers >= VHCA_SA_MAX_MEMBERS) {
            return VHCA_SA_ERR_NO_RESOURCES;
        }
        m = &g->members[g->nmembers++];
        memset(m, 0, sizeof(*m));
        memcpy(m->gid, want + VHCA_MCR(port_gid), sizeof(m->gid));
    }
    m->join_state |= join;
    m->proxy = mask & MCR_PROXY ?
               !!(want[VHCA_MCR(proxy_join)] & VHCA_MCR_PROXY_JOIN) : 0;
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
    g = mcr_group(sa, want + VHCA_MCR(mgid));
    m = g ? mcr_member(g, want + VHCA_MCR(port_gid)) : NULL;
    if (!m || !(m->join_state & mcr_join_state(want))) {
        return VHCA_SA_ERR_REQ_INVALID;
    }
    left = *m;
    left.join_state = mcr_join_state(want);
    mcr_add(t, g, &left);
    m->join_state &= ~mcr_join_state(want);
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
