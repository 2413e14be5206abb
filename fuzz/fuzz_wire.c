/*
 * libFuzzer target: the frames a cabled port or the standalone switch gets
 * from the wire (fabric/vhca-wire.c, format in vhca-wire.h).
 *
 * Input: the frame, in a heap buffer of exactly its length (so that
 * AddressSanitizer sees any read past it).
 *
 * Besides the sanitizers: an accepted frame's payload lies inside the
 * input and is what follows the header; a data-carrying frame's payload is
 * the segment of its message at its offset (a datagram's: the whole
 * message, at most VHCA_WIRE_MAX_PAYLOAD), inside the message, which is at
 * most VHCA_WIRE_MAX_MESSAGE; frames with no data have offset 0; encoding the
 * decoded frame and parsing it again gives the same frame (so the device
 * and the switch can forward what they parsed); the same for a HELLO's
 * node description.
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
#include "vhca-wire.h"

static void expect(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wire: %s\n", what);
        abort();
    }
}

static void check_hello(const VhcaWireFrame *f)
{
    struct vhca_wire_hello out;
    VhcaWireHello h, h2;
    VhcaWireFrame g = *f;

    if (vhca_wire_hello_parse(f, &h)) {
        return;
    }
    expect(h.local_port >= 1 && h.local_port <= h.num_ports &&
           h.num_ports <= VHCA_MAX_PORTS, "HELLO port numbers");
    vhca_wire_hello_encode(&h, &out);
    g.payload = (const uint8_t *)&out;
    expect(!vhca_wire_hello_parse(&g, &h2) && !memcmp(&h, &h2, sizeof(h)),
           "HELLO round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    struct vhca_wire_hdr hdr;
    VhcaWireFrame f, g;
    uint8_t *again;

    memcpy(buf, data, size);
    if (vhca_wire_parse(buf, size, &f)) {
        free(buf);
        return 0;
    }
    expect(f.payload == buf + sizeof(hdr) &&
           f.payload_len == size - sizeof(hdr), "payload placement");
    expect(f.length <= VHCA_WIRE_MAX_MESSAGE, "message length");
    if (f.kind == VHCA_WIRE_DATAGRAM) {
        expect(f.offset == 0 && f.payload_len == f.length,
               "datagram payload is the message");
    }
    if (f.kind == VHCA_WIRE_HELLO || f.kind == VHCA_WIRE_LINK) {
        expect(f.offset == 0, "offset of a link frame");
    } else if (f.payload_len) {
        expect((uint64_t)f.offset + f.payload_len <= f.length &&
               f.offset % VHCA_WIRE_MAX_PAYLOAD == 0 &&
               (f.payload_len == VHCA_WIRE_MAX_PAYLOAD ||
                f.offset + f.payload_len == f.length),
               "payload is a segment of the message");
    } else {
        expect(f.offset == 0, "offset of a frame without data");
    }
    vhca_wire_encode(&f, &hdr);
    again = malloc(size);
    memcpy(again, &hdr, sizeof(hdr));
    memcpy(again + sizeof(hdr), f.payload, f.payload_len);
    expect(!vhca_wire_parse(again, size, &g), "re-encoded frame refused");
    g.payload = f.payload;
    expect(!memcmp(&f, &g, sizeof(f)), "round trip");
    if (f.kind == VHCA_WIRE_HELLO) {
        check_hello(&f);
    }
    free(again);
    free(buf);
    return 0;
}
