/*
 * libFuzzer target: the SMA of the fabric's switch
 * (fabric/vhca-switch-sma.c), what it does with every SMP that
 * reaches it, by LID or by directed route.
 *
 * Input: byte 0 the switch's external ports (1..64, byte % 64 + 1);
 * byte 1 the port the SMP came in on (byte % 66: may name no port); byte
 * 2 bit 0: directed route, bit 1: the embedded SM is off (Sets change the
 * switch); bytes 3..4 the LID of the first CA port (the others follow);
 * then the message, in a heap buffer of exactly its length.
 *
 * Besides the sanitizers: only a 256-byte request gets an answer, written
 * only for VHCA_SMA_REPLY and only inside its 256 bytes; it is the
 * request with method GetResp, a known status (D bit for directed route)
 * and new data, nothing else changed; with the embedded SM on, a Set
 * changes nothing in the switch.
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
#include "vhca-switch-sma.h"
#include "smp_answer_check.h"

#define HEADER_BYTES    5

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_switch_sma: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

static void describe(const uint8_t *data, VhcaSwitchNode *sw)
{
    uint16_t lid = data[3] | data[4] << 8;
    int i;

    vhca_switch_node_init(sw);
    sw->node_guid = 0x525400ff00001234ull;
    sw->vendor_id = 0x525400;
    sw->lid = 1;
    sw->embedded_sm = !(data[2] & 2);
    sw->sm_state = data[2] >> 2 & 3;        /* not MASTER: takes Sets */
    sw->sm_priority = data[2] >> 4;
    sw->num_ports = data[0] % VHCA_SWITCH_MAX_PORTS + 1;
    memset(sw->node_desc, 's', sizeof(sw->node_desc));
    vhca_switch_lft_route(sw, sw->lid, 0);
    for (i = 1; i <= sw->num_ports; i++) {
        sw->ports[i].state = i % 4 + 1;
        sw->ports[i].phys_state = i % 2 ? 5 : 2;
        vhca_switch_lft_route(sw, (uint16_t)(lid + i), i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static VhcaSwitchNode sw, before;
    VhcaSmaAction act;
    uint8_t resp[VHCA_MAD_SIZE + 16];
    uint8_t *req;
    uint16_t status;
    size_t len, i;
    bool dr;

    if (size < HEADER_BYTES + VHCA_MAD_SIZE) {
        return 0;               /* the caller only passes whole MADs */
    }
    describe(data, &sw);
    dr = data[2] & 1;
    len = VHCA_MAD_SIZE;
    req = malloc(len);
    memcpy(req, data + HEADER_BYTES, len);
    memset(resp, 0xa5, sizeof(resp));
    before = sw;

    act = vhca_switch_sma_answer(req, dr, &sw, data[1] % 66, resp, &status);

    expect(!memcmp(&sw, &before, sizeof(sw)) ||
           ((!sw.embedded_sm || sw.sm_state != VHCA_SM_STATE_MASTER) &&
            req[3] == 0x02 && status == 0),
           "switch changed without a Set it took", req[3], status);

    for (i = VHCA_MAD_SIZE; i < sizeof(resp); i++) {
        expect(resp[i] == 0xa5, "write past the response", i, resp[i]);
    }
    if (act != VHCA_SMA_REPLY) {
        /* TrapRepress is taken; a response or a Trap (for an SM, IBA
         * 14.2.5.1) is not the agent's */
        expect(act == VHCA_SMA_CONSUMED ? req[3] == 0x07
                                        : req[3] & 0x80 || req[3] == 0x05,
               "no reply to a request", req[3], act);
        for (i = 0; i < VHCA_MAD_SIZE; i++) {
            expect(resp[i] == 0xa5, "response written without a reply", i,
                   act);
        }
        free(req);
        return 0;
    }
    expect(!(req[3] & 0x80) && req[3] != 0x07, "reply to method", req[3], 0);
    smp_answer_check(req, resp, status, dr, expect);
    free(req);
    return 0;
}
