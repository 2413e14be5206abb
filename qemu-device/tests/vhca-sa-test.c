/*
 * QTest testcase for vhca: Subnet Administration of the fabric's SM.
 *
 * SubnAdm MADs sent on a GSI QP to SM LID 1, QPN 1 come back as receive
 * completions on the same QP, from SLID 1 and source QPN 1; GetTable
 * answers come in RMPP segments paced by the requester's ACKs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define GET             VHCA_SA_METHOD_GET
#define SET             VHCA_SA_METHOD_SET
#define GET_TABLE       VHCA_SA_METHOD_GET_TABLE
#define DELETE          VHCA_SA_METHOD_DELETE
#define PATH            VHCA_SA_ATTR_PATH_RECORD
#define MCR             VHCA_SA_ATTR_MCMEMBER_RECORD
#define SA_OFF(field)   VHCA_MAD_OFF(vhca_sa_mad, field)
#define SA_DATA         VHCA_SA_HDR_SIZE        /* the records */
#define PATH_SIZE       VHCA_SA_REC_SIZE(vhca_sa_path_record)
#define MCR_SIZE        VHCA_SA_MCMEMBER_SIZE
/* As IPoIB asks for a path: DGID, SGID, TClass, NumbPath, P_Key. */
#define PATH_IPOIB_MASK (VHCA_PATH_COMP_DGID | VHCA_PATH_COMP_SGID | \
                         VHCA_PATH_COMP_TCLASS | VHCA_PATH_COMP_NUMB_PATH | \
                         VHCA_PATH_COMP_PKEY)

static void test_sa_class_port_info(void)
{
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + SA_DATA;
    SaRig r;

    sa_start(&r);
    g_assert_cmphex(sa_query(&r, GET, VHCA_SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0,
                             resp), ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_SA_METHOD_GET_RESP);
    g_assert_cmpuint(d[VHCA_CPI(base_version)], ==, 1);
    g_assert_cmpuint(d[VHCA_CPI(class_version)], ==, VHCA_SA_CLASS_VERSION);
    g_assert_cmphex(lduw_be_p(d + VHCA_CPI(cap_mask)), ==,
                    0x0200);                            /* UD multicast */
    dp_stop(r.dp);
}

static void test_sa_path_record(void)
{
    uint8_t rec[PATH_SIZE] = { 0 }, resp[VHCA_MAD_SIZE], sgid[16], dgid[16];
    const uint8_t *p = resp + SA_DATA;
    SaRig r;

    sa_start(&r);
    sa_port_gid(&r, 1, sgid);
    sa_port_gid(&r, 2, dgid);
    /* As IPoIB asks: DGID, SGID, NumbPath 1, TClass 0, P_Key. */
    memcpy(rec + VHCA_PATH(dgid), dgid, 16);
    memcpy(rec + VHCA_PATH(sgid), sgid, 16);
    rec[VHCA_PATH(reversible_numb_path)] = 1;
    stw_be_p(rec + VHCA_PATH(pkey), VHCA_DEFAULT_PKEY);
    g_assert_cmphex(sa_query(&r, GET, PATH, PATH_IPOIB_MASK, rec, sizeof(rec),
                             resp), ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_SA_METHOD_GET_RESP);
    g_assert_cmpuint(lduw_be_p(resp + SA_OFF(attr_offset)), ==,
                     PATH_SIZE / 8);
    g_assert_cmpmem(p + VHCA_PATH(dgid), 16, dgid, 16);
    g_assert_cmpmem(p + VHCA_PATH(sgid), 16, sgid, 16);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(dlid)), ==, r.dp->lid[2]);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(slid)), ==, r.dp->lid[1]);
    g_assert_cmphex(p[VHCA_PATH(reversible_numb_path)] & VHCA_PATH_REVERSIBLE,
                    ==, VHCA_PATH_REVERSIBLE);
    g_assert_cmphex(lduw_be_p(p + VHCA_PATH(pkey)), ==, VHCA_DEFAULT_PKEY);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(qos_sl)) & 0xf, ==, 0); /* SL */
    g_assert_cmphex(p[VHCA_PATH(mtu)], ==,
                    VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, VHCA_MTU_4096));
    g_assert_cmphex(p[VHCA_PATH(rate)], ==,
                    VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, VHCA_SA_RATE_40G));

    /*
     * After an SM change IPoIB asks again with the record the old SA
     * returned; opensm's carries NumbPath 0 (only Reversible).  A Get
     * asks one path whatever NumbPath says (IBA 1.2 erratum, as opensm):
     * the path, not ERR_NO_RECORDS (fabric.md "The master dies").
     */
    memcpy(rec, p, sizeof(rec));
    rec[VHCA_PATH(reversible_numb_path)] = VHCA_PATH_REVERSIBLE;
    g_assert_cmphex(sa_query(&r, GET, PATH, PATH_IPOIB_MASK, rec, sizeof(rec),
                             resp), ==, 0);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(dlid)), ==, r.dp->lid[2]);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(slid)), ==, r.dp->lid[1]);
    memset(rec, 0, sizeof(rec));
    memcpy(rec + VHCA_PATH(dgid), dgid, 16);
    memcpy(rec + VHCA_PATH(sgid), sgid, 16);

    /* MTU greater than 4096: no such path. */
    rec[VHCA_PATH(mtu)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_GREATER, VHCA_MTU_4096);
    g_assert_cmphex(sa_query(&r, GET, PATH, VHCA_PATH_COMP_DGID |
                             VHCA_PATH_COMP_SGID | VHCA_PATH_COMP_MTU_SEL |
                             VHCA_PATH_COMP_MTU, rec, sizeof(rec), resp), ==,
                    VHCA_SA_ERR_NO_RECORDS);
    /* An unknown DGID: no records. */
    rec[VHCA_PATH(dgid) + 15] ^= 0xff;
    g_assert_cmphex(sa_query(&r, GET, PATH, VHCA_PATH_COMP_DGID |
                             VHCA_PATH_COMP_SGID, rec, sizeof(rec), resp), ==,
                    VHCA_SA_ERR_NO_RECORDS);
    /* Only the SGID: two paths match, too many for a Get. */
    g_assert_cmphex(sa_query(&r, GET, PATH, VHCA_PATH_COMP_SGID, rec,
                             sizeof(rec), resp), ==,
                    VHCA_SA_ERR_TOO_MANY_RECORDS);
    dp_stop(r.dp);
}

/*
 * ib_srp logs in with pkey=7fff (blktests): the limited member P_Key of
 * the default partition.  Every port is a full member, so the path exists
 * and its record carries the P_Key asked for; another partition has none.
 */
static void test_sa_path_record_limited_pkey(void)
{
    uint8_t rec[PATH_SIZE] = { 0 }, resp[VHCA_MAD_SIZE], sgid[16], dgid[16];
    const uint8_t *p = resp + SA_DATA;
    uint64_t mask = VHCA_PATH_COMP_DGID | VHCA_PATH_COMP_SGID |
                    VHCA_PATH_COMP_NUMB_PATH | VHCA_PATH_COMP_PKEY;
    SaRig r;

    sa_start(&r);
    sa_port_gid(&r, 1, sgid);
    sa_port_gid(&r, 2, dgid);
    memcpy(rec + VHCA_PATH(dgid), dgid, 16);
    memcpy(rec + VHCA_PATH(sgid), sgid, 16);
    rec[VHCA_PATH(reversible_numb_path)] = 1;
    stw_be_p(rec + VHCA_PATH(pkey), 0x7fff);
    g_assert_cmphex(sa_query(&r, GET, PATH, mask, rec, sizeof(rec), resp),
                    ==, 0);
    g_assert_cmphex(lduw_be_p(p + VHCA_PATH(pkey)), ==, 0x7fff);
    g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(dlid)), ==, r.dp->lid[2]);
    stw_be_p(rec + VHCA_PATH(pkey), 0x8001);
    g_assert_cmphex(sa_query(&r, GET, PATH, mask, rec, sizeof(rec), resp),
                    ==, VHCA_SA_ERR_NO_RECORDS);
    dp_stop(r.dp);
}

static uint8_t sa_set_port_cap(SaRig *r, uint8_t port, uint32_t set,
                               uint32_t clear)
{
    struct vhca_cmd cmd;

    cmd_init(r->dp->v, &cmd, VHCA_CMD_SET_PORT_CAP);
    cmd.in.port_cap.port = port;
    cmd.in.port_cap.set = cpu_to_le32(set);
    cmd.in.port_cap.clear = cpu_to_le32(clear);
    return dp_exec(r->dp, &cmd, NULL);
}

/* The CapabilityMask of port's PortInfoRecord (srp_daemon's question). */
static uint32_t sa_port_cap(SaRig *r, uint8_t port)
{
    uint8_t rec[VHCA_SA_REC_SIZE(vhca_sa_port_info_record)] = { 0 };
    uint8_t resp[VHCA_MAD_SIZE];

    stw_be_p(rec + VHCA_PIR(lid), r->dp->lid[port]);
    g_assert_cmphex(sa_query(r, GET, VHCA_SA_ATTR_PORT_INFO_RECORD,
                             VHCA_PIR_COMP_LID, rec, sizeof(rec), resp), ==, 0);
    return ldl_be_p(resp + SA_DATA + VHCA_PIR(port_info) + VHCA_PI(cap_mask));
}

/*
 * ib_modify_port (SET_PORT_CAP): ib_srpt announces its Device Management
 * agent; the port's QUERY_PORT, its SMA and the SA's PortInfoRecord all
 * report it (IBA 14.2.5.6); bits that are the device's are refused.
 */
static void test_sa_port_cap(void)
{
    struct vhca_port_attr pa;
    SaRig r;

    sa_start(&r);
    g_assert_cmphex(sa_port_cap(&r, 2) & VHCA_PORT_CAP_DEVICE_MGMT, ==, 0);
    g_assert_cmphex(sa_set_port_cap(&r, 2, VHCA_PORT_CAP_DEVICE_MGMT, 0), ==,
                    VHCA_CMD_OK);
    g_assert_cmphex(sa_port_cap(&r, 2), ==,
                    VHCA_PORT_CAP_DEVICE_MGMT | VHCA_PORT_CAP_CM | 1u << 11 |
                    1u << 6 | VHCA_PORT_CAP_CLIENT_REREG);
    g_assert_cmphex(sa_port_cap(&r, 1) & VHCA_PORT_CAP_DEVICE_MGMT, ==, 0);
    g_assert_cmpuint(vhca_query_port(r.dp->v, 2, &pa), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(pa.port_cap_flags), ==,
                    VHCA_PORT_CAP_DEVICE_MGMT | VHCA_PORT_CAP_CM | 1u << 11 |
                    1u << 6 | VHCA_PORT_CAP_CLIENT_REREG);
    /* SystemImageGUID (bit 11) and IsSLMappingSupported (bit 6) are the
     * device's; port 3 does not exist. */
    g_assert_cmphex(sa_set_port_cap(&r, 2, 1u << 11, 0), ==,
                    VHCA_CMD_BAD_PARAM);
    /* IsSM (bit 1): an SM on the port (opensm opening issmN) says so. */
    g_assert_cmphex(sa_set_port_cap(&r, 2, VHCA_PORT_CAP_SM, 0), ==,
                    VHCA_CMD_OK);
    g_assert_cmphex(sa_port_cap(&r, 2) & VHCA_PORT_CAP_SM, ==,
                    VHCA_PORT_CAP_SM);
    g_assert_cmphex(sa_set_port_cap(&r, 2, 0, VHCA_PORT_CAP_SM), ==,
                    VHCA_CMD_OK);
    g_assert_cmphex(sa_set_port_cap(&r, 3, VHCA_PORT_CAP_CM, 0), ==,
                    VHCA_CMD_BAD_PARAM);
    g_assert_cmphex(sa_set_port_cap(&r, 2, 0, VHCA_PORT_CAP_DEVICE_MGMT |
                                    VHCA_PORT_CAP_CM), ==, VHCA_CMD_OK);
    g_assert_cmphex(sa_port_cap(&r, 2), ==,
                    1u << 11 | 1u << 6 | VHCA_PORT_CAP_CLIENT_REREG);
    dp_stop(r.dp);
}

/* An RMPP ACK of segment seg with window newwin, for the last request. */
static void sa_ack(SaRig *r, int port, uint32_t seg, uint32_t newwin)
{
    uint8_t mad[VHCA_MAD_SIZE];
    uint64_t tid = r->tid;                      /* the request's */

    sa_mad(r, GET_TABLE, PATH, 0, NULL, 0, mad);
    r->tid = tid;
    stq_be_p(mad + SA_OFF(mad.tid), tid);
    mad[SA_OFF(rmpp.rmpp_version)] = 1;
    mad[SA_OFF(rmpp.rmpp_type)] = VHCA_RMPP_TYPE_ACK;
    /* no time value, Active */
    mad[SA_OFF(rmpp.rtime_flags)] = 0x1f << 3 | VHCA_RMPP_F_ACTIVE;
    stl_be_p(mad + SA_OFF(rmpp.data1), seg);
    stl_be_p(mad + SA_OFF(rmpp.data2), newwin);
    sa_send(r, port, mad, VHCA_MAD_SIZE);
}

/* An MCMemberRecord for port's GID and mgid, join state js. */
static void sa_mcr(SaRig *r, int port, const uint8_t *mgid, uint8_t js,
                   uint8_t *rec)
{
    memset(rec, 0, MCR_SIZE);
    memcpy(rec + VHCA_MCR(mgid), mgid, 16);
    sa_port_gid(r, port, rec + VHCA_MCR(port_gid));
    stl_be_p(rec + VHCA_MCR(qkey), VHCA_SA_IPOIB_QKEY);
    stw_be_p(rec + VHCA_MCR(pkey), VHCA_DEFAULT_PKEY);
    rec[VHCA_MCR(mtu)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, VHCA_MTU_2048);
    rec[VHCA_MCR(rate)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY,
                                           VHCA_SA_RATE_40G);
    rec[VHCA_MCR(scope_join_state)] = 2 << 4 | js;      /* link-local */
}

#define MCR_JOIN_MASK       (VHCA_MCR_COMP_MGID | VHCA_MCR_COMP_PORT_GID | \
                             VHCA_MCR_COMP_JOIN)
#define MCR_CREATE_MASK     (MCR_JOIN_MASK | VHCA_MCR_COMP_QKEY | \
                             VHCA_MCR_COMP_MTU_SEL | VHCA_MCR_COMP_MTU | \
                             VHCA_MCR_COMP_TCLASS | VHCA_MCR_COMP_PKEY | \
                             VHCA_MCR_COMP_SL | VHCA_MCR_COMP_FLOW)

static void test_sa_mcmember_join_create_leave(void)
{
    static const uint8_t bcast[16] = {
        0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
        0xff, 0xff, 0xff, 0xff };
    static const uint8_t group[16] = {
        0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    uint8_t rec[MCR_SIZE], resp[VHCA_MAD_SIZE];
    const uint8_t *p = resp + SA_DATA;
    SaRig r;

    sa_start(&r);
    /* The IPoIB broadcast group exists: a join needs no creation fields. */
    sa_mcr(&r, 1, bcast, 1, rec);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_JOIN_MASK | VHCA_MCR_COMP_PKEY,
                             rec, MCR_SIZE, resp), ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_SA_METHOD_GET_RESP);
    g_assert_cmpmem(p + VHCA_MCR(mgid), 16, bcast, 16);
    g_assert_cmpmem(p + VHCA_MCR(port_gid), 16, rec + VHCA_MCR(port_gid), 16);
    g_assert_cmphex(ldl_be_p(p + VHCA_MCR(qkey)), ==, VHCA_SA_IPOIB_QKEY);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID);
    g_assert_cmphex(p[VHCA_MCR(mtu)] & 0x3f, ==, VHCA_MTU_2048);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(pkey)), ==, VHCA_DEFAULT_PKEY);
    g_assert_cmphex(p[VHCA_MCR(scope_join_state)], ==,
                    2 << 4 | VHCA_MCR_JOIN_FULL);       /* link-local, full */
    /* A Q_Key other than the group's: refused. */
    stl_be_p(rec + VHCA_MCR(qkey), 0x1234);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_JOIN_MASK | VHCA_MCR_COMP_QKEY,
                             rec, MCR_SIZE, resp), ==, VHCA_SA_ERR_REQ_INVALID);

    /* A new group: not without the creation components. */
    sa_mcr(&r, 1, group, 1, rec);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==,
                    VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_CREATE_MASK, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmpmem(p + VHCA_MCR(mgid), 16, group, 16);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID + 1);
    /* Port 2 joins it too; GetTable by MGID lists both members. */
    sa_mcr(&r, 2, group, 1, rec);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID + 1);
    g_assert_cmphex(sa_query(&r, GET_TABLE, MCR, VHCA_MCR_COMP_MGID, rec,
                             MCR_SIZE, resp), ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_SA_METHOD_GET_TABLE_RESP);
    g_assert_cmphex(resp[SA_OFF(rmpp.rtime_flags)] & 7, ==,
                    VHCA_RMPP_F_ACTIVE | VHCA_RMPP_F_FIRST |
                    VHCA_RMPP_F_LAST);                  /* one segment */
    /* PayloadLength: the SA header's 20 bytes after RMPP's, the records */
    g_assert_cmpuint(ldl_be_p(resp + SA_OFF(rmpp.data2)), ==,
                     SA_DATA - SA_OFF(sm_key) + 2 * MCR_SIZE);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID + 1);
    g_assert_cmphex(lduw_be_p(p + MCR_SIZE + VHCA_MCR(mlid)), ==,
                    VHCA_MIN_MLID + 1);
    sa_ack(&r, 1, 1, 1);                                /* the final ACK */
    dp_expect_no_cqe(r.dp, &r.cq);

    /* Both leave: the group is gone, its MLID free again. */
    g_assert_cmphex(sa_query(&r, DELETE, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_SA_METHOD_DELETE_RESP);
    g_assert_cmphex(sa_query(&r, DELETE, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==,
                    VHCA_SA_ERR_REQ_INVALID);           /* not a member */
    sa_mcr(&r, 1, group, 1, rec);
    g_assert_cmphex(sa_query(&r, DELETE, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmphex(sa_query(&r, GET, MCR, VHCA_MCR_COMP_MGID, rec, MCR_SIZE,
                             resp), ==, VHCA_SA_ERR_NO_RECORDS);
    /* The broadcast group stays without members. */
    sa_mcr(&r, 1, bcast, 1, rec);
    g_assert_cmphex(sa_query(&r, DELETE, MCR, MCR_JOIN_MASK, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmphex(sa_query(&r, GET, MCR, VHCA_MCR_COMP_MGID, rec, MCR_SIZE,
                             resp), ==, 0);
    g_assert_cmphex(lduw_be_p(p + VHCA_MCR(mlid)), ==, VHCA_MIN_MLID);
    dp_stop(r.dp);
}

static void test_sa_get_table_rmpp(void)
{
    uint8_t mad[VHCA_MAD_SIZE], seg1[VHCA_MAD_SIZE], seg2[VHCA_MAD_SIZE];
    uint8_t again[VHCA_MAD_SIZE], all[2 * VHCA_SA_DATA_SIZE];
    /* A segment's PayloadLength counts its SA header's 20 bytes too. */
    const uint32_t hdr = SA_DATA - SA_OFF(sm_key);
    const uint32_t paths = 4 * PATH_SIZE;
    SaRig r;
    int i;

    sa_start(&r);
    /* Every path of the two ports: 4 x 64 bytes, two segments. */
    sa_mad(&r, GET_TABLE, PATH, 0, NULL, 0, mad);
    sa_post_recvs(&r, 1, 3);
    sa_send(&r, 1, mad, VHCA_MAD_SIZE);
    sa_answer(&r, 1, 0, seg1);
    dp_expect_no_cqe(r.dp, &r.cq);          /* window 1: wait for the ACK */
    g_assert_cmphex(vhca_mad_method(seg1), ==, VHCA_SA_METHOD_GET_TABLE_RESP);
    g_assert_cmphex(vhca_mad_status(seg1), ==, 0);
    g_assert_cmpuint(seg1[SA_OFF(rmpp.rmpp_version)], ==, 1);
    g_assert_cmpuint(seg1[SA_OFF(rmpp.rmpp_type)], ==, VHCA_RMPP_TYPE_DATA);
    g_assert_cmphex(seg1[SA_OFF(rmpp.rtime_flags)] & 7, ==,
                    VHCA_RMPP_F_ACTIVE | VHCA_RMPP_F_FIRST);
    g_assert_cmpuint(ldl_be_p(seg1 + SA_OFF(rmpp.data1)), ==, 1);
    /* The first segment's PayloadLength is the whole transfer's. */
    g_assert_cmpuint(ldl_be_p(seg1 + SA_OFF(rmpp.data2)), ==,
                     2 * hdr + paths);
    g_assert_cmpuint(lduw_be_p(seg1 + SA_OFF(attr_offset)), ==,
                     PATH_SIZE / 8);

    /* ACK of segment 1 opening the window to 65: segment 2, the last. */
    sa_ack(&r, 1, 1, 65);
    sa_answer(&r, 1, 1, seg2);
    dp_expect_no_cqe(r.dp, &r.cq);
    g_assert_cmphex(seg2[SA_OFF(rmpp.rtime_flags)] & 7, ==,
                    VHCA_RMPP_F_ACTIVE | VHCA_RMPP_F_LAST);
    g_assert_cmpuint(ldl_be_p(seg2 + SA_OFF(rmpp.data1)), ==, 2);
    g_assert_cmpuint(ldl_be_p(seg2 + SA_OFF(rmpp.data2)), ==,
                     hdr + paths - VHCA_SA_DATA_SIZE);
    memcpy(all, seg1 + SA_DATA, VHCA_SA_DATA_SIZE);
    memcpy(all + VHCA_SA_DATA_SIZE, seg2 + SA_DATA, VHCA_SA_DATA_SIZE);
    for (i = 0; i < 4; i++) {
        const uint8_t *p = all + i * PATH_SIZE;

        g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(slid)), ==,
                         r.dp->lid[1 + i / 2]);
        g_assert_cmpuint(lduw_be_p(p + VHCA_PATH(dlid)), ==,
                         r.dp->lid[1 + i % 2]);
    }
    /* Going back: an ACK of segment 1 again resends segment 2. */
    sa_ack(&r, 1, 1, 2);
    sa_answer(&r, 1, 2, again);
    g_assert_cmpmem(again, VHCA_MAD_SIZE, seg2, VHCA_MAD_SIZE);
    /* The final ACK ends the transfer: no answer, and later ACKs are
     * ignored. */
    sa_ack(&r, 1, 2, 2);
    sa_ack(&r, 1, 1, 2);
    dp_expect_no_cqe(r.dp, &r.cq);
    dp_stop(r.dp);
}

static void test_sa_malformed(void)
{
    uint8_t mad[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    SaRig r;

    sa_start(&r);
    /* Class version 1, unknown method, unknown attribute, Set PathRecord. */
    sa_mad(&r, GET, PATH, 0, NULL, 0, mad);
    mad[VHCA_MAD(class_version)] = 1;
    sa_post_recvs(&r, 1, 1);
    sa_send(&r, 1, mad, VHCA_MAD_SIZE);
    sa_answer(&r, 1, 0, resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, VHCA_MAD_STATUS_BAD_VERSION);
    g_assert_cmphex(sa_query(&r, 0x07, PATH, 0, NULL, 0, resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD);
    g_assert_cmphex(sa_query(&r, GET, 0x00ff, 0, NULL, 0, resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD_ATTR);
    g_assert_cmphex(sa_query(&r, SET, PATH, 0, NULL, 0, resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD_ATTR);
    g_assert_cmphex(sa_query(&r, GET_TABLE, VHCA_SA_ATTR_CLASS_PORT_INFO, 0,
                             NULL, 0, resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD_ATTR);
    /* A join without a PortGID; a join of a GID that is no port. */
    g_assert_cmphex(sa_query(&r, SET, MCR, VHCA_MCR_COMP_JOIN, NULL, 0, resp),
                    ==, VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
    memset(mad, 0xab, MCR_SIZE);
    g_assert_cmphex(sa_query(&r, SET, MCR, MCR_JOIN_MASK, mad, MCR_SIZE,
                             resp), ==, VHCA_SA_ERR_REQ_INVALID_GID);

    /* Dropped, the send still completes: short, a response, another class. */
    sa_post_recvs(&r, 1, 1);
    sa_mad(&r, GET, VHCA_SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, mad);
    sa_send(&r, 1, mad, 100);
    mad[VHCA_MAD(method)] = VHCA_SA_METHOD_GET_RESP;
    sa_send(&r, 1, mad, VHCA_MAD_SIZE);
    mad[VHCA_MAD(method)] = GET;
    mad[VHCA_MAD(mgmt_class)] = 0x06;   /* DevMgt: neither the SA's nor the
                                         * switch's */
    sa_send(&r, 1, mad, VHCA_MAD_SIZE);
    /* An ACK for no transfer: taken without an answer. */
    sa_ack(&r, 1, 1, 65);
    dp_expect_no_cqe(r.dp, &r.cq);
    /* The SA still answers. */
    mad[VHCA_MAD(mgmt_class)] = VHCA_MGMT_CLASS_SUBN_ADM;
    sa_send(&r, 1, mad, VHCA_MAD_SIZE);
    sa_answer(&r, 1, 0, resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    dp_stop(r.dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sa/class-port-info", test_sa_class_port_info);
    qtest_add_func("/vhca/sa/path-record", test_sa_path_record);
    qtest_add_func("/vhca/sa/path-record-limited-pkey",
                   test_sa_path_record_limited_pkey);
    qtest_add_func("/vhca/sa/port-cap", test_sa_port_cap);
    qtest_add_func("/vhca/sa/mcmember-join-create-leave",
                   test_sa_mcmember_join_create_leave);
    qtest_add_func("/vhca/sa/get-table-rmpp", test_sa_get_table_rmpp);
    qtest_add_func("/vhca/sa/malformed", test_sa_malformed);
    return g_test_run();
}
