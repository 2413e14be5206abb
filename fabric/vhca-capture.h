/*
 * vhca - packet capture of a port's frames as the IBA packets they stand
 * for, in pcapng files Wireshark's InfiniBand dissector reads
 * (Documentation/fabric-tests.md "Capture").
 *
 * Plain C (stdio, pthread; no QEMU header): the device (vhca-link.c,
 * vhca-port-capture.c), the standalone switch (tools/vhca-switch*.c) and
 * the host tests (fabric/tests/capture_test.cpp) link the same
 * file: it is part of the fabric library (fabric/).
 *
 * Each frame (vhca-wire.h) becomes the packets it would be on a link:
 * a message of N PSNs is N packets of at most the path MTU, each with its
 * LRH, GRH where the frame has one, BTH, the extension headers of its
 * opcode (IBA 9.2-9.3), its part of the payload, the pad, the ICRC
 * (IBA 7.8.1) and the VCRC (IBA 7.8.2).  Each record is one packet from
 * the first byte of its LRH to the last of its VCRC, behind an ERF record
 * header of type 21, InfiniBand (link type 197, LINKTYPE_ERF): Debian 12's
 * Wireshark 4.0 maps no pcap link type to its InfiniBand dissector (247,
 * LINKTYPE_INFINIBAND, reads as "WTAP_ENCAP = 0"), but its ERF dissector
 * hands type 21 to it.
 *
 * What a frame does not carry is filled in as a subnet without partitions
 * and without credits would carry it: P_Key 0xffff, AETH MSN 0 and the
 * credit field 0x1f ("no credit information", IBA 9.7.5.1.1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_CAPTURE_H
#define HW_INFINIBAND_VHCA_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vhca-wire.h"

#define VHCA_CAPTURE_LINKTYPE_ERF 197   /* LINKTYPE_ERF */
#define VHCA_CAPTURE_ERF_TYPE   21      /* ERF_TYPE_INFINIBAND */
#define VHCA_CAPTURE_ERF_HDR    16
#define VHCA_CAPTURE_ANY        0xffffffffu
/* LRH + GRH + BTH + the longest extension headers + pad + ICRC + VCRC. */
#define VHCA_CAPTURE_MAX_HDRS   (8 + 40 + 12 + 4 + 28 + 4 + 3 + 4 + 2)
#define VHCA_CAPTURE_MAX_PACKET (VHCA_CAPTURE_MAX_HDRS + \
                                 VHCA_MTU_BYTES(VHCA_MTU_4096))

/* Which packets a capture keeps; a zeroed filter keeps nothing. */
typedef struct VhcaCaptureFilter {
    uint32_t qpn;           /* source or destination QPN, or _ANY */
    uint32_t lid;           /* SLID or DLID, or _ANY */
    bool mads_only;         /* only QP0/QP1 datagrams (SMP, SA, CM, PMA) */
    uint32_t snaplen;       /* bytes kept of each packet; 0: all */
} VhcaCaptureFilter;

static inline void vhca_capture_filter_all(VhcaCaptureFilter *flt)
{
    flt->qpn = VHCA_CAPTURE_ANY;
    flt->lid = VHCA_CAPTURE_ANY;
    flt->mads_only = false;
    flt->snaplen = 0;
}

/*
 * Parse "qpn=N,lid=N,mads,snaplen=N" (any subset, in any order; "" is no
 * filter) into *flt.  Returns NULL or what is wrong.
 */
const char *vhca_capture_filter_parse(const char *text,
                                      VhcaCaptureFilter *flt);

typedef struct VhcaCapture VhcaCapture;

/*
 * Create path (truncating it) with one interface per name in ifnames
 * (nif of them: a device port is one, a switch has one per port).
 * Returns NULL with errno set.
 */
VhcaCapture *vhca_capture_open(const char *path, const VhcaCaptureFilter *flt,
                               const char *const *ifnames, unsigned nif);
void vhca_capture_close(VhcaCapture *c);

/*
 * Record frame f (its payload at f->payload) crossing interface ifidx,
 * outbound (sent by the port) or inbound, on a link of mtu bytes (256 ..
 * 4096; where the frame's PSN count says another MTU, that one).  Frames
 * that are no IB packets (HELLO, LINK) and frames the filter refuses
 * write nothing.  Returns the packets written.
 */
unsigned vhca_capture_frame(VhcaCapture *c, unsigned ifidx, bool outbound,
                            const VhcaWireFrame *f, unsigned mtu);

/* The number of packets written, and of those the filter refused. */
void vhca_capture_stats(VhcaCapture *c, uint64_t *written,
                        uint64_t *filtered);

/*
 * The encoder under vhca_capture_frame(), for tests: the number of IB
 * packets frame f makes on a port of port_mtu (*first: the index in its
 * message of the segment's first packet, *mtu_used: the MTU the frame's
 * PSN count says), and packet k of them (k counts from the segment's
 * first) into buf (VHCA_CAPTURE_MAX_PACKET bytes).  Returns its length.
 */
unsigned vhca_capture_packets(const VhcaWireFrame *f, unsigned port_mtu,
                              unsigned *first, unsigned *mtu_used);
size_t vhca_capture_packet(const VhcaWireFrame *f, unsigned port_mtu,
                           unsigned k, uint8_t *buf);

/* IBA 7.8.1 ICRC of a packet whose ICRC begins at icrc_off; 7.8.2 VCRC. */
uint32_t vhca_capture_icrc(const uint8_t *pkt, size_t icrc_off);
uint16_t vhca_capture_vcrc(const uint8_t *pkt, size_t vcrc_off);

#endif /* HW_INFINIBAND_VHCA_CAPTURE_H */
