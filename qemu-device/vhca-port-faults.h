/*
 * vhca - faults on a cabled port's link (vhca-port-faults.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_PORT_FAULTS_H
#define VHCA_PORT_FAULTS_H

#include "vhca.h"

/* instance_init: the portN-* fault properties of one port. */
void vhca_port_faults_init(Object *obj, VhcaPort *port);
/* A data frame leaves by the port's link (vhca-link.c). */
void vhca_port_faults_egress(VhcaPort *port, const uint8_t *frame,
                             uint32_t len);
/* A fault rule's hold (reorder) or delay of one frame. */
void vhca_port_faults_hold(VhcaPort *port, const uint8_t *frame,
                           uint32_t len);
void vhca_port_faults_delay(VhcaPort *port, const uint8_t *frame,
                            uint32_t len, uint32_t ms);
/* The cable is pulled or the device reset: held and delayed frames die. */
void vhca_port_faults_flush(VhcaPort *port);
/* The link goes away (unrealize). */
void vhca_port_faults_free(VhcaPort *port);

#endif /* VHCA_PORT_FAULTS_H */
