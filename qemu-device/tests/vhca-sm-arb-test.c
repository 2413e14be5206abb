/*
 * QTest testcase for vhca: the in-process fabric's embedded SM beside an
 * SM in a guest, SMInfo deciding the master (IBA 14.4; vhca-fabric-sm.c,
 * Documentation/fabric.md "The embedded SM beside opensm").
 *
 * The test plays the guest's SM from port 1's SMI QP, as opensm does: it
 * sets IsSM in port 1's CapabilityMask, answers the embedded SM's
 * SubnGet(SMInfo) and SubnSet(SMInfo) on QP0, and asks the embedded SM's
 * SMInfo at the switch's LID.  Checked: the embedded SM's SMInfo (state,
 * sm-priority, GUID, SM_Key, ActCount); the Sets a state refuses; the
 * priority comparison (a lower SM, or one with another SM_Key, stays
 * STANDBY, a higher or an equal one with a lower GUID gets the subnet by
 * HANDOVER); the standby's polls, on the
 * virtual clock, and its takeover when they go unanswered (ports set
 * again with CLIENT_REREGISTER, SM LID 1) and its SA's answers to
 * IPoIB's joins and path queries right after; DISABLE, STANDBY, DISCOVER;
 * HANDOVER back to it; Traps to it answered with TrapRepress as MASTER
 * only; the properties every device must agree on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define POLL_MS         1000
#define POLL_RETRIES    2
#define ARB             ",sm-poll-ms=1000,sm-poll-retries=2"
#define PORT1_GUID      (NODE_GUID + 1)
#define SM_TID_BASE     0x534d000000000000ull
#define ST_NOT_ACTIVE   VHCA_SM_STATE_NOT_ACTIVE
#define ST_DISCOVERING  VHCA_SM_STATE_DISCOVERING
#define ST_STANDBY      VHCA_SM_STATE_STANDBY
#define ST_MASTER       VHCA_SM_STATE_MASTER
#define MOD_HANDOVER    VHCA_SMINFO_HANDOVER
#define MOD_ACKNOWLEDGE VHCA_SMINFO_ACKNOWLEDGE
#define MOD_DISABLE     VHCA_SMINFO_DISABLE
#define MOD_STANDBY     VHCA_SMINFO_STANDBY
#define MOD_DISCOVER    VHCA_SMINFO_DISCOVER
#define SMINFO          VHCA_SMP_ATTR_SM_INFO
#define SMI_STATE       VHCA_SMI(priority_state)    /* Priority, SMState */
#define GET             VHCA_MGMT_METHOD_GET
#define SET             VHCA_MGMT_METHOD_SET
#define BAD_VALUE       VHCA_MAD_STATUS_INVALID_ATTR_VALUE
#define UNSUP_METHOD_ATTR VHCA_MAD_STATUS_UNSUP_METHOD_ATTR
#define TRAP_128        VHCA_TRAP_LINK_STATE
#define TRAP_144        VHCA_TRAP_CAP_MASK
#define MS              (1000 * 1000ll)

/* The SM the test plays on port 1: its SMInfo. */
typedef struct GuestSm {
    SwRig r;
    uint64_t guid;
    uint8_t priority;
    uint8_t state;
    uint64_t sm_key;
} GuestSm;

static void smi_data(uint8_t *d, const GuestSm *g, uint8_t state)
{
    memset(d, 0, VHCA_SMP_DATA_SIZE);
    stq_be_p(d + VHCA_SMI(guid), g->guid);
    stq_be_p(d + VHCA_SMI(sm_key), g->sm_key);
    stl_be_p(d + VHCA_SMI(act_count), 7);
    d[SMI_STATE] = g->priority << 4 | state;
}

/* The embedded SM's SMInfo, LID-routed to the switch: its 64 bytes. */
static void emb_sminfo(GuestSm *g, uint8_t *d)
{
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];

    sw_req(&g->r, SMINFO, 0, NULL, 0, req);
    g_assert_true(sw_send(&g->r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    memcpy(d, resp + VHCA_SMP_DATA_OFF, VHCA_SMP_DATA_SIZE);
}

static uint8_t emb_state(GuestSm *g)
{
    uint8_t d[VHCA_SMP_DATA_SIZE];

    emb_sminfo(g, d);
    return d[SMI_STATE] & 0xf;
}

/* SubnSet(SMInfo) mod to the embedded SM from an SM in sender_state. */
static uint16_t emb_set(GuestSm *g, uint32_t mod, uint8_t sender_state)
{
    uint8_t data[VHCA_SMP_DATA_SIZE], resp[VHCA_MAD_SIZE];

    smi_data(data, g, sender_state);
    return sw_set(&g->r, SMINFO, mod, NULL, 0, VHCA_WIRE_SM_LID, data, resp);
}

static void guest_post_recv(GuestSm *g)
{
    dp_post_recv(g->r.dp, &g->r.smi, 0x300, g->r.m.b,
                 VHCA_GRH_SIZE + VHCA_MAD_SIZE, g->r.m.bkey, 0, 0);
}

/* The embedded SM's next request on port 1's QP0 (a receive posted). */
static void guest_expect(GuestSm *g, uint8_t method, uint32_t mod,
                         uint8_t *req)
{
    struct vhca_cqe cqe;

    dp_expect_cqe(g->r.dp, &g->r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, VHCA_WIRE_SM_LID);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    qtest_memread(g->r.dp->v->qts, g->r.m.b + VHCA_GRH_SIZE, req,
                  VHCA_MAD_SIZE);
    g_assert_cmphex(vhca_mad_class(req), ==, VHCA_MGMT_CLASS_SUBN_LID);
    g_assert_cmphex(vhca_mad_method(req), ==, method);
    g_assert_cmphex(vhca_mad_attr(req), ==, SMINFO);
    g_assert_cmpuint(vhca_mad_attr_mod(req), ==, mod);
    g_assert_cmphex(vhca_mad_tid(req) & 0xffff000000000000ull, ==,
                    SM_TID_BASE);
}

/* Step the clock until the embedded SM's next request arrives. */
static void guest_await(GuestSm *g, uint8_t method, uint32_t mod,
                        uint8_t *req)
{
    guest_post_recv(g);
    qtest_clock_step(g->r.dp->v->qts, POLL_MS * MS + 20 * MS);
    guest_expect(g, method, mod, req);
}

/* The guest SM's GetResp to req: its SMInfo, with status. */
static void guest_answer(GuestSm *g, const uint8_t *req, uint16_t status)
{
    Dp *dp = g->r.dp;
    uint8_t resp[VHCA_MAD_SIZE];
    struct vhca_cqe cqe;

    memcpy(resp, req, VHCA_MAD_SIZE);
    resp[VHCA_SMP(method)] = VHCA_MGMT_METHOD_GET_RESP;
    stw_be_p(resp + VHCA_SMP(status), status);
    smi_data(resp + VHCA_SMP_DATA_OFF, g, g->state);
    qtest_memwrite(dp->v->qts, g->r.m.a, resp, VHCA_MAD_SIZE);
    dp_ud_send(dp, &g->r.smi, 0x400, VHCA_WIRE_SM_LID, 0, 0, false, g->r.m.a,
               VHCA_MAD_SIZE, g->r.m.akey);
    dp_expect_cqe(dp, &g->r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
}

/* Set(PortInfo) of port 2 by directed route (LID, SM LID): the status. */
static uint16_t pi_set_ca2(GuestSm *g, uint16_t lid, uint16_t sm_lid)
{
    static const uint8_t to_ca2[] = { 1, 2 };
    uint8_t data[VHCA_SMP_DATA_SIZE], resp[VHCA_MAD_SIZE];

    vhca_pi_init(data, lid, sm_lid, 0);                 /* state: no change */
    return sw_set(&g->r, VHCA_SMP_ATTR_PORT_INFO, 0, to_ca2, 2, 0, data,
                  resp);
}

/* Two ports ACTIVE under the embedded SM; port 1 plays an SM. */
static Dp *guest_start(GuestSm *g, const char *extra, uint8_t priority,
                       uint8_t state)
{
    Dp *dp = dp_start_with(extra);

    sw_start_on(&g->r, dp);
    g->guid = PORT1_GUID;
    g->priority = priority;
    g->state = state;
    g->sm_key = 1;                                      /* opensm's default */
    return dp;
}

/* The guest SM opens issm: the embedded SM asks for its SMInfo. */
static void guest_appears(GuestSm *g, uint8_t *req)
{
    guest_post_recv(g);
    g_assert_cmpuint(dp_set_port_cap(g->r.dp, 1, 0x2, 0), ==, VHCA_CMD_OK);
    qtest_clock_step(g->r.dp->v->qts, 20 * MS);
    guest_expect(g, GET, 0, req);
}

/* Count the port events of each subtype since the last look. */
static int port_events(Dp *dp, uint8_t subtype)
{
    struct vhca_eqe ev[16];
    int n = vhca_collect_port_events(dp->v, ev, 16), i, found = 0;

    for (i = 0; i < n; i++) {
        found += ev[i].subtype == subtype;
    }
    return found;
}

/* The embedded SM, alone: MASTER with its priority, GUID, ActCount. */
static void test_sminfo_get(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB ",sm-priority=5", 0, ST_STANDBY);
    uint8_t d[VHCA_SMP_DATA_SIZE], req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    const uint8_t *sd = resp + VHCA_SMP_DATA_OFF;

    emb_sminfo(&g, d);
    g_assert_cmpuint(d[SMI_STATE] & 0xf, ==, ST_MASTER);
    g_assert_cmpuint(d[SMI_STATE] >> 4, ==, 5);
    g_assert_cmpuint(ldl_be_p(d + VHCA_SMI(act_count)), >, 0);  /* swept */
    g_assert_cmphex(ldq_be_p(d + VHCA_SMI(sm_key)), ==, 1); /* opensm's */
    sw_req(&g.r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, req); /* the switch */
    g_assert_true(sw_send(&g.r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmphex(ldq_be_p(d + VHCA_SMI(guid)), ==,
                    ldq_be_p(sd + VHCA_NI(port_guid)));
    sw_req(&g.r, VHCA_SMP_ATTR_PORT_INFO, 0, NULL, 0, req); /* port 0 */
    g_assert_true(sw_send(&g.r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmphex(ldl_be_p(sd + VHCA_PI(cap_mask)) & VHCA_PORT_CAP_SM, ==,
                    VHCA_PORT_CAP_SM);
    dp_stop(dp);
}

/* IBA 14.4: a MASTER takes only HANDOVER, and from a master only. */
static void test_set_refused(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);

    g_assert_cmphex(emb_set(&g, MOD_DISABLE, ST_MASTER), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, MOD_STANDBY, ST_MASTER), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, MOD_DISCOVER, ST_MASTER), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, MOD_ACKNOWLEDGE, ST_STANDBY), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, MOD_HANDOVER, ST_STANDBY), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, 9, ST_MASTER), ==, BAD_VALUE);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    /* and the CA ports are still its own: a guest's PortInfo Set refused */
    g_assert_cmphex(pi_set_ca2(&g, dp->lid[2], dp->lid[1]), ==,
                    UNSUP_METHOD_ATTR);
    dp_stop(dp);
}

/* A lower SM (priority 2 < 5) stays STANDBY: no HANDOVER, ever. */
static void test_lower_stays_standby(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB ",sm-priority=5", 2, ST_STANDBY);
    uint8_t req[VHCA_MAD_SIZE];

    guest_appears(&g, req);
    guest_answer(&g, req, 0);
    guest_await(&g, GET, 0, req);                     /* asked again */
    guest_answer(&g, req, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    dp_stop(dp);
}

/* IBA 14.4.1: an SM with another SM_Key is another subnet's: ignored. */
static void test_other_key_ignored(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 15, ST_STANDBY);
    uint8_t req[VHCA_MAD_SIZE];

    g.sm_key = 0x77;
    guest_appears(&g, req);
    guest_answer(&g, req, 0);
    guest_await(&g, GET, 0, req);                     /* no HANDOVER */
    guest_answer(&g, req, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    dp_stop(dp);
}

/*
 * A higher SM (equal priority, lower GUID: port 1's GUID is below the
 * switch's) gets the subnet by HANDOVER; the embedded SM is STANDBY and
 * the switch and CA ports take the new master's Sets.
 */
static void hand_over(GuestSm *g)
{
    uint8_t req[VHCA_MAD_SIZE];

    guest_appears(g, req);
    /* its SMInfo */
    g_assert_cmpuint(req[VHCA_SMP_DATA_OFF + SMI_STATE] & 0xf, ==, ST_MASTER);
    guest_post_recv(g);
    guest_answer(g, req, 0);
    qtest_clock_step(g->r.dp->v->qts, 20 * MS);        /* sent from a timer */
    guest_expect(g, SET, MOD_HANDOVER, req);
    g_assert_cmpuint(req[VHCA_SMP_DATA_OFF + SMI_STATE] & 0xf, ==, ST_MASTER);
    g->state = ST_MASTER;
    guest_answer(g, req, 0);
    g_assert_cmpuint(emb_state(g), ==, ST_STANDBY);
}

static void test_handover_to_higher(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    struct vhca_port_attr attr;

    hand_over(&g);
    /* the new master configures port 2: its SMA takes the Set now */
    g_assert_cmphex(pi_set_ca2(&g, dp->lid[2], dp->lid[1]), ==, 0);
    g_assert_cmpuint(port_events(dp, VHCA_PORT_EV_SM_CHANGE), ==, 1);
    g_assert_cmpuint(vhca_query_port(dp->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, dp->lid[1]);
    dp_stop(dp);
}

/*
 * STANDBY polls the master every sm-poll-ms; answered, nothing happens;
 * more than sm-poll-retries unanswered (or answered 0x000c, as the kernel
 * does for a QP0 nobody listens on): it takes over, and a sweep sets
 * every port again with CLIENT_REREGISTER and SM LID 1.
 */
static void master_dies(GuestSm *g)
{
    uint8_t req[VHCA_MAD_SIZE];
    int i;

    guest_await(g, GET, 0, req);                     /* a poll */
    guest_answer(g, req, 0);
    for (i = 0; i < 4; i++) {
        guest_await(g, GET, 0, req);
        guest_answer(g, req, 0);                       /* alive */
    }
    g_assert_cmpuint(emb_state(g), ==, ST_STANDBY);
    for (i = 0; i <= POLL_RETRIES; i++) {
        guest_await(g, GET, 0, req);                 /* the SM died */
        guest_answer(g, req, UNSUP_METHOD_ATTR);
    }
    g_assert_cmpuint(emb_state(g), ==, ST_STANDBY);
    qtest_clock_step(g->r.dp->v->qts, POLL_MS * MS + 20 * MS);
    g_assert_cmpuint(emb_state(g), ==, ST_MASTER);
}

static void test_poll_timeout_takeover(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    struct vhca_port_attr attr;

    hand_over(&g);
    master_dies(&g);
    g_assert_cmpuint(port_events(dp, VHCA_PORT_EV_CLIENT_REREGISTER), ==, 2);
    g_assert_cmpuint(vhca_query_port(dp->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, dp->lid[2]);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, VHCA_WIRE_SM_LID);
    dp_stop(dp);
}

/*
 * After the takeover IPoIB, told CLIENT_REREGISTER, joins its broadcast
 * group again and asks its paths again, with the record the old master's
 * SA returned: opensm's has NumbPath 0 (only Reversible).  The embedded
 * SA answers both at once, the path with status 0 (a SubnAdmGet asks one
 * path whatever NumbPath says, IBA 1.2 erratum, as opensm), not
 * ERR_NO_RECORDS that left IPoIB without unicast until an ARP probe
 * (Documentation/fabric.md "The master dies").
 */
static void test_takeover_sa_answers(void)
{
    static const uint8_t bcast[16] = {
        0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
        0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff
    };
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    uint8_t rec[VHCA_SA_REC_SIZE(vhca_sa_path_record)] = { 0 };
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *p = resp + VHCA_SA_HDR_SIZE;
    SaRig sa;

    hand_over(&g);
    master_dies(&g);
    g_assert_cmpuint(port_events(dp, VHCA_PORT_EV_CLIENT_REREGISTER), ==, 2);
    sa_start_on(&sa, dp);
    memcpy(rec + VHCA_MCR(mgid), bcast, 16);    /* as IPoIB joins it */
    sa_port_gid(&sa, 1, rec + VHCA_MCR(port_gid));
    stw_be_p(rec + VHCA_MCR(pkey), VHCA_DEFAULT_PKEY);
    rec[VHCA_MCR(scope_join_state)] = VHCA_MCR_JOIN_FULL;
    g_assert_cmphex(sa_query(&sa, VHCA_SA_METHOD_SET,
                             VHCA_SA_ATTR_MCMEMBER_RECORD,
                             VHCA_MCR_COMP_MGID | VHCA_MCR_COMP_PORT_GID |
                             VHCA_MCR_COMP_PKEY | VHCA_MCR_COMP_JOIN, rec,
                             VHCA_SA_MCMEMBER_SIZE, resp), ==, 0);
    g_assert_cmphex(ldl_be_p(p + VHCA_MCR(qkey)), ==, VHCA_SA_IPOIB_QKEY);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID);

    memset(rec, 0, sizeof(rec));                /* opensm's path record */
    sa_port_gid(&sa, 2, rec + VHCA_PATH(dgid));
    sa_port_gid(&sa, 1, rec + VHCA_PATH(sgid));
    /* Reversible, NumbPath 0 */
    rec[VHCA_PATH(reversible_numb_path)] = VHCA_PATH_REVERSIBLE;
    stw_be_p(rec + VHCA_PATH(pkey), VHCA_DEFAULT_PKEY);
    g_assert_cmphex(sa_query(&sa, VHCA_SA_METHOD_GET, VHCA_SA_ATTR_PATH_RECORD,
                             VHCA_PATH_COMP_DGID | VHCA_PATH_COMP_SGID |
                             VHCA_PATH_COMP_TCLASS |
                             VHCA_PATH_COMP_NUMB_PATH | VHCA_PATH_COMP_PKEY,
                             rec, sizeof(rec), resp), ==, 0);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(dlid)), ==, dp->lid[2]);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(slid)), ==, dp->lid[1]);
    dp_stop(dp);
}

/* DISABLE: NOT-ACTIVE, no polls; STANDBY: polls again; DISCOVER too. */
static void test_disable_standby_discover(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    uint8_t req[VHCA_MAD_SIZE];

    hand_over(&g);
    g_assert_cmphex(emb_set(&g, MOD_DISABLE, ST_MASTER), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_NOT_ACTIVE);
    guest_post_recv(&g);
    qtest_clock_step(dp->v->qts, 10 * POLL_MS * MS);   /* no polls, no */
    dp_expect_no_cqe(dp, &g.r.cq);                      /* takeover */
    g_assert_cmpuint(emb_state(&g), ==, ST_NOT_ACTIVE);
    g_assert_cmphex(emb_set(&g, MOD_HANDOVER, ST_MASTER), ==, BAD_VALUE);
    g_assert_cmphex(emb_set(&g, MOD_STANDBY, ST_MASTER), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_STANDBY);
    qtest_clock_step(dp->v->qts, POLL_MS * MS + 20 * MS);
    guest_expect(&g, GET, 0, req);                     /* polls again */
    guest_answer(&g, req, 0);
    g_assert_cmphex(emb_set(&g, MOD_DISCOVER, ST_MASTER), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_DISCOVERING);
    guest_await(&g, GET, 0, req);
    guest_answer(&g, req, 0);                           /* a master */
    g_assert_cmpuint(emb_state(&g), ==, ST_STANDBY);
    g_assert_cmphex(emb_set(&g, MOD_ACKNOWLEDGE, ST_STANDBY), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_STANDBY);
    dp_stop(dp);
}

/* The master hands the subnet back: MASTER at once, ports reregister. */
static void test_handover_back(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    struct vhca_port_attr attr;

    hand_over(&g);
    g_assert_cmphex(emb_set(&g, MOD_HANDOVER, ST_MASTER), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    qtest_clock_step(dp->v->qts, 20 * MS);
    g_assert_cmpuint(port_events(dp, VHCA_PORT_EV_CLIENT_REREGISTER), ==, 2);
    g_assert_cmpuint(vhca_query_port(dp->v, 1, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, VHCA_WIRE_SM_LID);
    dp_stop(dp);
}

/* resp is the master SM's TrapRepress of trap req (IBA 13.4.9). */
static void assert_repress(const uint8_t *req, const uint8_t *resp, bool dr)
{
    g_assert_cmphex(vhca_mad_class(resp), ==, vhca_mad_class(req));
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_TRAP_REPRESS);
    g_assert_cmphex(vhca_mad_status(resp), ==, dr ? VHCA_SMP_DIRECTION : 0);
    g_assert_cmphex(vhca_mad_tid(resp), ==, vhca_mad_tid(req));
    g_assert_cmphex(vhca_mad_attr(resp), ==, VHCA_SMP_ATTR_NOTICE);
    g_assert_cmpmem(resp + VHCA_SMP_DATA_OFF, VHCA_SMP_DATA_SIZE,
                    req + VHCA_SMP_DATA_OFF, VHCA_SMP_DATA_SIZE);
}

/*
 * IBA 13.4.9: the master SM answers every Trap with TrapRepress of its
 * TID, or the sender repeats it: opensm's Trap 144 to the master it found
 * (its own TIDs) timed out against the embedded SM (issue 24: ERR 5410,
 * ERR 3113 in opensm's log), which dropped it.  From either port, any
 * trap number, a repeat, by directed route too.
 */
static void test_trap_repressed(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    SwRig port2;

    g_assert_true(sw_trap(&g.r, TRAP_144, 0x0000000100001245ull, VHCA_WIRE_SM_LID, false,
                          1, req, resp));
    assert_repress(req, resp, false);
    g_assert_true(sw_trap(&g.r, TRAP_144, 0x0000000100001245ull, VHCA_WIRE_SM_LID, false,
                          1, req, resp));               /* its repeat */
    assert_repress(req, resp, false);
    g_assert_true(sw_trap(&g.r, TRAP_144, 0x0000000100001246ull, 0, true, 1,
                          req, resp));                  /* directed */
    assert_repress(req, resp, true);
    sw_start_port(&port2, dp, 2);
    g_assert_true(sw_trap(&port2, TRAP_128, 0x5443000000000007ull, VHCA_WIRE_SM_LID,
                          false, 2, req, resp));
    assert_repress(req, resp, false);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    dp_stop(dp);
}

/*
 * Traps are the master's (sent to PortInfo:MasterSMLID): a STANDBY
 * embedded SM drops them unanswered, as opensm does when not MASTER;
 * given the subnet back it represses them again.
 */
static void test_trap_standby_silent(void)
{
    GuestSm g;
    Dp *dp = guest_start(&g, ARB, 0, ST_STANDBY);
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];

    hand_over(&g);
    g_assert_false(sw_trap(&g.r, TRAP_144, 0x0000000100001250ull, VHCA_WIRE_SM_LID, false,
                           1, req, resp));
    g_assert_cmphex(emb_set(&g, MOD_HANDOVER, ST_MASTER), ==, 0);
    g_assert_cmpuint(emb_state(&g), ==, ST_MASTER);
    g_assert_true(sw_trap(&g.r, TRAP_144, 0x0000000100001251ull, VHCA_WIRE_SM_LID, false,
                          1, req, resp));
    assert_repress(req, resp, false);
    dp_stop(dp);
}

/* Every device on a fabric has the same SM properties: else it fails. */
static void test_must_agree(void)
{
    QTestState *qts = qtest_init("-machine q35 -nodefaults "
                                 "-device vhca,id=a,fabric=f1,"
                                 "sm-priority=3 "
                                 "-device pcie-root-port,id=rp1,chassis=1 "
                                 "-device pcie-root-port,id=rp2,chassis=2");

    g_assert_true(vhca_device_add_refused(qts, NODE_GUID + 0x700, "f1", "rp1",
                                          true, 0));
    g_assert_true(vhca_device_add_refused(qts, NODE_GUID + 0x800, "f1", "rp1",
                                          true, 16));
    g_assert_false(vhca_device_add_refused(qts, NODE_GUID + 0x900, "f1",
                                           "rp2", true, 3));
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sm-arb/sminfo-get", test_sminfo_get);
    qtest_add_func("/vhca/sm-arb/set-refused", test_set_refused);
    qtest_add_func("/vhca/sm-arb/lower-stays-standby",
                   test_lower_stays_standby);
    qtest_add_func("/vhca/sm-arb/other-key-ignored", test_other_key_ignored);
    qtest_add_func("/vhca/sm-arb/handover-to-higher",
                   test_handover_to_higher);
    qtest_add_func("/vhca/sm-arb/poll-timeout-takeover",
                   test_poll_timeout_takeover);
    qtest_add_func("/vhca/sm-arb/takeover-sa-answers",
                   test_takeover_sa_answers);
    qtest_add_func("/vhca/sm-arb/disable-standby-discover",
                   test_disable_standby_discover);
    qtest_add_func("/vhca/sm-arb/handover-back", test_handover_back);
    qtest_add_func("/vhca/sm-arb/trap-repressed", test_trap_repressed);
    qtest_add_func("/vhca/sm-arb/trap-standby-silent",
                   test_trap_standby_silent);
    qtest_add_func("/vhca/sm-arb/must-agree", test_must_agree);
    return g_test_run();
}
