/*
 * libFuzzer target: the Subnet Management Agent (fabric/vhca-sma.c),
 * what the device does with every SMP a guest sends to its own port.
 *
 * Input: byte 0 the node (bit 0: 1 or 2 ports; bit 1: local port 2 if it
 * exists; bits 2..4: port 1's state 0..7; bit 5: port 1 without a LID;
 * bit 6: an SM may Set, as on a port cabled to a switch with no SM);
 * bytes 1..2 the DLID (little-endian); byte 3 the remote QPN (0 or not);
 * the rest is the message, in a heap buffer of exactly its length (so that
 * AddressSanitizer sees any read past it).
 *
 * Besides the sanitizers: the response is written only for
 * VHCA_SMA_REPLY; it is then the request with method GetResp (0x81), the
 * status (D bit for directed route) and the 64-byte data area changed and
 * nothing else; a reply needs a 256-byte SMP of base version 1, class
 * 0x01 to the local port's LID or class 0x81 with hop count 0, and a
 * request method.
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
#include "vhca-sma.h"
#include "smp_answer_check.h"

#define HEADER_BYTES    4

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sma: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VhcaSmaNode node, before;
    VhcaSmaAction act;
    uint8_t resp[VHCA_MAD_SIZE + 16];
    uint8_t *req;
    uint16_t dlid, status;
    size_t len, i;
    bool dr;

    if (size < HEADER_BYTES) {
        return 0;
    }
    memset(&node, 0, sizeof(node));
    node.node_guid = 0x5254000000001230ull;
    node.sys_image_guid = node.node_guid;
    node.vendor_id = 0x525400;
    node.device_id = 0x10f0;
    node.revision = 1;
    node.num_ports = (data[0] & 1) + 1;
    node.local_port = (data[0] & 2) && node.num_ports == 2 ? 2 : 1;
    memset(node.node_desc, 'n', sizeof(node.node_desc));
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        node.ports[i].state = 4;
        node.ports[i].phys_state = 5;
        node.ports[i].lid = 2 + i;
        node.ports[i].sm_lid = 1;
        node.ports[i].guid = node.node_guid + 1 + i;
        node.ports[i].cap_mask = 0x10800;
        vhca_port_sm_conf_default(&node.ports[i].conf);
    }
    node.sm_sets = data[0] & 0x40;
    node.ports[0].state = (data[0] >> 2) & 7;
    if (data[0] & 0x20) {
        node.ports[0].lid = 0;
    }
    dlid = data[1] | data[2] << 8;
    len = size - HEADER_BYTES;
    req = malloc(len ? len : 1);
    memcpy(req, data + HEADER_BYTES, len);
    memset(resp, 0xa5, sizeof(resp));
    before = node;

    act = vhca_sma_process(req, len, dlid, data[3], &node, resp, &status);

    expect(!memcmp(&node, &before, sizeof(node)) ||
           (node.sm_sets && act == VHCA_SMA_REPLY && req[3] == 0x02 &&
            status == 0), "node changed without a Set it took", act,
           status);

    for (i = VHCA_MAD_SIZE; i < sizeof(resp); i++) {
        expect(resp[i] == 0xa5, "write past the response", i, resp[i]);
    }
    if (act != VHCA_SMA_REPLY) {
        for (i = 0; i < VHCA_MAD_SIZE; i++) {
            expect(resp[i] == 0xa5, "response written without a reply", i,
                   act);
        }
        free(req);
        return 0;
    }
    expect(len == VHCA_MAD_SIZE && data[3] == 0 && req[0] == 1,
           "reply to a non-SMP", len, req[0]);
    expect(!(req[3] & 0x80) && req[3] != 0x07 && req[3] != 0x05,
           "reply to method", req[3], 0);
    dr = req[1] == 0x81;
    if (dr) {
        expect(req[7] == 0, "directed route with hops", req[7], 0);
    } else {
        const VhcaSmaPort *p = &before.ports[before.local_port - 1];

        expect(req[1] == 0x01, "reply to class", req[1], 0);
        expect(p->lid != 0 && dlid == p->lid, "reply to DLID", dlid, p->lid);
    }
    smp_answer_check(req, resp, status, dr, expect);
    free(req);
    return 0;
}
