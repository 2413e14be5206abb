/*
 * vhca-switch - what the switch's files (tools/vhca-switch*.c) share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_SWITCH_H
#define VHCA_SWITCH_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-wire.h"
#include "vhca-pma.h"
#include "vhca-switch-sma.h"
#include "vhca-link-faults.h"

#define SW_MAX_PORTS        32          /* = VHCA_SA_MAX_PORTS */
#define SW_DEFAULT_GUID     0x525400ff00000001ull   /* 52:54:00: no vendor */
/* The switch's node GUID (--guid), also its port 0's port GUID. */
#define SW_NODE_GUID        (sw_node.node_guid)
/* IBA C14-6: hop counts 0..63; path[0] unused, path[1..63] the hops. */
#define VHCA_SMP_MAX_HOPS   63

/* A frame waiting in a port's output queue (vhca-switch-txq.c). */
typedef struct SwTxFrame SwTxFrame;

typedef struct SwPort {
    int num;                    /* 1..nports */
    int listen_fd;              /* -1 with connect_path */
    const char *connect_path;   /* --connect: dial this netdev's socket */
    int fd;                     /* -1: no cable */
    bool isl;                   /* --isl: the peer is a switch */
    uint32_t rx_len;            /* bytes in rx */
    uint8_t *rx;
    bool hello;                 /* a HELLO was seen on this connection */
    VhcaWireHello node;
    uint16_t lid;               /* 0 until the SM assigned one */
    uint64_t rx_frames, tx_frames, drops;
    VhcaPortCounters counters;  /* the switch PMA's (vhca-switch-smp.c) */
    /* link faults (fabric/vhca-link-faults.c, set by
     * vhca-switch-faults.c's control socket) */
    VhcaFaultLink faults;
    int64_t down_until_ms;      /* flapped: no dialing before this */
    uint64_t flaps;
    /* the output queue: frames the socket did not take yet */
    SwTxFrame *txq, **txq_tail;
    uint32_t txq_bytes;
    /* the pcapng capture of this port, or NULL (vhca-switch-capture.c) */
    struct VhcaCapture *capture;
    unsigned capture_if;        /* its interface in that file */
} SwPort;

/* vhca-switch-smp.c: the switch's state, its SMA's and its tables. */
extern VhcaSwitchNode sw_node;
/* guid: its node GUID; name: its NodeDescription. */
void sw_node_init(int nports, bool embedded_sm, uint64_t guid,
                  const char *name);
void sw_node_link_up(SwPort *p);
void sw_node_link_down(SwPort *p);
/*
 * vhca-switch-sm.c: the embedded SM (with --embedded-sm on): its LIDs
 * and its part in SMInfo arbitration beside SMs in guests.
 */
void sw_sm_init(SwPort *ports, int nports, const VhcaFabricSmConf *conf);
/* Is the embedded SM MASTER (it assigns, its SA answers)? */
bool sw_sm_manages(void);
/* The LID of a port GUID (0: none left). */
uint16_t sw_lid_of(uint64_t guid, int port_num);
/* Its timer: ms until it wants to run again (-1: never). */
int sw_sm_tick(void);
/* An SMP to port 0 for the SM (SMInfo, its PortInfo looks), or NOT_MINE. */
VhcaSmaAction sw_sm_smp(SwPort *in, const uint8_t *smp, bool dr,
                        uint8_t *resp, uint16_t *status);
/* vhca-switch.c: the SM gives port p its LID and ACTIVE (a LINK frame). */
void sw_sm_configure_port(SwPort *p, bool rereg);
/* ... and programs the MFT from its SA's groups. */
void sw_sm_program_mft(void);
/* With --verbose: what the switch drops or is told, on stderr. */
void sw_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * vhca-switch-txq.c: write one frame out of port p (its stream length
 * first), now or from p's output queue; never blocks.
 */
void sw_send(SwPort *p, const uint8_t *frame, uint32_t len);
/* Frames wait in p's queue: poll for POLLOUT and call sw_txq_drain. */
bool sw_txq_pending(const SwPort *p);
/* Write what p's socket takes; discard what outlived the switch lifetime. */
void sw_txq_drain(SwPort *p);
/*
 * Discard what outlived the switch lifetime in every port's queue; ms
 * until the next frame would (-1: none waits, or no lifetime).
 */
int sw_txq_tick(SwPort *ports, int nports);
/* The connection is gone: the queue with it. */
void sw_txq_clear(SwPort *p);

/* A frame the switch itself sends out of port p. */
void sw_send_frame(SwPort *p, VhcaWireFrame *f, const uint8_t *payload,
                   uint32_t payload_len);
/*
 * vhca-switch-smp.c: an SMI datagram the switch takes (its SMA, the SM's
 * SMInfo, a directed route through it); false: forward it by DLID.
 */
bool sw_smp(SwPort *in, SwPort *ports, int nports, const VhcaWireFrame *f);
/* A frame in port p's counters (rx: it came in, else it went out). */
void sw_count(SwPort *p, const VhcaWireFrame *f, bool rx);
/* An SMP the switch sends (port 0's QP0, its LID) out of port p to dlid. */
void sw_send_smp(SwPort *p, uint16_t dlid, const uint8_t *mad);
/* A PerfMgt request to LID 1: the switch's PMA answers (true). */
bool sw_pma(SwPort *in, SwPort *ports, int nports, const VhcaWireFrame *f);

/*
 * vhca-switch-rules.c: fault rules per packet.  The engine seeded; the
 * control socket's "rule ..." (the answer malloc'd); a data frame that
 * came in by p (false: the rules took it) or leaves by p (true: they did).
 */
void sw_rules_init(uint64_t seed);
char *sw_rules_command(SwPort *ports, int nports, const char *args);
bool sw_rules_ingress(SwPort *p, const VhcaWireFrame *f);
bool sw_rules_egress(SwPort *p, const uint8_t *frame, uint32_t len);
/* vhca-switch-faults.c: pull p's cable for ms (NULL, or why not). */
const char *sw_flap(SwPort *p, unsigned ms);

/* vhca-switch-faults.c: a forwarded frame leaves through p's link. */
void sw_egress(SwPort *p, const uint8_t *frame, uint32_t len);
void sw_faults_seed(uint64_t seed);
/* Port p's link, its generator seeded from sw_faults_seed's seed. */
void sw_faults_init(SwPort *p);
/* Milliseconds on a monotonic clock. */
int64_t sw_now_ms(void);
/* Send the delayed frames that are due; ms until the next one (-1: none). */
int sw_faults_tick(SwPort *ports, int nports);
/* A link goes down (the cable is pulled): what waits on it is lost. */
void sw_faults_link_down(SwPort *p);
/* The switch closes a port's connection (vhca-switch.c). */
void sw_disconnect(SwPort *p, const char *why);
/*
 * vhca-switch-trap.c: Trap 128 to the master SM when a link changed (with
 * the embedded SM off); an SMP to the switch that is its TrapRepress
 * (true); the repeats that are due, ms until the next (-1: none).
 */
void sw_trap_link_changed(SwPort *ports, int nports);
bool sw_trap_repress(const uint8_t *smp);
int sw_trap_tick(SwPort *ports, int nports);
/*
 * vhca-switch-capture.c: port p's capture (NULL p: every port, one file)
 * into path with a filter ("" none); NULL or what is wrong.  rx: a frame
 * came in by p; tx: one leaves by it (only called while p->capture).
 */
const char *sw_capture_start(SwPort *ports, int nports, SwPort *p,
                             const char *path, const char *filter);
void sw_capture_off(SwPort *ports, int nports, SwPort *p);
void sw_capture_rx(SwPort *p, const VhcaWireFrame *f);
void sw_capture_tx(SwPort *p, const uint8_t *frame, uint32_t len);
/* "capture FILE [FILTER]" or "capture off" of the control socket: the
 * answer into out. */
void sw_capture_command(SwPort *ports, int nports, SwPort *p,
                        const char *args, char *out, size_t size);
/*
 * vhca-switch-cable.c: an inter-switch cable (--isl) is in: the link
 * trains; "link N down|up" of the control socket: the answer into out.
 */
void sw_isl_cable_in(SwPort *p, SwPort *ports, int nports);
void sw_link_command(const char *line, SwPort *ports, int nports, char *out,
                     size_t size);
/* DIR/control: one text command per connection (fabric.md). */
int sw_control_listen(const char *path);
void sw_control_accept(int listen_fd, SwPort *ports, int nports);

/* The switch's command line (vhca-switch-args.c). */
typedef struct SwArgs {
    const char *connect[SW_MAX_PORTS];
    const char *dir;
    const char *control;
    const char *capture, *capture_filter;
    const char *name;
    uint64_t guid;
    bool isl[SW_MAX_PORTS], any_isl;
    int tcp_base;
    uint64_t seed;
    int nports;
    bool verbose;
    VhcaFabricSmConf sm;
} SwArgs;
void sw_parse_args(int argc, char **argv, SwArgs *a);

#endif /* VHCA_SWITCH_H */
