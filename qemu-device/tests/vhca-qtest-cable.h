/*
 * vhca qtests: a port cabled out through `-netdev stream` to a unix
 * socket the test listens on, so the test plays the switch (framing:
 * vhca_hw_wire.h behind a 4-byte big-endian length, QEMU's stream netdev).
 * Used by vhca-sm-set-test (an SM's Set(PortInfo), the switch SM's LINK,
 * the port's Trap 144) and vhca-link-faults-test (the link's faults).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_QTEST_CABLE_H
#define VHCA_QTEST_CABLE_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "vhca-qtest.h"
#include "hw/infiniband/vhca/uapi/vhca_hw_wire.h"
#include "vhca-mad.h"

typedef struct VhcaCable {
    Vhca *v;
    char *dir;
    int fd;             /* the cable, switch side */
    uint64_t tid;
} VhcaCable;

static inline void cable_read_all(int fd, void *buf, size_t len)
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
static inline uint32_t cable_recv(VhcaCable *r, uint8_t *frame, uint32_t max)
{
    uint8_t be[4];
    uint32_t len;

    cable_read_all(r->fd, be, 4);
    len = ldl_be_p(be);
    g_assert_cmpuint(len, <=, max);
    cable_read_all(r->fd, frame, len);
    return len;
}

static inline void cable_send(VhcaCable *r, const uint8_t *frame, uint32_t len)
{
    uint8_t be[4];

    stl_be_p(be, len);
    g_assert_cmpint(write(r->fd, be, 4), ==, 4);
    g_assert_cmpint(write(r->fd, frame, len), ==, len);
}

/* The device started with port 2 cabled to the test, and props (or NULL:
 * more -device properties, each starting with a comma). */
static inline void cable_start_with(VhcaCable *r, const char *props)
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
    extra = g_strdup_printf("%s,port2-netdev=w0 -netdev stream,id=w0,"
                            "server=off,addr.type=unix,addr.path=%s",
                            props ? props : "", a.sun_path);
    r->v = vhca_start(extra);
    r->fd = accept(lfd, NULL, NULL);
    g_assert_cmpint(r->fd, >=, 0);
    close(lfd);
    r->tid = 0x534d000000000000ull;
}

static inline void cable_start(VhcaCable *r)
{
    cable_start_with(r, NULL);
}

/* The cable's socket and directory go (the device stopped already). */
static inline void cable_close(VhcaCable *r)
{
    g_autofree char *path = g_strdup_printf("%s/cable", r->dir);

    close(r->fd);
    unlink(path);
    rmdir(r->dir);
    g_free(r->dir);
}

static inline void cable_stop(VhcaCable *r)
{
    vhca_stop(r->v);
    cable_close(r);
}

/* Frames until one of kind comes (the port's counters and HELLOs pass). */
static inline uint32_t cable_expect(VhcaCable *r, uint8_t kind, uint8_t *frame)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;
    uint32_t len;

    do {
        len = cable_recv(r, frame, sizeof(struct vhca_wire_hdr) + 4096);
        g_assert_cmphex(le32_to_cpu(h->magic), ==, VHCA_WIRE_MAGIC);
    } while (h->kind != kind);
    return len;
}

/*
 * After vhca_bringup: the port's first HELLO.  QEMU 7.2's stream netdev
 * connects asynchronously, and a frame sent before it has is dropped; the
 * port then sees its carrier and sends HELLOs on 200 ms timers of the
 * virtual clock, which only runs here when the test steps it.  So step it
 * until a HELLO arrives (a fixed wait hung under load).
 */
static inline void cable_wait_hello(VhcaCable *c, uint8_t *frame)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    int i;

    for (i = 0; i < 600; i++) {
        if (poll(&pfd, 1, 100) > 0) {
            cable_recv(c, frame, sizeof(struct vhca_wire_hdr) + 4096);
            if (h->kind == VHCA_WIRE_HELLO) {
                return;
            }
            continue;
        }
        qtest_clock_step(c->v->qts, 200 * 1000 * 1000LL);
    }
    g_assert_not_reached();
}

/* An SMP (VHCA_MAD_SIZE bytes) into the port, from slid to dlid. */
static inline void cable_send_smp(VhcaCable *c, uint16_t slid, uint16_t dlid,
                                  const uint8_t *smp)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + VHCA_MAD_SIZE];
    struct vhca_wire_hdr *h = (struct vhca_wire_hdr *)frame;

    memset(frame, 0, sizeof(*h));
    h->magic = cpu_to_le32(VHCA_WIRE_MAGIC);
    h->version = VHCA_WIRE_VERSION;
    h->kind = VHCA_WIRE_DATAGRAM;
    h->opcode = VHCA_WQE_SEND;
    h->slid = cpu_to_le16(slid);
    h->dlid = cpu_to_le16(dlid);
    h->packets = cpu_to_le32(1);
    h->length = cpu_to_le32(VHCA_MAD_SIZE);
    h->payload_len = cpu_to_le32(VHCA_MAD_SIZE);
    h->qp_type = VHCA_QPT_SMI;
    memcpy(frame + sizeof(*h), smp, VHCA_MAD_SIZE);
    cable_send(c, frame, sizeof(frame));
}

/*
 * A directed-route SMP whose path ends at port 2 (hop count 1, hop pointer
 * 1: the switch handed it on), with data's 64 bytes (NULL: zeros).
 */
static inline void cable_send_dr_smp(VhcaCable *c, uint8_t method,
                                     uint16_t attr_id, uint64_t tid,
                                     const uint8_t *data)
{
    uint8_t smp[VHCA_MAD_SIZE];

    vhca_mad_init(smp, VHCA_MGMT_CLASS_SUBN_DR, 1, method, tid, attr_id);
    smp[VHCA_SMP(hop_ptr)] = 1;
    smp[VHCA_SMP(hop_cnt)] = 1;
    stw_be_p(smp + VHCA_SMP(dr_slid), 0xffff);        /* permissive */
    stw_be_p(smp + VHCA_SMP(dr_dlid), 0xffff);
    smp[VHCA_SMP(initial_path) + 1] = 2;    /* out of port 2 */
    if (data) {
        memcpy(smp + VHCA_SMP_DATA_OFF, data, VHCA_SMP_DATA_SIZE);
    }
    cable_send_smp(c, 0xffff, 0xffff, smp);
}

/*
 * The switch's SM configures the port: a LINK frame with its LID, the SM
 * LID, ACTIVE and flags (VHCA_WIRE_LINK_F_REREG: a new master).
 */
static inline void cable_send_link(VhcaCable *c, uint16_t lid,
                                   uint16_t sm_lid, uint8_t flags)
{
    struct vhca_wire_hdr h;

    memset(&h, 0, sizeof(h));
    h.magic = cpu_to_le32(VHCA_WIRE_MAGIC);
    h.version = VHCA_WIRE_VERSION;
    h.kind = VHCA_WIRE_LINK;
    h.opcode = VHCA_PORT_ACTIVE;
    h.dlid = cpu_to_le16(lid);
    h.slid = cpu_to_le16(sm_lid);
    h.flags = flags;
    cable_send(c, (uint8_t *)&h, sizeof(h));
}

#endif /* VHCA_QTEST_CABLE_H */
