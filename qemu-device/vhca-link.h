/*
 * vhca - a port cabled out of the QEMU process: its frames go through a
 * QEMU netdev (the `portN-netdev` property) to a switch (vhca-link.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_LINK_H
#define HW_INFINIBAND_VHCA_LINK_H

#include "net/net.h"
#include "vhca-transport.h"
#include "vhca-wire.h"

void vhca_link_attach(VhcaPort *port, NICConf *conf);
void vhca_link_detach(VhcaPort *port);
bool vhca_link_cabled(const VhcaPort *port);
/* The port's link came up: say HELLO to the switch until its SM answers. */
void vhca_link_port_init(VhcaPort *port);
/* The port's link went down, the cable in: tell the switch (LINK DOWN). */
void vhca_link_port_down(VhcaPort *port);

/* An RC/UC request leaves (false: not sent, *ack says why). */
bool vhca_link_send_request(VhcaQp *qp, VhcaPacket *pkt, VhcaAck *ack);
void vhca_link_uc_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
bool vhca_link_send_datagram(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt);
/* A frame out of port's cable (for the device's agents). */
/* One encoded frame onto the port's netdev, past the link's faults. */
void vhca_link_put(VhcaPort *port, const uint8_t *frame, uint32_t len);
void vhca_link_send(VhcaPort *port, VhcaWireFrame *f,
                    const uint8_t *payload, uint32_t payload_len);
/*
 * vhca-link-agents.c: a datagram from the wire that the device's SMA or
 * PMA answers (true: answered, not for the guest's QP).
 */
bool vhca_link_agents_take(VhcaPort *port, const VhcaWireFrame *f,
                           VhcaPacket *pkt);
/* The SMA's trap (mad) out of port's cable to its MasterSMLID's QP0. */
void vhca_link_trap_send(VhcaPort *port, const uint8_t *mad);

/* RESET of a QP: a message being put together for it is stale. */
void vhca_link_forget(VhcaQp *qp);

#endif /* HW_INFINIBAND_VHCA_LINK_H */
