/*
 * vhca - the device's properties (-device vhca,...), their checks at
 * realize, and what each one means (Documentation/device.md "Properties"
 * says the same for users).  Properties settable at run time are QOM
 * properties of the files that own them (rc-drop-*: vhca-rc.c, portN-*:
 * vhca-port-faults.c and vhca-port-capture.c, fault-rules:
 * vhca-port-fault-rules.c, portN-link: vhca.c).
 *
 * Usage: -device vhca[,id=ID][,ports=N][,node-guid=G][,fabric=NAME]
 *                    [,embedded-sm=on|off]
 *                    [,sm-priority=P][,sm-poll-ms=MS][,sm-poll-retries=N]
 *                    [,sm-key=K]
 *                    [,comp-vectors=N][,doorbell-pages=N][,dm-size=BYTES]
 *                    [,rc-drop-request=N][,rc-drop-response=N]
 *                    [,port1-netdev=NETDEV][,port2-netdev=NETDEV]
 *                    [,portN-loss=PCT][,portN-dup=PCT][,portN-reorder=PCT]
 *                    [,portN-corrupt=PCT][,portN-delay-ms=MS]
 *                    [,portN-capture=FILE][,portN-capture-filter=FILTER]
 *                    [,sq-poll=on|off][,sq-poll-window=MICROSECONDS]
 *                    [,tag-matching=on|off][,rc-window=N]
 *
 * Properties:
 *   ports          (uint8, 1..2, default 1) number of IB ports.
 *   node-guid      (uint64, default 0) node GUID; 0 picks one that is unique
 *                  in this process (OUI 52:54:00, the process id, a counter).
 *                  Port n's GUID is node-guid + n.
 *   fabric         (string, default "default") every vhca port of this QEMU
 *                  process with the same fabric name is cabled to one switch
 *                  with an embedded subnet manager (vhca-fabric.c).
 *   embedded-sm    (bool, default true) that switch's subnet manager (and
 *                  SA) runs; off, the ports stay INIT until an SM in the
 *                  guest (opensm on a vhca port) configures them and the
 *                  switch by SMPs.  Every device on a fabric must agree.
 *   sm-priority    (uint8, 0..15, default 0) that SM's SMInfo:Priority.  An
 *                  SM in a guest (opensm) that outranks it (IBA 14.4.1.1:
 *                  higher priority, then lower GUID) gets the subnet by
 *                  HANDOVER; one it outranks stays STANDBY.
 *   sm-poll-ms     (uint32, 100..600000, default 10000) while STANDBY it
 *                  polls the master's SMInfo this often (virtual clock) ...
 *   sm-poll-retries (uint8, default 4) ... and takes the subnet over when
 *                  more polls than this went unanswered (opensm's
 *                  sminfo_polling_timeout and polling_retry_number).
 *   sm-key         (uint64, default 1: opensm's default sm_key) that SM's
 *                  SMInfo:SM_Key; SMs of one subnet share it (opensm
 *                  ignores an SM whose SMInfo shows another key).
 *                  Every device on a fabric must agree on all four.
 *   comp-vectors   (uint8, 1..32, default 2) completion MSI-X vectors; the
 *                  device has 1 + comp-vectors vectors, vector 0 is EQ 0's.
 *   doorbell-pages (uint32, 1..4096, default 16) 4 KiB doorbell pages in
 *                  BAR 4; page 0 is the kernel driver's.
 *   dm-size        (uint32, 0..16 MiB in 4 KiB multiples, default 256 KiB)
 *                  bytes of device memory (ibv_alloc_dm) in BAR 3
 *                  (vhca-dm.c); 0: no BAR 3 and no device memory.
 *   port1-link, port2-link
 *                  (bool, default true, settable at run time with qom-set)
 *                  the port's physical link: false takes the port DOWN,
 *                  true brings it back up through INIT to ACTIVE.
 *   rc-drop-request, rc-drop-response
 *                  (uint32, default 0 = never) a lossy fabric for tests:
 *                  every Nth RC request this device sends is lost, and
 *                  every Nth answer (ACK/NAK/READ response) to its requests
 *                  (vhca-rc.c); the RC transport retries recover.
 *                  In-process traffic only.
 *   port1-netdev, port2-netdev
 *                  (netdev id, default none) cable the port out of this
 *                  process through that QEMU netdev, to the standalone
 *                  switch (vhca-link.c, Documentation/fabric.md); the port
 *                  is then on no in-process fabric.
 *   portN-loss, portN-dup, portN-reorder, portN-corrupt, portN-delay-ms
 *                  (uint32, default 0, settable at run time with qom-set)
 *                  faults of a cabled port's link, in percent of its data
 *                  frames, and an added delay (vhca-port-faults.c);
 *                  portN-fault-stats (string, read only) counts them.
 *   portN-capture, portN-capture-filter
 *                  (string, default "", settable at run time) a pcapng file
 *                  of a cabled port's packets and what the next capture
 *                  keeps (vhca-port-capture.c); portN-capture-stats (string,
 *                  read only) counts them.
 *   fault-rules, fault-trace
 *                  (string, run time only) fault rules per packet on any
 *                  port, in-process or cabled: add RULE, del ID, clear,
 *                  seed N; read back the rules and what they did
 *                  (vhca-port-fault-rules.c).
 *   sq-poll        (bool, default off) a thread polls the send doorbell
 *                  records of the QPs for sq-poll-window microseconds
 *                  (1..60000000, default 100) after activity, so that a busy
 *                  QP posts with memory writes only; QUERY_DEVICE then
 *                  has VHCA_DEV_CAP_SQ_POLL (vhca-sqpoll.c).
 *   tag-matching   (bool, default on) QUERY_DEVICE has
 *                  VHCA_DEV_CAP_TAG_MATCHING and CREATE_SRQ takes
 *                  VHCA_SRQ_F_TM (vhca-tm.c); off refuses them.
 *   rc-window      (uint32, 1..64, default 1) how many requests an RC or
 *                  XRC initiator QP on a cabled port keeps in flight
 *                  (vhca-rc-window.c, the one RC requester across the
 *                  wire: at most 4 MiB of them, READ/atomics also by
 *                  max_rd_atomic); 1, one request at a time waits for its
 *                  answer.  1 by default until a stall seen once in `make
 *                  check-fabric` with a deeper window is explained
 *                  (Documentation/fabric.md "RC over the wire"); `make
 *                  check-fabric-rcwin` runs the fabric tier with 64.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "vhca.h"
#include "vhca-sm-arbiter.h"

static const Property vhca_properties[] = {
    DEFINE_PROP_UINT8("ports", VhcaState, num_ports, 1),
    DEFINE_PROP_UINT64("node-guid", VhcaState, node_guid_prop, 0),
    DEFINE_PROP_STRING("fabric", VhcaState, fabric_name),
    DEFINE_PROP_BOOL("embedded-sm", VhcaState, sm_conf.embedded, true),
    DEFINE_PROP_UINT8("sm-priority", VhcaState, sm_conf.priority, 0),
    DEFINE_PROP_UINT32("sm-poll-ms", VhcaState, sm_conf.poll_ms,
                       VHCA_SM_POLL_DEFAULT_MS),
    DEFINE_PROP_UINT8("sm-poll-retries", VhcaState, sm_conf.poll_retries,
                      VHCA_SM_RETRIES_DEFAULT),
    DEFINE_PROP_UINT64("sm-key", VhcaState, sm_conf.sm_key,
                       VHCA_SM_KEY_DEFAULT),
    DEFINE_PROP_UINT8("comp-vectors", VhcaState, comp_vectors, 2),
    DEFINE_PROP_UINT32("doorbell-pages", VhcaState, db_pages, 16),
    DEFINE_PROP_UINT32("dm-size", VhcaState, dm_size, VHCA_DEFAULT_DM_SIZE),
    DEFINE_PROP_NETDEV("port1-netdev", VhcaState, port_nic[0].peers),
    DEFINE_PROP_NETDEV("port2-netdev", VhcaState, port_nic[1].peers),
    DEFINE_PROP_BOOL("sq-poll", VhcaState, sq_poll, false),
    DEFINE_PROP_BOOL("tag-matching", VhcaState, tag_matching, true),
    DEFINE_PROP_UINT32("sq-poll-window", VhcaState, sq_poll_window_us, 100),
    DEFINE_PROP_UINT32("rc-window", VhcaState, rc_window, 1),
};

void vhca_props_class_init(DeviceClass *dc)
{
    device_class_set_props(dc, vhca_properties);
}

/* At realize: each property in its range, the fabric's name set. */
bool vhca_check_properties(VhcaState *s, Error **errp)
{
    if (s->num_ports < 1 || s->num_ports > VHCA_MAX_PORTS) {
        error_setg(errp, "vhca: ports must be 1..%d", VHCA_MAX_PORTS);
        return false;
    }
    if (s->comp_vectors < 1 || s->comp_vectors > VHCA_MAX_COMP_VECTORS) {
        error_setg(errp, "vhca: comp-vectors must be 1..%d",
                   VHCA_MAX_COMP_VECTORS);
        return false;
    }
    if (s->db_pages < 1 || s->db_pages > VHCA_MAX_DB_PAGES) {
        error_setg(errp, "vhca: doorbell-pages must be 1..%d",
                   VHCA_MAX_DB_PAGES);
        return false;
    }
    if (s->sq_poll_window_us < 1 || s->sq_poll_window_us > 60000000) {
        error_setg(errp, "vhca: sq-poll-window must be 1..60000000 (us)");
        return false;
    }
    if (s->rc_window < 1 || s->rc_window > VHCA_RC_WINDOW) {
        error_setg(errp, "vhca: rc-window must be 1..%d", VHCA_RC_WINDOW);
        return false;
    }
    if (!vhca_dm_check_property(s, errp)) {
        return false;
    }
    if (!s->fabric_name) {
        s->fabric_name = g_strdup("default");
    }
    if (!*s->fabric_name) {
        error_setg(errp, "vhca: fabric must be a non-empty name");
        return false;
    }
    return true;
}
