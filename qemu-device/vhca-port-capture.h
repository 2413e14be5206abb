/*
 * vhca - capture of a cabled port's packets (vhca-port-capture.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_PORT_CAPTURE_H
#define VHCA_PORT_CAPTURE_H

#include "vhca.h"
#include "vhca-wire.h"

/* instance_init: the portN-capture* properties. */
void vhca_port_capture_init(Object *obj);
/* realize, the port cabled or not: start the capture -device asked for. */
bool vhca_port_capture_realize(VhcaPort *port, Error **errp);
/* A frame the port sends (outbound) or receives; only while port->capture. */
void vhca_port_capture_frame(VhcaPort *port, const VhcaWireFrame *f,
                             bool outbound);
/* unrealize: the file is closed, complete. */
void vhca_port_capture_free(VhcaPort *port);

#endif /* VHCA_PORT_CAPTURE_H */
