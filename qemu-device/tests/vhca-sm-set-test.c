/*
 * QTest testcase for vhca: an SM configures a cabled port by Set(PortInfo)
 * (IBA 14.2.5.6, 7.2), as opensm does when the switch has no SM of its
 * own (Documentation/fabric.md "opensm manages the fabric").
 *
 * Port 2 is cabled out through `-netdev stream` to a unix socket this test
 * listens on: the test is the switch.  The port trains (HELLO) and waits
 * in INIT; directed-route SMPs that end at the port (hop pointer = hop
 * count) then set its LID, SM LID and state: INIT -> ARMED (LID_CHANGE,
 * SM_CHANGE) -> ACTIVE with PORT_ACTIVE, a new LID with LID_CHANGE, a new
 * SM LID with SM_CHANGE, a
 * transition IBA does not allow refused with 0x001c and nothing changed,
 * Down taking the link down (PORT_ERR) and back to INIT with a new HELLO.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <sys/socket.h>
#include <sys/un.h>
#include "vhca-qtest.h"
#include "hw/misc/vhca/vhca-wire.h"

#define MAD_SIZE        256
#define SMP_DATA        64
#define PI_LID          (SMP_DATA + 16)
#define PI_SM_LID       (SMP_DATA + 18)
#define PI_STATE        (SMP_DATA + 32)
#define PI_NEIGHBOR_MTU (SMP_DATA + 36)
#define PI_SUBNET_TO    (SMP_DATA + 51)

typedef struct SmRig {
    Vhca *v;
    char *dir;
    int fd;             /* the cable, switch side */
    uint64_t tid;
} SmRig;

static void rig_read_all(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = read(fd, p, len);

        g_assert_cmpint(n, >, 0);
        p += n;
        len -= n;
    }
}

/* The next frame out of the port (stream framing: a 4-byte BE length). */
static uint32_t rig_recv(SmRig *r, uint8_t *frame, uint32_t max)
{
    uint8_t be[4];
    uint32_t len;

    rig_read_all(r->fd, be, 4);
    len = ldl_be_p(be);
    g_assert_cmpuint(len, <=, max);
    rig_read_all(r->fd, frame, len);
    return len;
}

static void rig_send(SmRig *r, const uint8_t *frame, uint32_t len)
{
    uint8_t be[4];

    stl_be_p(be, len);
    g_assert_cmpint(write(r->fd, be, 4), ==, 4);
    g_assert_cmpint(write(r->fd, frame, len), ==, len);
}

static void rig_start(SmRig *r)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    g_autofree char *extra = NULL;
    int lfd;

    memset(r, 0, sizeof(*r));
    r->dir = g_dir_make_tmp("vhca-sm-set-XXXXXX", NULL);
    g_assert(r->dir);
    snprintf(a.sun_path, sizeof(a.sun_path), "%s/cable", r->dir);
    lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(lfd, >=, 0);
    g_assert_cmpint(bind(lfd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    g_assert_cmpint(listen(lfd, 1), ==, 0);
    extra = g_strdup_printf(",port2-netdev=w0 -netdev stream,id=w0,"
                            "server=off,addr.type=unix,addr.path=%s",
                            a.sun_path);
    r->v = vhca_start(extra);
    r->fd = accept(lfd, NULL, NULL);
    g_assert_cmpint(r->fd, >=, 0);
    close(lfd);
    r->tid = 0x534d000000000000ull;
}

static void rig_stop(SmRig *r)
{
    g_autofree char *path = g_strdup_printf("%s/cable", r->dir);

    vhca_stop(r->v);
    close(r->fd);
    unlink(path);
    rmdir(r->dir);
    g_free(r->dir);
}

/* Frames until one of kind comes (the port's counters and HELLOs pass). */
static uint32_t rig_expect(SmRig *r, uint8_t kind, uint8_t *frame)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;
    uint32_t len;

    do {
        len = rig_recv(r, frame, sizeof(struct vhca_wire_hdr) + 4096);
        g_assert_cmphex(le32_to_cpu(h->magic), ==, VHCA_WIRE_MAGIC);
    } while (h->kind != kind);
    return len;
}

/*
 * A directed-route Set(PortInfo) whose path ends at the port (hop count 1,
 * hop pointer 1: the switch handed it on), with pi's 64 bytes; the
 * GetResp's data back in pi, its status returned.
 */
static uint16_t rig_set_port_info(SmRig *r, uint8_t *pi)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096];
    struct vhca_wire_hdr *h = (struct vhca_wire_hdr *)frame;
    uint8_t *smp = frame + sizeof(*h);
    uint64_t tid = ++r->tid;

    memset(frame, 0, sizeof(*h) + MAD_SIZE);
    h->magic = cpu_to_le32(VHCA_WIRE_MAGIC);
    h->version = VHCA_WIRE_VERSION;
    h->kind = VHCA_WIRE_DATAGRAM;
    h->opcode = VHCA_WQE_SEND;
    h->slid = cpu_to_le16(0xffff);
    h->dlid = cpu_to_le16(0xffff);
    h->packets = cpu_to_le32(1);
    h->length = cpu_to_le32(MAD_SIZE);
    h->payload_len = cpu_to_le32(MAD_SIZE);
    h->qp_type = VHCA_QPT_SMI;
    smp[0] = 1;
    smp[1] = 0x81;                      /* SubnDirectedRoute */
    smp[2] = 1;
    smp[3] = 0x02;                      /* Set */
    smp[6] = 1;                         /* hop pointer */
    smp[7] = 1;                         /* hop count */
    stq_be_p(smp + 8, tid);
    stw_be_p(smp + 16, 0x0015);         /* PortInfo */
    stw_be_p(smp + 32, 0xffff);
    stw_be_p(smp + 34, 0xffff);
    smp[128 + 1] = 2;                   /* initial path: out of port 2 */
    memcpy(smp + SMP_DATA, pi, 64);
    rig_send(r, frame, sizeof(*h) + MAD_SIZE);

    rig_expect(r, VHCA_WIRE_DATAGRAM, frame);
    g_assert_cmpuint(h->qp_type, ==, VHCA_QPT_SMI);
    g_assert_cmphex(lduw_le_p(&h->dlid), ==, 0xffff);
    g_assert_cmphex(smp[3], ==, 0x81);                  /* GetResp */
    g_assert_cmphex(ldq_be_p(smp + 8), ==, tid);
    g_assert_cmpuint(smp[192 + 1], ==, 2);              /* return path */
    memcpy(pi, smp + SMP_DATA, 64);
    g_assert_cmphex(lduw_be_p(smp + 4) & 0x8000, ==, 0x8000);   /* D bit */
    return lduw_be_p(smp + 4) & 0x7fff;
}

/* Port 2's events only (port 1 is on the in-process fabric). */
static int port2_events(Vhca *v, struct vhca_eqe *out, int max)
{
    struct vhca_eqe ev[8];
    int n = vhca_collect_port_events(v, ev, 8), i, m = 0;

    for (i = 0; i < n; i++) {
        if (ev[i].data.port.port == 2 && m < max) {
            out[m++] = ev[i];
        }
    }
    return m;
}

static void test_sm_set_port_info(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096], pi[64];
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    SmRig r;

    rig_start(&r);
    vhca_bringup(r.v);
    /* The link trains: a HELLO, and the port waits in INIT with no LID. */
    rig_expect(&r, VHCA_WIRE_HELLO, frame);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);   /* port 1's pass */
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);

    /* INIT -> ACTIVE directly is not a transition IBA allows. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ACTIVE);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0x001c);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0);        /* nothing written */
    g_assert_cmpuint(pi[32] & 0xf, ==, VHCA_PORT_INIT);

    /* LID, SM LID and ARMED in one Set; the answer shows them. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ARMED);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0x22);
    g_assert_cmpuint(lduw_be_p(pi + 18), ==, 0x21);
    g_assert_cmpuint(pi[32] & 0xf, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(pi[36] >> 4, ==, 4);               /* stored */
    g_assert_cmpuint(pi[51] & 0x1f, ==, 17);
    /* not ACTIVE yet, but ib_core's cache follows the LID and SM LID */
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 2);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_LID_CHANGE);
    g_assert_cmpuint(ev[0].data.port.state, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(ev[1].subtype, ==, VHCA_PORT_EV_SM_CHANGE);
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0x22);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, 0x21);
    g_assert_cmpuint(attr.subnet_timeout, ==, 17);

    /* ARMED -> ACTIVE: PORT_ACTIVE, as a real HCA raises it. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ACTIVE);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), ==, 0x22);

    /* ACTIVE -> ARMED is refused, and nothing else is written. */
    vhca_pi_init(pi, 0x30, 0x21, VHCA_PORT_ARMED);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0x001c);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0x22);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);

    /* A new LID, then a new SM: LID_CHANGE, SM_CHANGE. */
    vhca_pi_init(pi, 0x30, 0x21, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_LID_CHANGE);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), ==, 0x30);
    vhca_pi_init(pi, 0x30, 0x31, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_SM_CHANGE);

    /* Down: PORT_ERR, the link trains again (HELLO), INIT with no LID. */
    vhca_pi_init(pi, 0x30, 0x31, VHCA_PORT_DOWN);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_DOWN);
    rig_expect(&r, VHCA_WIRE_HELLO, frame);
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);
    rig_stop(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sm-set/port-info", test_sm_set_port_info);
    return g_test_run();
}
