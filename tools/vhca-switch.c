/*
 * vhca-switch - the fabric's switch as a standalone program, for vhca
 * ports cabled out of their QEMU processes (`-netdev stream` + the vhca
 * `portN-netdev` property; Documentation/fabric.md).
 *
 * Linked with the fabric library (fabric/, scripts/build-switch.sh): the
 * frame parser (fabric/vhca-wire.c), the SMAs, the embedded SM's subnet
 * administration (vhca-sa*.c) and the rest are the same code the QEMU
 * device runs, plain C that includes no QEMU header.
 *
 * What it does:
 * - listens on one unix socket per switch port (DIR/port1 .. DIR/portN),
 *   or on 127.0.0.1 TCP ports BASE+1 .. BASE+N; one QEMU netdev connects
 *   to each; frames carry QEMU's stream framing (4-byte big-endian length);
 * - its embedded SM: a port that says HELLO gets a LID (the same one for
 *   its port GUID for the life of the switch), a route in the linear
 *   forwarding table and a LINK frame that makes it ACTIVE; the SM is
 *   LID 1, and after each SA request the multicast forwarding table is
 *   programmed from the SA's groups;
 * - with `--embedded-sm off` there is no SM and no SA in the switch: a
 *   port that says HELLO is LinkUp/INIT, and an SM in a guest (opensm)
 *   configures the switch and the CA ports by SMPs (vhca-switch-smp.c);
 * - forwards by the linear (unicast DLID) and multicast (MLID) forwarding
 *   tables, whoever programmed them; MADs to port 0's LID go to its PMA
 *   and, with the embedded SM, to its SA;
 * - with --isl ports, is one switch of a topology of many, cabled to the
 *   others by unix sockets (vhca-switch-cable.c);
 * - drops (and counts) frames that do not parse, data from a port that is
 *   not ACTIVE (or, with the embedded SM, with another port's SLID), and
 *   frames the tables route nowhere or to a port that is not ACTIVE.
 * No privileges are needed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sa.h"
#include "vhca-sm-arbiter.h"
#include "vhca-wire.h"
#include "vhca-switch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SW_FRAME_MAX        (4 + VHCA_WIRE_MAX_FRAME)
#define SW_DIAL_MS          200         /* --connect ports: dial again */

static SwPort sw_ports[SW_MAX_PORTS];
static int sw_nports;
static VhcaSa sw_sa;
static int sw_verbose;

void sw_log(const char *fmt, ...)
{
    va_list ap;

    if (!sw_verbose) {
        return;
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ---- ports and sockets -------------------------------------------------- */

/*
 * Port p's link went down: its port DOWN, the SM's route to it gone,
 * Trap 128 (with the embedded SM off or STANDBY).  Its next HELLO trains
 * it again (sw_hello).
 */
static void sw_link_down(SwPort *p, const char *why)
{
    bool was_up = sw_node.ports[p->num].state != VHCA_PORT_DOWN;

    fprintf(stderr, "vhca-switch: port %d: link down (%s)\n", p->num, why);
    p->hello = false;
    if (sw_sm_manages() && p->lid &&
        vhca_switch_lft_port(&sw_node, p->lid) == p->num) {
        sw_node.lft[p->lid] = VHCA_SWITCH_NO_ROUTE;     /* the SM's route */
    }
    p->lid = 0;
    sw_node_link_down(p);
    sw_faults_link_down(p);     /* frames held or delayed die with the link */
    if (was_up) {
        sw_trap_link_changed(sw_ports, sw_nports);
    }
}

void sw_disconnect(SwPort *p, const char *why)
{
    close(p->fd);
    p->fd = -1;
    p->rx_len = 0;
    sw_txq_clear(p);
    sw_link_down(p, why);
}

/*
 * A LINK from the port: its link went down with the cable in (device
 * reset, portN-link off), as a real link's far end sees it (IBA 7.2).
 */
static void sw_port_link(SwPort *p, const VhcaWireFrame *f)
{
    if (f->opcode != VHCA_PORT_DOWN) {
        p->drops++;
        return;
    }
    sw_link_down(p, "the CA port went down");
}

void sw_send_frame(SwPort *p, VhcaWireFrame *f, const uint8_t *payload,
                   uint32_t payload_len)
{
    uint8_t *buf = malloc(sizeof(struct vhca_wire_hdr) + payload_len);

    if (!buf) {
        return;
    }
    f->payload_len = payload_len;
    vhca_wire_encode(f, (struct vhca_wire_hdr *)buf);
    if (payload_len) {
        memcpy(buf + sizeof(struct vhca_wire_hdr), payload, payload_len);
    }
    sw_send(p, buf, sizeof(struct vhca_wire_hdr) + payload_len);
    free(buf);
}

static void sw_hello(SwPort *p, const VhcaWireFrame *f)
{
    VhcaWireHello h;
    const char *why = vhca_wire_hello_parse(f, &h);
    int i;

    if (why || p->isl) {
        p->drops++;
        sw_log("port %d: %s\n", p->num, why ? why : "HELLO on a switch link");
        return;
    }
    for (i = 0; i < sw_nports; i++) {
        if (&sw_ports[i] != p && sw_ports[i].hello &&
            sw_ports[i].node.port_guid == h.port_guid) {
            fprintf(stderr, "vhca-switch: port %d: port GUID 0x%016" PRIx64
                    " is already on port %d\n", p->num, h.port_guid,
                    sw_ports[i].num);
            p->drops++;
            return;
        }
    }
    p->node = h;
    if (!sw_sm_manages()) {
        /* the link trains; an SM in a guest configures it (IBA 7.2) */
        p->hello = true;
        if (sw_node.ports[p->num].state == VHCA_PORT_DOWN) {
            fprintf(stderr, "vhca-switch: port %d: GUID 0x%016" PRIx64
                    " LinkUp, INIT\n", p->num, h.port_guid);
            sw_node_link_up(p);
            sw_trap_link_changed(sw_ports, sw_nports);
        }
        return;
    }
    sw_sm_configure_port(p, false);
}

/*
 * The embedded SM, MASTER, configures port p (after its HELLO): its LID,
 * a route, ACTIVE, by a LINK frame; rereg: a master new to the subnet
 * sets the port again with ClientReregister (IBA 14.4.11).
 */
void sw_sm_configure_port(SwPort *p, bool rereg)
{
    VhcaWireFrame link = { .kind = VHCA_WIRE_LINK };
    uint16_t lid = sw_lid_of(p->node.port_guid, p->num);

    if (!lid || lid >= VHCA_SWITCH_LFT_CAP) {
        p->drops++;
        return;
    }
    if (!p->hello || p->lid != lid || rereg) {
        fprintf(stderr, "vhca-switch: port %d: GUID 0x%016" PRIx64
                " gets LID %u%s\n", p->num, p->node.port_guid, lid,
                rereg ? " (ClientReregister)" : "");
    }
    p->hello = true;
    p->lid = lid;
    vhca_switch_lft_route(&sw_node, lid, p->num);
    vhca_switch_port_state(&sw_node, p->num, VHCA_PORT_ACTIVE,
                           VHCA_PHYS_LINK_UP);
    link.opcode = VHCA_PORT_ACTIVE;
    link.slid = VHCA_WIRE_SM_LID;
    link.dlid = lid;
    link.flags = rereg ? VHCA_WIRE_LINK_F_REREG : 0;
    link.src_guid = SW_NODE_GUID;
    sw_send_frame(p, &link, NULL, 0);
}

/* ---- the SA --------------------------------------------------------------- */

static void sw_sa_refresh(void)
{
    int i;

    sw_sa.num_ports = 0;
    for (i = 0; i < sw_nports && sw_sa.num_ports < VHCA_SA_MAX_PORTS; i++) {
        SwPort *p = &sw_ports[i];
        VhcaSmaNode *n;
        VhcaSmaPort *sp;

        if (p->fd < 0 || !p->lid) {
            continue;
        }
        n = &sw_sa.ports[sw_sa.num_ports++].node;
        memset(n, 0, sizeof(*n));
        n->node_guid = p->node.node_guid;
        n->sys_image_guid = p->node.sys_image_guid;
        n->vendor_id = p->node.vendor_id;
        n->device_id = p->node.device_id;
        n->revision = p->node.revision;
        n->num_ports = p->node.num_ports;
        n->local_port = p->node.local_port;
        memcpy(n->node_desc, p->node.node_desc, sizeof(n->node_desc));
        sp = &n->ports[p->node.local_port - 1];
        sp->state = VHCA_PORT_ACTIVE;
        sp->phys_state = VHCA_PHYS_LINK_UP;
        sp->lid = p->lid;
        sp->sm_lid = VHCA_WIRE_SM_LID;
        sp->guid = p->node.port_guid;
        sp->cap_mask = p->node.cap_mask;
    }
}

typedef struct SwSaCall {
    SwPort *p;
    const VhcaWireFrame *req;
} SwSaCall;

static void sw_sa_emit(void *opaque, const uint8_t *mad)
{
    SwSaCall *c = opaque;
    VhcaWireFrame f = {
        .kind = VHCA_WIRE_DATAGRAM,
        .opcode = VHCA_WQE_SEND,
        .slid = VHCA_WIRE_SM_LID,
        .dlid = c->req->slid,
        .src_qpn = VHCA_SA_QPN,
        .dst_qpn = c->req->src_qpn,
        .qkey = VHCA_WIRE_GSI_QKEY,
        .qp_type = VHCA_QPT_GSI,
        .length = VHCA_MAD_SIZE,
        .packets = 1,
        .src_guid = SW_NODE_GUID,
    };

    sw_send_frame(c->p, &f, mad, VHCA_MAD_SIZE);
}

static void sw_sa_request(SwPort *p, const VhcaWireFrame *f)
{
    SwSaCall c = { .p = p, .req = f };
    uint16_t status;

    if (f->dst_qpn != VHCA_SA_QPN || f->qp_type != VHCA_QPT_GSI ||
        f->payload_len != VHCA_MAD_SIZE ||
        f->payload[1] != VHCA_MGMT_CLASS_SUBN_ADM) {
        p->drops++;
        sw_log("port %d: not a SubnAdm MAD to the SA (QP type %u, QPN %u, "
               "class 0x%x, method 0x%x, attr 0x%x)\n", p->num, f->qp_type,
               f->dst_qpn, f->payload_len ? f->payload[1] : 0,
               f->payload_len > 3 ? f->payload[3] : 0,
               f->payload_len > 17 ? vhca_get_be16(f->payload + 16) : 0);
        return;
    }
    sw_sa_refresh();
    vhca_sa_process(&sw_sa, f->payload, f->payload_len, f->slid,
                    sw_sa_emit, &c, &status);
    sw_sm_program_mft();
    sw_log("port %d: SA method 0x%x attr 0x%x status 0x%x\n", p->num,
           f->payload[3], vhca_get_be16(f->payload + 16), status);
}

/* ---- forwarding ----------------------------------------------------------- */

static bool sw_group_has(const VhcaSaGroup *g, uint64_t port_guid)
{
    uint32_t i;

    for (i = 0; i < g->nmembers; i++) {
        if (vhca_get_be64(g->members[i].gid + 8) == port_guid) {
            return true;
        }
    }
    return false;
}

/*
 * The embedded SM programs the multicast forwarding table from its SA's
 * groups: an MLID's entry holds the ports whose GUIDs are members.
 */
void sw_sm_program_mft(void)
{
    const VhcaSaGroup *g;
    int i, n;

    memset(sw_node.mft, 0, sizeof(sw_node.mft));
    sw_node.mft_top = 0;
    for (i = 0; i < VHCA_SA_MAX_GROUPS; i++) {
        g = &sw_sa.groups[i];
        if (!g->valid) {
            continue;
        }
        for (n = 0; n < sw_nports; n++) {
            SwPort *p = &sw_ports[n];

            if (p->fd >= 0 && p->lid && sw_group_has(g, p->node.port_guid)) {
                vhca_switch_mft_set(&sw_node, g->mlid, p->num, true);
                sw_node.mft_top = MAX(sw_node.mft_top, g->mlid);
            }
        }
    }
}

/* Can port p take this frame out?  Data only through ACTIVE ports. */
static bool sw_port_passes(const SwPort *p, const VhcaWireFrame *f)
{
    uint8_t state = sw_node.ports[p->num].state;

    return p->fd >= 0 && (state == VHCA_PORT_ACTIVE ||
                          (state != VHCA_PORT_DOWN &&
                           f->kind == VHCA_WIRE_DATAGRAM &&
                           f->qp_type == VHCA_QPT_SMI));
}

/* IBA 18.2.4.3.2: a copy to every port of the MLID's entry but the one in. */
static void sw_multicast(SwPort *in, const VhcaWireFrame *f,
                         const uint8_t *frame, uint32_t len)
{
    bool sent = false;
    int i;

    if (f->kind != VHCA_WIRE_DATAGRAM ||
        (sw_node.mft_top && f->dlid > sw_node.mft_top)) {
        in->drops++;
        return;
    }
    for (i = 0; i < sw_nports; i++) {
        SwPort *p = &sw_ports[i];

        if (p != in && vhca_switch_mft_has(&sw_node, f->dlid, p->num) &&
            sw_port_passes(p, f)) {
            sw_egress(p, frame, len);
            sent = true;
        }
    }
    if (!sent) {
        in->drops++;            /* no other member: the copy dies here */
    }
}

/* A frame to port 0's LID: the switch's PMA, and with its SM, its SA. */
static void sw_port0(SwPort *p, const VhcaWireFrame *f)
{
    if (f->kind == VHCA_WIRE_DATAGRAM &&
        sw_pma(p, sw_ports, sw_nports, f)) {
        return;
    }
    if (f->kind == VHCA_WIRE_DATAGRAM && sw_sm_manages()) {
        sw_sa_request(p, f);
        return;             /* not MASTER: the guest SM's SA answers */
    }
    p->drops++;
    sw_log("port %d: nothing at LID %u for this frame\n", p->num, f->dlid);
}

static void sw_frame(SwPort *p, const uint8_t *frame, uint32_t len)
{
    VhcaWireFrame f;
    const char *why = vhca_wire_parse(frame, len, &f);
    bool smp;
    uint8_t out;

    p->rx_frames++;
    if (why) {
        p->drops++;
        sw_log("port %d: frame dropped: %s\n", p->num, why);
        return;
    }
    if (p->capture) {
        sw_capture_rx(p, &f);
    }
    if (f.kind == VHCA_WIRE_HELLO) {
        sw_hello(p, &f);
        return;
    }
    if (f.kind == VHCA_WIRE_LINK) {
        sw_port_link(p, &f);
        return;
    }
    if (!sw_rules_ingress(p, &f)) {
        return;
    }
    smp = f.kind == VHCA_WIRE_DATAGRAM && f.qp_type == VHCA_QPT_SMI;
    if (smp && (sw_smp(p, sw_ports, sw_nports, &f) || f.dlid == 0xffff)) {
        return;     /* taken, or a directed route that goes nowhere */
    }
    if (!sw_port_passes(p, &f) ||
        (sw_sm_manages() && (!p->lid || f.slid != p->lid))) {
        p->drops++;
        sw_log("port %d: frame kind %u from SLID %u dropped (port LID %u)\n",
               p->num, f.kind, f.slid, p->lid);
        return;
    }
    sw_count(p, &f, true);
    if (f.dlid >= VHCA_MIN_MLID && f.dlid != 0xffff) {
        sw_multicast(p, &f, frame, len);
        return;
    }
    out = vhca_switch_lft_port(&sw_node, f.dlid);
    if (out == 0) {
        sw_port0(p, &f);
        return;
    }
    if (out > sw_nports || !sw_port_passes(&sw_ports[out - 1], &f)) {
        p->drops++;
        sw_log("port %d: no route to DLID %u\n", p->num, f.dlid);
        return;
    }
    sw_egress(&sw_ports[out - 1], frame, len);
}

/* Read what the socket has and take every complete frame. */
static void sw_read(SwPort *p)
{
    ssize_t n = read(p->fd, p->rx + p->rx_len, SW_FRAME_MAX - p->rx_len);
    uint32_t off = 0, flen;

    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
    }
    if (n <= 0) {
        sw_disconnect(p, n == 0 ? "closed" : strerror(errno));
        return;
    }
    p->rx_len += (uint32_t)n;
    while (p->rx_len - off >= 4) {
        flen = vhca_get_be32(p->rx + off);
        if (flen > VHCA_WIRE_MAX_FRAME) {
            sw_disconnect(p, "frame too long");
            return;
        }
        if (p->rx_len - off - 4 < flen) {
            break;
        }
        sw_frame(p, p->rx + off + 4, flen);
        if (p->fd < 0) {
            return;
        }
        off += 4 + flen;
    }
    memmove(p->rx, p->rx + off, p->rx_len - off);
    p->rx_len -= off;
}

/*
 * A cable is connected: non-blocking, so that a peer that stops reading
 * fills its own output queue and never stops the switch (vhca-switch-txq.c).
 */
static void sw_cable_in(SwPort *p, int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    p->fd = fd;
    p->rx_len = 0;
    if (p->isl) {
        sw_isl_cable_in(p, sw_ports, sw_nports);
    }
}

/* --connect: the port's cable is a QEMU netdev with server=on; dial it. */
static void sw_dial(SwPort *p)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(p->connect_path) >= sizeof(a.sun_path)) {
        return;
    }
    strcpy(a.sun_path, p->connect_path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return;
    }
    sw_cable_in(p, fd);
    fprintf(stderr, "vhca-switch: port %d: link up (%s)\n", p->num,
            p->connect_path);
}

static void sw_accept(SwPort *p)
{
    int fd = accept(p->listen_fd, NULL, NULL);

    if (fd < 0) {
        return;
    }
    if (p->fd >= 0) {
        fprintf(stderr, "vhca-switch: port %d: second cable refused\n",
                p->num);
        close(fd);
        return;
    }
    sw_cable_in(p, fd);
    fprintf(stderr, "vhca-switch: port %d: link up\n", p->num);
}

static int sw_listen_unix(const char *dir, int num)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/port%d", dir,
                         num) >= sizeof(a.sun_path)) {
        fprintf(stderr, "vhca-switch: socket path too long\n");
        exit(1);
    }
    unlink(a.sun_path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        listen(fd, 1) < 0) {
        perror("vhca-switch: unix socket");
        exit(1);
    }
    return fd;
}

static int sw_listen_inet(int tcp_port)
{
    struct sockaddr_in a = {
        .sin_family = AF_INET,
        .sin_port = htons((uint16_t)tcp_port),
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
    };
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
                             sizeof(one)) < 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0) {
        perror("vhca-switch: inet socket");
        exit(1);
    }
    return fd;
}

/* The sooner of two poll timeouts in ms (-1: none). */
static int sw_sooner(int timeout, int64_t ms)
{
    if (ms >= 0 && (timeout < 0 || timeout > ms)) {
        return (int)ms;
    }
    return timeout;
}

int main(int argc, char **argv)
{
    struct pollfd pfd[2 * SW_MAX_PORTS + 1];
    SwArgs args = {
        .sm = {
            .embedded = true,
            .poll_ms = VHCA_SM_POLL_DEFAULT_MS,
            .poll_retries = VHCA_SM_RETRIES_DEFAULT,
            .sm_key = VHCA_SM_KEY_DEFAULT,
        },
        .guid = SW_DEFAULT_GUID,
        .name = "vhca-switch",
    };
    char control[108];
    const char *why;
    int control_fd = -1, i, n, nfds, timeout;
    bool dialing;

    sw_parse_args(argc, argv, &args);
    sw_nports = args.nports;
    sw_verbose = args.verbose;
    signal(SIGPIPE, SIG_IGN);
    sw_faults_seed(args.seed);
    sw_rules_init(args.seed);
    vhca_sa_init(&sw_sa);
    sw_node_init(sw_nports, args.sm.embedded, args.guid, args.name);
    for (i = 0; i < sw_nports; i++) {
        sw_ports[i].num = i + 1;
        sw_ports[i].fd = -1;
        sw_ports[i].isl = args.isl[i];
        sw_ports[i].txq_tail = &sw_ports[i].txq;
        sw_faults_init(&sw_ports[i]);
        sw_ports[i].rx = malloc(SW_FRAME_MAX);
        sw_ports[i].connect_path = args.connect[i];
        sw_ports[i].listen_fd = args.connect[i] ? -1
                                : args.dir ? sw_listen_unix(args.dir, i + 1)
                                : sw_listen_inet(args.tcp_base + i + 1);
    }
    if (!args.control && args.dir) {
        snprintf(control, sizeof(control), "%s/control", args.dir);
        args.control = control;
    }
    if (args.control) {
        control_fd = sw_control_listen(args.control);
    }
    if (args.capture && (why = sw_capture_start(sw_ports, sw_nports, NULL,
                                                args.capture,
                                                args.capture_filter))) {
        fprintf(stderr, "vhca-switch: --capture: %s\n", why);
        return 2;
    }
    sw_sm_init(sw_ports, sw_nports, &args.sm);
    if (!args.sm.embedded) {
        fprintf(stderr, "vhca-switch: %d ports, no embedded SM, ready\n",
                sw_nports);
    } else {
        fprintf(stderr, "vhca-switch: %d ports, SM LID %u priority %u, "
                "ready\n", sw_nports, VHCA_WIRE_SM_LID, args.sm.priority);
    }
    for (;;) {
        dialing = false;
        for (i = 0; i < sw_nports; i++) {
            if (sw_ports[i].connect_path && sw_ports[i].fd < 0) {
                if (sw_now_ms() >= sw_ports[i].down_until_ms) {
                    sw_dial(&sw_ports[i]);
                }
                dialing |= sw_ports[i].fd < 0;
            }
        }
        timeout = sw_faults_tick(sw_ports, sw_nports);
        timeout = sw_sooner(timeout, sw_trap_tick(sw_ports, sw_nports));
        timeout = sw_sooner(timeout, sw_txq_tick(sw_ports, sw_nports));
        timeout = sw_sooner(timeout, sw_sm_tick());
        if (dialing) {
            timeout = sw_sooner(timeout, SW_DIAL_MS);
        }
        for (i = 0; i < sw_nports; i++) {
            pfd[2 * i] = (struct pollfd){ sw_ports[i].listen_fd, POLLIN, 0 };
            pfd[2 * i + 1] = (struct pollfd){
                sw_ports[i].fd,
                POLLIN | (sw_txq_pending(&sw_ports[i]) ? POLLOUT : 0), 0 };
        }
        nfds = 2 * sw_nports;
        pfd[nfds++] = (struct pollfd){ control_fd, POLLIN, 0 };
        n = poll(pfd, nfds, timeout);
        if (n < 0 && errno != EINTR) {
            perror("vhca-switch: poll");
            return 1;
        }
        for (i = 0; n > 0 && i < sw_nports; i++) {
            if (pfd[2 * i].revents & POLLIN) {
                sw_accept(&sw_ports[i]);
            }
            if ((pfd[2 * i + 1].revents & POLLOUT) && sw_ports[i].fd >= 0) {
                sw_txq_drain(&sw_ports[i]);
            }
            if ((pfd[2 * i + 1].revents & ~POLLOUT) && sw_ports[i].fd >= 0) {
                sw_read(&sw_ports[i]);
            }
        }
        if (n > 0 && (pfd[nfds - 1].revents & POLLIN)) {
            sw_control_accept(control_fd, sw_ports, sw_nports);
        }
    }
}
