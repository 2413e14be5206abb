/*
 * libFuzzer target: Subnet Administration (fabric/vhca-sa.c,
 * vhca-sa-mcast.c, vhca-sa-rmpp.c), what the fabric's SM does with every
 * MAD a guest's GSI QP sends to SM LID 1.
 *
 * Input: byte 0 the fabric (bits 0..2: 1..8 ACTIVE ports, bit 3: ports of
 * two-port nodes); then messages, each a byte choosing the requesting port
 * (byte % ports) and its length (bit 7 set: the next byte is the length,
 * else 256), then the message.  The SA's state (groups, RMPP transfers)
 * carries over from message to message, so joins, leaves and RMPP ACKs
 * meet the state earlier messages made.  Each message is in a heap buffer
 * of exactly its length.
 *
 * Besides the sanitizers: answers only for REPLIED, at most
 * VHCA_SA_MAX_SEGS of them; each a SubnAdm MAD of the request's TID with a
 * response method and a known status; the group table keeps distinct
 * MLIDs from 0xc000 up, the broadcast group, and members with a join
 * state; an empty group is gone unless it is the broadcast group.
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
#include "vhca-sa.h"

#define MAX_FABRIC_PORTS    8

typedef struct Answers {
    uint32_t n;
    uint64_t tid;
} Answers;

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sa: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

static bool status_known(uint16_t st)
{
    return st == 0 || st == VHCA_MAD_STATUS_BAD_VERSION ||
           st == VHCA_MAD_STATUS_UNSUP_METHOD ||
           st == VHCA_MAD_STATUS_UNSUP_METHOD_ATTR ||
           st == VHCA_SA_ERR_NO_RESOURCES || st == VHCA_SA_ERR_REQ_INVALID ||
           st == VHCA_SA_ERR_NO_RECORDS ||
           st == VHCA_SA_ERR_TOO_MANY_RECORDS ||
           st == VHCA_SA_ERR_REQ_INVALID_GID ||
           st == VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
}

static void check_answer(void *opaque, const uint8_t *mad)
{
    Answers *a = opaque;

    a->n++;
    expect(a->n <= VHCA_SA_MAX_SEGS, "too many answers", a->n, 0);
    expect(mad[VHCA_MAD(base_version)] == 1 &&
           vhca_mad_class(mad) == VHCA_MGMT_CLASS_SUBN_ADM, "not SubnAdm",
           mad[VHCA_MAD(base_version)], vhca_mad_class(mad));
    expect(vhca_mad_method(mad) & VHCA_MGMT_METHOD_RESP,
           "not a response method", vhca_mad_method(mad), 0);
    expect(vhca_mad_tid(mad) == a->tid, "TID changed", 0, 0);
    expect(status_known(vhca_mad_status(mad)), "unknown status",
           vhca_mad_status(mad), 0);
}

static void check_groups(const VhcaSa *sa)
{
    uint32_t i, j;

    expect(sa->groups[0].valid && sa->groups[0].mlid == VHCA_MIN_MLID,
           "broadcast group lost", 0, 0);
    for (i = 0; i < VHCA_SA_MAX_GROUPS; i++) {
        const VhcaSaGroup *g = &sa->groups[i];

        if (!g->valid) {
            continue;
        }
        expect(g->mlid == VHCA_MIN_MLID + i, "MLID", g->mlid, i);
        expect(g->nmembers <= VHCA_SA_MAX_MEMBERS, "members", g->nmembers, i);
        expect(g->permanent || g->nmembers > 0, "empty group kept", i, 0);
        for (j = 0; j < g->nmembers; j++) {
            expect(g->members[j].join_state != 0, "member without join", i, j);
        }
        for (j = i + 1; j < VHCA_SA_MAX_GROUPS; j++) {
            expect(!sa->groups[j].valid ||
                   memcmp(sa->groups[j].mgid, g->mgid, 16), "MGID twice",
                   i, j);
        }
    }
}

static void make_fabric(VhcaSa *sa, uint8_t b)
{
    uint32_t i;

    sa->num_ports = 1 + (b & 7);
    for (i = 0; i < sa->num_ports; i++) {
        VhcaSmaNode *n = &sa->ports[i].node;
        uint8_t lp = (b & 8) ? 1 + (i & 1) : 1;

        memset(n, 0, sizeof(*n));
        n->node_guid = 0x5254000000001000ull + ((b & 8) ? i / 2 : i) * 0x100;
        n->sys_image_guid = n->node_guid;
        n->vendor_id = 0x525400;
        n->device_id = 0x10f0;
        n->revision = 1;
        n->num_ports = (b & 8) ? 2 : 1;
        n->local_port = lp;
        memset(n->node_desc, 'n', sizeof(n->node_desc));
        n->ports[lp - 1].state = 4;
        n->ports[lp - 1].phys_state = 5;
        n->ports[lp - 1].lid = 2 + i;
        n->ports[lp - 1].sm_lid = 1;
        n->ports[lp - 1].guid = n->node_guid + lp;
        n->ports[lp - 1].cap_mask = 0x10800;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static VhcaSa *sa;
    size_t pos = 1, len;
    VhcaSaResult res;
    Answers a;
    uint16_t status, slid;
    uint8_t *req;

    if (size < 1) {
        return 0;
    }
    if (!sa) {
        sa = malloc(sizeof(*sa));
    }
    vhca_sa_init(sa);
    make_fabric(sa, data[0]);
    while (pos < size) {
        uint8_t sel = data[pos++];

        slid = 2 + sel % sa->num_ports;
        len = 256;
        if (sel & 0x80) {
            if (pos >= size) {
                break;
            }
            len = data[pos++];
        }
        len = MIN(len, size - pos);
        req = malloc(len ? len : 1);
        memcpy(req, data + pos, len);
        pos += len;

        memset(&a, 0, sizeof(a));
        a.tid = len >= VHCA_MAD(tid) + sizeof(uint64_t) ? vhca_mad_tid(req) : 0;
        res = vhca_sa_process(sa, req, len, slid, check_answer, &a, &status);
        expect((res == VHCA_SA_REPLIED) == (a.n > 0), "answers vs result",
               res, a.n);
        expect(status_known(status), "unknown status returned", status, 0);
        expect(sa->num_ports <= VHCA_SA_MAX_PORTS, "ports", sa->num_ports, 0);
        check_groups(sa);
        free(req);
    }
    return 0;
}
