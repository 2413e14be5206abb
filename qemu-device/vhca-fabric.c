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
 * vhca-sa.c) belongs to the fabric too; vhca-sa-hook.c reaches it.  The
 * switch itself (its description, the state a guest's SM programs, its
 * traps and counters) is vhca-fabric-switch.c.
 *
 * With the embedded SM off (the devices' `embedded-sm` property) there is
 * no sweep, no SA and no LID 1: ports stay LinkUp/INIT until an SM in a
 * guest (opensm on any vhca port of the fabric) configures them by SMPs,
 * and the switch is one persistent VhcaSwitchNode that the same SM
 * programs (vhca-switch-sma.c, as the standalone switch); unicast then
 * follows its LinearForwardingTable, multicast its MulticastForwarding-
 * Table, through ACTIVE switch ports only (IBA 18.2.4.3).
 *
 * With both on, the embedded SM and an SM in a guest decide the master by
 * SMInfo (IBA 14.4, vhca-fabric-sm.c): while the embedded SM is MASTER
 * the fabric works as above; while it is not, as with it off (the switch
 * keeps the routes the embedded SM had until the new master rewrites
 * them), and it takes the subnet back by HANDOVER or when the master stops
 * answering its polls: a sweep then configures every port again with
 * ClientReregister (IBA 14.4.11).
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
#include "vhca-fabric-priv.h"
#include "vhca-link.h"
#include "vhca-port-faults.h"
#include "vhca-transport.h"
#include "vhca-trap.h"
#include "trace.h"

#define VHCA_FIRST_PORT_LID     2
#define VHCA_SM_SWEEP_DELAY_MS  10

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
        /* the switch's port 0 GUID, its SM's too: from the fabric's name */
        f->sm_guid = (uint64_t)VHCA_VENDOR_OUI << 40 | 0xffull << 32 |
                     g_str_hash(name);
        g_hash_table_insert(vhca_fabrics, f->name, f);
        trace_vhca_fabric_new(name);
    }
    return f;
}

/*
 * The embedded SM is a property of the switch: every device on a fabric
 * must agree (the first one cabled decides while the fabric is empty).
 */
static bool vhca_fabric_set_sm(VhcaFabric *f, const VhcaFabricSmConf *conf,
                               Error **errp)
{
    bool first = QTAILQ_EMPTY(&f->ports);

    if (!vhca_fabric_sm_configure(f, conf, first, errp)) {
        return false;
    }
    if (first && f->sm_off) {
        vhca_fabric_switch_create(f);
    }
    return true;
}

bool vhca_fabric_attach(VhcaPort *port, const char *fabric_name,
                        const VhcaFabricSmConf *sm, Error **errp)
{
    VhcaFabric *f = vhca_fabric_get(fabric_name);
    VhcaPort *other;

    if (!vhca_fabric_set_sm(f, sm, errp)) {
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

void vhca_fabric_schedule_sweep(VhcaFabric *f)
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

/*
 * A master new to the subnet (it took it over, or was handed it) sets
 * every port again: its LID, itself as MasterSMLID, ACTIVE, and
 * ClientReregister, since the subscriptions were the old master's SA's
 * (IBA 14.4.11): ib_sa and IPoIB join again here.
 */
void vhca_port_reconfigure(VhcaPort *port, uint16_t lid, uint16_t sm_lid)
{
    VhcaSmaPort want = {
        .state = VHCA_PORT_ACTIVE,
        .lid = lid,
        .sm_lid = sm_lid,
        .client_rereg = true,
        .conf = port->sm_conf,
    };

    vhca_port_sm_set(port, &want);
}

/*
 * The SM's sweep: every port in INIT gets its LID and goes ACTIVE (and
 * after a takeover every live port, vhca_port_reconfigure).
 */
static void vhca_fabric_sm_sweep(void *opaque)
{
    VhcaFabric *f = opaque;
    VhcaPort *port;
    bool rereg = f->sm_rereg;
    uint16_t lid;

    if (vhca_fabric_guest_managed(f)) {
        return;                         /* it stepped down meanwhile */
    }
    trace_vhca_fabric_sweep(f->name);
    f->arb.act_count++;
    f->sm_rereg = false;
    QTAILQ_FOREACH(port, &f->ports, fabric_link) {
        if (port->state == VHCA_PORT_DOWN || !vhca_is_enabled(port->dev) ||
            (port->state != VHCA_PORT_INIT && !rereg)) {
            continue;
        }
        lid = vhca_fabric_lid(f, port->guid);
        if (lid && rereg) {
            vhca_port_reconfigure(port, lid, VHCA_WIRE_SM_LID);
        } else if (lid) {
            vhca_port_configure(port, lid, VHCA_WIRE_SM_LID);
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
    if (port->fabric && vhca_fabric_guest_managed(port->fabric)) {
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
    bool linked = port->state >= VHCA_PORT_INIT &&
                  port->state <= VHCA_PORT_ACTIVE;

    /* The contract: link down, device disable and reset all mean Disabled. */
    port->state = VHCA_PORT_DOWN;
    port->phys_state = VHCA_PHYS_DISABLED;
    port->lid = 0;
    port->sm_lid = 0;
    /* the switch's end of the link goes down too (IBA 7.2) */
    vhca_fabric_switch_link(port, VHCA_PORT_DOWN);
    if (port->link && linked) {
        vhca_link_port_down(port);
    }
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
    if (vhca_fabric_guest_managed(src->fabric)) {
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

    if (!src->fabric || !vhca_fabric_guest_managed(src->fabric)) {
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
    return port->fabric && !vhca_fabric_guest_managed(port->fabric) ?
           port->fabric->sa : NULL;
}

/*
 * Does an SM in a guest configure port (its SMA takes Set, it sends
 * Trap 144)?  With no embedded SM, or while that one is not MASTER.
 */
bool vhca_fabric_sm_off(const VhcaPort *port)
{
    return port->fabric && vhca_fabric_guest_managed(port->fabric);
}
