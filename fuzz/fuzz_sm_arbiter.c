/*
 * libFuzzer target: an embedded SM's SMInfo arbitration
 * (fabric/vhca-sm-arbiter.c), as both switches run it, driven by
 * any sequence of clock ticks, SMPs that reach it (requests, and answers
 * to its own requests with TIDs it used or not) and SMs appearing.
 *
 * Input: byte 0 its priority (low 4 bits) and poll retries (high 4 bits);
 * then events: a byte whose low 2 bits say what (0: the clock moves by
 * (byte >> 2) * 50 ms and the tick runs if due; 1: the next 256 bytes
 * are an SMP to it, directed route if bit 2; 2: an SM appeared; 3: the
 * next 256 bytes are a GetResp to its last request, the status, TID and
 * method put in as its own).
 *
 * Besides the sanitizers: the state stays one of the four; the tick is
 * armed exactly when the state is not NOT-ACTIVE; the unanswered polls
 * never pass poll_retries + 1; every SMP it sends is a LID-routed
 * SubnGet(SMInfo) or SubnSet(SMInfo) HANDOVER with its TID prefix and its
 * own SMInfo (GUID, state); an answer is written only for a reply, and
 * only inside its 256 bytes; `became` is told of real changes (or a
 * HANDOVER to a MASTER).
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
#include "vhca-sm-arbiter.h"

#define OUR_GUID        0x525400ff00000001ull
#define EVENT_MAD       VHCA_MAD_SIZE

static struct {
    uint64_t last_tid;
    uint8_t last_method;
    uint8_t state_at_became;
} seen;

static void expect(bool ok, const char *what, unsigned long a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sm_arbiter: %s (%lu, %u)\n", what, a, b);
        abort();
    }
}

static bool fz_send(VhcaSmArbiter *arb, uint64_t guid, const uint8_t *mad)
{
    VhcaSmInfo smi;

    vhca_sm_info_decode(mad + VHCA_SMP_DATA_OFF, &smi);
    expect(mad[0] == 1 && mad[1] == VHCA_MGMT_CLASS_SUBN_LID && mad[2] == 1,
           "not a LID-routed SMP", mad[1], mad[0]);
    expect(vhca_get_be16(mad + 16) == VHCA_SMP_ATTR_SM_INFO, "not SMInfo",
           vhca_get_be16(mad + 16), 0);
    expect(mad[3] == VHCA_MGMT_METHOD_GET ||
           (mad[3] == VHCA_MGMT_METHOD_SET &&
            vhca_get_be32(mad + 20) == VHCA_SMINFO_HANDOVER),
           "a request it never sends", mad[3], vhca_get_be32(mad + 20));
    expect((vhca_get_be64(mad + 8) >> 48) == 0x534d, "TID prefix",
           vhca_get_be64(mad + 8) >> 48, 0);
    expect(smi.guid == OUR_GUID && smi.state == arb->state &&
           smi.priority == arb->conf.priority, "its SMInfo", smi.state,
           arb->state);
    expect(guid != OUR_GUID, "a request to itself", guid, 0);
    seen.last_tid = vhca_get_be64(mad + 8);
    seen.last_method = mad[3];
    return guid & 1;            /* some SMs have no route */
}

static int fz_sm_ports(VhcaSmArbiter *arb, uint64_t *guids, int max)
{
    static const uint64_t sms[] = { 0x5254000000000a01ull, OUR_GUID,
                                    0x5254000000000b02ull };
    int i;

    for (i = 0; i < 3 && i < max; i++) {
        guids[i] = sms[i];
    }
    return i;
}

static void fz_became(VhcaSmArbiter *arb, uint8_t old)
{
    expect(arb->state <= VHCA_SM_STATE_MASTER, "state", arb->state, old);
    expect(arb->state != old || old == VHCA_SM_STATE_MASTER,
           "became without a change", old, arb->state);
    seen.state_at_became = arb->state;
}

static const VhcaSmArbiterOps fz_ops = {
    .send = fz_send,
    .sm_ports = fz_sm_ports,
    .became = fz_became,
};

static void check(const VhcaSmArbiter *arb)
{
    expect(arb->state <= VHCA_SM_STATE_MASTER, "state", arb->state, 0);
    expect((arb->due_ms >= 0) == (arb->state != VHCA_SM_STATE_NOT_ACTIVE),
           "tick armed in NOT-ACTIVE or not armed otherwise",
           (unsigned long)arb->due_ms, arb->state);
    expect(arb->unanswered <= arb->conf.poll_retries + 1, "unanswered",
           arb->unanswered, arb->conf.poll_retries);
}

/* One SMP (256 bytes at mad) to it; the answer checked. */
static void fz_smp(VhcaSmArbiter *arb, uint8_t *mad, bool dr, int64_t now)
{
    uint8_t resp[VHCA_MAD_SIZE + 16];
    VhcaSmaAction act;
    uint16_t status;
    size_t i;

    memset(resp, 0xa5, sizeof(resp));
    act = vhca_sm_arbiter_smp(arb, mad, dr, resp, &status, now);
    for (i = act == VHCA_SMA_REPLY ? VHCA_MAD_SIZE : 0; i < sizeof(resp);
         i++) {
        expect(resp[i] == 0xa5, "response written out of place", i, act);
    }
    if (act == VHCA_SMA_REPLY) {
        expect(resp[3] == VHCA_MGMT_METHOD_GET_RESP, "not a GetResp",
               resp[3], 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VhcaFabricSmConf conf = { .embedded = true, .poll_ms = 100 };
    VhcaSmArbiter arb;
    uint8_t mad[VHCA_MAD_SIZE];
    int64_t now = 1000;
    size_t at = 1;

    if (size < 1) {
        return 0;
    }
    conf.priority = data[0] & 0xf;
    conf.poll_retries = data[0] >> 4;
    memset(&seen, 0, sizeof(seen));
    vhca_sm_arbiter_init(&arb, &fz_ops, NULL, &conf, OUR_GUID, now);
    check(&arb);
    while (at < size) {
        uint8_t ev = data[at++];

        switch (ev & 3) {
        case 0:
            now += (ev >> 2) * 50;
            if (arb.due_ms >= 0 && now >= arb.due_ms) {
                vhca_sm_arbiter_tick(&arb, now);
            }
            break;
        case 2:
            vhca_sm_arbiter_sm_appeared(&arb, now);
            break;
        default:
            if (size - at < EVENT_MAD) {
                return 0;
            }
            memcpy(mad, data + at, EVENT_MAD);
            at += EVENT_MAD;
            if ((ev & 3) == 3) {        /* an answer to its last request */
                mad[0] = 1;
                mad[3] = VHCA_MGMT_METHOD_GET_RESP;
                vhca_put_be64(mad + 8, seen.last_tid);
                vhca_put_be16(mad + 16, VHCA_SMP_ATTR_SM_INFO);
            }
            fz_smp(&arb, mad, ev & 4, now);
            break;
        }
        check(&arb);
    }
    return 0;
}
