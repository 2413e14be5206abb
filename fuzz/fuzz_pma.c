/*
 * libFuzzer target: the Performance Management Agent
 * (fabric/vhca-pma.c), what the device does with every datagram that
 * reaches QPN 1 of one of its ports, from this guest or from the fabric.
 *
 * Input: byte 0 the device (bit 0: 1 or 2 ports; bit 1: the request came
 * in on port 2 if it exists; bit 2: a switch, ports 0 and 1); bytes 1..8 seed the counters; the rest is
 * the message, in a heap buffer of exactly its length (so that
 * AddressSanitizer sees any read past it).
 *
 * Besides the sanitizers: the response is written only for
 * VHCA_PMA_REPLY, which needs a 256-byte MAD of base version 1, class
 * 0x04 and a request method; it is then the request with method GetResp,
 * the status and the data area changed and nothing else.  A Get changes
 * no counter; a Set only clears (never raises one), and only a Set of
 * PortCounters or PortCountersExtended with status 0 changes anything.
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
#include "vhca-pma.h"

#define HEADER_BYTES    9
#define DATA_OFF        VHCA_MAD_OFF(vhca_pma_mad, data)

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_pma: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

static void seed_counters(const uint8_t *seed, VhcaPortCounters *c)
{
    c->xmit_data = (uint64_t)seed[0] << 30 | seed[1];
    c->rcv_data = (uint64_t)seed[2] << 34 | seed[3];
    c->xmit_pkts = (uint64_t)seed[4] << 33 | 0x80;
    c->rcv_pkts = (uint64_t)seed[5] << 20 | 0x40;
    c->multicast_xmit_pkts = c->xmit_pkts / 3;
    c->multicast_rcv_pkts = c->rcv_pkts / 5;
    c->rcv_errors = seed[6] << 9;
    c->xmit_discards = seed[7];
    c->link_downed = seed[7] << 2;
}

/* Every field of after is at most before's, and equal for a Get. */
static void check_counters(const VhcaPortCounters *before,
                           const VhcaPortCounters *after, bool may_clear)
{
    const uint64_t *b = (const uint64_t *)before;
    const uint64_t *a = (const uint64_t *)after;
    size_t i;

    for (i = 0; i < sizeof(*before) / sizeof(uint64_t); i++) {
        expect(a[i] == b[i] || (may_clear && a[i] < b[i]),
               "counter changed", i, may_clear);
    }
    expect(after->multicast_xmit_pkts <= after->xmit_pkts,
           "multicast above total (xmit)", 0, 0);
    expect(after->multicast_rcv_pkts <= after->rcv_pkts,
           "multicast above total (rcv)", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VhcaPortCounters ports[VHCA_MAX_PORTS], before[VHCA_MAX_PORTS];
    VhcaPortCounters *counters[VHCA_MAX_PORTS];
    uint8_t resp[VHCA_MAD_SIZE + 16];
    uint8_t num_ports, local_port;
    VhcaPmaAction act;
    uint16_t status, attr;
    uint8_t *req;
    size_t len, i;
    bool set;

    if (size < HEADER_BYTES) {
        return 0;
    }
    num_ports = (data[0] & 1) + 1;
    local_port = (data[0] & 4) ? VHCA_PMA_SWITCH :
                 (data[0] & 2) && num_ports == 2 ? 2 : 1;
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        seed_counters(data + 1, &ports[i]);
        counters[i] = &ports[i];
    }
    memcpy(before, ports, sizeof(ports));
    len = size - HEADER_BYTES;
    req = malloc(len ? len : 1);
    memcpy(req, data + HEADER_BYTES, len);
    memset(resp, 0xa5, sizeof(resp));

    act = vhca_pma_process(req, len, local_port, num_ports, counters, resp,
                           &status);

    for (i = VHCA_MAD_SIZE; i < sizeof(resp); i++) {
        expect(resp[i] == 0xa5, "write past the response", i, resp[i]);
    }
    if (act != VHCA_PMA_REPLY) {
        for (i = 0; i < VHCA_MAD_SIZE; i++) {
            expect(resp[i] == 0xa5, "response written without a reply", i,
                   act);
        }
        for (i = 0; i < VHCA_MAX_PORTS; i++) {
            check_counters(&before[i], &ports[i], false);
        }
        free(req);
        return 0;
    }
    expect(len == VHCA_MAD_SIZE && req[VHCA_MAD(base_version)] == 1 &&
           vhca_mad_class(req) == VHCA_MGMT_CLASS_PERF_MGMT,
           "reply to a non-PerfMgt MAD", len, vhca_mad_class(req));
    expect(!(vhca_mad_method(req) & VHCA_MGMT_METHOD_RESP),
           "reply to a response", vhca_mad_method(req), 0);
    expect(vhca_mad_method(resp) == VHCA_MGMT_METHOD_GET_RESP,
           "method not GetResp", vhca_mad_method(resp), 0);
    expect(vhca_mad_status(resp) == status, "status", vhca_mad_status(resp),
           status);
    expect(status == 0 || status == VHCA_MAD_STATUS_BAD_VERSION ||
           status == VHCA_MAD_STATUS_UNSUP_METHOD ||
           status == VHCA_MAD_STATUS_UNSUP_METHOD_ATTR ||
           status == VHCA_MAD_STATUS_INVALID_ATTR_VALUE, "unknown status",
           status, 0);
    for (i = 0; i < DATA_OFF; i++) {
        if (i != VHCA_MAD(method) && i != VHCA_MAD(status) &&
            i != VHCA_MAD(status) + 1) {
            expect(resp[i] == req[i], "header changed", i, resp[i]);
        }
    }
    attr = vhca_mad_attr(req);
    set = vhca_mad_method(req) == VHCA_MGMT_METHOD_SET && status == 0 &&
          (attr == VHCA_PMA_ATTR_PORT_COUNTERS ||
           attr == VHCA_PMA_ATTR_PORT_COUNTERS_EXT);
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        check_counters(&before[i], &ports[i], set);
    }
    free(req);
    return 0;
}
