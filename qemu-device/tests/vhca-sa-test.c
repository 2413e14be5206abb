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

static void test_sa_class_port_info(void)
{
    uint8_t resp[256];
    SaRig r;

    sa_start(&r);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0001, 0, NULL, 0, resp), ==, 0);
    g_assert_cmphex(resp[3], ==, 0x81);
    g_assert_cmpuint(resp[56], ==, 1);                  /* BaseVersion */
    g_assert_cmpuint(resp[57], ==, 2);                  /* ClassVersion */
    g_assert_cmphex(lduw_be_p(resp + 58), ==, 0x0200);  /* UD multicast */
    dp_stop(r.dp);
}

static void test_sa_path_record(void)
{
    uint8_t rec[64] = { 0 }, resp[256], sgid[16], dgid[16];
    const uint8_t *p = resp + 56;
    SaRig r;

    sa_start(&r);
    sa_port_gid(&r, 1, sgid);
    sa_port_gid(&r, 2, dgid);
    /* As IPoIB asks: DGID, SGID, NumbPath 1, TClass 0, P_Key. */
    memcpy(rec + 8, dgid, 16);
    memcpy(rec + 24, sgid, 16);
    rec[49] = 1;
    stw_be_p(rec + 50, 0xffff);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035,
                             1u << 2 | 1u << 3 | 1u << 10 | 1u << 12 |
                             1u << 13, rec, sizeof(rec), resp), ==, 0);
    g_assert_cmphex(resp[3], ==, 0x81);
    g_assert_cmpuint(lduw_be_p(resp + 44), ==, 8);      /* AttributeOffset */
    g_assert_cmpmem(p + 8, 16, dgid, 16);
    g_assert_cmpmem(p + 24, 16, sgid, 16);
    g_assert_cmpuint(lduw_be_p(p + 40), ==, r.dp->lid[2]);
    g_assert_cmpuint(lduw_be_p(p + 42), ==, r.dp->lid[1]);
    g_assert_cmphex(p[49] & 0x80, ==, 0x80);            /* reversible */
    g_assert_cmphex(lduw_be_p(p + 50), ==, 0xffff);
    g_assert_cmpuint(p[52] & 0xf, ==, 0);               /* SL 0 */
    g_assert_cmphex(p[54], ==, 0x85);                   /* MTU 4096 */
    g_assert_cmphex(p[55], ==, 0x87);                   /* 40 Gb/s */

    /*
     * After an SM change IPoIB asks again with the record the old SA
     * returned; opensm's carries NumbPath 0 (only Reversible).  A Get
     * asks one path whatever NumbPath says (IBA 1.2 erratum, as opensm):
     * the path, not ERR_NO_RECORDS (fabric.md "The master dies").
     */
    memcpy(rec, p, sizeof(rec));
    rec[49] = 0x80;
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035,
                             1u << 2 | 1u << 3 | 1u << 10 | 1u << 12 |
                             1u << 13, rec, sizeof(rec), resp), ==, 0);
    g_assert_cmpuint(lduw_be_p(p + 40), ==, r.dp->lid[2]);
    g_assert_cmpuint(lduw_be_p(p + 42), ==, r.dp->lid[1]);
    memset(rec, 0, sizeof(rec));
    memcpy(rec + 8, dgid, 16);
    memcpy(rec + 24, sgid, 16);

    /* MTU greater than 4096: no such path. */
    rec[54] = 0 << 6 | 5;
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035, 1u << 2 | 1u << 3 | 1u << 16 |
                             1u << 17, rec, sizeof(rec), resp), ==, 0x0300);
    /* An unknown DGID: no records. */
    rec[23] ^= 0xff;
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035, 1u << 2 | 1u << 3, rec,
                             sizeof(rec), resp), ==, 0x0300);
    /* Only the SGID: two paths match, too many for a Get. */
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035, 1u << 3, rec, sizeof(rec),
                             resp), ==, 0x0400);
    dp_stop(r.dp);
}

/*
 * ib_srp logs in with pkey=7fff (blktests): the limited member P_Key of
 * the default partition.  Every port is a full member, so the path exists
 * and its record carries the P_Key asked for; another partition has none.
 */
static void test_sa_path_record_limited_pkey(void)
{
    uint8_t rec[64] = { 0 }, resp[256], sgid[16], dgid[16];
    uint64_t mask = 1u << 2 | 1u << 3 | 1u << 12 | 1u << 13;
    SaRig r;

    sa_start(&r);
    sa_port_gid(&r, 1, sgid);
    sa_port_gid(&r, 2, dgid);
    memcpy(rec + 8, dgid, 16);
    memcpy(rec + 24, sgid, 16);
    rec[49] = 1;
    stw_be_p(rec + 50, 0x7fff);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035, mask, rec, sizeof(rec), resp),
                    ==, 0);
    g_assert_cmphex(lduw_be_p(resp + 56 + 50), ==, 0x7fff);
    g_assert_cmpuint(lduw_be_p(resp + 56 + 40), ==, r.dp->lid[2]);
    stw_be_p(rec + 50, 0x8001);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0035, mask, rec, sizeof(rec), resp),
                    ==, 0x0300);
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
    uint8_t rec[64] = { 0 }, resp[256];

    stw_be_p(rec, r->dp->lid[port]);
    g_assert_cmphex(sa_query(r, 0x01, 0x0012, 1u << 0, rec, sizeof(rec),
                             resp), ==, 0);
    return ldl_be_p(resp + 56 + 4 + 20);
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
    uint8_t mad[256] = { 1, 0x03, 2, 0x12 };

    stq_be_p(mad + 8, r->tid);
    stw_be_p(mad + 16, 0x0035);
    mad[24] = 1;                    /* RMPPVersion */
    mad[25] = 2;                    /* ACK */
    mad[26] = 0x1f << 3 | 1;        /* no time value, Active */
    stl_be_p(mad + 28, seg);
    stl_be_p(mad + 32, newwin);
    sa_send(r, port, mad, 256);
}

/* An MCMemberRecord for port's GID and mgid, join state js. */
static void sa_mcr(SaRig *r, int port, const uint8_t *mgid, uint8_t js,
                   uint8_t *rec)
{
    memset(rec, 0, 56);
    memcpy(rec, mgid, 16);
    sa_port_gid(r, port, rec + 16);
    stl_be_p(rec + 32, 0x0b1b);
    stw_be_p(rec + 40, 0xffff);
    rec[38] = 2 << 6 | 4;
    rec[42] = 2 << 6 | 7;
    rec[48] = 2 << 4 | js;
}

#define MCR_JOIN_MASK       (1u << 0 | 1u << 1 | 1u << 16)
#define MCR_CREATE_MASK     (MCR_JOIN_MASK | 1u << 2 | 1u << 4 | 1u << 5 | \
                             1u << 6 | 1u << 7 | 1u << 12 | 1u << 13)

static void test_sa_mcmember_join_create_leave(void)
{
    static const uint8_t bcast[16] = {
        0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
        0xff, 0xff, 0xff, 0xff };
    static const uint8_t group[16] = {
        0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    uint8_t rec[56], resp[256];
    const uint8_t *p = resp + 56;
    SaRig r;

    sa_start(&r);
    /* The IPoIB broadcast group exists: a join needs no creation fields. */
    sa_mcr(&r, 1, bcast, 1, rec);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_JOIN_MASK | 1u << 7, rec,
                             56, resp), ==, 0);
    g_assert_cmphex(resp[3], ==, 0x81);
    g_assert_cmpmem(p, 16, bcast, 16);
    g_assert_cmpmem(p + 16, 16, rec + 16, 16);
    g_assert_cmphex(ldl_be_p(p + 32), ==, 0x0b1b);
    g_assert_cmphex(lduw_be_p(p + 36), ==, 0xc000);     /* MLID */
    g_assert_cmphex(p[38] & 0x3f, ==, 4);               /* MTU 2048 */
    g_assert_cmphex(lduw_be_p(p + 40), ==, 0xffff);
    g_assert_cmphex(p[48], ==, 0x21);                   /* scope, full */
    /* A Q_Key other than the group's: refused. */
    stl_be_p(rec + 32, 0x1234);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_JOIN_MASK | 1u << 2, rec,
                             56, resp), ==, 0x0200);

    /* A new group: not without the creation components. */
    sa_mcr(&r, 1, group, 1, rec);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0x0600);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_CREATE_MASK, rec, 56,
                             resp), ==, 0);
    g_assert_cmpmem(p, 16, group, 16);
    g_assert_cmphex(lduw_be_p(p + 36), ==, 0xc001);
    /* Port 2 joins it too; GetTable by MGID lists both members. */
    sa_mcr(&r, 2, group, 1, rec);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(lduw_be_p(p + 36), ==, 0xc001);
    g_assert_cmphex(sa_query(&r, 0x12, 0x0038, 1u << 0, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(resp[3], ==, 0x92);
    g_assert_cmphex(resp[26] & 7, ==, 7);               /* RMPP: one seg */
    g_assert_cmpuint(ldl_be_p(resp + 32), ==, 20 + 2 * 56);
    g_assert_cmphex(lduw_be_p(p + 36), ==, 0xc001);
    g_assert_cmphex(lduw_be_p(p + 56 + 36), ==, 0xc001);
    sa_ack(&r, 1, 1, 1);                                /* the final ACK */
    dp_expect_no_cqe(r.dp, &r.cq);

    /* Both leave: the group is gone, its MLID free again. */
    g_assert_cmphex(sa_query(&r, 0x15, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(resp[3], ==, 0x95);
    g_assert_cmphex(sa_query(&r, 0x15, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0x0200);                        /* not a member */
    sa_mcr(&r, 1, group, 1, rec);
    g_assert_cmphex(sa_query(&r, 0x15, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0038, 1u << 0, rec, 56, resp),
                    ==, 0x0300);
    /* The broadcast group stays without members. */
    sa_mcr(&r, 1, bcast, 1, rec);
    g_assert_cmphex(sa_query(&r, 0x15, 0x0038, MCR_JOIN_MASK, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(sa_query(&r, 0x01, 0x0038, 1u << 0, rec, 56, resp),
                    ==, 0);
    g_assert_cmphex(lduw_be_p(p + 36), ==, 0xc000);
    dp_stop(r.dp);
}

static void test_sa_get_table_rmpp(void)
{
    uint8_t mad[256], seg1[256], seg2[256], again[256], all[400];
    SaRig r;
    int i;

    sa_start(&r);
    /* Every path of the two ports: 4 x 64 bytes, two segments. */
    sa_mad(&r, 0x12, 0x0035, 0, NULL, 0, mad);
    sa_post_recvs(&r, 1, 3);
    sa_send(&r, 1, mad, 256);
    sa_answer(&r, 1, 0, seg1);
    dp_expect_no_cqe(r.dp, &r.cq);          /* window 1: wait for the ACK */
    g_assert_cmphex(seg1[3], ==, 0x92);
    g_assert_cmphex(lduw_be_p(seg1 + 4), ==, 0);
    g_assert_cmpuint(seg1[24], ==, 1);                  /* RMPP version */
    g_assert_cmpuint(seg1[25], ==, 1);                  /* DATA */
    g_assert_cmphex(seg1[26] & 7, ==, 3);               /* Active, First */
    g_assert_cmpuint(ldl_be_p(seg1 + 28), ==, 1);
    g_assert_cmpuint(ldl_be_p(seg1 + 32), ==, 2 * 220 - (400 - 256));
    g_assert_cmpuint(lduw_be_p(seg1 + 44), ==, 8);

    /* ACK of segment 1 opening the window to 65: segment 2, the last. */
    sa_ack(&r, 1, 1, 65);
    sa_answer(&r, 1, 1, seg2);
    dp_expect_no_cqe(r.dp, &r.cq);
    g_assert_cmphex(seg2[26] & 7, ==, 5);               /* Active, Last */
    g_assert_cmpuint(ldl_be_p(seg2 + 28), ==, 2);
    g_assert_cmpuint(ldl_be_p(seg2 + 32), ==, 220 - (400 - 256));
    memcpy(all, seg1 + 56, 200);
    memcpy(all + 200, seg2 + 56, 200);
    for (i = 0; i < 4; i++) {
        const uint8_t *p = all + i * 64;

        g_assert_cmpuint(lduw_be_p(p + 42), ==, r.dp->lid[1 + i / 2]);
        g_assert_cmpuint(lduw_be_p(p + 40), ==, r.dp->lid[1 + i % 2]);
    }
    /* Going back: an ACK of segment 1 again resends segment 2. */
    sa_ack(&r, 1, 1, 2);
    sa_answer(&r, 1, 2, again);
    g_assert_cmpmem(again, 256, seg2, 256);
    /* The final ACK ends the transfer: no answer, and later ACKs are
     * ignored. */
    sa_ack(&r, 1, 2, 2);
    sa_ack(&r, 1, 1, 2);
    dp_expect_no_cqe(r.dp, &r.cq);
    dp_stop(r.dp);
}

static void test_sa_malformed(void)
{
    uint8_t mad[256], resp[256];
    SaRig r;

    sa_start(&r);
    /* Class version 1, unknown method, unknown attribute, Set PathRecord. */
    sa_mad(&r, 0x01, 0x0035, 0, NULL, 0, mad);
    mad[2] = 1;
    sa_post_recvs(&r, 1, 1);
    sa_send(&r, 1, mad, 256);
    sa_answer(&r, 1, 0, resp);
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0x0004);
    g_assert_cmphex(sa_query(&r, 0x07, 0x0035, 0, NULL, 0, resp), ==, 0x0008);
    g_assert_cmphex(sa_query(&r, 0x01, 0x00ff, 0, NULL, 0, resp), ==, 0x000c);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0035, 0, NULL, 0, resp), ==, 0x000c);
    g_assert_cmphex(sa_query(&r, 0x12, 0x0001, 0, NULL, 0, resp), ==, 0x000c);
    /* A join without a PortGID; a join of a GID that is no port. */
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, 1u << 16, NULL, 0, resp), ==,
                    0x0600);
    memset(mad, 0xab, 56);
    g_assert_cmphex(sa_query(&r, 0x02, 0x0038, MCR_JOIN_MASK, mad, 56, resp),
                    ==, 0x0500);

    /* Dropped, the send still completes: short, a response, another class. */
    sa_post_recvs(&r, 1, 1);
    sa_mad(&r, 0x01, 0x0001, 0, NULL, 0, mad);
    sa_send(&r, 1, mad, 100);
    mad[3] = 0x81;
    sa_send(&r, 1, mad, 256);
    mad[3] = 0x01;
    mad[1] = 0x06;          /* DevMgt: neither the SA's nor the switch's */
    sa_send(&r, 1, mad, 256);
    /* An ACK for no transfer: taken without an answer. */
    sa_ack(&r, 1, 1, 65);
    dp_expect_no_cqe(r.dp, &r.cq);
    /* The SA still answers. */
    mad[1] = 0x03;
    sa_send(&r, 1, mad, 256);
    sa_answer(&r, 1, 0, resp);
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0);
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
