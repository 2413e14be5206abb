/*
 * vhca - the fabric: ports, the switch they are cabled to, and its
 * embedded subnet manager.
 *
 * Every vhca port of this QEMU process whose device has the same `fabric`
 * property is cabled to one switch.  The switch's management port is the
 * subnet manager (IBA 14.4): it has LID 1, and when a port's link comes up
 * (port state INIT, IBA 7.2 "Link states") it sweeps the fabric after a
 * short delay, gives each INIT port a LID and moves it to ACTIVE (the SM's
 * SubnSet(PortInfo) of IBA 14.4.4, done here by direct state change).
 * A port's LID is a function of its port GUID for the life of the process,
 * so a port that goes down and up, or a device that is reset, keeps it.
 * The SM's Subnet Administration state (multicast groups, RMPP transfers:
 * vhca-sa.c) belongs to the fabric too; vhca-sa-hook.c reaches it.
 *
 * With the embedded SM off (the devices' `embedded-sm` property) there is
 * no sweep, no SA and no LID 1: ports stay LinkUp/INIT until an SM in a
 * guest (opensm on any vhca port of the fabric) configures them by SMPs,
 * and the switch is one persistent VhcaSwitchNode that the same SM
 * programs (vhca-switch-sma.c, as the standalone switch); unicast then
 * follows its LinearForwardingTable, multicast its MulticastForwarding-
 * Table, through ACTIVE switch ports only (IBA 18.2.4.3).
 *
 * Fabrics are never freed: their GUID -> LID tables must outlive devices
 * (hot-unplug and replug keeps the LIDs too).  All of this runs with the
 * BQL held (MMIO, the SM timer, qom-set).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "vhca.h"
#include "vhca-sa.h"
#include "vhca-switch-sma.h"
#include "vhca-link.h"
#include "vhca-port-faults.h"
#include "vhca-transport.h"
#include "vhca-trap.h"
#include "trace.h"

#define VHCA_SM_LID             1
#define VHCA_FIRST_PORT_LID     2
#define VHCA_MAX_UNICAST_LID    0xbfff      /* IBA 4.1.3: 0xc000.. multicast */
#define VHCA_SM_SWEEP_DELAY_MS  10
#define VHCA_TRAP_TID_BASE      0x5452000000000000ull    /* the switch's */

struct VhcaFabric {
    char *name;
    QTAILQ_HEAD(, VhcaPort) ports;
    GHashTable *lid_by_guid;            /* uint64_t GUID -> LID */
    uint16_t next_lid;
    QEMUTimer *sm_timer;
    uint32_t sweeps;                    /* SMInfo:ActCount */
    VhcaSa *sa;                         /* the SM's subnet administration */
    bool sm_off;                        /* no embedded SM: sw is the switch */
    VhcaSwitchNode *sw;                 /* what an SM in a guest programmed */
    VhcaTrap trap;                      /* the switch's Trap 128 */
    VhcaPort *switch_ports[VHCA_SWITCH_MAX_PORTS + 1];  /* cabled to 1..N */
    /* The switch's PMA counters, port 0 (management) first. */
    VhcaPortCounters switch_counters[VHCA_SWITCH_MAX_PORTS + 1];
};

static GHashTable *vhca_fabrics;        /* name -> VhcaFabric */

static void vhca_fabric_sm_sweep(void *opaque);

static VhcaFabric *vhca_fabric_get(const char *name)
{
    VhcaFabric *f;

    if (!vhca_fabrics) {
        vhca_fabrics = g_hash_table_new(g_str_hash, g_str_equal);
    }
    f = g_hash_table_lookup(vhca_fabrics, name);
    if (!f) {
        f = g_new0(VhcaFabric, 1);
        f->name = g_strdup(name);
        QTAILQ_INIT(&f->ports);
        f->lid_by_guid = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                               g_free, NULL);
        f->next_lid = VHCA_FIRST_PORT_LID;
        f->sm_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, vhca_fabric_sm_sweep,
                                   f);
        f->sa = g_new(VhcaSa, 1);
        vhca_sa_init(f->sa);
        g_hash_table_insert(vhca_fabrics, f->name, f);
        trace_vhca_fabric_new(name);
    }
    return f;
}

/* The lowest switch port with no cable: the port number SMPs see. */
static uint8_t vhca_fabric_free_switch_port(VhcaFabric *f)
{
    uint8_t n;

    for (n = 1; n <= VHCA_SWITCH_MAX_PORTS; n++) {
        if (!f->switch_ports[n]) {
            return n;
        }
    }
    return 0;
}

/* The switch's external ports: up to the highest cabled one, at least 1. */
static uint8_t vhca_fabric_switch_num_ports(const VhcaFabric *f)
{
    uint8_t n = VHCA_SWITCH_MAX_PORTS;

    while (n > 1 && !f->switch_ports[n]) {
        n--;
    }
    return n;
}

/* What the switch is whoever manages it: a GUID from the fabric's name. */
static void vhca_fabric_describe_switch_init(VhcaFabric *f, VhcaSwitchNode *sw)
{
    vhca_switch_node_init(sw);
    sw->node_guid = (uint64_t)VHCA_VENDOR_OUI << 40 | 0xffull << 32 |
                    g_str_hash(f->name);
    sw->vendor_id = VHCA_VENDOR_OUI;
    snprintf((char *)sw->node_desc, sizeof(sw->node_desc),
             "vhca switch %s", f->name);
    sw->num_ports = vhca_fabric_switch_num_ports(f);
}

/*
 * A trap of the switch (no embedded SM) to the master SM its port 0
 * knows: LID-routed by its LFT to that SM's QP0, from the switch's LID.
 */
static void vhca_fabric_trap_send(void *opaque, const uint8_t *mad)
{
    VhcaFabric *f = opaque;
    VhcaSwitchNode *sw = f->sw;
    VhcaPort *sm = NULL;
    VhcaQp *qp0 = NULL;
    uint8_t out;

    trace_vhca_fabric_trap(f->name, lduw_be_p(mad + 64 + 4), sw->sm_lid,
                           f->trap.sends);
    out = vhca_switch_lft_port(sw, sw->sm_lid);
    if (out >= 1 && out <= VHCA_SWITCH_MAX_PORTS &&
        sw->ports[out].state != VHCA_PORT_DOWN) {
        sm = f->switch_ports[out];
    }
    if (sm && sm->lid == sw->sm_lid && sm->state != VHCA_PORT_DOWN &&
        vhca_is_enabled(sm->dev)) {
        qp0 = vhca_qp_by_qpn(sm->dev, sm->num, 0);
    }
    if (qp0) {
        vhca_mad_reply(sm->dev, qp0, mad, sw->lid, 0);
    }                                   /* else no route to the SM: lost */
}

/* A link changed by itself: Trap 128, if an SM configured the switch. */
static void vhca_fabric_trap_link(VhcaFabric *f)
{
    uint8_t lid[2];

    if (!f->sw->lid || !f->sw->sm_lid) {
        return;                         /* nobody to tell yet */
    }
    stw_be_p(lid, f->sw->lid);          /* LIDADDR: the switch's */
    vhca_trap_raise(&f->trap, VHCA_TRAP_TYPE_URGENT, VHCA_TRAP_LINK_STATE,
                    VHCA_TRAP_PRODUCER_SWITCH, f->sw->lid, lid, sizeof(lid));
}

/* An SMP to the switch: the SM's TrapRepress ends the repeats. */
void vhca_fabric_switch_repress(VhcaPort *port, const uint8_t *req)
{
    VhcaFabric *f = port->fabric;

    if (f && f->sm_off && vhca_trap_repress(&f->trap, req)) {
        trace_vhca_fabric_trap_repress(f->name, f->trap.tid);
    }
}

/*
 * The link of port's switch port changed (no embedded SM): the switch
 * sees it (PortStateChange for the SM's light sweep, IBA 14.2.5.4); a
 * port that trains again after having been configured goes back to INIT.
 */
static void vhca_fabric_switch_link(VhcaPort *port, uint8_t state)
{
    VhcaSwitchNode *sw = port->fabric ? port->fabric->sw : NULL;

    if (!sw || !port->fabric->sm_off ||
        sw->ports[port->switch_port].state == state) {
        return;
    }
    vhca_switch_port_state(sw, port->switch_port, state,
                           state == VHCA_PORT_DOWN ? VHCA_PHYS_POLLING
                                                   : VHCA_PHYS_LINK_UP);
    vhca_fabric_trap_link(port->fabric);
}

/*
 * The embedded SM is a property of the switch: every device on a fabric
 * must agree (the first one cabled decides while the fabric is empty).
 */
static bool vhca_fabric_set_sm(VhcaFabric *f, bool embedded_sm, Error **errp)
{
    if (!QTAILQ_EMPTY(&f->ports)) {
        if (f->sm_off == embedded_sm) {
            error_setg(errp, "vhca: fabric '%s' has embedded-sm=%s; every "
                       "device on it must have the same", f->name,
                       f->sm_off ? "off" : "on");
            return false;
        }
        return true;
    }
    f->sm_off = !embedded_sm;
    if (f->sm_off && !f->sw) {
        f->sw = g_new(VhcaSwitchNode, 1);
        vhca_fabric_describe_switch_init(f, f->sw);
        vhca_trap_init(&f->trap, VHCA_TRAP_TID_BASE, vhca_fabric_trap_send,
                       f);
    }
    return true;
}

bool vhca_fabric_attach(VhcaPort *port, const char *fabric_name,
                        bool embedded_sm, Error **errp)
{
    VhcaFabric *f = vhca_fabric_get(fabric_name);
    VhcaPort *other;

    if (!vhca_fabric_set_sm(f, embedded_sm, errp)) {
        return false;
    }

    QTAILQ_FOREACH(other, &f->ports, fabric_link) {
        if (other->guid == port->guid) {
            error_setg(errp, "vhca: port GUID 0x%016" PRIx64 " is already on "
                       "fabric '%s' (set distinct node-guid values)",
                       port->guid, fabric_name);
            return false;
        }
    }
    port->switch_port = vhca_fabric_free_switch_port(f);
    if (!port->switch_port) {
        error_setg(errp, "vhca: fabric '%s' has no free switch port (at most "
                   "%d ports)", fabric_name, VHCA_SWITCH_MAX_PORTS);
        return false;
    }
    f->switch_ports[port->switch_port] = port;
    vhca_port_trap_init(port);
    if (f->sw) {
        f->sw->num_ports = vhca_fabric_switch_num_ports(f);
    }
    QTAILQ_INSERT_TAIL(&f->ports, port, fabric_link);
    port->fabric = f;
    trace_vhca_fabric_attach(fabric_name, port->guid);
    return true;
}

void vhca_fabric_detach(VhcaPort *port)
{
    if (port->fabric) {
        QTAILQ_REMOVE(&port->fabric->ports, port, fabric_link);
        port->fabric->switch_ports[port->switch_port] = NULL;
        vhca_trap_fini(&port->trap);
        vhca_fabric_switch_link(port, VHCA_PORT_DOWN);
        port->fabric = NULL;
        port->switch_port = 0;
    }
}

/* The LID the SM gives a port GUID: the same one every time. */
static uint16_t vhca_fabric_lid(VhcaFabric *f, uint64_t guid)
{
    gpointer lid = g_hash_table_lookup(f->lid_by_guid, &guid);

    if (lid) {
        return GPOINTER_TO_UINT(lid);
    }
    if (f->next_lid > VHCA_MAX_UNICAST_LID) {
        qemu_log_mask(LOG_UNIMP, "vhca: fabric '%s' is out of LIDs\n",
                      f->name);
        return 0;
    }
    g_hash_table_insert(f->lid_by_guid, g_memdup2(&guid, sizeof(guid)),
                        GUINT_TO_POINTER(f->next_lid));
    return f->next_lid++;
}

static void vhca_fabric_schedule_sweep(VhcaFabric *f)
{
    if (!timer_pending(f->sm_timer)) {
        timer_mod(f->sm_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                               VHCA_SM_SWEEP_DELAY_MS);
    }
}

/* Asynchronous port event on EQ 0 (only while the device is enabled). */
static void vhca_port_event(VhcaPort *port, uint8_t subtype)
{
    struct vhca_eqe eqe;

    if (!vhca_is_enabled(port->dev)) {
        return;
    }
    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_PORT_EVENT;
    eqe.subtype = subtype;
    eqe.data.port.port = port->num;
    eqe.data.port.state = port->state;
    eqe.data.port.lid = cpu_to_le16(port->lid);
    trace_vhca_port_event(port->num, subtype, port->state, port->lid);
    vhca_eq0_post(port->dev, &eqe);
}

/*
 * The SM configured the port (its SubnSet(PortInfo)): the in-process SM's
 * sweep, or the switch's SM of a cabled port (vhca-link.c).
 */
void vhca_port_configure(VhcaPort *port, uint16_t lid, uint16_t sm_lid)
{
    uint16_t last_lid = port->last_lid;

    port->lid = lid;
    port->last_lid = lid;
    port->sm_lid = sm_lid;
    port->state = VHCA_PORT_ACTIVE;
    trace_vhca_port_state(port->num, port->state, port->lid);
    vhca_port_event(port, VHCA_PORT_EV_ACTIVE);
    if (last_lid && last_lid != lid) {
        vhca_port_event(port, VHCA_PORT_EV_LID_CHANGE);
    }
}

/* The SM's sweep: every port in INIT gets its LID and goes ACTIVE. */
static void vhca_fabric_sm_sweep(void *opaque)
{
    VhcaFabric *f = opaque;
    VhcaPort *port;
    uint16_t lid;

    trace_vhca_fabric_sweep(f->name);
    f->sweeps++;
    QTAILQ_FOREACH(port, &f->ports, fabric_link) {
        if (port->state != VHCA_PORT_INIT || !vhca_is_enabled(port->dev)) {
            continue;
        }
        lid = vhca_fabric_lid(f, port->guid);
        if (lid) {
            vhca_port_configure(port, lid, VHCA_SM_LID);
        }
    }
}

/* Physical link up: LinkUp/INIT until the SM has configured the port. */
static void vhca_port_go_init(VhcaPort *port)
{
    port->state = VHCA_PORT_INIT;
    port->phys_state = VHCA_PHYS_LINK_UP;
    port->lid = 0;
    port->sm_lid = 0;
    trace_vhca_port_state(port->num, port->state, port->lid);
    if (port->fabric && port->fabric->sm_off) {
        vhca_fabric_switch_link(port, VHCA_PORT_INIT);   /* opensm's turn */
    } else if (port->fabric) {
        vhca_fabric_schedule_sweep(port->fabric);
    } else if (port->link) {
        vhca_link_port_init(port);
    }
}

static void vhca_port_go_down(VhcaPort *port, bool notify)
{
    bool was_up = port->state != VHCA_PORT_DOWN;

    /* The contract: link down, device disable and reset all mean Disabled. */
    port->state = VHCA_PORT_DOWN;
    port->phys_state = VHCA_PHYS_DISABLED;
    port->lid = 0;
    port->sm_lid = 0;
    vhca_fabric_switch_link(port, VHCA_PORT_DOWN);
    if (was_up) {
        trace_vhca_port_state(port->num, port->state, port->lid);
        if (notify) {
            port->counters.link_downed++;   /* the link went, not a reset */
            vhca_port_event(port, VHCA_PORT_EV_DOWN);
        }
    }
}

/*
 * An SM's Set(PortInfo) that the port's SMA took (a cabled port whose
 * switch has no embedded SM, vhca-sma.c): the port follows it, and the
 * driver hears what a real HCA reports - PORT_ACTIVE when it goes ACTIVE,
 * LID_CHANGE and SM_CHANGE when those change, PORT_ERR when the SM takes
 * it DOWN, and last CLIENT_REREGISTER when the Set had ClientReregister
 * (IBA 14.4.11: a new master lost the subscriptions, so ib_sa and IPoIB
 * join their multicast groups again) - so that ib_core's cache, ib_sa and
 * IPoIB follow.
 */
void vhca_port_sm_set(VhcaPort *port, const VhcaSmaPort *want)
{
    bool lid_changed = want->lid != port->lid;
    bool sm_changed = want->sm_lid != port->sm_lid ||
                      want->conf.sm_sl != port->sm_conf.sm_sl;
    uint8_t old = port->state;

    port->sm_conf = want->conf;
    if (old == VHCA_PORT_DOWN) {
        return;                     /* the link went while the SMP ran */
    }
    if (want->state == VHCA_PORT_DOWN) {
        /* IBA 7.2: the link goes down and trains again, to INIT */
        vhca_port_go_down(port, true);
        if (port->link_up) {
            vhca_port_go_init(port);
        }
        return;
    }
    port->lid = want->lid;
    port->last_lid = want->lid ? want->lid : port->last_lid;
    port->sm_lid = want->sm_lid;
    port->state = want->state;
    if (port->state != old || lid_changed) {
        trace_vhca_port_state(port->num, port->state, port->lid);
    }
    if (port->state == VHCA_PORT_ACTIVE && old != VHCA_PORT_ACTIVE) {
        /* ib_core reads the whole port again */
        vhca_port_event(port, VHCA_PORT_EV_ACTIVE);
    } else {
        if (lid_changed) {
            vhca_port_event(port, VHCA_PORT_EV_LID_CHANGE);
        }
        if (sm_changed) {
            vhca_port_event(port, VHCA_PORT_EV_SM_CHANGE);
        }
    }
    if (want->client_rereg) {
        trace_vhca_port_client_rereg(port->num, port->state, port->lid);
        vhca_port_event(port, VHCA_PORT_EV_CLIENT_REREGISTER);
    }
}

static bool vhca_port_exists(const VhcaPort *port)
{
    return (port->fabric || port->link) && port->num <= port->dev->num_ports;
}

/* portN-link from the monitor. */
void vhca_port_set_link(VhcaPort *port, bool up)
{
    trace_vhca_port_link(port->num, up);
    port->link_up = up;
    if (!vhca_port_exists(port)) {
        return;
    }
    if (!vhca_is_enabled(port->dev)) {
        return;     /* takes effect at ENABLE */
    }
    if (up && port->state == VHCA_PORT_DOWN) {
        vhca_port_go_init(port);
    } else if (!up) {
        vhca_port_go_down(port, true);
    }
}

/*
 * A cabled port's cable (vhca-link.c): the netdev lost or regained its
 * connection to the switch.  Down: DOWN with a PORT_DOWN event; up again:
 * INIT, and the switch's SM makes it ACTIVE.  portN-link still rules.
 */
void vhca_port_carrier(VhcaPort *port, bool up)
{
    if (!vhca_port_exists(port) || !vhca_is_enabled(port->dev)) {
        return;
    }
    if (!up) {
        vhca_port_faults_flush(port);
        vhca_port_go_down(port, true);
    } else if (port->link_up && port->state == VHCA_PORT_DOWN) {
        vhca_port_go_init(port);
    }
}

/* The device went live: ports with a link start link training. */
void vhca_ports_enable(VhcaState *s)
{
    int i;

    for (i = 0; i < s->num_ports; i++) {
        if (s->ports[i].link_up && vhca_port_exists(&s->ports[i])) {
            vhca_port_go_init(&s->ports[i]);
        }
    }
}

/* Reset or fatal error: ports go down without events. */
void vhca_ports_disable(VhcaState *s)
{
    int i;

    for (i = 0; i < s->num_ports; i++) {
        vhca_port_go_down(&s->ports[i], false);
    }
}

void vhca_port_attr(const VhcaPort *port, struct vhca_port_attr *attr)
{
    memset(attr, 0, sizeof(*attr));
    attr->state = port->state;
    attr->phys_state = port->phys_state;
    attr->max_mtu = VHCA_MTU_4096;
    attr->active_mtu = VHCA_MTU_4096;
    attr->lid = cpu_to_le16(port->lid);
    attr->sm_lid = cpu_to_le16(port->sm_lid);
    attr->lmc = 0;
    attr->sm_sl = port->sm_conf.sm_sl;
    attr->active_width = VHCA_WIDTH_4X;
    attr->active_speed = VHCA_SPEED_QDR;
    attr->port_cap_flags = cpu_to_le32(port->cap_mask);
    attr->max_msg_sz = cpu_to_le32(VHCA_MAX_MSG_SZ);
    attr->gid_tbl_len = cpu_to_le16(VHCA_GID_TABLE_LEN);
    attr->pkey_tbl_len = cpu_to_le16(VHCA_PKEY_TABLE_LEN);
    attr->subnet_timeout = port->sm_conf.subnet_timeout;
    attr->max_vl_num = 1;
    attr->subnet_prefix = cpu_to_le64(VHCA_GID_PREFIX_DEFAULT);
    attr->port_guid = cpu_to_le64(port->guid);
}

/* GID[0] is the link-local GID: fe80::/64 + port GUID (IBA 4.1.1). */
void vhca_port_gid(const VhcaPort *port, uint32_t index, struct vhca_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    if (index == 0) {
        stq_be_p(&gid->raw[0], VHCA_GID_PREFIX_DEFAULT);
        stq_be_p(&gid->raw[8], port->guid);
    }
}

static bool vhca_fabric_port_up(const VhcaPort *port)
{
    return port->state == VHCA_PORT_ACTIVE && vhca_is_enabled(port->dev);
}

/*
 * No embedded SM: the switch forwards dlid by the LFT an SM wrote, out of
 * an ACTIVE switch port, into an ACTIVE CA port whose LID it is (IBA
 * 18.2.4.3; a CA drops a packet for another LID).  The in-port must be
 * ACTIVE too.  A packet for the sender's own LID never leaves its HCA.
 */
static VhcaPort *vhca_fabric_lft_route(VhcaPort *src, uint16_t dlid)
{
    VhcaSwitchNode *sw = src->fabric->sw;
    uint8_t out;
    VhcaPort *port;

    if (dlid == src->lid) {
        return vhca_is_enabled(src->dev) ? src : NULL;
    }
    out = vhca_switch_lft_port(sw, dlid);
    if (out < 1 || out > VHCA_SWITCH_MAX_PORTS ||
        sw->ports[src->switch_port].state != VHCA_PORT_ACTIVE ||
        sw->ports[out].state != VHCA_PORT_ACTIVE) {
        trace_vhca_fabric_no_route(src->fabric->name, dlid, out);
        return NULL;
    }
    port = src->fabric->switch_ports[out];
    return port && port->lid == dlid && vhca_fabric_port_up(port) ? port
                                                                  : NULL;
}

/*
 * Routing (IBA 18.2.4.3, a switch forwarding on the DLID): the ACTIVE port
 * of an enabled device on src's fabric whose LID is dlid, or NULL.  The
 * source port must itself be ACTIVE.  Multicast LIDs are not routed.
 */
VhcaPort *vhca_fabric_route(VhcaPort *src, uint16_t dlid)
{
    VhcaPort *port;

    if (!src->fabric || src->state != VHCA_PORT_ACTIVE || dlid == 0 ||
        dlid > VHCA_MAX_UNICAST_LID) {
        return NULL;
    }
    if (src->fabric->sm_off) {
        return vhca_fabric_lft_route(src, dlid);
    }
    QTAILQ_FOREACH(port, &src->fabric->ports, fabric_link) {
        if (port->lid == dlid && vhca_fabric_port_up(port)) {
            return port;
        }
    }
    return NULL;
}

/* Every ACTIVE port of an enabled device on port's fabric (the SA's). */
void vhca_fabric_foreach_active(VhcaPort *src, VhcaPortFn fn, void *opaque)
{
    VhcaPort *port;

    if (!src->fabric || src->state != VHCA_PORT_ACTIVE) {
        return;
    }
    QTAILQ_FOREACH(port, &src->fabric->ports, fabric_link) {
        if (vhca_fabric_port_up(port)) {
            fn(port, opaque);
        }
    }
}

/*
 * The ports a multicast packet to mlid from src reaches: the sender's own
 * (the HCA's loopback) and, with the embedded SM, every other ACTIVE port
 * (each device's attachments filter); without it, the ports of the MFT
 * entry an SM wrote for mlid, but the one it came in on (IBA 18.2.4.3.3).
 */
void vhca_fabric_foreach_mcast(VhcaPort *src, uint16_t mlid, VhcaPortFn fn,
                               void *opaque)
{
    VhcaSwitchNode *sw;
    VhcaPort *port;
    uint8_t n;

    if (!src->fabric || !src->fabric->sm_off) {
        vhca_fabric_foreach_active(src, fn, opaque);
        return;
    }
    sw = src->fabric->sw;
    if (src->state != VHCA_PORT_ACTIVE) {
        return;
    }
    fn(src, opaque);
    if (sw->ports[src->switch_port].state != VHCA_PORT_ACTIVE) {
        return;
    }
    for (n = 1; n <= VHCA_SWITCH_MAX_PORTS; n++) {
        port = src->fabric->switch_ports[n];
        if (port && port != src && vhca_switch_mft_has(sw, mlid, n) &&
            sw->ports[n].state == VHCA_PORT_ACTIVE &&
            vhca_fabric_port_up(port)) {
            fn(port, opaque);
        }
    }
}

/* The SA (vhca-sa.c) of port's fabric, or NULL. */
VhcaSa *vhca_fabric_sa(VhcaPort *port)
{
    return port->fabric && !port->fabric->sm_off ? port->fabric->sa : NULL;
}

/* The CA port cabled to switch port n, if any. */
VhcaPort *vhca_fabric_switch_port(VhcaPort *port, uint8_t n)
{
    if (!port->fabric || n < 1 || n > VHCA_SWITCH_MAX_PORTS) {
        return NULL;
    }
    return port->fabric->switch_ports[n];
}

/*
 * The switch of port's fabric as its SMA describes it (vhca-switch-sma.h):
 * with the embedded SM, a description made for each SMP from the ports'
 * states and LIDs (scratch); without it, the one switch state that an SM
 * in a guest programs (its Sets change it) and that forwards.
 */
VhcaSwitchNode *vhca_fabric_switch_node(VhcaPort *port,
                                        VhcaSwitchNode *scratch)
{
    VhcaFabric *f = port->fabric;
    VhcaPort *peer;
    int n;

    if (f->sm_off) {
        return f->sw;
    }
    vhca_fabric_describe_switch_init(f, scratch);
    scratch->embedded_sm = true;
    scratch->lid = VHCA_SM_LID;
    scratch->sm_lid = VHCA_SM_LID;
    scratch->sm_act_count = f->sweeps;
    vhca_switch_lft_route(scratch, scratch->lid, 0);
    for (n = 1; n <= VHCA_SWITCH_MAX_PORTS; n++) {
        peer = f->switch_ports[n];
        scratch->ports[n].state = peer ? MAX(peer->state, VHCA_PORT_DOWN)
                                       : VHCA_PORT_DOWN;
        scratch->ports[n].phys_state = peer && peer->state != VHCA_PORT_DOWN ?
                                       VHCA_PHYS_LINK_UP : VHCA_PHYS_POLLING;
        if (peer) {
            vhca_switch_lft_route(scratch, peer->lid, n);   /* SM's routes */
        }
    }
    return scratch;
}

/*
 * The LID of the switch's port 0, where its SMA, its PMA and (embedded
 * SM) the SM and SA are: 1, or what an SM set (0: none yet).
 */
uint16_t vhca_fabric_switch_lid(VhcaPort *port)
{
    if (!port->fabric) {
        return 0;
    }
    return port->fabric->sm_off ? port->fabric->sw->lid : VHCA_SM_LID;
}

/* Does an SM in a guest configure port (its SMA takes Set)? */
bool vhca_fabric_sm_off(const VhcaPort *port)
{
    return port->fabric && port->fabric->sm_off;
}

/* The counters of the switch port port is cabled to, if any. */
VhcaPortCounters *vhca_fabric_switch_counters(VhcaPort *port)
{
    return port->fabric ? &port->fabric->switch_counters[port->switch_port]
                        : NULL;
}

/*
 * The switch's counters for its PMA, port 0 first, up to the highest
 * cabled port: how many.
 */
uint8_t vhca_fabric_switch_counters_all(VhcaPort *port,
                                        VhcaPortCounters **out)
{
    uint8_t num_ports = vhca_fabric_switch_num_ports(port->fabric);
    int n;

    for (n = 0; n <= num_ports; n++) {
        out[n] = &port->fabric->switch_counters[n];
    }
    return num_ports + 1;
}
